package greedy

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// KFDAOneVsRest holds one MP-KFDA discriminant per class: Models[c]
// separates Classes[c] (+1) from the other classes (−1); the class with the
// largest decision wins.
type KFDAOneVsRest struct {
	Classes []float64
	Models  []*KFDA
}

// TrainKFDAOneVsRest trains MP-KFDA (TrainKFDA, with cfg) once per distinct
// label of y, classes in increasing order, each on "this class against the
// rest".
func TrainKFDAOneVsRest(e *engine.Engine, x pursuit.Matrix, y []float64, cfg KFDAConfig) (*KFDAOneVsRest, error) {
	if err := e.RequireOneRank("greedy.TrainKFDAOneVsRest"); err != nil {
		return nil, err
	}
	classes, targets := data.OneVsRest(y)
	if len(classes) < 2 {
		return nil, configErr("MP-KFDA one-vs-rest: the %d labels have %d distinct values, want at least two classes", len(y), len(classes))
	}
	out := &KFDAOneVsRest{Classes: classes}
	for c, t := range targets {
		m, err := TrainKFDA(e, x, t, cfg)
		if err != nil {
			return nil, fmt.Errorf("MP-KFDA one-vs-rest, class %v: %w", classes[c], err)
		}
		out.Models = append(out.Models, m)
	}
	return out, nil
}

// Predict returns, for each row of x, the class whose discriminant gives
// the largest decision value (ties to the smaller class).
func (o *KFDAOneVsRest) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	out := make([]float64, x.Rows)
	best := make([]float64, x.Rows)
	for c, m := range o.Models {
		d, err := m.Decision(e, x)
		if err != nil {
			return nil, fmt.Errorf("MP-KFDA one-vs-rest, class %v: %w", o.Classes[c], err)
		}
		for r, v := range d {
			if c == 0 || v > best[r] {
				best[r], out[r] = v, o.Classes[c]
			}
		}
	}
	return out, nil
}
