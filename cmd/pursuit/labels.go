package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
)

// Tasks a model can be trained for.
const (
	taskBinary     = "binary"      // one model; Classes = [negative, positive]
	taskOneVsRest  = "one-vs-rest" // one model per class in Classes
	taskRegression = "regression"  // one model, real-valued output
	// taskOneVsOne: one model per pair (i, j), i < j, of Classes in
	// LIBSVM's order (0,1), (0,2), …, (1,2), …, positive for Classes[i];
	// the label is LIBSVM's vote (ties to the class listed first). Written
	// by `pursuit compress` for a multi-class LIBSVM model; Classes keep
	// the LIBSVM model's order, which decides ties.
	taskOneVsOne = "one-vs-one"
)

// labelPlan says how the labels of a data file become the targets of the
// binary models and how model outputs become predicted labels again. It is
// stored in the model file.
type labelPlan struct {
	Task    string    `json:"task"`
	Classes []float64 `json:"classes,omitempty"`
	// Positive is set for --positive LABEL: the data's labels are mapped to
	// +1 (LABEL) and −1 (every other label), and predictions are ±1.
	Positive *float64 `json:"positive,omitempty"`
}

// planLabels decides the task from the training labels and the flags.
func planLabels(y []float64, d *dataFlags) (labelPlan, error) {
	if d.regression {
		if err := data.CheckTargets(y); err != nil {
			return labelPlan{}, err
		}
		return labelPlan{Task: taskRegression}, nil
	}
	cls := distinct(y)
	if d.positive != "" {
		pos, err := parseLabel(d.positive)
		if err != nil {
			return labelPlan{}, err
		}
		if _, err := data.BinaryLabels(y, pos); err != nil {
			return labelPlan{}, fmt.Errorf("--positive %s: %w", d.positive, err)
		}
		return labelPlan{Task: taskBinary, Classes: []float64{-1, 1}, Positive: &pos}, nil
	}
	switch {
	case len(cls) == 0:
		return labelPlan{}, fmt.Errorf("no examples")
	case len(cls) == 1:
		return labelPlan{}, fmt.Errorf("every training example is labelled %v: a classifier needs at least two classes", cls[0])
	case d.oneVsRest:
		return labelPlan{Task: taskOneVsRest, Classes: cls}, nil
	case len(cls) == 2:
		return labelPlan{Task: taskBinary, Classes: cls}, nil
	}
	return labelPlan{}, fmt.Errorf("the training data has %d classes (%s): choose --positive LABEL for LABEL vs the rest, --one-vs-rest for all of them, or --regression for real-valued targets",
		len(cls), listLabels(cls, 10))
}

// models returns the number of binary models the plan trains.
func (p *labelPlan) models() int {
	switch p.Task {
	case taskOneVsRest:
		return len(p.Classes)
	case taskOneVsOne:
		return len(p.Classes) * (len(p.Classes) - 1) / 2
	}
	return 1
}

// targets returns the training targets of model k for labels y: ±1 for the
// classification tasks, y itself for regression.
func (p *labelPlan) targets(y []float64, k int) []float64 {
	t := make([]float64, len(y))
	for i, v := range y {
		switch {
		case p.Task == taskRegression:
			t[i] = v
		case p.Positive != nil:
			t[i] = sign(v == *p.Positive)
		case p.Task == taskBinary:
			t[i] = sign(v == p.Classes[1])
		default:
			t[i] = sign(v == p.Classes[k])
		}
	}
	return t
}

func sign(b bool) float64 {
	if b {
		return 1
	}
	return -1
}

// truth maps data labels to what predictions are compared with: ±1 under
// --positive, the labels themselves otherwise.
func (p *labelPlan) truth(y []float64) []float64 {
	if p.Positive == nil {
		return y
	}
	return p.targets(y, 0)
}

// decide turns the models' outputs (dec[k][i] for model k, example i) into
// predicted labels.
func (p *labelPlan) decide(dec [][]float64) []float64 {
	n := len(dec[0])
	out := make([]float64, n)
	if p.Task == taskOneVsOne {
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
		case taskRegression:
			out[i] = dec[0][i]
		case taskBinary:
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

// errorRate is the fraction of pred that differs from truth for
// classification, the mean squared error for regression; NaN for no
// examples.
func (p *labelPlan) errorRate(pred, truth []float64) float64 {
	if len(pred) == 0 {
		return math.NaN()
	}
	return p.errorSum(pred, truth) / float64(len(pred))
}

// errorSum is the number of errors (classification) or the sum of squared
// errors (regression) of pred.
func (p *labelPlan) errorSum(pred, truth []float64) float64 {
	var s float64
	for i := range pred {
		if p.Task == taskRegression {
			d := pred[i] - truth[i]
			s += d * d
		} else if pred[i] != truth[i] {
			s++
		}
	}
	return s
}

// foreignLabels counts the labels of y that are none of the plan's
// classes (classification without --positive; predictions for them are
// always wrong) and returns their distinct values.
func (p *labelPlan) foreignLabels(y []float64) (n int, values []float64) {
	if p.Task == taskRegression || p.Positive != nil {
		return 0, nil
	}
	var bad []float64
	for _, v := range y {
		if classIndex(p.Classes, v) < 0 {
			bad = append(bad, v)
		}
	}
	return len(bad), distinct(bad)
}

// check validates a plan read from a model file.
func (p *labelPlan) check() error {
	switch p.Task {
	case taskRegression:
		return nil
	case taskBinary:
		if len(p.Classes) != 2 {
			return fmt.Errorf("binary model with %d class labels", len(p.Classes))
		}
	case taskOneVsRest, taskOneVsOne:
		if len(p.Classes) < 2 {
			return fmt.Errorf("%s model with %d class labels", p.Task, len(p.Classes))
		}
		if len(p.Classes) > 1<<12 {
			return fmt.Errorf("%s model with %d class labels, more than %d", p.Task, len(p.Classes), 1<<12)
		}
	default:
		return fmt.Errorf("unknown task %q", p.Task)
	}
	return nil
}

func distinct(y []float64) []float64 {
	d := &data.Dataset{Y: y}
	return d.Classes()
}

func listLabels(v []float64, max int) string {
	var parts []string
	for i, x := range v {
		if i == max {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, strconv.FormatFloat(x, 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}

func formatLabel(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
