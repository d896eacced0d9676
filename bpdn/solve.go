package bpdn

import (
	"errors"
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
)

// ErrBadInput is wrapped by the errors returned for invalid parameters or
// data.
var ErrBadInput = pursuit.Tag(errors.New("bpdn: bad input"), pursuit.ErrBadInput)

// ErrSingular is wrapped by the error Solve returns when C = ∞ and the hard
// ε-tube is infeasible: that needs a singular Gram matrix (with a positive
// definite one the interpolant is feasible), so the *InfeasibleError wraps
// both ErrInfeasible and ErrSingular. A singular Gram matrix alone is not
// refused.
var ErrSingular = errors.New("bpdn: singular Gram matrix")

// ErrInfeasible is wrapped by the error Solve returns when C = ∞ and no f
// in the span of the kernel columns and no bias b keep every target within
// ε (see InfeasibleError).
var ErrInfeasible = pursuit.Tag(errors.New("bpdn: the hard ε-tube is infeasible"), pursuit.ErrBadInput)

// InfeasibleError is the error Solve returns, with C = ∞, when it finds a
// direction d with Kd = 0 (to float64's resolution) and 1ᵀd = 0 along
// which (25) decreases without bound. Then Σ_i d_i (y_i − f(x_i) − b) = dᵀy
// for every f = Σ c_i K(·, x_i) and every b, so some residual exceeds the
// tube by at least Violation = dᵀy/‖d‖₁ − ε > 0: typically two
// (nearly) duplicated points whose targets differ by more than 2ε.
type InfeasibleError struct {
	Epsilon   float64
	Violation float64 // lower bound on max_i |y_i − f(x_i) − b| − ε over every f and b
	Examples  []int   // the examples d involves most (up to 8), increasing
	Curvature float64 // dᵀKd (0 in exact arithmetic)
	KdMax     float64 // ‖Kd‖∞ (0 in exact arithmetic)
}

func (e *InfeasibleError) Error() string {
	return fmt.Sprintf("%v (C = ∞): no f and bias b keep every target within ε = %g; the largest violation is at least %.6g beyond the tube, forced by examples %v (0-based; their kernel columns are linearly dependent: a singular Gram matrix, ‖Kd‖∞ = %.2g, from duplicated or nearly duplicated points whose targets differ by more than 2ε); give a finite C or a larger ε",
		ErrInfeasible, e.Epsilon, e.Violation, e.Examples, e.KdMax)
}

// Unwrap makes errors.Is match both ErrInfeasible and ErrSingular.
func (e *InfeasibleError) Unwrap() []error { return []error{ErrInfeasible, ErrSingular} }

func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}

// Params are the problem's parameters and the solver's settings.
type Params struct {
	// Epsilon is the ℓ1 weight of (17) = the ε-SVR tube half-width
	// (LIBSVM's -p); ≥ 0.
	Epsilon float64
	// C bounds |a_i|: math.Inf(1) for Girosi's noiseless problem (the hard
	// tube), a finite positive value for the box of Problem B.2 (LIBSVM's
	// -c). Zero is refused: say which one you mean.
	C float64
	// Tol is the stopping tolerance on the largest KKT violation, in the
	// units of y (a residual's distance to where the conditions put it);
	// default 1e-12·max(1, max|y_i|).
	Tol float64
	// MaxIter bounds the active-set iterations; default 20·n + 100.
	// Reaching it is not an error: Solution.Converged is false.
	MaxIter int
	// NoWarmStart skips the coordinate-descent phase (the active-set phase
	// then starts from a = 0).
	NoWarmStart bool
}

// Solution is the minimiser of (25)–(26) and how it was found.
type Solution struct {
	A       []float64 // coefficients a = α* − α (LIBSVM's sv_coef)
	B       float64   // bias b = ν, the multiplier of Σa = 0
	Support []int     // indices with a_i ≠ 0, increasing
	// NumBounded counts the coefficients at the box, |a_i| = C.
	NumBounded int
	Obj        float64 // (25): −aᵀy + ½aᵀKa + ε‖a‖₁ (the SVR dual objective)
	KKT        float64 // largest KKT violation (see KKT)
	SumA       float64 // Σa_i after the solve (0 up to rounding)
	Converged  bool    // KKT ≤ max(Tol, the rounding floor 16·ε_mach·max_i Σ_j |K_ij a_j|)
	Iter       int     // active-set iterations
	Sweeps     int     // coordinate-descent sweeps of the first phase
	NuEvals    int     // coordinate-descent solves for a fixed ν
}

