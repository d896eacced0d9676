package bpdn

import (
	"fmt"
	"io"
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

// EquivReport is an Equivalence as `pursuit equiv --json` prints it: the
// problem, both solutions' figures side by side (bpdn first, then SMO) and
// the verdict.
type EquivReport struct {
	Data        string     `json:"data"`
	N           int        `json:"n"`
	Kernel      string     `json:"kernel"`
	Backend     string     `json:"backend"`
	Epsilon     float64    `json:"epsilon"`
	C           string     `json:"c"` // "inf" for the hard ε-tube
	SMOC        float64    `json:"smo_c"`
	MaxDA       float64    `json:"max_delta_a"`
	NormA       float64    `json:"norm_a"`
	DB          float64    `json:"delta_b"`
	B           float64    `json:"b"`
	SameSupport bool       `json:"same_support"`
	NSV         [2]int     `json:"n_sv"`
	Obj         [2]float64 `json:"objective"`
	KKT         [2]float64 `json:"kkt"`
	Seconds     [2]float64 `json:"seconds"`
	GramSeconds float64    `json:"gram_seconds"`
	SMOIter     int        `json:"smo_iterations"`
	BPDNIter    int        `json:"bpdn_iterations"`
	Agree       bool       `json:"agree"`
}

// cText writes the box c, "inf" for none.
func cText(c float64) string {
	if math.IsInf(c, 1) {
		return "inf"
	}
	return fmt.Sprint(c)
}

// Report describes q, computed on n rows of the data named dataName with
// kernel k, tube half-width eps and box c, on backend.
func (q *Equivalence) Report(dataName string, n int, k pursuit.Kernel, backend string, eps, c float64) *EquivReport {
	ct := q.Certificate
	return &EquivReport{Data: dataName, N: n, Kernel: k.String(), Backend: backend, Epsilon: eps, C: cText(c), SMOC: q.SMOC,
		MaxDA: ct.MaxDA, NormA: ct.NormA, DB: ct.DB, B: q.BPDN.B, SameSupport: ct.SameSupport, NSV: ct.NSV,
		Obj: ct.Obj, KKT: ct.KKT, Seconds: [2]float64{q.BPDNSeconds, q.SMOSeconds}, GramSeconds: q.GramSeconds,
		SMOIter: q.SMO.Iter, BPDNIter: q.BPDN.Iter, Agree: ct.Agree}
}

// WriteText writes q for people: the problem (dim features, SMO's
// tolerance smoTol), each solver's run and the certificate.
func (q *Equivalence) WriteText(w io.Writer, dataName string, n, dim int, k pursuit.Kernel, backend string, eps, c, smoTol float64) error {
	sol, smo := q.BPDN, q.SMO
	fmt.Fprintf(w, "data         %s: %d examples, %d features; kernel %s (backend %s, Gram matrix in %.3g s, float64)\n", dataName, n, dim, k, backend, q.GramSeconds)
	fmt.Fprintf(w, "problem      ε = %g, C = %s; the SVR by SMO with C = %.6g, tolerance %g\n", eps, cText(c), q.SMOC, smoTol)
	fmt.Fprintf(w, "bpdn         %.3g s: %d CD sweeps over %d values of ν, %d active-set iterations, converged %v\n", q.BPDNSeconds, sol.Sweeps, sol.NuEvals, sol.Iter, sol.Converged)
	fmt.Fprintf(w, "smo          %.3g s: %d iterations, converged %v\n", q.SMOSeconds, smo.Iter, smo.Converged)
	fmt.Fprintf(w, "b            bpdn %.12g, smo %.12g\n", sol.B, smo.Bias)
	return q.Certificate.Write(w, "bpdn", "smo")
}
