package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

// mpkfdaDefaultBasis is --basis's default for MP-KFDA.
const mpkfdaDefaultBasis = 100

// mpkfdaFitted adapts a greedy.KFDA (matching-pursuit kernel Fisher
// discriminant, a binary classifier; one-vs-rest trains one per class). Its
// payload in the CLI's model file is greedy's own framed format.
type mpkfdaFitted struct{ m *greedy.KFDA }

// mpkfdaConfig maps the flags to greedy's configuration.
func mpkfdaConfig(p *trainParams, rows int) (greedy.KFDAConfig, error) {
	if p.regression {
		return greedy.KFDAConfig{}, fmt.Errorf("--algo mpkfda is a classifier; it cannot fit real-valued targets")
	}
	k := p.basis
	if k == 0 {
		k = min(mpkfdaDefaultBasis, rows)
	}
	if k > rows {
		return greedy.KFDAConfig{}, fmt.Errorf("--basis %d is more than the %d training examples", k, rows)
	}
	if p.progress != nil {
		p.progress(progressUpdate{Step: 0, Total: 1, Metric: "mp-kfda", Value: nan(), ValErr: nan()})
	}
	return greedy.KFDAConfig{Kernel: p.kernel, Steps: k, Seed: uint64(p.seed)}, nil
}

func trainMPKFDA(e *engine.Engine, p *trainParams, x pursuit.Matrix, y []float64, _ pursuit.Matrix, _ []float64) (fitted, error) {
	cfg, err := mpkfdaConfig(p, x.Rows)
	if err != nil {
		return nil, err
	}
	m, err := greedy.TrainKFDA(e, x, y, cfg)
	if err != nil {
		return nil, err
	}
	return &mpkfdaFitted{m: m}, nil
}

// trainMPKFDAOneVsRest trains one discriminant per class with
// greedy.TrainKFDAOneVsRest; each is its own payload.
func trainMPKFDAOneVsRest(e *engine.Engine, p *trainParams, x pursuit.Matrix, y, classes []float64, _ pursuit.Matrix, _ []float64) ([]fitted, error) {
	cfg, err := mpkfdaConfig(p, x.Rows)
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
	fs := make([]fitted, len(o.Models))
	for c, m := range o.Models {
		fs[c] = &mpkfdaFitted{m: m}
	}
	return fs, nil
}

func loadMPKFDA(r io.Reader, _ int64) (fitted, error) {
	m, err := greedy.LoadKFDA(r)
	if err != nil {
		return nil, err
	}
	return &mpkfdaFitted{m: m}, nil
}

func (f *mpkfdaFitted) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	return f.m.Decision(e, x)
}
func (f *mpkfdaFitted) NBasis() int            { return len(f.m.Alpha) }
func (f *mpkfdaFitted) Basis() pursuit.Matrix  { return f.m.Centres }
func (f *mpkfdaFitted) Save(w io.Writer) error { return f.m.Save(w) }
