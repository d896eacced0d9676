package engine

import "github.com/pursuit-ml/pursuit/backend"

// The hot operations, as the algorithms reach them. Each forwards to the
// chosen backend with the same contract as the backend.Backend method of the
// same name; algorithms call these and never the backend itself, so that the
// engine is the one place that can add norms caching, residency, budgets or
// (for training across machines) communication around them.

// KernelBlock writes dst[i][j] = k(a_i, b_j); see backend.Backend.KernelBlock.
func (e *Engine) KernelBlock(dst Matrix, k Kernel, a Matrix, aNorms []float32, b Matrix, bNorms []float32) error {
	return e.be.KernelBlock(dst, k, a, aNorms, b, bNorms)
}

// KernelGather writes dst[r][j] = k(a_{idx[r]}, b_j); see
// backend.Backend.KernelGather.
func (e *Engine) KernelGather(dst Matrix, k Kernel, a Matrix, aNorms []float32, idx []int, b Matrix, bNorms []float32) error {
	return e.be.KernelGather(dst, k, a, aNorms, idx, b, bNorms)
}

// DictProducts computes every ⟨d_i, v_j⟩ in one pass over dict; see
// backend.Backend.DictProducts.
func (e *Engine) DictProducts(dst []float64, dict Matrix, vecs Matrix) error {
	return e.be.DictProducts(dst, dict, vecs)
}

// RankUpdate applies d ← d + alpha·Σ_t u_t v_tᵀ; see
// backend.Backend.RankUpdate.
func (e *Engine) RankUpdate(d Matrix, alpha float32, u Matrix, v Matrix) error {
	return e.be.RankUpdate(d, alpha, u, v)
}

// ScoredArgMax returns argmax_k |s_k|/sqrt(n_k) over eligible candidates;
// see backend.Backend.ScoredArgMax.
func (e *Engine) ScoredArgMax(s, n []float64, skip []bool) (int, float64) {
	return e.be.ScoredArgMax(s, n, skip)
}

// Ops is the set of hot operations algorithms use; *Engine implements it.
// Algorithms hold an Ops (or the *Engine) rather than a backend.Backend.
type Ops interface {
	KernelBlock(dst Matrix, k Kernel, a Matrix, aNorms []float32, b Matrix, bNorms []float32) error
	KernelGather(dst Matrix, k Kernel, a Matrix, aNorms []float32, idx []int, b Matrix, bNorms []float32) error
	DictProducts(dst []float64, dict Matrix, vecs Matrix) error
	RankUpdate(d Matrix, alpha float32, u Matrix, v Matrix) error
	ScoredArgMax(s, n []float64, skip []bool) (int, float64)
}

var _ Ops = (*Engine)(nil)
var _ Ops = backend.Backend(nil)
