package engine

import (
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Accurate RBF kernel values.
//
// The backends take an RBF block's squared distances as
// ‖a‖² + ‖b‖² − 2a·b with the product in float32 (package backend,
// "Storage and precision"): the error of a distance is about
// u·(‖a‖² + ‖b‖²) (u = 2⁻²⁴, times a small factor of the blocking),
// whatever the distance itself. The kernel value exp(−γd²) then carries an
// absolute error of at most γ·δ(d²)·exp(−γd²) ≤ γ·δ(d²): the data's norms
// count against the scale of the distances the kernel tells apart, 1/γ.
// The engine therefore computes, before every dense RBF operation, the
// cancellation factor
//
//	κ = γ · (max_i ‖a_i‖² + max_j ‖b_j‖²)
//
// over the rows the operation reads (from the norms the caller passes, else
// from the rows), and the float32 kernel values lose about κ ulps. Data
// scaled to [0, 1] or [−1, 1] with γ ≈ 1/dim have κ ≤ 2; features in the
// hundreds (Boston unscaled, γ = 1: κ ≈ 10⁶) or data offset far from the
// origin lose all their digits. Where κ > RBFCancellationLimit the engine
// computes the block itself in float64 — the distances as Σ(a_k − b_k)², the
// reference pursuit.Kernel.Eval computes, rounded to float32 once — in
// parallel over the rows (For). That path is the same code on every
// backend, so its values are the same bits on go, avx2 and cuda, and
// accurate to the float32 rounding of the result. The operands are not
// centred instead: centring (the distance is translation-invariant) helps
// data offset from the origin but not features that are merely large, and
// it would leave backend-dependent rounding where κ stays large.
//
// Where κ ≤ RBFCancellationLimit the call goes to the backend unchanged, so
// data that were accurate before cost only the maximum of the norms.
// Sparse operands are not checked: centring would fill them in and the
// sparse kernels accumulate as documented in package backend; see
// RBFCancellation for their bound.

// RBFCancellationLimit is the cancellation factor κ = γ·(max‖a‖² +
// max‖b‖²) above which the engine computes dense RBF blocks in float64
// (see RBFCancellation).
const RBFCancellationLimit = 16

// RBFCancellation returns κ = γ·(aMax + bMax), the factor by which the
// float32 RBF distance ‖a‖²+‖b‖²−2a·b loses accuracy against the kernel's
// scale 1/γ, for rows whose squared norms are at most aMax and bMax: the
// error of a float32 kernel value is about κ·u (u = 2⁻²⁴) times a small
// factor of the product's blocking, at most (d+4)·4·κ·u for d features
// (backend's precision notes). It is 0 for other kernels, whose values
// have no such cancellation.
func RBFCancellation(k pursuit.Kernel, aMax, bMax float64) float64 {
	if k.Kind != pursuit.RBF {
		return 0
	}
	return k.Gamma * (aMax + bMax)
}

// maxSqNorm returns the largest squared norm of the rows idx of m (every
// row when idx is nil), from norms when it is not nil, else computed in
// float64 from the rows.
func maxSqNorm(m pursuit.Matrix, norms []float32, idx []int) float64 {
	var most float64
	one := func(i int) {
		var s float64
		if norms != nil {
			s = float64(norms[i])
		} else {
			for _, v := range m.Row(i) {
				s += float64(v) * float64(v)
			}
		}
		if s > most || math.IsNaN(s) {
			most = s
		}
	}
	if idx == nil {
		for i := range m.Rows {
			one(i)
		}
	} else {
		for _, i := range idx {
			one(i)
		}
	}
	return most
}

// exactRBF reports whether a dense RBF operation on the rows idx of a
// (all when idx is nil) and b, whose largest squared norm is bMax (< 0:
// not known), must take the float64 path. The arguments must have been
// checked.
func exactRBF(k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32, bMax float64) bool {
	if k.Kind != pursuit.RBF || a.IsSparse() || b.IsSparse() {
		return false
	}
	if (idx == nil && a.Rows == 0) || (idx != nil && len(idx) == 0) || b.Rows == 0 {
		return false
	}
	if bMax < 0 {
		bMax = maxSqNorm(b, bNorms, nil)
	}
	aMax := maxSqNorm(a, aNorms, idx)
	kappa := RBFCancellation(k, aMax, bMax)
	return kappa > RBFCancellationLimit || math.IsNaN(kappa)
}

// rbf64 writes dst[r][j] = exp(−γ Σ_k (a_{idx[r],k} − b_{j,k})²), the
// distance accumulated in float64, rounded to float32 once; rows of dst
// in parallel (For). idx nil means every row of a.
func (e *Engine) rbf64(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, idx []int, b pursuit.Matrix) {
	rows := a.Rows
	if idx != nil {
		rows = len(idx)
	}
	parts := e.Threads()
	if rows*b.Rows*max(a.Cols, 1) < 1<<16 {
		parts = 1
	}
	e.For(rows, parts, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			i := r
			if idx != nil {
				i = idx[r]
			}
			ar, out := a.Row(i), dst.Row(r)
			for j := range b.Rows {
				out[j] = float32(math.Exp(-k.Gamma * SqDist64(ar, b.Row(j))))
			}
		}
	})
}

// SqDist64 returns ‖x − z‖² accumulated in float64 (x and z of one length).
func SqDist64(x, z []float32) float64 {
	z = z[:len(x)]
	var s0, s1, s2, s3 float64
	n := len(x) &^ 3
	for k := 0; k < n; k += 4 {
		d0 := float64(x[k]) - float64(z[k])
		d1 := float64(x[k+1]) - float64(z[k+1])
		d2 := float64(x[k+2]) - float64(z[k+2])
		d3 := float64(x[k+3]) - float64(z[k+3])
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for k := n; k < len(x); k++ {
		d := float64(x[k]) - float64(z[k])
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// exact64 runs a dense RBF block or gather (idx nil: a block) on the
// float64 path when its arguments are valid and exactRBF says so,
// reporting whether it did; otherwise the caller runs the backend, which
// reports invalid arguments. bMax < 0: b's largest squared norm is not
// known.
func (e *Engine) exact64(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32, bMax float64) bool {
	if k.Kind != pursuit.RBF || a.IsSparse() || b.IsSparse() {
		return false
	}
	var err error
	if idx == nil {
		err = backend.CheckKernelBlock(dst, k, a, aNorms, b, bNorms)
	} else {
		err = backend.CheckKernelGather(dst, k, a, aNorms, idx, b, bNorms)
	}
	if err != nil || !exactRBF(k, a, aNorms, idx, b, bNorms, bMax) {
		return false
	}
	e.rbf64(dst, k, a, idx, b)
	return true
}

// gatherExact reports whether a gather of the rows idx of a against the
// prepared b takes the float64 path, for arguments that the gather will
// accept (it says false for others, which the backend reports).
func gatherExact(k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b *Prepared) bool {
	if k.Kind != pursuit.RBF || a.IsSparse() || b.m.IsSparse() || a.Validate() != nil || a.Cols != b.m.Cols {
		return false
	}
	if aNorms != nil && len(aNorms) < a.Rows {
		return false
	}
	for _, i := range idx {
		if i < 0 || i >= a.Rows {
			return false
		}
	}
	return exactRBF(k, a, aNorms, idx, b.m, b.norms, b.bMax)
}
