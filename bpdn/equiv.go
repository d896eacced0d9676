package bpdn

import (
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// Equivalence is the check that Girosi's sparse approximation solved by
// Solve and the ε-SVR solved by SMO (package svm) are one problem: both
// solutions, their timings and the Certificate comparing them.
type Equivalence struct {
	Certificate
	BPDN *Solution
	SMO  *svm.Solution
	// SMOC is the box the SVR was solved with: C, or for C = +Inf ten
	// times bpdn's largest |coefficient| (1 when they are all 0), so that
	// it does not bind.
	SMOC float64
	// Seconds of the Gram matrix, of Solve and of SMO.
	GramSeconds, BPDNSeconds, SMOSeconds float64
}

// Equiv solves the ε-SVR of the rows x with targets y (kernel k, tube
// half-width eps, box c, +Inf for none) both ways, SMO to tolerance
// smoTol, and compares the solutions with DefaultTolerances; Agree is false
// when either solver did not converge.
func Equiv(e *engine.Engine, x pursuit.Matrix, y []float64, k pursuit.Kernel, eps, c, smoTol float64) (*Equivalence, error) {
	n := x.Rows
	out := &Equivalence{}
	t0 := time.Now()
	gram, err := Gram(e, x, k)
	if err != nil {
		return nil, err
	}
	out.GramSeconds = time.Since(t0).Seconds()
	t0 = time.Now()
	if out.BPDN, err = Solve(n, gram, y, Params{Epsilon: eps, C: c}); err != nil {
		return nil, err
	}
	out.BPDNSeconds = time.Since(t0).Seconds()
	out.SMOC = c
	if math.IsInf(c, 1) {
		// The box of the SVR must not bind: ten times bpdn's largest
		// coefficient (1 when a = 0).
		out.SMOC = 0
		for _, a := range out.BPDN.A {
			out.SMOC = math.Max(out.SMOC, math.Abs(a))
		}
		out.SMOC *= 10
		if out.SMOC == 0 {
			out.SMOC = 1
		}
	}
	src, err := svm.NewGram64(n, gram)
	if err != nil {
		return nil, err
	}
	t0 = time.Now()
	if out.SMO, err = svm.SolveSVR(src, y, out.SMOC, eps, svm.Options{Tol: smoTol}); err != nil {
		return nil, err
	}
	out.SMOSeconds = time.Since(t0).Seconds()
	out.Certificate = Compare(n, gram, y, eps, c, out.BPDN.A, out.BPDN.B, svm.SVRCoef(out.SMO), out.SMO.Bias, DefaultTolerances)
	if !out.SMO.Converged || !out.BPDN.Converged {
		out.Agree = false
	}
	return out, nil
}
