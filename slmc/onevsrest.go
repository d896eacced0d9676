package slmc

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// OneVsRestModel holds one binary model per class: Models[c] separates
// Classes[c] (+1) from the other classes (−1); the class whose model gives
// the largest decision wins.
type OneVsRestModel struct {
	Classes []float64
	Models  []*Model
}

// BinaryTrainer trains one binary model on the ±1 targets t (of the rows of
// the training matrix the caller holds): Train, TrainSKFD, the reduced-set
// methods, each with the caller's configuration.
type BinaryTrainer func(t []float64) (*Model, error)

// TrainOneVsRest trains one binary model per distinct label of y (classes in
// increasing order) with train, each on the targets "this class against the
// rest". Every method of the package is binary; this is how they classify
// more than two classes.
func TrainOneVsRest(y []float64, train BinaryTrainer) (*OneVsRestModel, error) {
	if train == nil {
		return nil, errors.New("slmc: one-vs-rest: nil trainer")
	}
	classes, targets := data.OneVsRest(y)
	if len(classes) < 2 {
		return nil, fmt.Errorf("slmc: one-vs-rest needs at least two classes, the %d labels have %d", len(y), len(classes))
	}
	out := &OneVsRestModel{Classes: classes}
	for c, t := range targets {
		m, err := train(t)
		if err != nil {
			return nil, fmt.Errorf("slmc: one-vs-rest model for class %v: %w", classes[c], err)
		}
		out.Models = append(out.Models, m)
	}
	return out, nil
}

// Predict returns, for each row of x, the class whose model gives the
// largest decision value (ties to the smaller class).
func (o *OneVsRestModel) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	out := make([]float64, x.Rows)
	best := make([]float64, x.Rows)
	for c, m := range o.Models {
		d, err := m.Decision(e, x)
		if err != nil {
			return nil, fmt.Errorf("slmc: one-vs-rest model for class %v: %w", o.Classes[c], err)
		}
		for r, v := range d {
			if c == 0 || v > best[r] {
				best[r], out[r] = v, o.Classes[c]
			}
		}
	}
	return out, nil
}
