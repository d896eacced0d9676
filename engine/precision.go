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
// cancellation factor of each pair
//
//	κ_ij = γ · (‖a_i‖² + ‖b_j‖²)
//
// (the norms in float64 from the rows), by which the float32 kernel value
// loses about κ_ij ulps. Data
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
// Where no pair exceeds the limit the call goes to the backend unchanged,
// so data that were accurate before cost only the norms (O(rows·dim)
// against the block's O(rows·cols·dim)); where every pair does, the block
// is computed in float64 alone; otherwise the backend's block is computed
// and the pairs above the limit are replaced. Each pair is decided on its
// own, so a value does not depend on the rows computed beside it.
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

// rowSqNorms returns Σ_k v_k² in float64 of the rows idx of m (every row
// when idx is nil), SqNorms64's sums on the calling goroutine: the norms
// the decision is taken from, computed from the rows alone, so that a
// pair's path does not depend on the norms a caller passes or on the rows
// beside it.
func rowSqNorms(m pursuit.Matrix, idx []int) []float64 {
	n := m.Rows
	if idx != nil {
		n = len(idx)
	}
	out := make([]float64, n)
	(*Engine)(nil).SqNorms64(out, m, idx)
	return out
}

// rbfPlan says which pairs of a dense RBF operation take the float64 path.
type rbfPlan int

const (
	planBackend rbfPlan = iota // none: the backend's block as it is
	planAll                    // every pair
	planSome                   // the pairs with κ_ij > limit, after the backend's block
)

// exceeds reports whether the pair with squared norms na and nb has
// κ_ij = γ·(na + nb) above RBFCancellationLimit (or NaN).
func exceeds(gamma, na, nb float64) bool {
	k := gamma * (na + nb)
	return !(k <= RBFCancellationLimit)
}

// planOf returns the plan for squared norms an (rows of a) and bn (rows of
// b): every pair is decided alone (κ_ij = γ(‖a_i‖² + ‖b_j‖²)), so a value
// does not depend on the other rows of the call — a sharded SVM's blocks
// and one process's give the same bits.
func planOf(gamma float64, an, bn []float64) rbfPlan {
	if len(an) == 0 || len(bn) == 0 {
		return planBackend
	}
	aMin, aMax := minMax(an)
	bMin, bMax := minMax(bn)
	switch {
	case !exceeds(gamma, aMax, bMax):
		return planBackend
	case exceeds(gamma, aMin, bMin):
		return planAll
	}
	return planSome
}

// minMax returns the smallest and largest of v (NaN counts as largest).
func minMax(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo = min(lo, x)
		if x > hi || math.IsNaN(x) {
			hi = x
		}
	}
	return lo, hi
}