// Solve minimises (25) subject to (26) (and |a_i| ≤ C) for the n×n
// symmetric Gram matrix k, row-major, and targets y.
func Solve(n int, k, y []float64, p Params) (*Solution, error) {
	if err := validate(n, k, y, p); err != nil {
		return nil, err
	}
	tol := p.Tol
	if tol == 0 {
		tol = 1e-12 * math.Max(1, maxAbs(y))
	}
	maxIter := p.MaxIter
	if maxIter == 0 {
		maxIter = 20*n + 100
	}
	s := newState(n, k, y, p.Epsilon, p.C)
	sol := &Solution{}
	if !p.NoWarmStart {
		a, sweeps, evals := warmStart(n, k, y, p.Epsilon, p.C)
		sol.Sweeps, sol.NuEvals = sweeps, evals
		s.start(a)
	}
	iter, err := s.run(maxIter, tol)
	if err != nil {
		return nil, err
	}
	sol.Iter = iter
	sol.A = s.a
	sol.B = s.nu
	for i, v := range s.a {
		if v != 0 {
			sol.Support = append(sol.Support, i)
			sol.SumA += v
			if math.Abs(v) >= p.C {
				sol.NumBounded++
			}
		}
	}
	sol.Obj = Objective(n, k, y, sol.A, p.Epsilon)
	sol.KKT = KKT(n, k, y, sol.A, sol.B, p.Epsilon, p.C)
	sol.Converged = sol.KKT <= math.Max(tol, roundingFloor(n, k, sol.A))*(1+1e-6)+1e-15
	if math.IsInf(p.C, 1) && s.stalled && !sol.Converged {
		// No proof of infeasibility, and no way forward: the columns the
		// violators need are numerically dependent on the free set's.
		return nil, fmt.Errorf("%w: with C = ∞ the active-set method stopped with the largest tube violation %.3g (tolerance %.3g) at ‖a‖∞ = %.3g: the kernel columns of the violating examples are numerically dependent on the support's, so the hard ε-tube is out of float64's reach here (it may be feasible in exact arithmetic, with still larger coefficients); give a finite C, a larger ε or a narrower kernel",
			ErrSingular, sol.KKT, tol, maxAbs(sol.A))
	}
	return sol, nil
}

func validate(n int, k, y []float64, p Params) error {
	if !(p.Epsilon >= 0) || math.IsInf(p.Epsilon, 0) {
		return badInput("epsilon must be ≥ 0 and finite, got %v", p.Epsilon)
	}
	if !(p.C > 0) {
		return badInput("C must be positive (math.Inf(1) for the hard ε-tube), got %v", p.C)
	}
	if p.Tol < 0 || math.IsNaN(p.Tol) || math.IsInf(p.Tol, 0) {
		return badInput("tolerance must be ≥ 0 and finite, got %v", p.Tol)
	}
	if p.MaxIter < 0 {
		return badInput("MaxIter must be ≥ 0, got %d", p.MaxIter)
	}
	if n <= 0 {
		return badInput("empty problem (n = %d)", n)
	}
	if len(k) < n*n {
		return badInput("Gram matrix has %d values for %d×%d", len(k), n, n)
	}
	if len(y) != n {
		return badInput("%d targets for %d points", len(y), n)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return badInput("target %d is %v", i, v)
		}
	}
	for i := range n {
		for j := range n {
			v := k[i*n+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return badInput("Gram matrix entry (%d, %d) is %v", i, j, v)
			}
			if j > i && math.Abs(v-k[j*n+i]) > 1e-12*math.Max(1, math.Abs(v)) {
				return badInput("Gram matrix is not symmetric: K[%d,%d] = %v, K[%d,%d] = %v", i, j, v, j, i, k[j*n+i])
			}
		}
		if !(k[i*n+i] > 0) {
			return badInput("Gram matrix diagonal entry %d is %v; a kernel has K(x, x) > 0", i, k[i*n+i])
		}
	}
	return nil
}

// Objective returns (25), −aᵀy + ½aᵀKa + ε‖a‖₁, which is the ε-SVR dual
// objective R(α*, α) of (8) for α* = a⁺, α = a⁻, and E[a] of (23) minus
// ½‖f‖²_H.
func Objective(n int, k, y, a []float64, eps float64) float64 {
	var lin, quad, l1 float64
	for i := range n {
		if a[i] == 0 {
			continue
		}
		lin += a[i] * y[i]
		l1 += math.Abs(a[i])
		row := k[i*n : (i+1)*n]
		var s float64
		for j, aj := range a[:n] {
			if aj != 0 {
				s += row[j] * aj
			}
		}
		quad += a[i] * s
	}
	return -lin + 0.5*quad + eps*l1
}

// KKT returns the largest violation of the optimality conditions of (25)
// with the box |a_i| ≤ C at (a, b), in the units of y: with r_i =
// y_i − Σ_j K_ij a_j − b, a_i = 0 needs |r_i| ≤ ε, 0 < a_i < C needs
// r_i = ε, −C < a_i < 0 needs r_i = −ε, a_i = C needs r_i ≥ ε and a_i = −C
// needs r_i ≤ −ε. (Σa = 0 is reported separately, Solution.SumA.)
func KKT(n int, k, y, a []float64, b, eps, c float64) float64 {
	var worst float64
	for i := range n {
		row := k[i*n : (i+1)*n]
		var f float64
		for j, aj := range a[:n] {
			if aj != 0 {
				f += row[j] * aj
			}
		}
		r := y[i] - f - b
		var v float64
		switch {
		case a[i] == 0:
			v = math.Abs(r) - eps
		case a[i] >= c:
			v = eps - r
		case a[i] <= -c:
			v = r + eps
		case a[i] > 0:
			v = math.Abs(r - eps)
		default:
			v = math.Abs(r + eps)
		}
		worst = math.Max(worst, v)
	}
	return worst
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
