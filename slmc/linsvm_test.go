package slmc

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/svm"
)

// linearProblem returns n feature rows of dimension r (Gaussian) with
// labels from a noisy linear rule, so that the SVM has free, bounded and
// zero multipliers.
func linearProblem(n, r int, noise float64, seed uint64) (*mat.Dense, []float64) {
	rng := newRand(seed)
	phi := randDense(n, r, 1, seed+1)
	dir := make([]float64, r)
	for j := range dir {
		dir[j] = rng.NormFloat64()
	}
	y := make([]float64, n)
	for i := range n {
		s := 0.3 + noise*rng.NormFloat64()
		for j, v := range phi.RawRowView(i) {
			s += dir[j] * v
		}
		y[i] = 1
		if s < 0 {
			y[i] = -1
		}
	}
	return phi, y
}

// maxViolation recomputes, from α alone in plain float64 loops, LIBSVM's
// maximal violation of the C-SVC dual on the rows of phi with bounds u,
// and |yᵀα|.
func maxViolation(phi *mat.Dense, y, u, alpha []float64) (float64, float64) {
	n, r := phi.Dims()
	w := make([]float64, r)
	var eq float64
	for i := range n {
		eq += y[i] * alpha[i]
		for j, v := range phi.RawRowView(i) {
			w[j] += alpha[i] * y[i] * v
		}
	}
	m, mm := math.Inf(-1), math.Inf(1)
	for i := range n {
		var f float64
		for j, v := range phi.RawRowView(i) {
			f += w[j] * v
		}
		v := -y[i] * (y[i]*f - 1)
		if isUp(y[i], alpha[i], u[i]) {
			m = math.Max(m, v)
		}
		if isLow(y[i], alpha[i], u[i]) {
			mm = math.Min(mm, v)
		}
	}
	return m - mm, math.Abs(eq)
}

// TestWeightSolverMatchesSMO checks solveWeights against package svm's SMO
// (tolerance 1e-10 both) on problems with bounded and free multipliers,
// per-point weights, warm starts and working sets from 2 variables to all:
// the dual objective, α, the bias and the solution's own KKT check must
// agree.
func TestWeightSolverMatchesSMO(t *testing.T) {
	cases := []struct {
		name       string
		n, r       int
		c, noise   float64
		q          int
		weights    bool
		warm       bool
		wantOuters bool // the working set is smaller than the problem
	}{
		{"noisy C=1", 400, 10, 1, 0.5, 64, false, false, true},
		{"noisy C=10 weighted", 600, 30, 10, 0.3, 128, true, false, true},
		{"q=2", 150, 5, 1, 0.5, 2, false, false, true},
		{"q=n", 300, 20, 1, 0.5, 300, false, false, false},
		{"separable C=100", 300, 8, 100, 0, 32, false, false, true},
		{"warm start", 500, 15, 2, 0.4, 64, true, true, true},
	}
	const tol = 1e-10
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			phi, y := linearProblem(tc.n, tc.r, tc.noise, uint64(10+k))
			var w []float64
			if tc.weights {
				rng := newRand(uint64(20 + k))
				w = make([]float64, tc.n)
				for i := range w {
					w[i] = float64(1 + rng.IntN(3))
				}
			}
			u := bounds(tc.n, tc.c, w)
			var warm []float64
			if tc.warm {
				// The solution at half the C, feasible at C.
				s0, err := solveWeights(phi, y, bounds(tc.n, tc.c/2, w), nil, 1e-3, tc.q, 1000)
				if err != nil {
					t.Fatal(err)
				}
				warm = s0.Alpha
			}
			src, err := svm.NewLinear64(tc.n, tc.r, phi.RawMatrix().Data)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := svm.SolveCSVCWeighted(src, y, tc.c, tc.c, w, warm, svm.Options{Tol: tol, CacheMB: 64})
			if err != nil || !ref.Converged {
				t.Fatalf("SMO: %v (converged %v)", err, ref != nil && ref.Converged)
			}
			got, err := solveWeights(phi, y, u, warm, tol, tc.q, 100000)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Converged {
				t.Fatalf("not converged after %d outer iterations, gap %g", got.OuterIter, got.Gap)
			}
			if tc.wantOuters && got.OuterIter < 2 {
				t.Errorf("%d outer iterations: the decomposition was not exercised", got.OuterIter)
			}
			gap, eq := maxViolation(phi, y, u, got.Alpha)
			if gap > 10*tol || eq > 1e-9*tc.c*float64(tc.n) {
				t.Errorf("own check: maximal violation %g, |yᵀα| %g", gap, eq)
			}
			for i, a := range got.Alpha {
				if a < 0 || a > u[i] {
					t.Fatalf("α_%d = %v outside [0, %v]", i, a, u[i])
				}
			}
			if d := math.Abs(got.Obj - ref.Obj); d > 1e-9*math.Max(1, math.Abs(ref.Obj)) {
				t.Errorf("objective %.12g, SMO %.12g", got.Obj, ref.Obj)
			}
			var da float64
			for i := range got.Alpha {
				da = math.Max(da, math.Abs(got.Alpha[i]-ref.Alpha[i])/u[i])
			}
			if da > 1e-5 {
				t.Errorf("max |Δα|/C = %g", da)
			}
			if d := math.Abs(got.Bias - ref.Bias); d > 1e-6 {
				t.Errorf("bias %.10g, SMO %.10g", got.Bias, ref.Bias)
			}
			if got.NumSV != ref.NumSV || got.NumBSV != ref.NumBSV {
				t.Errorf("%d SVs (%d bounded), SMO %d (%d)", got.NumSV, got.NumBSV, ref.NumSV, ref.NumBSV)
			}
			t.Logf("n=%d r=%d q=%d: %d outer, %d inner iterations; obj %.10g (SMO %.10g), max|Δα|/C %.2g, Δb %.2g",
				tc.n, tc.r, tc.q, got.OuterIter, got.Iter, got.Obj, ref.Obj, da, got.Bias-ref.Bias)
		})
	}
}