// rbfOp runs a dense RBF block or gather (idx nil: a block) through the
// plan: run (the backend's operation) where no pair needs float64, the
// float64 path where all do, and run followed by the float64 values of the
// pairs that need them otherwise. bn are b's squared norms (rowSqNorms;
// nil: computed here when needed) and bPre their largest (< 0: not known).
// Other kernels, sparse operands and invalid arguments go to run unchanged,
// with the caller's norms.
//
// run is given the norms to pass to the backend. On a host-memory backend
// (the CPU drivers, which have the SMO scans: hostScanner) the norms of a block's operands that the caller did not
// pass are computed once here, with the backend's own SqNorms — the values
// the backend would compute itself — and serve both the screen and the
// backend: a prediction of n rows against a few vectors otherwise read its
// rows twice more than the product needs (a float64 screen and the
// backend's norms), about a third of the time of a 2,007 × 66 × 256 USPS
// block. A device backend keeps computing its own (its rows are on the
// device), and the screen reads the host rows.
func (e *Engine) rbfOp(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32, bn []float64, bPre float64, run func(aNorms, bNorms []float32) error) error {
	if k.Kind != pursuit.RBF || a.IsSparse() || b.IsSparse() {
		return run(aNorms, bNorms)
	}
	var err error
	if idx == nil {
		err = backend.CheckKernelBlock(dst, k, a, aNorms, b, bNorms)
	} else {
		err = backend.CheckKernelGather(dst, k, a, aNorms, idx, b, bNorms)
	}
	if err != nil {
		return run(aNorms, bNorms)
	}
	if _, host := e.be.(hostScanner); host {
		// Validated above: SqNorms cannot fail.
		if aNorms == nil && idx == nil {
			aNorms = make([]float32, a.Rows)
			_ = e.be.SqNorms(aNorms, a)
		}
		if bNorms == nil && bPre < 0 {
			bNorms = make([]float32, b.Rows)
			_ = e.be.SqNorms(bNorms, b)
		}
	}
	// A screen that allocates nothing: the largest norms, from the norms
	// the caller passes where it does (float32, hence the margin; the
	// decision of a pair near the limit is the per-pair one below).
	bMax := bPre
	if bMax < 0 {
		bMax = maxSqNorm(b, bNorms, nil)
	}
	if k.Gamma*(maxSqNorm(a, aNorms, idx)+bMax) <= RBFCancellationLimit*(1-normMargin(a.Cols)) {
		return run(aNorms, bNorms)
	}
	if bn == nil {
		bn = rowSqNorms(b, nil)
	}
	an := rowSqNorms(a, idx)
	switch planOf(k.Gamma, an, bn) {
	case planBackend:
		return run(aNorms, bNorms)
	case planAll:
		e.rbf64(dst, k, a, idx, b, nil, nil)
		return nil
	}
	if err := run(aNorms, bNorms); err != nil {
		return err
	}
	e.rbf64(dst, k, a, idx, b, an, bn)
	return nil
}

// normMargin is the relative margin the screen of rbfOp leaves for float32
// squared norms of rows of cols features: 10⁻⁴, or (cols+1)·2⁻²³ where
// that is larger — twice the bound on the rounding of a sum of cols
// non-negative float32 squares in any order, for a backend that does not
// accumulate in float64 (the CPU backends do, and are within one rounding).
func normMargin(cols int) float64 {
	return max(1e-4, float64(cols+1)*0x1p-23)
}

// exactRBF reports whether any pair of a dense RBF gather of the rows idx
// of a against b (squared norms bn) takes the float64 path.
func exactRBF(k pursuit.Kernel, a pursuit.Matrix, idx []int, b pursuit.Matrix, bn []float64) bool {
	if k.Kind != pursuit.RBF || a.IsSparse() || b.IsSparse() {
		return false
	}
	if bn == nil {
		bn = rowSqNorms(b, nil)
	}
	return planOf(k.Gamma, rowSqNorms(a, idx), bn) != planBackend
}

// rbf64 writes dst[r][j] = exp(−γ Σ_k (a_{idx[r],k} − b_{j,k})²), the
// distance accumulated in float64, rounded to float32 once; rows of dst
// in parallel (For). idx nil means every row of a. With an and bn (the
// squared norms) only the pairs whose κ_ij exceeds the limit are written.
func (e *Engine) rbf64(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, idx []int, b pursuit.Matrix, an, bn []float64) {
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
				if an != nil && !exceeds(k.Gamma, an[r], bn[j]) {
					continue
				}
				out[j] = float32(math.Exp(-k.Gamma * pursuit.SqDist64(ar, b.Row(j))))
			}
		}
	})
}

// gatherExact reports whether a gather of the rows idx of a against the
// prepared b takes the float64 path for any pair, for arguments that the
// gather will accept (false for others, which the backend reports).
func gatherExact(k pursuit.Kernel, a pursuit.Matrix, idx []int, b *Prepared) bool {
	if k.Kind != pursuit.RBF || a.IsSparse() || b.m.IsSparse() || a.Validate() != nil || a.Cols != b.m.Cols {
		return false
	}
	for _, i := range idx {
		if i < 0 || i >= a.Rows {
			return false
		}
	}
	return exactRBF(k, a, idx, b.m, b.bn)
}

// maxSqNorm returns the largest squared norm of the rows idx of m (every
// row when idx is nil), from norms when it is not nil, else computed in
// float64 from the rows; NaN when one is NaN.
func maxSqNorm(m pursuit.Matrix, norms []float32, idx []int) float64 {
	most := 0.0
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
