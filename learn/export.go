package learn

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// LIBSVM returns the model as one LIBSVM model that predicts what
// the model file predicts on data scaled as m.Header.Scaler says: svm and
// bpdn as themselves (class labels as the task's), every other kernel
// expansion as a two-class C-SVC (classifiers) or an ε-SVR (regressors)
// with sv_coef the coefficients and ρ = −bias. A model that is not one
// expansion gets an error saying why.
func (m *File) LIBSVM() (*svm.Model, error) {
	if m.Header.Labels.Task == TaskOneVsOne {
		if len(m.Models) == 1 {
			if f, ok := m.Models[0].(*SVMOneVsOne); ok { // imported from LIBSVM
				out := *f.SVM
				return &out, nil
			}
		}
		return m.oneVsOneLIBSVM()
	}
	if len(m.Models) != 1 {
		return nil, fmt.Errorf("a %s one-vs-rest model holds %d binary models, and a LIBSVM model of one-vs-rest machines does not exist (LIBSVM's multi-class is one-vs-one)", m.Header.Algorithm, len(m.Models))
	}
	plan := &m.Header.Labels
	if f, ok := m.Models[0].(*SVMModel); ok {
		out := *f.SVM
		if out.Type == svm.CSVC {
			// The CLI trains on ±1 targets; LIBSVM prints the task's labels.
			out.Labels = make([]float64, len(f.SVM.Labels))
			for i, l := range f.SVM.Labels {
				out.Labels[i] = plan.Classes[0]
				if l > 0 {
					out.Labels[i] = plan.Classes[1]
				}
			}
			if m.Header.Train.NTrain == 0 { // imported from LIBSVM: its own labels
				out.Labels = f.SVM.Labels
			}
		}
		return &out, nil
	}
	ex, ok := m.Models[0].(Expander)
	if !ok {
		return nil, fmt.Errorf("a %s model is not a kernel expansion LIBSVM can hold", m.Header.Algorithm)
	}
	k, vectors, coef, bias, err := ex.Expansion()
	if err != nil {
		return nil, err
	}
	out := &svm.Model{Type: svm.EpsilonSVR, Kernel: k, SV: vectors, Coef: [][]float64{coef}, Rho: []float64{-bias}}
	if plan.Task != TaskRegression {
		// LIBSVM predicts its first label where Σ coef·K − ρ > 0; the CLI
		// predicts Classes[1] where the decision is positive.
		out.Type = svm.CSVC
		out.Labels = []float64{plan.Classes[1], plan.Classes[0]}
		out.NumSV = []int{vectors.Rows, 0}
	}
	return out, nil
}

// oneVsOneLIBSVM returns a one-vs-one model (`pursuit compress` of a
// multi-class LIBSVM model: one slmc machine per pair) as LIBSVM's
// multi-class C-SVC: each pair's vectors in its first class's group, with
// zero coefficients in the other pairs (slmc.Compressed.SVM).
func (m *File) oneVsOneLIBSVM() (*svm.Model, error) {
	classes := m.Header.Labels.Classes
	c := &slmc.Compressed{Labels: classes}
	p := 0
	for i := range classes {
		for j := i + 1; j < len(classes); j++ {
			if p >= len(m.Models) {
				return nil, fmt.Errorf("a one-vs-one model with %d classes needs %d machines, it has %d", len(classes), len(classes)*(len(classes)-1)/2, len(m.Models))
			}
			f, ok := m.Models[p].(*SLMCModel)
			if !ok {
				return nil, fmt.Errorf("a one-vs-one %s model is not a set of kernel expansions LIBSVM can hold", m.Header.Algorithm)
			}
			if p == 0 {
				c.Kernel = f.SLMC.Kernel
			} else if f.SLMC.Kernel != c.Kernel {
				return nil, fmt.Errorf("the pairs of the one-vs-one model use different kernels (%s and %s), and a LIBSVM model has one", c.Kernel, f.SLMC.Kernel)
			}
			c.Machines = append(c.Machines, slmc.Machine{Pos: i, Neg: j, Model: f.SLMC})
			p++
		}
	}
	return c.SVM()
}
