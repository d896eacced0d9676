package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// svmFitted adapts a binary C-SVC or ε-SVR model of package svm. Its
// payload in the model file is LIBSVM's text model format, so
// `svm-predict` can use it directly on data scaled as the header says
// (with --scale none, on the raw data).
type svmFitted struct {
	m *svm.Model
	// exact: predict on the float64 path (svm.Model.Decision64), as a
	// model imported from LIBSVM does (issue 29).
	exact bool
}

func svmParams(p *trainParams) svm.Params {
	sp := svm.Params{Type: svm.CSVC, Kernel: p.kernel, C: p.c, Seed: uint64(p.seed)}
	if p.regression {
		sp.Type = svm.EpsilonSVR
		sp.Epsilon = p.svrEps
		if sp.Epsilon == 0 {
			sp.Epsilon = 0.1 // LIBSVM's default -p
		}
	}
	return sp
}

func trainSVM(e *engine.Engine, p *trainParams, x pursuit.Matrix, y []float64, _ pursuit.Matrix, _ []float64) (fitted, error) {
	if p.progress != nil {
		p.progress(progressUpdate{Step: 0, Total: 1, Metric: "smo", Value: nan(), ValErr: nan()})
	}
	m, err := svm.Train(e, x, y, svmParams(p))
	if err != nil {
		return nil, err
	}
	return newSVMFitted(m)
}

// trainSVMOneVsRest trains one C-SVC per class with svm.TrainOneVsRest (the
// machines share one kernel-row cache); each machine is its own payload, a
// binary LIBSVM model.
func trainSVMOneVsRest(e *engine.Engine, p *trainParams, x pursuit.Matrix, y, classes []float64, _ pursuit.Matrix, _ []float64) ([]fitted, error) {
	if p.progress != nil {
		p.progress(progressUpdate{Step: 0, Total: 1, Metric: "smo", Value: nan(), ValErr: nan()})
	}
	o, err := svm.TrainOneVsRest(e, x, y, svmParams(p))
	if err != nil {
		return nil, err
	}
	if !slices.Equal(o.Classes, classes) {
		return nil, fmt.Errorf("svm one-vs-rest trained classes %v, want %v", o.Classes, classes)
	}
	fs := make([]fitted, len(o.Machines))
	for c, m := range o.Machines {
		if fs[c], err = newSVMFitted(m); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

func newSVMFitted(m *svm.Model) (*svmFitted, error) {
	if m.NumDecision() != 1 {
		return nil, fmt.Errorf("svm model with %d classes where a binary one was expected", m.NumClasses())
	}
	return &svmFitted{m: m}, nil
}

func loadSVM(r io.Reader, maxBytes int64) (fitted, error) {
	m, err := svm.ReadLIBSVMModel(r, svm.WithModelMemoryLimit(maxBytes))
	if err != nil {
		return nil, err
	}
	return newSVMFitted(m)
}

func (f *svmFitted) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	decide := f.m.Decision
	if f.exact {
		decide = func(e *engine.Engine, x pursuit.Matrix) ([]float64, error) { return f.m.Decision64(e, svm.Rows64Of(x)) }
	}
	d, err := decide(e, x)
	if err != nil {
		return nil, err
	}
	// A binary C-SVC's decision is positive for Labels[0]; the CLI's
	// convention is positive for +1.
	if f.m.Type == svm.CSVC && len(f.m.Labels) == 2 && f.m.Labels[0] != 1 {
		for i := range d {
			d[i] = -d[i]
		}
	}
	return d, nil
}

func (f *svmFitted) NBasis() int            { return f.m.TotalSV() }
func (f *svmFitted) Basis() pursuit.Matrix  { return f.m.SV }
func (f *svmFitted) Save(w io.Writer) error { return f.m.WriteLIBSVM(w) }
