package engine

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// The hot operations, as the algorithms reach them. Each forwards to the
// chosen backend with the same contract as the backend.Backend method of the
// same name; algorithms call these and never the backend itself, so that the
// engine is the one place that can add norms caching, residency, budgets or
// (for training across machines) communication around them.

// KernelBlock writes dst[i][j] = k(a_i, b_j); see backend.Backend.KernelBlock.
// Dense RBF pairs whose cancellation factor exceeds RBFCancellationLimit
// are computed in float64 (precision.go).
func (e *Engine) KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b pursuit.Matrix, bNorms []float32) error {
	return e.rbfOp(dst, k, a, aNorms, nil, b, bNorms, nil, -1, func(aNorms, bNorms []float32) error {
		return e.sparseBackend(a, b).KernelBlock(dst, k, a, aNorms, b, bNorms)
	})
}

// KernelGather writes dst[r][j] = k(a_{idx[r]}, b_j); see
// backend.Backend.KernelGather.
func (e *Engine) KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32) error {
	return e.rbfOp(dst, k, a, aNorms, idx, b, bNorms, nil, -1, func(aNorms, bNorms []float32) error {
		return e.sparseBackend(a, b).KernelGather(dst, k, a, aNorms, idx, b, bNorms)
	})
}

// DictProducts computes every ⟨d_i, v_j⟩ in one pass over dict; see
// backend.Backend.DictProducts.
func (e *Engine) DictProducts(dst []float64, dict pursuit.Matrix, vecs pursuit.Matrix) error {
	return e.be.DictProducts(dst, dict, vecs)
}

// RankUpdate applies d ← d + alpha·Σ_t u_t v_tᵀ; see
// backend.Backend.RankUpdate.
func (e *Engine) RankUpdate(d pursuit.Matrix, alpha float32, u pursuit.Matrix, v pursuit.Matrix) error {
	return e.be.RankUpdate(d, alpha, u, v)
}

// ScoredArgMax returns argmax_k |s_k|/sqrt(n_k) over eligible candidates;
// see backend.Backend.ScoredArgMax. It runs on the host CPU (hostScans).
func (e *Engine) ScoredArgMax(s, n []float64, skip []bool) (int, float64) {
	return e.scan.ScoredArgMax(s, n, skip)
}

// Ops is the set of hot operations algorithms use; *Engine implements it.
// Algorithms hold an Ops (or the *Engine) rather than a backend.Backend.
type Ops interface {
	KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b pursuit.Matrix, bNorms []float32) error
	KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32) error
	DictProducts(dst []float64, dict pursuit.Matrix, vecs pursuit.Matrix) error
	RankUpdate(d pursuit.Matrix, alpha float32, u pursuit.Matrix, v pursuit.Matrix) error
	ScoredArgMax(s, n []float64, skip []bool) (int, float64)
}

var _ Ops = (*Engine)(nil)
var _ Ops = backend.Backend(nil)

// dictSetRows returns how many rows of a dictionary with cols columns
// DictProductsSets takes at a time on a backend without
// backend.SetProducts: a multiple of 16, at most 256, and as many as fit in
// 8 MiB, so that a block stays in the cores' L2/L3 caches while every set
// is applied to it (256 rows × 7291 float32 columns: 7.1 MiB).
func dictSetRows(cols int) int {
	return max(16, min(256, (8<<20)/(4*max(cols, 1))&^15))
}

// DictProductsSets computes the products of dict with several sets of
// vectors in one pass over dict: dst[s][j·dict.Rows+i] = ⟨d_i, v_j⟩ for row
// v_j of sets[s], each set's products, bit for bit, those that
// DictProductsSets computes for that set alone, so one-vs-rest KMP's
// classes choose the atoms their binary runs choose. The accuracy is
// DictProducts'.
//
// A backend with backend.SetProducts (the CPU backends) does it in one
// call, each set's products those of its own DictProducts call. Otherwise
// the engine takes dict in blocks of rows and, while a block is in cache,
// calls DictProducts on it once per set, so that the dictionary is read
// from memory once for all sets; the calls for one set do not depend on
// the others.
func (e *Engine) DictProductsSets(dst [][]float64, dict pursuit.Matrix, sets []pursuit.Matrix) error {
	if err := backend.CheckDictProductsSets(dst, dict, sets); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if sp, ok := e.be.(backend.SetProducts); ok {
		if err := sp.DictProductsSets(dst, dict, sets); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		return nil
	}
	most := 0
	for _, v := range sets {
		most = max(most, v.Rows)
	}
	return e.dictProductsSets(dst, dict, sets, most, dictSetRows(dict.Cols))
}

// dictProductsSets is DictProductsSets with nb rows per block, for sets of
// at most most vectors, the arguments checked.
func (e *Engine) dictProductsSets(dst [][]float64, dict pursuit.Matrix, sets []pursuit.Matrix, most, nb int) error {
	m := dict.Rows
	if m == 0 || most == 0 {
		return nil
	}
	nb = min(nb, m)
	scratch := make([]float64, nb*most)
	for r0 := 0; r0 < m; r0 += nb {
		r1 := min(r0+nb, m)
		rows := r1 - r0
		block := dict.Slice(r0, r1, 0, dict.Cols)
		for s, v := range sets {
			if v.Rows == 0 {
				continue
			}
			out := scratch[:rows*v.Rows]
			if err := e.be.DictProducts(out, block, v); err != nil {
				return fmt.Errorf("engine: DictProductsSets: set %d, rows %d–%d: %w", s, r0, r1, err)
			}
			for j := range v.Rows {
				copy(dst[s][j*m+r0:j*m+r1], out[j*rows:(j+1)*rows])
			}
		}
	}
	return nil
}

