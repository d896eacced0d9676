package main

import (
	"fmt"
	"io"
	"math"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// slmcDefaultNzFrac is the expansion size when neither --nz nor --nz-frac
// is given: 10% of the SVM's support vectors, as in the paper's USPS table.
const slmcDefaultNzFrac = 0.1

// slmcFitted adapts an slmc.Model; its payload in the CLI's model file is
// slmc's own versioned, checksummed format (slmc.Model.Save / slmc.Load).
type slmcFitted struct{ m *slmc.Model }

func trainSLMC(e *engine.Engine, p *trainParams, x engine.Matrix, y []float64, _ engine.Matrix, _ []float64) (fitted, error) {
	nz := p.nz
	if nz == 0 {
		frac := p.nzFrac
		if frac == 0 {
			frac = slmcDefaultNzFrac
		}
		sp := svmParams(p)
		sp.Type = svm.CSVC
		ref, err := svm.Train(e, x, y, sp)
		if err != nil {
			return nil, fmt.Errorf("the SVM that sizes --nz-frac: %w", err)
		}
		exp, err := slmc.FromSVM(ref, 1)
		if err != nil {
			return nil, fmt.Errorf("the SVM that sizes --nz-frac: %w", err)
		}
		nz = exp.NumXVFraction(frac) // round(frac·#SV), at least 1, as the paper

	}
	if nz > x.Rows {
		return nil, fmt.Errorf("--nz %d is more than the %d training examples", nz, x.Rows)
	}
	cfg := slmc.Config{Kernel: p.kernel, C: p.c, NumXV: nz, Init: slmc.InitKMeans, Seed: uint64(p.seed)}
	if p.progress != nil {
		total := 200 // slmc's default iteration bound
		cfg.Optim.Progress = func(s slmc.Progress) {
			p.progress(progressUpdate{Step: s.Iter, Total: total, Metric: "W", Value: s.W, ValErr: math.NaN()})
		}
	}
	res, err := slmc.Train(e, x, y, cfg)
	if err != nil {
		return nil, err
	}
	return &slmcFitted{m: res.Model}, nil
}

func loadSLMC(r io.Reader) (fitted, error) {
	m, err := slmc.Load(r)
	if err != nil {
		return nil, err
	}
	return &slmcFitted{m: m}, nil
}

func (f *slmcFitted) Decision(e *engine.Engine, x engine.Matrix) ([]float64, error) {
	return f.m.Decision(e, x)
}
func (f *slmcFitted) NBasis() int          { return f.m.NumXV() }
func (f *slmcFitted) Basis() engine.Matrix { return f.m.XV }

func (f *slmcFitted) Save(w io.Writer) error { return f.m.Save(w) }
