package bpdn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The RKHS problems of the tests: m = 200 points in [0,1]², 20 random
// centres, RBF γ = 50 (condition number of K about 1e10).
const (
	testM     = 200
	testGamma = 50
)

var inf = math.Inf(1)

func mustSolve(t *testing.T, n int, k, y []float64, p Params) *Solution {
	t.Helper()
	sol, err := Solve(n, k, y, p)
	if err != nil {
		t.Fatal(err)
	}
	if !sol.Converged {
		t.Fatalf("not converged: KKT %g after %d iterations", sol.KKT, sol.Iter)
	}
	return sol
}

// TestRKHSEquivalence: on noiseless samples of random RKHS functions, bpdn
// with C = ∞ and the SVR by SMO with C = 10‖a‖∞ give the same a, b,
// support and objective (25) — Girosi's Statement 4.1.
func TestRKHSEquivalence(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		p := newRKHS(seed, testM, 2, 20, testGamma)
		for _, eps := range []float64{0.01, 0.05, 0.2} {
			for _, warm := range []bool{true, false} {
				sol := mustSolve(t, testM, p.k, p.y, Params{Epsilon: eps, C: inf, NoWarmStart: !warm})
				c := 10 * maxAbs(sol.A)
				a2, b2, smo := smoSVR(t, testM, p.k, p.y, c, eps)
				ct := Compare(testM, p.k, p.y, eps, c, sol.A, sol.B, a2, b2, DefaultTolerances)
				if !ct.Agree {
					t.Errorf("seed %d ε=%g warm=%v: disagree: max|Δa| %g (‖a‖∞ %g), |Δb| %g, same support %v (%d/%d), obj %.15g vs %.15g",
						seed, eps, warm, ct.MaxDA, ct.NormA, ct.DB, ct.SameSupport, ct.NSV[0], ct.NSV[1], ct.Obj[0], ct.Obj[1])
				}
				// The SMO's own objective is (25) at its a: the dual of (8).
				if d := math.Abs(smo.Obj - ct.Obj[1]); d > 1e-9*math.Max(1, math.Abs(smo.Obj)) {
					t.Errorf("seed %d ε=%g: SMO objective %.15g, eq. 25 at its a %.15g", seed, eps, smo.Obj, ct.Obj[1])
				}
				if len(sol.Support) == 0 || len(sol.Support) == testM {
					t.Errorf("seed %d ε=%g: %d support vectors: the case is not sparse", seed, eps, len(sol.Support))
				}
				if warm && seed == 1 {
					t.Logf("ε=%g: %d SV, ‖a‖∞ %.3g, max|Δa| %.2g, |Δb| %.2g, obj %.12g / %.12g, KKT %.2g / %.2g, %d CD sweeps, %d active-set iterations",
						eps, len(sol.Support), ct.NormA, ct.MaxDA, ct.DB, ct.Obj[0], ct.Obj[1], ct.KKT[0], ct.KKT[1], sol.Sweeps, sol.Iter)
				}
			}
		}
	}
}