// SMOGradient adds y[a]·(wi·qi[a] + wj·qj[a]) to g[a] for every a and
// returns the last a maximising up[a]·g[a]; see backend.SMOGradientRef. It
// runs the backend's scan when it has one (backend.SMOScanner), else the
// fastest CPU driver's, with the reference's results bit for bit.
func (e *Engine) SMOGradient(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64) {
	return e.scan.SMOGradient(g, y, up, qi, qj, wi, wj)
}

// SMOSelect is the second-order choice of SMO's j; see
// backend.SMOSelectRef and SMOGradient.
func (e *Engine) SMOSelect(low, g, qd []float64, qi []float32, gmax, qdi float64, obj []float64) (int, float64, float64) {
	return e.scan.SMOSelect(low, g, qd, qi, gmax, qdi, obj)
}

// SMOAddScaled adds w·y[a]·row[a] to dst[a] for every a; see
// backend.SMOAddScaledRef and SMOGradient.
func (e *Engine) SMOAddScaled(dst, y []float64, row []float32, w float64) {
	e.scan.SMOAddScaled(dst, y, row, w)
}

var _ backend.SMOScanner = (*Engine)(nil)

// PairStep is backend.PairStep, LIBSVM's clipped two-variable step: the
// solvers name it here, without importing the backends.
func PairStep(yi, yj, gi, gj, ai, aj, ci, cj, quad float64) (float64, float64) {
	return backend.PairStep(yi, yj, gi, gj, ai, aj, ci, cj, quad)
}

// SVMPool is a batched SVM solver's pool of kernel rows kept where the
// backend computes (backend.SVMPool): the rows stay there, the subproblem's
// block is built and solved there and the gradient updated there, with the
// host's bits.
type SVMPool = backend.SVMPool

// NewSVMPool returns a pool of slots kernel rows of x against x itself for
// a batched SVM solver with labels y (kidx: the variables' points, nil when
// variable t is point t) when the backend keeps such pools
// (backend.SVMDevice: the cuda backend) and its rows are the engine's own:
// x is dense and prepared on that backend, and no RBF pair of x needs the
// float64 path (γ·2·max‖x_i‖² within RBFCancellationLimit, so that every
// gathered row is the backend's block as KernelGatherPrepared returns it).
// ok is false otherwise, or when the pool does not fit the device's
// memory (backend.ErrDeviceMemory), and the solver keeps its rows on the
// host.
func (e *Engine) NewSVMPool(x *Prepared, k pursuit.Kernel, slots int, y []float64, kidx []int) (pool SVMPool, ok bool, err error) {
	dev, has := e.be.(backend.SVMDevice)
	if !has || x == nil || x.h == nil || x.be != e.be || x.m.IsSparse() {
		return nil, false, nil
	}
	if k.Kind == pursuit.RBF && exceeds(k.Gamma, x.bMax, x.bMax) {
		return nil, false, nil
	}
	if pool, err = dev.NewSVMPool(x.h, k, slots, y, kidx); err != nil {
		if errors.Is(err, backend.ErrDeviceMemory) {
			// The rows do not fit the device beside X: they come to the
			// host, as without the capability.
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("engine: the SVM's row pool on %s: %w", e.be.Name(), err)
	}
	return pool, true, nil
}

// SolveSubproblem solves a batched SVM solver's subproblem on the host:
// backend.SolveSubproblemRef (g and a updated in place; the steps taken).
func SolveSubproblem(kb, y, c, g, a []float64, eps float64, limit int) int {
	return backend.SolveSubproblemRef(kb, y, c, g, a, eps, limit)
}

// SMOSubproblem is SolveSubproblem where the backend computes when it has
// the capability (backend.SubproblemSolver: the cuda backend, one launch)
// and the block fits its memory, else on the host; the bits are the same
// either way. device reports where it ran.
func (e *Engine) SMOSubproblem(kb, y, c, g, a []float64, eps float64, limit int) (steps int, device bool, err error) {
	m := len(g)
	if len(kb) < m*m || len(y) < m || len(c) < m || len(a) < m || limit < 0 {
		return 0, false, fmt.Errorf("engine: SMO subproblem: %w: %d variables, block of %d, %d labels, %d bounds, %d α, limit %d",
			pursuit.ErrShape, m, len(kb), len(y), len(c), len(a), limit)
	}
	if sub, ok := e.be.(backend.SubproblemSolver); ok && m > 0 {
		steps, err := sub.SolveSubproblem(kb[:m*m], y[:m], c[:m], g, a[:m], eps, limit)
		switch {
		case errors.Is(err, backend.ErrDeviceMemory):
			// The block does not fit the device (it failed before any
			// step): solved on the host.
		case err != nil:
			return 0, true, fmt.Errorf("engine: SMO subproblem on %s: %w", e.be.Name(), err)
		default:
			return steps, true, nil
		}
	}
	return SolveSubproblem(kb, y, c, g, a, eps, limit), false, nil
}

// SMOScanner is the capability of running an SMO iteration's passes over
// the variables as vector kernels (backend.SMOScanner); the Engine has it
// for every backend, so the SVM solver names it without importing the
// backends.
type SMOScanner = backend.SMOScanner

// ErrDeviceMemory is wrapped by errors of allocations that a device
// backend's own memory could not hold (backend.ErrDeviceMemory), so that a
// learner can fall back to streaming without importing the backends.
var ErrDeviceMemory = backend.ErrDeviceMemory
