package bpdn

import (
	"fmt"
	"io"
	"math"
)

// Tolerances say when two solutions agree: max|Δa| ≤ A·max(1, ‖a‖∞),
// |Δb| ≤ B·max(1, |b|), the same support, and the objectives (25) equal to
// Obj·max(1, |obj|).
type Tolerances struct {
	A, B, Obj float64
}

// DefaultTolerances are the issue's: 1e-6 on a and b, 1e-9 on the objective.
var DefaultTolerances = Tolerances{A: 1e-6, B: 1e-6, Obj: 1e-9}

// Certificate compares two solutions of one problem (bpdn's and the SVR's
// by SMO, say).
type Certificate struct {
	MaxDA       float64 // max_i |a_i − a'_i|
	NormA       float64 // max(‖a‖∞, ‖a'‖∞)
	DB          float64 // |b − b'|
	SameSupport bool
	OnlyFirst   int    // support vectors of the first solution only
	OnlySecond  int    // of the second only
	NSV         [2]int // support sizes
	Obj         [2]float64
	KKT         [2]float64 // largest KKT violation of each (see KKT)
	SumA        [2]float64 // Σa of each
	Tol         Tolerances
	Agree       bool
}

// Compare certifies the solutions (a1, b1) and (a2, b2) of the problem with
// Gram matrix k, targets y, ε and C.
func Compare(n int, k, y []float64, eps, c float64, a1 []float64, b1 float64, a2 []float64, b2 float64, tol Tolerances) Certificate {
	ct := Certificate{Tol: tol, DB: math.Abs(b1 - b2), SameSupport: true}
	for i := range n {
		ct.MaxDA = math.Max(ct.MaxDA, math.Abs(a1[i]-a2[i]))
		ct.NormA = math.Max(ct.NormA, math.Max(math.Abs(a1[i]), math.Abs(a2[i])))
		nz1, nz2 := a1[i] != 0, a2[i] != 0
		if nz1 {
			ct.NSV[0]++
		}
		if nz2 {
			ct.NSV[1]++
		}
		switch {
		case nz1 && !nz2:
			ct.OnlyFirst++
			ct.SameSupport = false
		case nz2 && !nz1:
			ct.OnlySecond++
			ct.SameSupport = false
		}
		ct.SumA[0] += a1[i]
		ct.SumA[1] += a2[i]
	}
	ct.Obj = [2]float64{Objective(n, k, y, a1, eps), Objective(n, k, y, a2, eps)}
	ct.KKT = [2]float64{KKT(n, k, y, a1, b1, eps, c), KKT(n, k, y, a2, b2, eps, c)}
	bScale := math.Max(1, math.Max(math.Abs(b1), math.Abs(b2)))
	oScale := math.Max(1, math.Max(math.Abs(ct.Obj[0]), math.Abs(ct.Obj[1])))
	ct.Agree = ct.MaxDA <= tol.A*math.Max(1, ct.NormA) && ct.DB <= tol.B*bScale && ct.SameSupport &&
		math.Abs(ct.Obj[0]-ct.Obj[1]) <= tol.Obj*oScale
	return ct
}

// Write prints the certificate, naming the two solutions.
func (ct Certificate) Write(w io.Writer, first, second string) error {
	verdict := "AGREE"
	if !ct.Agree {
		verdict = "DISAGREE"
	}
	supp := "identical"
	if !ct.SameSupport {
		supp = fmt.Sprintf("different (%d only in %s, %d only in %s)", ct.OnlyFirst, first, ct.OnlySecond, second)
	}
	_, err := fmt.Fprintf(w, `max |Δa|     %.3g  (tolerance %.3g·max(1, ‖a‖∞ = %.6g))
|Δb|         %.3g  (tolerance %.3g·max(1, |b|))
support      %s: %d and %d support vectors
objective    %s %.15g, %s %.15g  (eq. 25; |Δ| = %.3g, tolerance %.3g relative)
KKT residual %s %.3g, %s %.3g  (largest violation, units of y)
Σa           %s %.3g, %s %.3g
verdict      %s
`, ct.MaxDA, ct.Tol.A, ct.NormA, ct.DB, ct.Tol.B, supp, ct.NSV[0], ct.NSV[1],
		first, ct.Obj[0], second, ct.Obj[1], math.Abs(ct.Obj[0]-ct.Obj[1]), ct.Tol.Obj,
		first, ct.KKT[0], second, ct.KKT[1], first, ct.SumA[0], second, ct.SumA[1], verdict)
	return err
}