// TestIdentity23 checks eq. (23): for any a, the RKHS-norm objective (17)
// equals the SVR dual objective (8) plus the constant ½‖f‖²_H. The left
// side is computed as the RKHS norm of one expansion over the centres and
// the data points, the right side in LIBSVM's 2l-variable form.
func TestIdentity23(t *testing.T) {
	p := newRKHS(3, 60, 2, 20, 5)
	rng := rand.New(rand.NewPCG(7, 7))
	pts := append(append([][]float64{}, p.z...), p.x...)
	np := len(pts)
	for trial := range 5 {
		a := make([]float64, p.m)
		for i := range a {
			if rng.Float64() < 0.5 {
				a[i] = rng.NormFloat64()
			}
		}
		eps := 0.1 * float64(trial)
		// (17): ½‖Σ c_j K(·, z_j) − Σ a_i K(·, x_i)‖²_H + ε‖a‖₁.
		w := append(append([]float64{}, p.c...), make([]float64, p.m)...)
		var l1 float64
		for i, v := range a {
			w[len(p.c)+i] = -v
			l1 += math.Abs(v)
		}
		var norm2 float64
		for i := range np {
			for j := range np {
				norm2 += w[i] * w[j] * rbf64(p.gamma, pts[i], pts[j])
			}
		}
		lhs := 0.5*norm2 + eps*l1
		// ½‖f‖²_H + R(α*, α), R in LIBSVM's form: β = (a⁺, a⁻),
		// Q = [K −K; −K K], p = (ε − y, ε + y).
		var f2 float64
		for i := range p.z {
			for j := range p.z {
				f2 += p.c[i] * p.c[j] * rbf64(p.gamma, p.z[i], p.z[j])
			}
		}
		l := p.m
		beta := make([]float64, 2*l)
		ys := make([]float64, 2*l)
		for i, v := range a {
			beta[i], beta[i+l] = math.Max(v, 0), math.Max(-v, 0)
			ys[i], ys[i+l] = 1, -1
		}
		var r float64
		for u := range 2 * l {
			lin := eps - ys[u]*p.y[u%l]
			r += lin * beta[u]
			for v := range 2 * l {
				r += 0.5 * beta[u] * beta[v] * ys[u] * ys[v] * p.k[(u%l)*l+v%l]
			}
		}
		rhs := 0.5*f2 + r
		if d := math.Abs(lhs - rhs); d > 1e-10*math.Max(1, math.Abs(lhs)) {
			t.Errorf("trial %d: (17) = %.15g, ½‖f‖² + R = %.15g (Δ %g)", trial, lhs, rhs, d)
		}
		if d := math.Abs(0.5*f2 + Objective(l, p.k, p.y, a, eps) - lhs); d > 1e-10*math.Max(1, math.Abs(lhs)) {
			t.Errorf("trial %d: ½‖f‖² + Objective = %.15g, (17) = %.15g", trial, 0.5*f2+Objective(l, p.k, p.y, a, eps), lhs)
		}
	}
}

// TestInterpolant: ε = 0 gives a = K⁻¹(y − b1), b = 1ᵀK⁻¹y / 1ᵀK⁻¹1,
// every point a support vector (solved here independently with gonum).
func TestInterpolant(t *testing.T) {
	m := 120
	p := newRKHS(4, m, 2, 20, 200)
	sol := mustSolve(t, m, p.k, p.y, Params{Epsilon: 0, C: inf})
	if len(sol.Support) != m {
		t.Errorf("ε = 0: %d support vectors of %d", len(sol.Support), m)
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(m, append([]float64(nil), p.k...))) {
		t.Fatal("K is not positive definite")
	}
	ones := mat.NewVecDense(m, nil)
	for i := range m {
		ones.SetVec(i, 1)
	}
	var u, w mat.VecDense
	if err := ch.SolveVecTo(&u, mat.NewVecDense(m, append([]float64(nil), p.y...))); err != nil {
		t.Fatal(err)
	}
	if err := ch.SolveVecTo(&w, ones); err != nil {
		t.Fatal(err)
	}
	b := mat.Sum(&u) / mat.Sum(&w)
	var da, na float64
	for i := range m {
		ai := u.AtVec(i) - b*w.AtVec(i)
		da = math.Max(da, math.Abs(ai-sol.A[i]))
		na = math.Max(na, math.Abs(ai))
	}
	if da > 1e-6*math.Max(1, na) || math.Abs(b-sol.B) > 1e-6*math.Max(1, math.Abs(b)) {
		t.Errorf("ε = 0: max|Δa| %g (‖a‖∞ %g), b %v vs %v", da, na, sol.B, b)
	}
}

