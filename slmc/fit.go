package slmc

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// SolverOptions tune the inner SVM solves (package svm's SMO on explicit
// float64 features with a linear kernel).
type SolverOptions struct {
	// Tol is the SMO stopping tolerance on the maximal KKT violation.
	// Default 1e-4: W(Z) and its gradient are only as exact as α, and the
	// L-BFGS line search needs consistent values.
	Tol float64
	// CacheMB is the kernel-row cache budget of the SMO solver. Default:
	// the whole N×N float64 matrix up to 64 MiB (the cache is allocated
	// afresh for every solve, and warm-started solves touch few rows).
	CacheMB float64
	// Inner chooses the solver (InnerAuto: by the rule documented there).
	Inner InnerSolver
	// WorkingSet is the weight-vector solver's working-set size q
	// (0: 512).
	WorkingSet int
}

func (o SolverOptions) withDefaults() SolverOptions {
	if !(o.Tol > 0) {
		o.Tol = 1e-4
	}
	return o
}

// cacheMB returns the cache budget for n points.
func (o SolverOptions) cacheMB(n int) float64 {
	if o.CacheMB > 0 {
		return o.CacheMB
	}
	full := float64(n) * float64(n) * 8 / (1 << 20)
	return math.Max(1, math.Min(64, full))
}

// solveLinear trains the C-SVC with bias on the rows of phi (linear
// kernel), point i with bound c·w_i (w nil: all c), warm-started from warm
// (nil for α = 0).
//
// The second result reports whether the interior-point method produced the
// solution, and how it stopped.
func solveLinear(phi *mat.Dense, y []float64, c float64, w, warm []float64, o SolverOptions) (*svm.Solution, *ipmReport, error) {
	n, r := phi.Dims()
	raw := phi.RawMatrix()
	if raw.Stride != r {
		phi = mat.DenseCopyOf(phi)
		raw = phi.RawMatrix()
	}
	src, err := svm.NewLinear64(n, r, raw.Data)
	if err != nil {
		return nil, nil, err
	}
	if o.Inner.resolve(n, o) == InnerWeights {
		q := o.WorkingSet
		if q <= 0 {
			q = defaultWorkingSet
		}
		// Each outer iteration moves up to q variables; 20 sweeps' worth,
		// and at least 1000 outer iterations, before giving up.
		sol, err := solveWeights(phi, y, bounds(n, c, w), warm, o.Tol, q, max(1000, 20*n/q))
		if err != nil {
			return nil, nil, fmt.Errorf("linear SVM on %d×%d features: %w", n, r, err)
		}
		return sol, nil, nil
	}
	so := svm.Options{Tol: o.Tol, CacheMB: o.cacheMB(n)}
	if n <= ipmMaxPoints {
		// SMO crawls on stiff problems (large C, few low-rank features:
		// millions of iterations without converging); past this many
		// iterations the interior-point method takes over.
		so.MaxIter = max(2000, 50*n)
	}
	sol, err := svm.SolveCSVCWeighted(src, y, c, c, w, warm, so)
	if err != nil {
		return nil, nil, fmt.Errorf("linear SVM on %d×%d features: %w", n, r, err)
	}
	if !sol.Converged && n <= ipmMaxPoints {
		ip, rep, err := solveDualIPM(phi, y, bounds(n, c, w), 1e-10, o.Tol)
		if err != nil {
			return nil, nil, fmt.Errorf("linear SVM on %d×%d features (SMO stopped after %d iterations): %w", n, r, sol.Iter, err)
		}
		ip.Iter += sol.Iter
		return ip, &rep, nil
	}
	return sol, nil, nil
}

// bounds returns the upper bounds c·w_i (w nil: all c).
func bounds(n int, c float64, w []float64) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = c
		if w != nil {
			u[i] *= w[i]
		}
	}
	return u
}

