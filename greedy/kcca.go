package greedy

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/par"
)

// DefaultCCARidge is KCCAConfig.Ridge's default.
const DefaultCCARidge = 1e-3

// KCCAConfig configures sparse kernel CCA.
type KCCAConfig struct {
	KernelX, KernelY pursuit.Kernel
	// Steps is k, the number of paired training points chosen (1 ≤ k ≤ m).
	Steps int
	// Ridge regularises the final CCA on the k-dimensional projections:
	// C_xx + λI and C_yy + λI with λ = Ridge·trace(C)/k (DefaultCCARidge
	// when 0; negative for none).
	Ridge float64
	// Tol: a column whose deflated squared norm (in either view) is below
	// Tol times its original one is never chosen (DefaultTol when 0).
	Tol float64
}

// KCCA is a fitted sparse kernel CCA.
//
// Centring and scaling (the paper states neither): the kernel matrices are
// used as they are for the choice of points (Algorithm 3 as printed); the
// final CCA centres the k Nyström features z_x = L_x⁻¹k_x(x) and
// z_y = L_y⁻¹k_y(y) of each view at their training means and solves
// regularised CCA with the covariances C = ZᵀZ/m of the centred features.
// Directions are scaled to unit variance on the training pairs, so a pair's
// projections are standardised canonical variates.
type KCCA struct {
	KernelX, KernelY   pursuit.Kernel
	Index              []int          // chosen pairs, in order of choice
	CentresX, CentresY pursuit.Matrix // the chosen points of each view
	LX, LY             *mat.TriDense  // Cholesky factors of K_x[i,i], K_y[i,i]
	MeanX, MeanY       []float64      // training means of the features
	WX, WY             *mat.Dense     // k×k: column c is canonical direction c
	Corr               []float64      // training canonical correlations, descending
	Scores             []float64      // each step's criterion (cosine of the deflated columns)
}

// FitKCCA runs sparse kernel CCA (Hussain et al., Algorithm 3) on paired
// views x and y (same rows): k times, choose the pair j whose deflated
// columns d^x_j, d^y_j have the largest correlation
// ⟨d^x_j, d^y_j⟩/(‖d^x_j‖‖d^y_j‖), deflate each view one-sidedly by its own
// chosen column (K ← (I − qqᵀ)K), then solve regularised CCA on the
// k-dimensional Nyström projections of the two views.
//
// Both m×m kernel matrices stay read-only (float32, within the engine's
// memory budget); each step makes one DictProducts pass over each with the
// new directions of both views (the cross terms ⟨K^x_j, q^y⟩ and
// ⟨K^y_j, q^x⟩ need the other view's direction), and updates the per-pair
// sums in float64 in O(mk).
func FitKCCA(e *engine.Engine, x, y pursuit.Matrix, cfg KCCAConfig) (*KCCA, error) {
	if err := e.RequireOneRank("greedy.FitKCCA"); err != nil {
		return nil, err
	}
	m := x.Rows
	if y.Rows != m {
		return nil, configErr("sparse KCCA: the views have %d and %d rows, want the same pairs", m, y.Rows)
	}
	if cfg.Steps < 1 || cfg.Steps > m {
		return nil, configErr("sparse KCCA: k = %d steps with m = %d pairs, want 1 ≤ k ≤ m", cfg.Steps, m)
	}
	for _, k := range []pursuit.Kernel{cfg.KernelX, cfg.KernelY} {
		if err := k.Validate(); err != nil {
			return nil, fmt.Errorf("sparse KCCA: %w", err)
		}
	}
	tol := cfg.Tol
	if tol == 0 {
		tol = DefaultTol
	}
	if !(tol > 0 && tol < 1) {
		return nil, configErr("sparse KCCA: tolerance %v, want 0 < tol < 1", tol)
	}
	ridge := cfg.Ridge
	if ridge == 0 {
		ridge = DefaultCCARidge
	}
	if math.IsNaN(ridge) || math.IsInf(ridge, 0) {
		return nil, configErr("sparse KCCA: ridge %v, want a finite number", ridge)
	}
	ridge = max(ridge, 0)
	kx, err := kernelMatrix(e, cfg.KernelX, x)
	if err != nil {
		return nil, fmt.Errorf("sparse KCCA: view x: %w", err)
	}
	ky, err := kernelMatrix(e, cfg.KernelY, y)
	if err != nil {
		return nil, fmt.Errorf("sparse KCCA: view y: %w", err)
	}
	st := &kccaState{e: e, m: m, steps: cfg.Steps, tol: tol, kx: kx, ky: ky,
		px: make([]float64, m*cfg.Steps), py: make([]float64, m*cfg.Steps),
		nx: make([]float64, m), ny: make([]float64, m), nx0: make([]float64, m), ny0: make([]float64, m),
		xy: make([]float64, m), chosen: make([]bool, m), vecs: pursuit.NewMatrix(4, m), prod: make([]float64, 4*m),
		s: make([]float64, m), n: make([]float64, m), skip: make([]bool, m)}
	st.init()
	fit := &KCCA{KernelX: cfg.KernelX, KernelY: cfg.KernelY}
	for len(fit.Index) < cfg.Steps {
		p, score := st.pick()
		if p < 0 {
			break
		}
		if err := st.deflate(p); err != nil {
			return nil, err
		}
		fit.Index = append(fit.Index, p)
		fit.Scores = append(fit.Scores, score)
	}
	if len(fit.Index) == 0 {
		return nil, configErr("sparse KCCA: no pair has non-zero kernel columns in both views")
	}
	if err := fit.finish(kx, ky, x, y, ridge); err != nil {
		return nil, err
	}
	return fit, nil
}

