package main

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// slmcDefaultNzFrac is the expansion size when neither --nz nor --nz-frac
// is given: 10% of the SVM's support vectors, as in the paper's USPS table.
const slmcDefaultNzFrac = 0.1

// slmcMethods are the values of --method for --algo slmc: SLMC itself and
// the paper's comparisons, all in package slmc.
var slmcMethods = []string{"slmc", "rs", "mrs", "rsvm", "mrsvm", "skfd"}

// slmcFitted adapts an slmc.Model; its payload in the CLI's model file is
// slmc's own versioned, checksummed format (slmc.Model.Save / slmc.Load),
// which records the method.
type slmcFitted struct {
	m    *slmc.Model
	stop string // why the L-BFGS minimisation stopped (slmc, skfd)
}

func trainSLMC(e *engine.Engine, p *trainParams, x pursuit.Matrix, y []float64, _ pursuit.Matrix, _ []float64) (fitted, error) {
	method := p.method
	if method == "" {
		method = "slmc"
	}
	// RS and MRS reduce an SVM; --nz-frac sizes Nz from one.
	var exp *slmc.Expansion
	if method == "rs" || method == "mrs" || p.nz == 0 {
		sp := svmParams(p)
		sp.Type = svm.CSVC
		ref, err := svm.Train(e, x, y, sp)
		if err != nil {
			return nil, fmt.Errorf("the SVM that %s starts from: %w", method, err)
		}
		if exp, err = slmc.FromSVM(ref, 1); err != nil {
			return nil, fmt.Errorf("the SVM that %s starts from: %w", method, err)
		}
	}
	nz := p.nz
	if nz == 0 {
		frac := p.nzFrac
		if frac == 0 {
			frac = slmcDefaultNzFrac
		}
		nz = exp.NumXVFraction(frac) // round(frac·#SV), at least 1, as the paper
	}
	if nz > x.Rows {
		return nil, fmt.Errorf("--nz %d is more than the %d training examples", nz, x.Rows)
	}
	cfg := slmc.Config{Kernel: p.kernel, C: p.c, NumXV: nz, Init: slmc.InitKMeans, Seed: uint64(p.seed)}
	const total = 200 // slmc's default iteration bound
	if p.progress != nil {
		cfg.Optim.Progress = func(s slmc.Progress) {
			p.progress(progressUpdate{Step: s.Iter, Total: total, Metric: "W", Value: s.W, ValErr: math.NaN()})
		}
	}
	fit := slmc.FitOptions{}
	switch method {
	case "slmc", "skfd":
		var res *slmc.Result
		if method == "slmc" {
			r, err := slmc.Train(e, x, y, cfg)
			if err != nil {
				return nil, err
			}
			res = r
		} else {
			r, err := slmc.TrainSKFD(e, x, y, cfg, 0)
			if err != nil {
				return nil, err
			}
			res = &r.Result
		}
		stop := fmt.Sprintf("%s after %d iterations", res.Stop, res.Iterations)
		if p.progress != nil {
			p.progress(progressUpdate{Step: res.Iterations, Total: total, Metric: "W", Value: res.W, ValErr: math.NaN(), Note: "stop: " + stop})
		}
		return &slmcFitted{m: res.Model, stop: stop}, nil
	case "rs", "mrs":
		rs, err := slmc.ReducedSet(exp, nz, slmc.RSOptions{})
		if err != nil {
			return nil, err
		}
		if method == "rs" {
			return &slmcFitted{m: rs.Model}, nil
		}
		m, err := slmc.ModifiedRS(e, x, y, rs.Model, p.c, fit)
		if err != nil {
			return nil, err
		}
		return &slmcFitted{m: m}, nil
	case "rsvm", "mrsvm":
		xv, err := slmc.RandomXV(x, nz, uint64(p.seed))
		if err != nil {
			return nil, err
		}
		var m *slmc.Model
		if method == "rsvm" {
			m, err = slmc.ReducedSVM(e, x, y, p.kernel, xv, p.c, fit)
		} else {
			m, err = slmc.ModifiedRSVM(e, x, y, p.kernel, xv, p.c, fit)
		}
		if err != nil {
			return nil, err
		}
		return &slmcFitted{m: m}, nil
	}
	return nil, fmt.Errorf("--method %q: want one of %v", method, slmcMethods)
}

// trainSLMCOneVsRest trains one model per class with slmc.TrainOneVsRest,
// each as trainSLMC trains a binary one.
func trainSLMCOneVsRest(e *engine.Engine, p *trainParams, x pursuit.Matrix, y, classes []float64, xVal pursuit.Matrix, _ []float64) ([]fitted, error) {
	var fs []fitted
	o, err := slmc.TrainOneVsRest(y, func(t []float64) (*slmc.Model, error) {
		f, err := trainSLMC(e, p, x, t, xVal, nil)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
		return f.(*slmcFitted).m, nil
	})
	if err != nil {
		return nil, err
	}
	if !slices.Equal(o.Classes, classes) {
		return nil, fmt.Errorf("slmc one-vs-rest trained classes %v, want %v", o.Classes, classes)
	}
	return fs, nil
}

func loadSLMC(r io.Reader, _ int64) (fitted, error) {
	m, err := slmc.Load(r)
	if err != nil {
		return nil, err
	}
	return &slmcFitted{m: m}, nil
}

func (f *slmcFitted) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	return f.m.Decision(e, x)
}
func (f *slmcFitted) NBasis() int           { return f.m.NumXV() }
func (f *slmcFitted) Basis() pursuit.Matrix { return f.m.XV }

func (f *slmcFitted) Save(w io.Writer) error { return f.m.Save(w) }

// Method names the slmc method that built the model.
func (f *slmcFitted) Method() string { return f.m.Method }

// StopReason says why training stopped ("" when the method does not
// iterate).
func (f *slmcFitted) StopReason() string { return f.stop }
