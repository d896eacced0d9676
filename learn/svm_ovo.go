package learn

import (
	"fmt"
	"io"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// SVMOneVsOne is a multi-class C-SVC read from a LIBSVM model file
// (svm-train's one-vs-one machines over k classes, kind "svm"): one Multi
// model whose k(k−1)/2 outputs are the pairs' decision values in LIBSVM's
// order, positive where the pair's first class wins, the file's task
// TaskOneVsOne over the file's labels, so that the vote gives svm-predict's
// labels. The kernel values are computed once for every pair, in float64
// from the support vectors as the file gives them (svm.Model.Decision64),
// as svm-predict computes them.
type SVMOneVsOne struct {
	SVM *svm.Model
}

// Kind is "svm".
func (f *SVMOneVsOne) Kind() string { return "svm" }

// Outputs is the number of pairs.
func (f *SVMOneVsOne) Outputs() int { return f.SVM.NumDecision() }

// DecisionAll returns out[p][i], pair p's decision on row i of x.
func (f *SVMOneVsOne) DecisionAll(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	d, err := f.SVM.DecisionValues64(e, x)
	if err != nil {
		return nil, err
	}
	nd := f.SVM.NumDecision()
	out := make([][]float64, nd)
	for p := range out {
		out[p] = make([]float64, x.Rows)
		for i := range x.Rows {
			out[p][i] = d[i*nd+p]
		}
	}
	return out, nil
}

// DecisionAll64 is DecisionAll: an imported model predicts in float64
// either way.
func (f *SVMOneVsOne) DecisionAll64(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	return f.DecisionAll(e, x)
}

// Decision returns the first pair's decision values.
func (f *SVMOneVsOne) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	all, err := f.DecisionAll(e, x)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// NBasis is the number of support vectors (shared by the pairs).
func (f *SVMOneVsOne) NBasis() int { return f.SVM.TotalSV() }

// Basis returns the support vectors.
func (f *SVMOneVsOne) Basis() pursuit.Matrix { return f.SVM.SV }

// Save writes LIBSVM's text model.
func (f *SVMOneVsOne) Save(w io.Writer) error { return f.SVM.WriteLIBSVM(w) }

// oneVsOneFile wraps a multi-class C-SVC read from a LIBSVM file.
func oneVsOneFile(sm *svm.Model) (*File, error) {
	if sm.Type != svm.CSVC || sm.NumClasses() < 3 {
		return nil, fmt.Errorf("LIBSVM model: a %s model with %d classes is not a multi-class C-SVC", sm.Type, sm.NumClasses())
	}
	m := &File{Models: []Model{&SVMOneVsOne{SVM: sm}}}
	m.Header = Header{Algorithm: "svm", Kernel: sm.Kernel.String(), NBasis: sm.TotalSV(),
		Labels: LabelPlan{Task: TaskOneVsOne, Classes: append([]float64(nil), sm.Labels...)}}
	return m, nil
}