func kernelMatrix(e *engine.Engine, k pursuit.Kernel, x pursuit.Matrix) (pursuit.Matrix, error) {
	norms, err := e.SqNorms(x)
	if err != nil {
		return pursuit.Matrix{}, err
	}
	return e.KernelMatrix(k, x, norms, x, norms)
}

type kccaState struct {
	e        *engine.Engine
	m, steps int
	tol      float64
	kx, ky   pursuit.Matrix
	qx, qy   [][]float64 // orthonormal bases of each view's chosen deflated columns
	px, py   []float64   // m×steps: p[j*steps+s] = ⟨q_s, K_j⟩
	nx, ny   []float64   // ‖d_j‖²
	nx0, ny0 []float64
	xy       []float64 // ⟨d^x_j, d^y_j⟩
	chosen   []bool
	vecs     pursuit.Matrix
	prod     []float64
	s, n     []float64
	skip     []bool
	ns       int
}

// init computes ‖K_j‖² for both views and the row-wise products
// ⟨K^x_j, K^y_j⟩ in one float64 pass over both matrices.
func (st *kccaState) init() {
	st.e.For(st.m, st.e.Threads(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			var a, b, c float64
			rx, ry := st.kx.Row(j), st.ky.Row(j)
			for i, v := range rx {
				u, w := float64(v), float64(ry[i])
				a += u * u
				b += w * w
				c += u * w
			}
			st.nx[j], st.ny[j], st.xy[j] = a, b, c
			st.nx0[j], st.ny0[j] = a, b
		}
	})
}

// pick returns the eligible pair maximising ⟨d^x_j,d^y_j⟩/(‖d^x_j‖‖d^y_j‖)
// through ScoredArgMax on (⟨d^x,d^y⟩, ‖d^x‖²‖d^y‖²); as the quotient is a
// cosine, the largest |cosine| wins (a negative correlation is as good a
// direction as a positive one).
func (st *kccaState) pick() (int, float64) {
	for j := range st.m {
		st.skip[j] = st.chosen[j] || !(st.nx[j] > st.tol*st.nx0[j]) || !(st.ny[j] > st.tol*st.ny0[j])
		st.s[j], st.n[j] = st.xy[j], max(st.nx[j], 0)*max(st.ny[j], 0)
	}
	p, _ := st.e.ScoredArgMax(st.s, st.n, st.skip)
	if p < 0 {
		return -1, 0
	}
	return p, st.xy[p] / math.Sqrt(st.n[p])
}