// TestZeroSolution: ε ≥ (max y − min y)/2 gives a = 0 and b at the middle
// of the range.
func TestZeroSolution(t *testing.T) {
	p := newRKHS(5, testM, 2, 20, testGamma)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range p.y {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for _, f := range []float64{1, 1.5} {
		for _, c := range []float64{inf, 1} {
			sol := mustSolve(t, testM, p.k, p.y, Params{Epsilon: f * (hi - lo) / 2, C: c})
			if len(sol.Support) != 0 {
				t.Errorf("ε = %g·range/2, C = %g: %d support vectors, want none", f, c, len(sol.Support))
			}
			if math.Abs(sol.B-(hi+lo)/2) > 1e-12*math.Max(1, math.Abs(hi)) {
				t.Errorf("b = %v, want %v", sol.B, (hi+lo)/2)
			}
		}
	}
	// Just below the limit, the two extreme points are the support.
	sol := mustSolve(t, testM, p.k, p.y, Params{Epsilon: 0.999 * (hi - lo) / 2, C: inf})
	if len(sol.Support) != 2 {
		t.Errorf("ε just below range/2: %d support vectors, want 2", len(sol.Support))
	}
}

// TestHardTube: with C = ∞ every training residual is within ε(1 + 1e-9),
// and the support vectors sit on the tube's edge.
func TestHardTube(t *testing.T) {
	p := newRKHS(6, testM, 2, 20, testGamma)
	for _, eps := range []float64{0.01, 0.05, 0.2} {
		sol := mustSolve(t, testM, p.k, p.y, Params{Epsilon: eps, C: inf})
		for i := range testM {
			var f float64
			for j, a := range sol.A {
				f += p.k[i*testM+j] * a
			}
			r := p.y[i] - f - sol.B
			if math.Abs(r) > eps*(1+1e-9) {
				t.Errorf("ε=%g: point %d residual %g outside the tube", eps, i, r)
			}
			if sol.A[i] != 0 && math.Abs(math.Abs(r)-eps) > 1e-9*eps {
				t.Errorf("ε=%g: support vector %d has residual %g, not ±ε", eps, i, r)
			}
			if sol.A[i] != 0 && math.Signbit(r) != math.Signbit(sol.A[i]) {
				t.Errorf("ε=%g: support vector %d: a = %g but residual %g", eps, i, sol.A[i], r)
			}
		}
	}
}

// noisy returns the RKHS problem with Gaussian noise of deviation sigma on
// the targets: the case of finite C (Appendix C).
func noisy(seed uint64, sigma float64) *rkhsProblem {
	p := newRKHS(seed, testM, 2, 20, testGamma)
	rng := rand.New(rand.NewPCG(seed, 99))
	for i := range p.y {
		p.y[i] += sigma * rng.NormFloat64()
	}
	return p
}

// TestFiniteC: with the box |a_i| ≤ C, bpdn equals the SVR by SMO.
func TestFiniteC(t *testing.T) {
	p := noisy(8, 0.1)
	for _, c := range []float64{0.1, 1} {
		for _, eps := range []float64{0.01, 0.05, 0.2} {
			sol := mustSolve(t, testM, p.k, p.y, Params{Epsilon: eps, C: c})
			a2, b2, _ := smoSVR(t, testM, p.k, p.y, c, eps)
			ct := Compare(testM, p.k, p.y, eps, c, sol.A, sol.B, a2, b2, DefaultTolerances)
			if !ct.Agree {
				t.Errorf("C=%g ε=%g: disagree: max|Δa| %g, |Δb| %g (b %g), same support %v (%d/%d), obj %.15g vs %.15g",
					c, eps, ct.MaxDA, ct.DB, sol.B, ct.SameSupport, ct.NSV[0], ct.NSV[1], ct.Obj[0], ct.Obj[1])
			}
			if sol.NumBounded == 0 {
				t.Errorf("C=%g ε=%g: no coefficient at the box: the test does not exercise it", c, eps)
			}
			if eps == 0.05 {
				t.Logf("C=%g ε=%g: %d SV (%d at the box), max|Δa| %.2g, |Δb| %.2g", c, eps, len(sol.Support), sol.NumBounded, ct.MaxDA, ct.DB)
			}
		}
	}
}

// TestSupportRetrain: retraining on the support vectors alone gives the
// same a and b (the compression property).
func TestSupportRetrain(t *testing.T) {
	cases := []struct {
		p      *rkhsProblem
		eps, c float64
	}{
		{newRKHS(9, testM, 2, 20, testGamma), 0.05, inf},
		{newRKHS(9, testM, 2, 20, testGamma), 0.01, inf},
		{noisy(10, 0.1), 0.05, 1},
	}
	for _, tc := range cases {
		p := tc.p
		sol := mustSolve(t, testM, p.k, p.y, Params{Epsilon: tc.eps, C: tc.c})
		s := sol.Support
		ns := len(s)
		ks := make([]float64, ns*ns)
		ys := make([]float64, ns)
		for r, i := range s {
			ys[r] = p.y[i]
			for c, j := range s {
				ks[r*ns+c] = p.k[i*testM+j]
			}
		}
		sub := mustSolve(t, ns, ks, ys, Params{Epsilon: tc.eps, C: tc.c})
		var da float64
		for r, i := range s {
			da = math.Max(da, math.Abs(sub.A[r]-sol.A[i]))
		}
		if da > 1e-8*math.Max(1, maxAbs(sol.A)) || math.Abs(sub.B-sol.B) > 1e-8*math.Max(1, math.Abs(sol.B)) || len(sub.Support) != ns {
			t.Errorf("ε=%g C=%g: retrained on %d SVs: max|Δa| %g, b %v vs %v, %d SVs", tc.eps, tc.c, ns, da, sub.B, sol.B, len(sub.Support))
		}
	}
}

// TestBadInput: invalid parameters, and an infeasible hard tube (a
// duplicated point, targets 0.5 apart, ε = 0.01) with C = ∞.
func TestBadInput(t *testing.T) {
	p := newRKHS(11, 30, 2, 5, testGamma)
	for _, tc := range []struct {
		name string
		prm  Params
	}{
		{"negative ε", Params{Epsilon: -0.1, C: inf}},
		{"NaN ε", Params{Epsilon: math.NaN(), C: inf}},
		{"zero C", Params{Epsilon: 0.1, C: 0}},
		{"negative C", Params{Epsilon: 0.1, C: -1}},
		{"negative tolerance", Params{Epsilon: 0.1, C: 1, Tol: -1}},
	} {
		if _, err := Solve(30, p.k, p.y, tc.prm); !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: got %v, want ErrBadInput", tc.name, err)
		}
	}
	if _, err := Solve(30, p.k, p.y[:29], Params{Epsilon: 0.1, C: 1}); !errors.Is(err, ErrBadInput) {
		t.Errorf("short y: got %v", err)
	}
	// A duplicated point with targets more than 2ε apart: infeasible with
	// C = ∞ ...
	x := append(append([][]float64{}, p.x...), p.x[3])
	y := append(append([]float64{}, p.y...), p.y[3]+0.5)
	n := len(x)
	k := make([]float64, n*n)
	for i := range n {
		for j := range n {
			k[i*n+j] = rbf64(testGamma, x[i], x[j])
		}
	}
	if _, err := Solve(n, k, y, Params{Epsilon: 0.01, C: inf}); !errors.Is(err, ErrInfeasible) || !errors.Is(err, ErrSingular) {
		t.Errorf("duplicate point, C = ∞: got %v, want ErrInfeasible (and ErrSingular)", err)
	}
	// ... and solved with a finite C, to SMO's objective.
	sol := mustSolve(t, n, k, y, Params{Epsilon: 0.01, C: 1})
	a2, b2, _ := smoSVR(t, n, k, y, 1, 0.01)
	ct := Compare(n, k, y, 0.01, 1, sol.A, sol.B, a2, b2, DefaultTolerances)
	if d := math.Abs(ct.Obj[0] - ct.Obj[1]); d > 1e-9*math.Max(1, math.Abs(ct.Obj[1])) {
		t.Errorf("duplicate point, C = 1: objective %.15g vs SMO %.15g", ct.Obj[0], ct.Obj[1])
	}
}
