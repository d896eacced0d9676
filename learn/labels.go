package learn

import (
	"errors"
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Tasks a model can be trained for.
const (
	TaskBinary     = "binary"      // one model; Classes = [negative, positive]
	TaskOneVsRest  = "one-vs-rest" // one model per class in Classes
	TaskRegression = "regression"  // one model, real-valued output
	// TaskOneVsOne: one model per pair (i, j), i < j, of Classes in
	// LIBSVM's order (0,1), (0,2), …, (1,2), …, positive for Classes[i];
	// the label is LIBSVM's vote (ties to the class listed first). Classes
	// keep the order they were given in, which decides ties.
	TaskOneVsOne = "one-vs-one"
)

// LabelPlan is the multi-class reduction: it says how the labels of a data
// set become the targets of binary models and how model outputs become
// predicted labels again. It is stored in the model file.
type LabelPlan struct {
	Task    string    `json:"task"`
	Classes []float64 `json:"classes,omitempty"`
	// Positive is set for one class against the rest as a binary task:
	// the data's labels are mapped to +1 (*Positive) and −1 (every other
	// label), and predictions are ±1.
	Positive *float64 `json:"positive,omitempty"`
}

// NumModels returns the number of binary models (outputs) the plan trains.
func (p *LabelPlan) NumModels() int {
	switch p.Task {
	case TaskOneVsRest:
		return len(p.Classes)
	case TaskOneVsOne:
		return len(p.Classes) * (len(p.Classes) - 1) / 2
	}
	return 1
}

// Targets returns the training targets of model k for labels y: ±1 for
// the classification tasks, y itself for regression. For one-vs-one, rows
// of neither class of pair k get 0 (Train leaves them out).
func (p *LabelPlan) Targets(y []float64, k int) []float64 {
	var pi, pj int
	if p.Task == TaskOneVsOne {
		pi, pj = p.Pair(k)
	}
	t := make([]float64, len(y))
	for i, v := range y {
		switch {
		case p.Task == TaskRegression:
			t[i] = v
		case p.Positive != nil:
			t[i] = sign(v == *p.Positive)
		case p.Task == TaskBinary:
			t[i] = sign(v == p.Classes[1])
		case p.Task == TaskOneVsOne:
			switch v {
			case p.Classes[pi]:
				t[i] = 1
			case p.Classes[pj]:
				t[i] = -1
			}
		default:
			t[i] = sign(v == p.Classes[k])
		}
	}
	return t
}

// Pair returns the classes (i, j), i < j, of one-vs-one model k.
func (p *LabelPlan) Pair(k int) (i, j int) {
	n := len(p.Classes)
	for i = range n {
		if k < n-1-i {
			return i, i + 1 + k
		}
		k -= n - 1 - i
	}
	return -1, -1
}

func sign(b bool) float64 {
	if b {
		return 1
	}
	return -1
}

// Truth maps data labels to what predictions are compared with: ±1 for a
// Positive plan, the labels themselves otherwise.
func (p *LabelPlan) Truth(y []float64) []float64 {
	if p.Positive == nil {
		return y
	}
	return p.Targets(y, 0)
}

// Decide turns the models' outputs (dec[k][i] for model k, example i) into
// predicted labels.
func (p *LabelPlan) Decide(dec [][]float64) []float64 {
	n := len(dec[0])
	out := make([]float64, n)
	if p.Task == TaskOneVsOne {
		k := len(p.Classes)
		votes := make([]int, k)
		for r := range n {
			clear(votes)
			m := 0
			for i := range k {
				for j := i + 1; j < k; j++ {
					if dec[m][r] > 0 {
						votes[i]++
					} else {
						votes[j]++
					}
					m++
				}
			}
			best := 0
			for c := 1; c < k; c++ {
				if votes[c] > votes[best] {
					best = c
				}
			}
			out[r] = p.Classes[best]
		}
		return out
	}
	for i := range n {
		switch p.Task {
		case TaskRegression:
			out[i] = dec[0][i]
		case TaskBinary:
			if dec[0][i] > 0 {
				out[i] = p.Classes[1]
			} else {
				out[i] = p.Classes[0]
			}
		default:
			best := 0
			for k := 1; k < len(dec); k++ {
				if dec[k][i] > dec[best][i] {
					best = k
				}
			}
			out[i] = p.Classes[best]
		}
	}
	return out
}

// ErrorRate is the fraction of pred that differs from truth for
// classification, the mean squared error for regression; NaN for no
// examples.
func (p *LabelPlan) ErrorRate(pred, truth []float64) float64 {
	if len(pred) == 0 {
		return math.NaN()
	}
	return p.ErrorSum(pred, truth) / float64(len(pred))
}

// ErrorSum is the number of errors (classification) or the sum of squared
// errors (regression) of pred.
func (p *LabelPlan) ErrorSum(pred, truth []float64) float64 {
	var s float64
	for i := range pred {
		if p.Task == TaskRegression {
			d := pred[i] - truth[i]
			s += d * d
		} else if pred[i] != truth[i] {
			s++
		}
	}
	return s
}

// ForeignLabels counts the labels of y that are none of the plan's classes
// (classification without Positive; predictions for them are always
// wrong) and returns their distinct values.
func (p *LabelPlan) ForeignLabels(y []float64) (n int, values []float64) {
	if p.Task == TaskRegression || p.Positive != nil {
		return 0, nil
	}
	var bad []float64
	for _, v := range y {
		if ClassIndex(p.Classes, v) < 0 {
			bad = append(bad, v)
		}
	}
	return len(bad), Distinct(bad)
}

// Check validates a plan read from a model file.
func (p *LabelPlan) Check() error {
	switch p.Task {
	case TaskRegression:
		return nil
	case TaskBinary:
		if len(p.Classes) != 2 {
			return pursuit.BadInputf("binary model with %d class labels", len(p.Classes))
		}
	case TaskOneVsRest, TaskOneVsOne:
		if len(p.Classes) < 2 {
			return pursuit.BadInputf("%s model with %d class labels", p.Task, len(p.Classes))
		}
		if len(p.Classes) > 1<<12 {
			return pursuit.BadInputf("%s model with %d class labels, more than %d", p.Task, len(p.Classes), 1<<12)
		}
	default:
		return pursuit.BadInputf("unknown task %q", p.Task)
	}
	return nil
}

// Distinct returns the distinct labels of y in increasing order.
func Distinct(y []float64) []float64 {
	d := &data.Dataset{Y: y}
	return d.Classes()
}

// ClassIndex returns the index of v in classes, or −1.
func ClassIndex(classes []float64, v float64) int {
	for k, c := range classes {
		if c == v {
			return k
		}
	}
	return -1
}

// LabelSpec says how PlanLabels chooses the task from the training labels.
type LabelSpec struct {
	// Regression: real-valued targets.
	Regression bool
	// Positive: that class against the rest (+1/−1).
	Positive *float64
	// OneVsRest: every class against the rest; else the labels must have
	// two classes (binary).
	OneVsRest bool
}

// PositiveError is PlanLabels' refusal of LabelSpec.Positive (Err is
// data.BinaryLabels' reason: the class is absent, or alone).
type PositiveError struct {
	Positive float64
	Err      error
}

func (e *PositiveError) Error() string {
	return fmt.Sprintf("positive class %s: %v", FormatLabel(e.Positive), e.Err)
}

func (e *PositiveError) Unwrap() error { return e.Err }

// Is makes a PositiveError a pursuit.ErrBadInput.
func (e *PositiveError) Is(target error) bool { return target == pursuit.ErrBadInput }

// ClassesError is PlanLabels' refusal of labels with more than two
// classes when the spec chose neither a positive class nor one-vs-rest.
type ClassesError struct{ Classes []float64 }

// Is makes a ClassesError a pursuit.ErrBadInput.
func (e *ClassesError) Is(target error) bool { return target == pursuit.ErrBadInput }

func (e *ClassesError) Error() string {
	return fmt.Sprintf("the training data has %d classes (%s): choose one class against the rest, one-vs-rest, or regression", len(e.Classes), ListLabels(e.Classes, 10))
}

// PlanLabels decides the task of the training labels y as s says. Across
// the ranks of g (a collective), y is this rank's labels: the classes are
// every rank's, gathered in order of first appearance, and each rank
// checks its own regression targets, the ranks agreeing on the outcome
// through agree (nil: g.Agree).
func PlanLabels(g engine.Group, y []float64, s LabelSpec, agree func(error) error) (LabelPlan, error) {
	if !g.Sharded() {
		return planLabels(y, s)
	}
	if s.Regression {
		var err error
		if len(y) > 0 {
			err = data.CheckTargets(y)
		}
		if agree != nil {
			err = agree(err)
		} else if agreed, cerr := g.Agree(err); cerr != nil {
			err = cerr
		} else {
			err = agreed
		}
		if err != nil {
			return LabelPlan{}, err
		}
		return LabelPlan{Task: TaskRegression}, nil
	}
	cls, err := g.Labels(y)
	if err != nil {
		return LabelPlan{}, err
	}
	if len(cls) == 1 {
		return LabelPlan{}, pursuit.BadInputf("every training example is labelled %v: a classifier needs at least two classes", cls[0])
	}
	// The decisions depend on the set of labels only.
	return planLabels(cls, s)
}

func planLabels(y []float64, s LabelSpec) (LabelPlan, error) {
	if s.Regression {
		if err := data.CheckTargets(y); err != nil {
			return LabelPlan{}, err
		}
		return LabelPlan{Task: TaskRegression}, nil
	}
	cls := Distinct(y)
	if s.Positive != nil {
		pos := *s.Positive
		if _, err := data.BinaryLabels(y, pos); err != nil {
			return LabelPlan{}, &PositiveError{Positive: pos, Err: err}
		}
		return LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}, Positive: &pos}, nil
	}
	switch {
	case len(cls) == 0:
		return LabelPlan{}, pursuit.BadInputf("no examples")
	case len(cls) == 1:
		return LabelPlan{}, pursuit.BadInputf("every training example is labelled %v: a classifier needs at least two classes", cls[0])
	case s.OneVsRest:
		return LabelPlan{Task: TaskOneVsRest, Classes: cls}, nil
	case len(cls) == 2:
		return LabelPlan{Task: TaskBinary, Classes: cls}, nil
	}
	return LabelPlan{}, &ClassesError{Classes: cls}
}

// LabelSettingError restates PlanLabels' refusals of the task (a
// *PositiveError or *ClassesError in err's chain) as a SettingError naming
// the settings that choose the task: positive (as the caller spelled it),
// one-vs-rest and regression. Other errors are returned as they are.
func LabelSettingError(err error, positive string) error {
	var pe *PositiveError
	var ce *ClassesError
	switch {
	case errors.As(err, &pe):
		return settingErr("positive", "{positive} %s: %v", positive, pe.Err)
	case errors.As(err, &ce):
		return settingErr("positive", "the training data has %d classes (%s): choose {positive} LABEL for LABEL vs the rest, {one-vs-rest} for all of them, or {regression} for real-valued targets",
			len(ce.Classes), ListLabels(ce.Classes, 10))
	}
	return err
}