// TestWeightSolverRefusals checks the refusals of solveWeights.
func TestWeightSolverRefusals(t *testing.T) {
	phi, y := linearProblem(20, 3, 0.5, 1)
	u := bounds(20, 1, nil)
	if _, err := solveWeights(phi, y[:19], u, nil, 1e-6, 4, 10); err == nil {
		t.Error("19 labels for 20 points accepted")
	}
	if _, err := solveWeights(phi, y, u, make([]float64, 5), 1e-6, 4, 10); err == nil {
		t.Error("a warm start of the wrong length accepted")
	}
	bad := make([]float64, 20)
	for i, v := range y {
		if v > 0 {
			bad[i] = 0.5
			break
		}
	}
	if _, err := solveWeights(phi, y, u, bad, 1e-6, 4, 10); err == nil {
		t.Error("an infeasible warm start (yᵀα ≠ 0) accepted")
	}
}

// TestInnerSolversSameSLMC checks that SLMC's fixed-Z fit, W(Z), β and b
// are the same whichever inner solver runs, and that InnerAuto picks the
// weight-vector solver only past the SMO cache.
func TestInnerSolversSameSLMC(t *testing.T) {
	e := goEngine(t)
	x, y := blobs(600, 4, 0.6, 7)
	p, err := newProblem(e, pursuit.NewRBF(0.3), x, y)
	if err != nil {
		t.Fatal(err)
	}
	z := p.rowsOf([]int{1, 5, 10, 50, 100, 200, 300, 301, 400, 555})
	so := SolverOptions{Tol: 1e-10}.withDefaults()
	so.Inner = InnerSMO
	ref, err := p.fit(z, 3, nil, so)
	if err != nil {
		t.Fatal(err)
	}
	so.Inner, so.WorkingSet = InnerWeights, 32
	got, err := p.fit(z, 3, nil, so)
	if err != nil {
		t.Fatal(err)
	}
	if got.sol.OuterIter < 2 {
		t.Errorf("%d outer iterations: the weight-vector solver did not run", got.sol.OuterIter)
	}
	if d := math.Abs(got.w - ref.w); d > 1e-9*math.Abs(ref.w) {
		t.Errorf("W(Z) = %.12g, SMO %.12g", got.w, ref.w)
	}
	var db float64
	for u := range ref.beta {
		db = math.Max(db, math.Abs(got.beta[u]-ref.beta[u]))
	}
	if db > 1e-5 || math.Abs(got.bias-ref.bias) > 1e-6 {
		t.Errorf("max |Δβ| %g, bias %g against %g", db, got.bias, ref.bias)
	}
	t.Logf("W %.10g (SMO %.10g), max|Δβ| %.2g, Δb %.2g", got.w, ref.w, db, got.bias-ref.bias)

	def := SolverOptions{}.withDefaults()
	for _, tc := range []struct {
		n    int
		want InnerSolver
	}{{500, InnerSMO}, {2000, InnerSMO}, {2896, InnerSMO}, {2897, InnerWeights}, {50000, InnerWeights}} {
		if got := InnerAuto.resolve(tc.n, def); got != tc.want {
			t.Errorf("auto on %d points: %v, want %v", tc.n, got, tc.want)
		}
	}
	big := def
	big.CacheMB = 1024
	if got := InnerAuto.resolve(10000, big); got != InnerSMO {
		t.Errorf("auto on 10,000 points with a 1 GiB cache: %v, want smo", got)
	}
}

