package learn

import (
	"fmt"
	"io"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// SVM is the support vector machine of package svm: C-SVC, or ε-SVR when
// Params.Type is svm.EpsilonSVR.
type SVM struct {
	Params svm.Params
	// Progress, if not nil, is told when training starts.
	Progress func(Progress)
}

// Fit trains one C-SVC on y in {−1, +1} (or an ε-SVR on real targets);
// the validation set is not used.
func (l SVM) Fit(e *engine.Engine, x pursuit.Matrix, y []float64, _ pursuit.Matrix, _ []float64) (Model, error) {
	if l.Progress != nil {
		l.Progress(Progress{Step: 0, Total: 1, Metric: "smo", Value: nan(), ValErr: nan()})
	}
	m, err := svm.Train(e, x, y, l.Params)
	if err != nil {
		return nil, err
	}
	return NewSVMModel(m)
}

// FitOneVsRest trains one C-SVC per class with svm.TrainOneVsRest (the
// machines share one kernel-row cache).
func (l SVM) FitOneVsRest(e *engine.Engine, x pursuit.Matrix, y, classes []float64, _ pursuit.Matrix, _ []float64) ([]Model, error) {
	if l.Progress != nil {
		l.Progress(Progress{Step: 0, Total: 1, Metric: "smo", Value: nan(), ValErr: nan()})
	}
	o, err := svm.TrainOneVsRest(e, x, y, l.Params)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(o.Classes, classes) {
		return nil, fmt.Errorf("svm one-vs-rest trained classes %v, want %v", o.Classes, classes)
	}
	ms := make([]Model, len(o.Machines))
	for c, m := range o.Machines {
		if ms[c], err = NewSVMModel(m); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// SVMModel is a binary C-SVC or ε-SVR of package svm (kind "svm", or
// "bpdn" for Girosi's sparse approximation). It is saved as LIBSVM's text
// model, so `svm-predict` can use it directly on data scaled as at
// training.
type SVMModel struct {
	SVM  *svm.Model
	kind string
	// exact: predict on the float64 path (svm.Model.DecisionValues64), as a
	// model imported from LIBSVM does (issue 29), and as bpdn does: its
	// hard ε-tube is solved on a float64 Gram matrix (bpdn.Gram), and
	// float32 kernel values, cancelling in its large coefficients, would
	// leave the tube (by 2e-3 on min-max scaled Boston at γ = 1, ε = 2).
	exact bool
}

// NewSVMModel wraps a binary svm model (kind "svm").
func NewSVMModel(m *svm.Model) (*SVMModel, error) {
	if m.NumDecision() != 1 {
		return nil, pursuit.BadInputf("svm model with %d classes where a binary one was expected", m.NumClasses())
	}
	return &SVMModel{SVM: m, kind: "svm"}, nil
}

func decodeSVM(kind string, r io.Reader, maxBytes int64) (Model, error) {
	m, err := svm.ReadLIBSVMModel(r, svm.WithModelMemoryLimit(maxBytes))
	if err != nil {
		return nil, err
	}
	f, err := NewSVMModel(m)
	if err != nil {
		return nil, err
	}
	m.UseFloat32Vectors() // Pursuit wrote it: float32 vectors
	f.kind = kind
	f.exact = kind == "bpdn"
	return f, nil
}

// Kind is "svm" or "bpdn".
func (f *SVMModel) Kind() string { return f.kind }

// Decision returns the decision values, positive for the label +1 (a
// binary C-SVC's own decision is positive for Labels[0]).
func (f *SVMModel) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	decide := f.SVM.Decision
	if f.exact {
		decide = f.SVM.DecisionValues64
	}
	d, err := decide(e, x)
	if err != nil {
		return nil, err
	}
	if f.flipped() {
		for i := range d {
			d[i] = -d[i]
		}
	}
	return d, nil
}

// flipped reports whether Decision negates svm's decision.
func (f *SVMModel) flipped() bool {
	return f.SVM.Type == svm.CSVC && len(f.SVM.Labels) == 2 && f.SVM.Labels[0] != 1
}

// NBasis is the number of support vectors.
func (f *SVMModel) NBasis() int { return f.SVM.TotalSV() }

// Basis returns the support vectors.
func (f *SVMModel) Basis() pursuit.Matrix { return f.SVM.SV }

// Save writes LIBSVM's text model.
func (f *SVMModel) Save(w io.Writer) error { return f.SVM.WriteLIBSVM(w) }