// fixedFit is the SVM restricted to the span of φ(z_u) for fixed Z.
type fixedFit struct {
	b     *basis
	alpha []float64 // dual solution on φ_z
	a     []float64 // Yα
	w     float64   // W(Z) = Σα − ½‖TΨa‖²
	beta  []float64 // Kz⁻¹ΨYα (eq. 45)
	bias  float64
	sol   *svm.Solution
}

// fit trains the exact SVM on φ_z for the expansion vectors z.
func (p *problem) fit(z *mat.Dense, c float64, warm []float64, o SolverOptions) (*fixedFit, error) {
	b, err := p.newBasis(z)
	if err != nil {
		return nil, err
	}
	sol, _, err := solveLinear(b.features(), p.y, c, p.w, warm, o)
	if err != nil {
		return nil, err
	}
	f := &fixedFit{b: b, alpha: sol.Alpha, bias: sol.Bias, sol: sol}
	f.a = make([]float64, len(sol.Alpha))
	for i, v := range sol.Alpha {
		f.a[i] = v * p.y[i]
	}
	var wl []float64
	f.w, wl = b.marginalW(sol.Alpha, p.y)
	f.beta = b.betaFromWeights(wl)
	return f, nil
}

// FitOptions configure FitCoefficients and the methods built on it.
type FitOptions struct {
	// Solver tunes the inner SVM solve.
	Solver SolverOptions
	// Float64Kernels runs without an engine: K(Z, X) is computed in
	// float64 either way (the same values; see the package documentation),
	// and with this set it runs on one thread and nothing is held against
	// an engine's memory budget.
	Float64Kernels bool
}

// FitCoefficients returns the classifier Σ_u β_u K(z_u, x) + b whose
// expansion vectors are the rows of xv and whose coefficients and bias are
// those of the exact soft-margin SVM restricted to the span of the φ(z_u)
// (problem (28)–(30) of the paper, solved through its dual on the whitened
// map; β by eq. 45). This is how MRS, MRSVM and SKFD get their
// coefficients. Any kernel whose K(Z, Z) is positive semi-definite works;
// eigen-directions of K(Z, Z) below 1e-9·λmax are dropped.
func FitCoefficients(e *engine.Engine, x pursuit.Matrix, y []float64, k pursuit.Kernel, xv pursuit.Matrix, c float64, opt FitOptions) (*Model, error) {
	if err := e.RequireOneRank("slmc.FitCoefficients"); err != nil {
		return nil, err
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("slmc: FitCoefficients: %w", err)
	}
	p, z, err := prepareFit(e, x, y, k, xv, c, opt)
	if err != nil {
		return nil, fmt.Errorf("slmc: FitCoefficients: %w", err)
	}
	f, err := p.fit(z, c, nil, opt.Solver.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("slmc: FitCoefficients: %w", err)
	}
	return newModel("fit", k, z, f.beta, f.bias), nil
}

func prepareFit(e *engine.Engine, x pursuit.Matrix, y []float64, k pursuit.Kernel, xv pursuit.Matrix, c float64, opt FitOptions) (*problem, *mat.Dense, error) {
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, nil, fmt.Errorf("C must be positive and finite, got %v", c)
	}
	if err := xv.Validate(); err != nil {
		return nil, nil, fmt.Errorf("expansion vectors: %w", err)
	}
	if xv.Rows == 0 {
		return nil, nil, fmt.Errorf("no expansion vectors")
	}
	if xv.Cols != x.Cols {
		return nil, nil, fmt.Errorf("expansion vectors have %d features, the data %d", xv.Cols, x.Cols)
	}
	eng := e
	if opt.Float64Kernels {
		eng = nil
	} else if e == nil {
		return nil, nil, fmt.Errorf("an engine is required (or set Float64Kernels)")
	}
	p, err := newProblem(eng, k, x, y)
	if err != nil {
		return nil, nil, err
	}
	z := toDense(xv)
	for i := range xv.Rows {
		for j, v := range z.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("expansion vector %d, feature %d is %v", i+1, j+1, v)
			}
		}
	}
	return p, z, nil
}
