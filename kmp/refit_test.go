package kmp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// refitRows returns n random RBF-like atoms at l points and ±1 targets
// that no combination of them separates (so that the logistic and
// exponential losses have a finite minimiser).
func refitRows(l, n int, seed uint64) (rows [][]float64, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	pts := make([]float64, l)
	y = make([]float64, l)
	for i := range pts {
		pts[i] = rng.Float64()*4 - 2
		y[i] = 1
		if rng.Float64() < 0.5+0.3*math.Sin(2*pts[i]) {
			y[i] = -1
		}
	}
	for range n {
		c := rng.Float64()*4 - 2
		r := make([]float64, l)
		for i, p := range pts {
			r[i] = math.Exp(-4 * (p - c) * (p - c))
		}
		rows = append(rows, r)
	}
	return rows, y
}

// newtonReference minimises Σ L(y_i, Σ_j c_j rows_j[i]) by plain Newton
// steps from zero (a Cholesky solve with the exact Hessian), the brute-force
// reference for refit on a convex loss.
func newtonReference(t *testing.T, loss Loss, y []float64, rows [][]float64) []float64 {
	n, l := len(rows), len(y)
	c, f := make([]float64, n), make([]float64, l)
	for it := 0; it < 100; it++ {
		expand(f, rows, c)
		g := mat.NewVecDense(n, nil)
		h := mat.NewSymDense(n, nil)
		for a := range n {
			for i := range l {
				g.SetVec(a, g.AtVec(a)+lossDeriv(loss, y[i], f[i])*rows[a][i])
			}
			for b := a; b < n; b++ {
				s := 0.0
				for i := range l {
					s += lossDeriv2(loss, y[i], f[i]) * rows[a][i] * rows[b][i]
				}
				h.SetSym(a, b, s)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			t.Fatal("the reference Hessian is not positive definite")
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, g); err != nil {
			t.Fatal(err)
		}
		floats.Sub(c, step.RawVector().Data)
		if mat.Norm(&step, math.Inf(1)) < 1e-9*(1+floats.Norm(c, math.Inf(1))) {
			return c
		}
	}
	t.Fatal("the Newton reference did not converge")
	return nil
}

// refitGrad returns the largest partial derivative of the loss with respect
// to the coefficients at c.
func refitGrad(loss Loss, y []float64, rows [][]float64, c []float64) float64 {
	f := make([]float64, len(y))
	expand(f, rows, c)
	worst := 0.0
	for _, r := range rows {
		s := 0.0
		for i, t := range y {
			s += lossDeriv(loss, t, f[i]) * r[i]
		}
		worst = math.Max(worst, math.Abs(s))
	}
	return worst
}

// TestRefitConverges: refit, warm-started from a poor point, reaches the
// minimiser that Newton's method with the exact Hessian finds (convex
// losses) to 1e-6 relative in the decisions, with its gradient below
// refitTol times the gradient at zero (every loss); a second refit from its
// result leaves the decisions where they are; and a cap of 2 iterations
// (the start and one step) stops it early but still improves on the start.
func TestRefitConverges(t *testing.T) {
	rows, y := refitRows(150, 12, 7)
	zero := make([]float64, len(rows))
	for _, loss := range []Loss{Logistic, Exponential, Tanh} {
		gref := refitGrad(loss, y, rows, zero)
		start := make([]float64, len(rows))
		for j := range start {
			start[j] = 0.1 * float64(j%3-1)
		}
		c := append([]float64(nil), start...)
		refit(loss, nil, y, rows, c, 100)
		if g := refitGrad(loss, y, rows, c); g > refitTol*gref*1.0001 {
			t.Errorf("%v: gradient %.3g after the refit, %.3g at zero", loss, g, gref)
		}
		f := make([]float64, len(y))
		expand(f, rows, c)
		if loss != Tanh {
			want := make([]float64, len(y))
			expand(want, rows, newtonReference(t, loss, y, rows))
			if d := maxRelDiff(f, want); d > 1e-6 {
				t.Errorf("%v: decisions %.3g relative from Newton's minimiser", loss, d)
			}
		}
		again := append([]float64(nil), c...)
		refit(loss, nil, y, rows, again, 100)
		f2 := make([]float64, len(y))
		expand(f2, rows, again)
		if d := maxRelDiff(f2, f); d > 1e-6 {
			t.Errorf("%v: a second refit moved the decisions by %.3g relative", loss, d)
		}
		one := append([]float64(nil), start...)
		refit(loss, nil, y, rows, one, 2)
		fs, f1 := make([]float64, len(y)), make([]float64, len(y))
		expand(fs, rows, start)
		expand(f1, rows, one)
		if l1 := lossSum(loss, y, f1); l1 >= lossSum(loss, y, fs) || l1 < lossSum(loss, y, f) || refitGrad(loss, y, rows, one) <= refitTol*gref {
			t.Errorf("%v: one iteration: loss %v from %v (converged %v)", loss, lossSum(loss, y, f1), lossSum(loss, y, fs), lossSum(loss, y, f))
		}
	}
}

// maxRelDiff returns max_i |a_i − b_i| / max_i |b_i|.
func maxRelDiff(a, b []float64) float64 {
	d, s := 0.0, 0.0
	for i := range b {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return d / s
}
