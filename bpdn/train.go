package bpdn

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// Gram returns the kernel matrix K(x_i, x_j) of the rows of x in float64
// (pursuit.Kernel.EvalRows: each value from the rows, dense or sparse,
// rows in parallel on the engine's threads), exactly symmetric. It is not
// the engine's float32 kernel matrix: a hard ε-tube (C = ∞) on an RBF Gram
// matrix that is numerically singular lives on its smallest eigenvalues,
// which float32 rounding (about 6e-8 of the largest) makes indefinite —
// on Boston at γ = 1/13 (min-max scaled), ε = 2 stalled at ‖a‖∞ ≈ 6e9 on
// the float32 matrix and is solved at ‖a‖∞ ≈ 6.3e6 on this one, as
// svm-train's double kernels give at C ≥ 1e7 (issue 30). The values are
// also the same on every backend. The cost is n²/2 scalar evaluations,
// small beside the solve's; the n×n matrix is reserved against the
// engine's memory budget.
func Gram(e *engine.Engine, x pursuit.Matrix, k pursuit.Kernel) ([]float64, error) {
	if err := e.RequireOneRank("bpdn.Gram"); err != nil {
		return nil, err
	}
	if e == nil {
		return nil, badInput("nil engine")
	}
	if err := x.Validate(); err != nil {
		return nil, badInput("data matrix: %v", err)
	}
	if err := k.Validate(); err != nil {
		return nil, badInput("%v", err)
	}
	n := x.Rows
	if n == 0 {
		return nil, badInput("no examples")
	}
	if err := e.Reserve(fmt.Sprintf("the %d×%d float64 Gram matrix", n, n), int64(n)*int64(n)*8); err != nil {
		return nil, err
	}
	g := make([]float64, n*n)
	// Row i computes K_ij for j ≥ i and mirrors it. Row i costs n − i
	// evaluations, so the rows go in eight chunks per thread.
	e.For(n, 8*e.Threads(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := i; j < n; j++ {
				v := k.EvalRows(x, i, x, j)
				g[i*n+j], g[j*n+i] = v, v
			}
		}
	})
	return g, nil
}

// Train solves the problem for the rows of x (features as the model will
// see them) and targets y under kernel k, and returns it as an ε-SVR model
// in LIBSVM's layout (Coef[0] = a on the support, Rho[0] = −b), ready for
// Model.Predict and Model.WriteLIBSVM, with the solution.
func Train(e *engine.Engine, x pursuit.Matrix, y []float64, k pursuit.Kernel, p Params) (*svm.Model, *Solution, error) {
	if err := e.RequireOneRank("bpdn.Train"); err != nil {
		return nil, nil, err
	}
	if len(y) != x.Rows {
		return nil, nil, badInput("%d targets for %d examples", len(y), x.Rows)
	}
	for i := range x.Rows {
		var bad error
		x.ForEachNonZero(i, func(j int, v float32) {
			if f := float64(v); bad == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				bad = badInput("example %d, feature %d: value %v is not finite", i, j, v)
			}
		})
		if bad != nil {
			return nil, nil, bad
		}
	}
	g, err := Gram(e, x, k)
	if err != nil {
		return nil, nil, err
	}
	sol, err := Solve(x.Rows, g, y, p)
	if err != nil {
		return nil, nil, err
	}
	return Model(x, k, sol), sol, nil
}

// Model returns the solution as an ε-SVR model over the rows of x (its
// support vectors held as x is: sparse rows stay sparse).
func Model(x pursuit.Matrix, k pursuit.Kernel, sol *Solution) *svm.Model {
	sv := pursuit.RowsOf(x, sol.Support)
	coef := make([]float64, len(sol.Support))
	for r, i := range sol.Support {
		coef[r] = sol.A[i]
	}
	return &svm.Model{
		Type: svm.EpsilonSVR, Kernel: k, SV: sv, SVIndex: append([]int(nil), sol.Support...),
		Coef: [][]float64{coef}, Rho: []float64{-sol.B},
	}
}
