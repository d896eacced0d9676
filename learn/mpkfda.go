package learn

import (
	"fmt"
	"io"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

// MPKFDADefaultSteps is the number of basis vectors MPKFDA chooses when
// Config.Steps is 0 (at most the training rows).
const MPKFDADefaultSteps = 100

// MPKFDA is the matching-pursuit kernel Fisher discriminant of package
// greedy, a binary classifier (one-vs-rest trains one per class).
type MPKFDA struct {
	// Config is greedy's configuration; Steps 0 means
	// min(MPKFDADefaultSteps, rows).
	Config greedy.KFDAConfig
	// Progress, if not nil, is told when training starts.
	Progress func(Progress)
}

func (l MPKFDA) config(rows int) (greedy.KFDAConfig, error) {
	cfg := l.Config
	if cfg.Steps == 0 {
		cfg.Steps = min(MPKFDADefaultSteps, rows)
	}
	if cfg.Steps > rows {
		return cfg, pursuit.Configf("--basis %d is more than the %d training examples", cfg.Steps, rows)
	}
	if l.Progress != nil {
		l.Progress(Progress{Step: 0, Total: 1, Metric: "mp-kfda", Value: nan(), ValErr: nan()})
	}
	return cfg, nil
}

// Fit trains one discriminant on y in {−1, +1}; the validation set is not
// used.
func (l MPKFDA) Fit(e *engine.Engine, x pursuit.Matrix, y []float64, _ pursuit.Matrix, _ []float64) (Model, error) {
	cfg, err := l.config(x.Rows)
	if err != nil {
		return nil, err
	}
	m, err := greedy.TrainKFDA(e, x, y, cfg)
	if err != nil {
		return nil, err
	}
	return &KFDAModel{KFDA: m}, nil
}

// FitOneVsRest trains one discriminant per class with
// greedy.TrainKFDAOneVsRest.
func (l MPKFDA) FitOneVsRest(e *engine.Engine, x pursuit.Matrix, y, classes []float64, _ pursuit.Matrix, _ []float64) ([]Model, error) {
	cfg, err := l.config(x.Rows)
	if err != nil {
		return nil, err
	}
	o, err := greedy.TrainKFDAOneVsRest(e, x, y, cfg)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(o.Classes, classes) {
		return nil, fmt.Errorf("mpkfda one-vs-rest trained classes %v, want %v", o.Classes, classes)
	}
	ms := make([]Model, len(o.Models))
	for c, m := range o.Models {
		ms[c] = &KFDAModel{KFDA: m}
	}
	return ms, nil
}

// KFDAModel is a trained MP-KFDA discriminant (kind "mpkfda"); it is saved
// in greedy's own framed format.
type KFDAModel struct{ KFDA *greedy.KFDA }

func decodeMPKFDA(_ string, r io.Reader, _ int64) (Model, error) {
	m, err := greedy.LoadKFDA(r)
	if err != nil {
		return nil, err
	}
	return &KFDAModel{KFDA: m}, nil
}

// Kind is "mpkfda".
func (f *KFDAModel) Kind() string { return "mpkfda" }

// Decision returns the discriminant's output on each row of x.
func (f *KFDAModel) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	return f.KFDA.Decision(e, x)
}

// NBasis is the number of centres.
func (f *KFDAModel) NBasis() int { return len(f.KFDA.Alpha) }

// Basis returns the centres.
func (f *KFDAModel) Basis() pursuit.Matrix { return f.KFDA.Centres }

// Save writes greedy's format.
func (f *KFDAModel) Save(w io.Writer) error { return f.KFDA.Save(w) }

// Expansion returns the centres and their coefficients.
func (f *KFDAModel) Expansion() (pursuit.Kernel, pursuit.Matrix, []float64, float64, error) {
	return f.KFDA.Kernel, f.KFDA.Centres, f.KFDA.Alpha, f.KFDA.Bias, nil
}