// newDirection returns the normalised deflated column p of K against the
// basis q (Gram–Schmidt twice).
func newDirection(k pursuit.Matrix, q [][]float64, p int) ([]float64, error) {
	d := make([]float64, k.Rows)
	for i, v := range k.Row(p) {
		d[i] = float64(v)
	}
	for range 2 {
		for _, qs := range q {
			c := dot(qs, d)
			for i := range d {
				d[i] -= c * qs[i]
			}
		}
	}
	nd := math.Sqrt(dot(d, d))
	if !(nd > 0) {
		return nil, fmt.Errorf("sparse KCCA: chosen column %d has a zero deflated norm", p)
	}
	for i := range d {
		d[i] /= nd
	}
	return d, nil
}

// deflate adds pair p's directions q^x, q^y and updates every pair's sums
// for d^x_j ← d^x_j − q^x c^x_j, d^y_j ← d^y_j − q^y c^y_j.
func (st *kccaState) deflate(p int) error {
	m, ns, steps := st.m, st.ns, st.steps
	qx, err := newDirection(st.kx, st.qx, p)
	if err != nil {
		return err
	}
	qy, err := newDirection(st.ky, st.qy, p)
	if err != nil {
		return err
	}
	// One pass over each matrix with both directions: (K q_own, K q_other).
	ux, uy := make([]float64, 2*m), make([]float64, 2*m)
	for _, v := range []struct {
		k          pursuit.Matrix
		own, other []float64
		out        []float64
	}{{st.kx, qx, qy, ux}, {st.ky, qy, qx, uy}} {
		par.SplitHiLo(v.own, st.vecs.Row(0), st.vecs.Row(1))
		par.SplitHiLo(v.other, st.vecs.Row(2), st.vecs.Row(3))
		if err := st.e.DictProducts(st.prod, v.k, st.vecs); err != nil {
			return fmt.Errorf("sparse KCCA: products with K: %w", err)
		}
		for j := range m {
			v.out[j] = st.prod[j] + st.prod[m+j]
			v.out[m+j] = st.prod[2*m+j] + st.prod[3*m+j]
		}
	}
	// Corrections for the components along the old bases:
	// ⟨q^x, d^x_j⟩ = ⟨q^x,K^x_j⟩ − Σ_s ⟨q^x, q^x_s⟩ P^x_sj,
	// ⟨q^y, d^x_j⟩ = ⟨q^y,K^x_j⟩ − Σ_s ⟨q^y, q^x_s⟩ P^x_sj, and likewise.
	wxx, wyx, wyy, wxy := make([]float64, ns), make([]float64, ns), make([]float64, ns), make([]float64, ns)
	for s := range ns {
		wxx[s], wyx[s] = dot(qx, st.qx[s]), dot(qy, st.qx[s])
		wyy[s], wxy[s] = dot(qy, st.qy[s]), dot(qx, st.qy[s])
	}
	qq := dot(qx, qy)
	st.e.For(m, st.e.Threads(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			rx, ry := st.px[j*steps:j*steps+ns], st.py[j*steps:j*steps+ns]
			cx, qyDx := ux[j], ux[m+j] // ⟨q^x, d^x_j⟩, ⟨q^y, d^x_j⟩
			cy, qxDy := uy[j], uy[m+j] // ⟨q^y, d^y_j⟩, ⟨q^x, d^y_j⟩
			for s := range ns {
				cx -= wxx[s] * rx[s]
				qyDx -= wyx[s] * rx[s]
				cy -= wyy[s] * ry[s]
				qxDy -= wxy[s] * ry[s]
			}
			st.px[j*steps+ns], st.py[j*steps+ns] = ux[j], uy[j]
			st.xy[j] += -cx*qxDy - cy*qyDx + cx*cy*qq
			st.nx[j] -= cx * cx
			st.ny[j] -= cy * cy
		}
	})
	st.qx, st.qy = append(st.qx, qx), append(st.qy, qy)
	st.chosen[p] = true
	st.ns++
	return nil
}

