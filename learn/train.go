package learn

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Train is the multi-class reduction for any learner: it fits l for the
// task of plan on the rows of x with labels y (xVal, yVal: the validation
// set, 0 rows when there is none) and returns the models whose outputs, in
// order, are the plan's NumModels outputs.
//
//   - TaskBinary and TaskRegression: one model on plan.Targets(y, 0).
//   - TaskOneVsRest: l's own FitOneVsRest when it is a OneVsRestLearner,
//     else one binary model per class (that class +1, the rest −1).
//   - TaskOneVsOne: one binary model per pair of classes (i, j), i < j, on
//     the rows of those two classes, positive for Classes[i].
//
// Across ranks (e's communicator), x is this rank's rows and the plan's
// classes every rank's; the binary check of the targets is then left to
// the learner.
func Train(e *engine.Engine, l Learner, plan LabelPlan, x pursuit.Matrix, y []float64, xVal pursuit.Matrix, yVal []float64) ([]Model, error) {
	switch plan.Task {
	case TaskOneVsRest:
		var ms []Model
		var err error
		if o, ok := l.(OneVsRestLearner); ok {
			ms, err = o.FitOneVsRest(e, x, y, plan.Classes, xVal, yVal)
		} else {
			ms, err = eachBinary(e, l, plan, x, y, xVal, yVal, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("one-vs-rest training: %w", err)
		}
		if got, want := Outputs(ms), plan.NumModels(); got != want {
			kind := "?"
			if len(ms) > 0 {
				kind = ms[0].Kind()
			}
			return nil, fmt.Errorf("%s one-vs-rest: %d outputs for %d classes (does every class have training examples?)", kind, got, want)
		}
		return ms, nil
	case TaskOneVsOne:
		ms, err := eachBinary(e, l, plan, x, y, xVal, yVal, plan.Pair)
		if err != nil {
			return nil, fmt.Errorf("one-vs-one training: %w", err)
		}
		return ms, nil
	}
	t := plan.Targets(y, 0)
	var tVal []float64
	if xVal.Rows > 0 {
		tVal = plan.Targets(yVal, 0)
	}
	if plan.Task != TaskRegression && e.Comm().Size() == 1 { // across ranks, the plan saw every rank's labels
		if err := data.CheckBinary(t); err != nil {
			return nil, fmt.Errorf("model for class %s: %w", FormatLabel(plan.Classes[0]), err)
		}
	}
	m, err := l.Fit(e, x, t, xVal, tVal)
	if err != nil {
		return nil, fmt.Errorf("training: %w", err)
	}
	return []Model{m}, nil
}

// eachBinary trains one binary model per output of plan with l.Fit; with
// pair set (one-vs-one) each on the rows of its two classes only.
func eachBinary(e *engine.Engine, l Learner, plan LabelPlan, x pursuit.Matrix, y []float64, xVal pursuit.Matrix, yVal []float64, pair func(int) (int, int)) ([]Model, error) {
	ms := make([]Model, plan.NumModels())
	for k := range ms {
		xk, tk := rowsOf(x, plan.Targets(y, k), pair != nil)
		var xv pursuit.Matrix
		var tv []float64
		if xVal.Rows > 0 {
			xv, tv = rowsOf(xVal, plan.Targets(yVal, k), pair != nil)
		}
		name := FormatLabel(plan.Classes[min(k, len(plan.Classes)-1)])
		if pair != nil {
			i, j := pair(k)
			name = FormatLabel(plan.Classes[i]) + " vs " + FormatLabel(plan.Classes[j])
		}
		if err := data.CheckBinary(tk); err != nil {
			return nil, fmt.Errorf("model for class %s: %w", name, err)
		}
		m, err := l.Fit(e, xk, tk, xv, tv)
		if err != nil {
			return nil, fmt.Errorf("model for class %s: %w", name, err)
		}
		ms[k] = m
	}
	return ms, nil
}

// rowsOf returns x and the targets t, without the rows whose target is 0
// when drop is set (copies), or as they are.
func rowsOf(x pursuit.Matrix, t []float64, drop bool) (pursuit.Matrix, []float64) {
	if !drop {
		return x, t
	}
	var idx []int
	for i, v := range t {
		if v != 0 {
			idx = append(idx, i)
		}
	}
	sub := (&data.Dataset{X: x, Y: t}).Subset(idx)
	return sub.X, sub.Y
}

// NewFile returns the model file of models trained for plan on dim
// features (Header.Algorithm is the first model's kind, Header.NBasis their
// basis functions); the caller fills in the rest of the header.
func NewFile(plan LabelPlan, dim int, kernel pursuit.Kernel, models []Model) *File {
	f := &File{Header: Header{Labels: plan, Dim: dim, Kernel: kernel.String()}, Models: models}
	if len(models) > 0 {
		f.Header.Algorithm = models[0].Kind()
	}
	f.Header.NBasis = f.NBasis()
	return f
}

// Predict returns the labels (or values) f predicts for the rows of x
// (scaled as the header's Scaler says).
func (m *File) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	dec, err := m.Decisions(e, x)
	if err != nil {
		return nil, err
	}
	return m.Header.Labels.Decide(dec), nil
}