// TestMeasureInnerSolvers times the inner SVM's solvers from α = 0 on a
// synthetic problem of $PURSUIT_INNER_MEASURE = "n,r" (e.g. 20000,107:
// noisy labels, C = 1, most multipliers at a bound): svm's SMO with
// SLMC's cache (skipped above 30,000 points), the weight-vector solver
// without and with its coordinate-descent start. It logs the times, the
// outer iterations and the objectives; it asserts only that the solutions
// agree.
func TestMeasureInnerSolvers(t *testing.T) {
	v := os.Getenv("PURSUIT_INNER_MEASURE")
	if v == "" {
		t.Skip("a timing: set PURSUIT_INNER_MEASURE=n,r (e.g. 20000,107) to run it")
	}
	var n, r int
	if _, err := fmt.Sscanf(v, "%d,%d", &n, &r); err != nil || n < 100 || r < 1 {
		t.Fatalf("PURSUIT_INNER_MEASURE = %q, want n,r", v)
	}
	phi, y := linearProblem(n, r, 1, 5)
	u := bounds(n, 1, nil)
	so := SolverOptions{}.withDefaults()
	var objs []float64
	if n <= 30000 {
		src, err := svm.NewLinear64(n, r, phi.RawMatrix().Data)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		ref, err := svm.SolveCSVCWeighted(src, y, 1, 1, nil, nil, svm.Options{Tol: so.Tol, CacheMB: so.cacheMB(n)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("smo: %.1f s, %d iterations, obj %.8g, %d SVs", time.Since(t0).Seconds(), ref.Iter, ref.Obj, ref.NumSV)
		objs = append(objs, ref.Obj)
	}
	for _, cold := range []bool{true, false} {
		noColdStart = cold
		t0 := time.Now()
		s, err := solveWeights(phi, y, u, nil, so.Tol, 0, 100000)
		noColdStart = false
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("weights (coordinate-descent start %v): %.1f s, %d outer, %d inner iterations, converged %v, obj %.8g, %d SVs",
			!cold, time.Since(t0).Seconds(), s.OuterIter, s.Iter, s.Converged, s.Obj, s.NumSV)
		objs = append(objs, s.Obj)
	}
	for _, o := range objs[1:] {
		if math.Abs(o-objs[0]) > 1e-3*math.Abs(objs[0]) {
			t.Errorf("objectives %v differ", objs)
		}
	}
}