// nystromFeatures returns the Nyström features K[:, i] L⁻ᵀ of the training
// rows and L (L Lᵀ = K[i,i]). Columns chosen by one-sided deflation are
// independent as columns of K, yet K[i,i] can be numerically singular (its
// condition number is about the square of theirs): then a jitter of
// 1e-12, 1e-11, … times the mean diagonal is added until the Cholesky
// factorisation succeeds, up to k·2⁻²⁰ times it. K is float32, each entry
// computed to a few units of 2⁻²⁴, so the eigenvalues of K[i,i] are only
// known to about that much (‖E‖₂ ≤ ‖E‖_F ≤ k·max|E_ab|): a smaller
// eigenvalue, even a negative one, is rounding noise. (On two-moon data
// with a 1-D second view, 20 chosen points gave K[i,i] a smallest
// eigenvalue of −1.4e-6 with AVX2's rounding and a positive one with
// AVX-512's.)
func nystromFeatures(K pursuit.Matrix, idx []int) (*mat.Dense, *mat.TriDense, error) {
	m, k := K.Rows, len(idx)
	kii := mat.NewSymDense(k, nil)
	for a, i := range idx {
		for b, j := range idx[:a+1] {
			kii.SetSym(a, b, float64(K.At(i, j)))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(kii) {
		var mean float64
		for a := range k {
			mean += kii.At(a, a) / float64(k)
		}
		most := float64(k) * 0x1p-20
		ok := false
		for jitter := 1e-12; !ok; jitter = min(10*jitter, most) {
			j := mat.NewSymDense(k, nil)
			j.CopySym(kii)
			for a := range k {
				j.SetSym(a, a, j.At(a, a)+jitter*mean)
			}
			if ok = ch.Factorize(j); !ok && jitter == most {
				return nil, nil, fmt.Errorf("K[i,i] of the %d chosen points is not positive definite even with a jitter of %.2g of its mean diagonal (the float32 kernel's rounding)", k, most)
			}
		}
	}
	L := mat.NewTriDense(k, mat.Lower, nil)
	ch.LTo(L)
	z := mat.NewDense(m, k, nil)
	for j := range m {
		for r, i := range idx {
			z.Set(j, r, float64(K.At(j, i)))
		}
	}
	blas64.Trsm(blas.Right, blas.Trans, 1, L.RawTriangular(), z.RawMatrix())
	return z, L, nil
}

// centre subtracts the column means of z and returns them.
func centre(z *mat.Dense) []float64 {
	m, k := z.Dims()
	mu := make([]float64, k)
	for j := range m {
		for r, v := range z.RawRowView(j) {
			mu[r] += v
		}
	}
	for r := range mu {
		mu[r] /= float64(m)
	}
	for j := range m {
		row := z.RawRowView(j)
		for r := range row {
			row[r] -= mu[r]
		}
	}
	return mu
}

// finish solves regularised CCA on the centred Nyström features.
func (f *KCCA) finish(kx, ky, x, y pursuit.Matrix, ridge float64) error {
	zx, lx, err := nystromFeatures(kx, f.Index)
	if err != nil {
		return fmt.Errorf("sparse KCCA: view x: %w", err)
	}
	zy, ly, err := nystromFeatures(ky, f.Index)
	if err != nil {
		return fmt.Errorf("sparse KCCA: view y: %w", err)
	}
	f.LX, f.LY = lx, ly
	f.MeanX, f.MeanY = centre(zx), centre(zy)
	if f.WX, f.WY, f.Corr, err = CCA(zx, zy, ridge); err != nil {
		return fmt.Errorf("sparse KCCA: %w", err)
	}
	// The centres are held as the views are (sparse rows stay sparse).
	f.CentresX, f.CentresY = pursuit.RowsOf(x, f.Index), pursuit.RowsOf(y, f.Index)
	return nil
}

// CCA solves regularised linear CCA for the centred rows of zx and zy (m×k
// each, the same m): it returns the canonical directions (the columns of
// wx, wy, scaled to unit regularised variance) and the correlations,
// descending. With C = ZᵀZ/m, λ = ridge·trace(C)/k (per view),
// C_xx + λ_x I = R_xᵀR_x (Cholesky) and likewise for y, the SVD
// R_x⁻ᵀ C_xy R_y⁻¹ = U S Vᵀ gives w_x = R_x⁻¹U, w_y = R_y⁻¹V, ρ = S. Full
// kernel CCA is CCA on features Z with Z Zᵀ = K.
func CCA(zx, zy *mat.Dense, ridge float64) (*mat.Dense, *mat.Dense, []float64, error) {
	m, k := zx.Dims()
	if r, c := zy.Dims(); r != m || c != k {
		return nil, nil, nil, configErr("CCA: views of %d×%d and %d×%d features, want the same shape", m, k, r, c)
	}
	cov := func(a, b *mat.Dense) *mat.Dense {
		var c mat.Dense
		c.Mul(a.T(), b)
		c.Scale(1/float64(m), &c)
		return &c
	}
	chol := func(c *mat.Dense) (*mat.TriDense, error) {
		s := mat.NewSymDense(k, nil)
		var tr float64
		for i := range k {
			tr += c.At(i, i)
		}
		lam := ridge * tr / float64(k)
		for i := range k {
			for j := i; j < k; j++ {
				v := (c.At(i, j) + c.At(j, i)) / 2
				if i == j {
					v += lam
				}
				s.SetSym(i, j, v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			return nil, fmt.Errorf("a view's covariance of the %d projections is singular (raise the ridge)", k)
		}
		var r mat.TriDense
		ch.UTo(&r)
		return &r, nil
	}
	rx, err := chol(cov(zx, zx))
	if err != nil {
		return nil, nil, nil, err
	}
	ry, err := chol(cov(zy, zy))
	if err != nil {
		return nil, nil, nil, err
	}
	// M = R_x⁻ᵀ C_xy R_y⁻¹.
	M := cov(zx, zy)
	blas64.Trsm(blas.Left, blas.Trans, 1, rx.RawTriangular(), M.RawMatrix())
	blas64.Trsm(blas.Right, blas.NoTrans, 1, ry.RawTriangular(), M.RawMatrix())
	var svd mat.SVD
	if !svd.Factorize(M, mat.SVDThin) {
		return nil, nil, nil, fmt.Errorf("SVD of the cross-covariance failed")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, rx.RawTriangular(), u.RawMatrix())
	blas64.Trsm(blas.Left, blas.NoTrans, 1, ry.RawTriangular(), v.RawMatrix())
	return &u, &v, svd.Values(nil), nil
}

// Transform maps paired points to their first n canonical variates (n ≤ k;
// 0 for all): x_j ↦ W_xᵀ(L_x⁻¹k_x(x_j) − μ_x), likewise for y.
func (f *KCCA) Transform(e *engine.Engine, x, y pursuit.Matrix, n int) (*mat.Dense, *mat.Dense, error) {
	k := len(f.Index)
	if n <= 0 || n > k {
		n = k
	}
	if x.Rows != y.Rows {
		return nil, nil, configErr("sparse KCCA: the views have %d and %d rows, want the same pairs", x.Rows, y.Rows)
	}
	if x.Rows == 0 {
		return nil, nil, configErr("sparse KCCA: no pairs to transform")
	}
	proj := func(kern pursuit.Kernel, pts, centres pursuit.Matrix, L *mat.TriDense, mu []float64, w *mat.Dense, view string) (*mat.Dense, error) {
		if pts.Cols != centres.Cols {
			return nil, configErr("sparse KCCA: view %s has %d features, the model %d", view, pts.Cols, centres.Cols)
		}
		kb := pursuit.NewMatrix(pts.Rows, k)
		if err := e.KernelBlock(kb, kern, pts, nil, centres, nil); err != nil {
			return nil, fmt.Errorf("sparse KCCA: view %s: %w", view, err)
		}
		z := mat.NewDense(pts.Rows, k, nil)
		for i := range pts.Rows {
			for r := range k {
				z.Set(i, r, float64(kb.At(i, r)))
			}
		}
		blas64.Trsm(blas.Right, blas.Trans, 1, L.RawTriangular(), z.RawMatrix())
		for i := range pts.Rows {
			row := z.RawRowView(i)
			for r := range row {
				row[r] -= mu[r]
			}
		}
		var out mat.Dense
		out.Mul(z, w.Slice(0, k, 0, n))
		return &out, nil
	}
	px, err := proj(f.KernelX, x, f.CentresX, f.LX, f.MeanX, f.WX, "x")
	if err != nil {
		return nil, nil, err
	}
	py, err := proj(f.KernelY, y, f.CentresY, f.LY, f.MeanY, f.WY, "y")
	if err != nil {
		return nil, nil, err
	}
	return px, py, nil
}

// Correlation returns the Pearson correlation of a and b (equal lengths),
// as used to score the canonical variates of new pairs.
func Correlation(a, b []float64) float64 {
	n := float64(len(a))
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= n
	mb /= n
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}
