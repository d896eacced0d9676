package greedy

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/activeset"
	"github.com/pursuit-ml/pursuit/internal/par"
	"github.com/pursuit-ml/pursuit/stochastic"
)

// ErrConfig is wrapped by the errors for configurations and inputs the
// methods cannot use (k larger than m, no steps, mismatched rows).
var ErrConfig = pursuit.Tag(errors.New("greedy: invalid configuration"), pursuit.ErrConfig)

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

// DefaultTol is the default relative threshold below which a point's
// residual diagonal K̂_jj/K_jj counts as zero (the point lies in the span
// of those chosen) and the point is never chosen.
const DefaultTol = 1e-10

// KPCAConfig configures sparse kernel PCA.
type KPCAConfig struct {
	Kernel pursuit.Kernel
	// Steps is k, the number of training points to choose (1 ≤ k ≤ m). The
	// fit stops early, with fewer, when every residual diagonal is below
	// Tol (the span of the chosen points holds every training point).
	Steps int
	// Explicit deflates a float32 copy of K in place with the engine's
	// RankUpdate (Algorithm 2 as written, O(m²) memory writes per step) —
	// the test oracle. The default, implicit form keeps K read-only and the
	// m×k factor, and reads K once per step.
	Explicit bool
	// Stochastic, if not nil, searches only a random subset of the unchosen
	// points per step, of stochastic.Config's size (59 for ε = 0.05, q = 0.95:
	// Smola & Schölkopf's sub-sampling). The subsets come from Seed.
	Stochastic *stochastic.Config
	Seed       uint64
	// Tol is the relative residual-diagonal threshold (DefaultTol if 0).
	Tol float64
}

// KPCA is a fitted sparse kernel PCA: the chosen points i, the Cholesky
// factor L of K[i,i] (L Lᵀ = K[i,i], lower triangular, in the order of
// choice) and the training factor G = K[:,i] L⁻ᵀ (G Gᵀ is the Nyström
// approximation K[:,i] K[i,i]⁻¹ K[i,:], G's row j the features of
// training point j).
type KPCA struct {
	Kernel  pursuit.Kernel
	Index   []int          // chosen training rows, in order of choice
	Centres pursuit.Matrix // the chosen points, k×d
	L       *mat.TriDense  // k×k, lower
	G       *mat.Dense     // m×k training features
	// Scores[s] is step s's criterion ‖d_p‖²/K̂_pp, the decrease of
	// trace(K̂) it achieves (Theorem 5).
	Scores []float64
	Trace0 float64   // trace(K)
	Trace  []float64 // trace(K̂) after each step: Σ_j κ(x_j,x_j) − ‖g_j‖²
}

// Residuals returns, for t = 1..k, the mean squared residual of the m − t
// training points outside the compression set, trace(K̂_t)/(m − t): the
// empirical term of Corollary 1 (the chosen points' residuals are 0).
func (p *KPCA) Residuals() []float64 {
	m := p.G.RawMatrix().Rows
	out := make([]float64, len(p.Trace))
	for t, tr := range p.Trace {
		out[t] = max(tr, 0) / float64(m-t-1)
	}
	return out
}

// kpcaState is the greedy loop's state for both forms.
type kpcaState struct {
	e     *engine.Engine
	m     int
	k     pursuit.Matrix // K, read-only in the implicit form; K̂ in the explicit one
	kdiag []float64      // κ(x_j, x_j)
	diag  []float64      // K̂_jj
	nrm   []float64      // ‖d_j‖², implicit form
	// The factor, m×steps row-major: f[j*steps+s] = g_s[j], so that the
	// per-point sums over s read contiguous memory.
	f       []float64
	steps   int
	ns      int       // columns filled
	w       []float64 // Gᵀg for the newest g (implicit form)
	chosen  []bool
	tol     float64
	vecs    pursuit.Matrix // 2×m hi/lo of g
	prod    []float64
	sq, elg []float64 // ScoredArgMax inputs
	skip    []bool
}

// FitKPCA runs sparse kernel PCA (Hussain et al.'s Algorithm 2, equivalent
// to Smola & Schölkopf's Algorithm 6, Theorem 5) on the rows of x: k times,
// choose the training point p whose deflated column d_p has the largest
// ‖d_p‖²/K̂_pp, and deflate K̂ ← K̂ − g gᵀ with g = d_p/sqrt(K̂_pp) — a
// pivoted incomplete Cholesky factorisation K ≈ G Gᵀ with that pivot rule.
//
// The implicit form keeps K (m×m float32, within the engine's memory
// budget) read-only and updates ‖d_j‖² and K̂_jj from one pass of the
// engine's DictProducts over K per step (K g) and O(mk) float64 work on the
// factor; products with K use a hi/lo float32 split of g, so everything
// but K's own float32 rounding is float64.
func FitKPCA(e *engine.Engine, x pursuit.Matrix, cfg KPCAConfig) (*KPCA, error) {
	if err := e.RequireOneRank("greedy.FitKPCA"); err != nil {
		return nil, err
	}
	m := x.Rows
	if m == 0 {
		return nil, configErr("sparse KPCA: no training points")
	}
	if cfg.Steps < 1 || cfg.Steps > m {
		return nil, configErr("sparse KPCA: k = %d steps with m = %d training points, want 1 ≤ k ≤ m", cfg.Steps, m)
	}
	if err := cfg.Kernel.Validate(); err != nil {
		return nil, fmt.Errorf("sparse KPCA: %w", err)
	}
	tol := cfg.Tol
	if tol == 0 {
		tol = DefaultTol
	}
	if !(tol > 0 && tol < 1) {
		return nil, configErr("sparse KPCA: tolerance %v, want 0 < tol < 1", tol)
	}
	smp, size, K, err := prepareSearch(e, cfg.Kernel, x, cfg.Stochastic, cfg.Seed, 0x736b706361) // "skpca"
	if err != nil {
		return nil, fmt.Errorf("sparse KPCA: %w", err)
	}
	if err := e.Reserve(fmt.Sprintf("the sparse KPCA factor (%d×%d float64)", m, cfg.Steps), int64(m)*int64(cfg.Steps)*8); err != nil {
		return nil, fmt.Errorf("sparse KPCA: %w", err)
	}
	st := &kpcaState{e: e, m: m, k: K, tol: tol, chosen: make([]bool, m),
		f: make([]float64, m*cfg.Steps), steps: cfg.Steps,
		kdiag: make([]float64, m), diag: make([]float64, m),
		vecs: pursuit.NewMatrix(2, m), prod: make([]float64, 2*m),
		sq: make([]float64, m), elg: make([]float64, m), skip: make([]bool, m)}
	var tr0 float64
	for j := range m {
		v := float64(K.At(j, j))
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, configErr("sparse KPCA: κ(x_%d, x_%d) = %v: the kernel is not positive semi-definite on the data", j, j, v)
		}
		st.kdiag[j], st.diag[j] = v, v
		tr0 += v
	}
	if !cfg.Explicit {
		st.nrm = make([]float64, m)
		e.SqNorms64(st.nrm, K, nil)
	}
	fit := &KPCA{Kernel: cfg.Kernel, Trace0: tr0}
	trace := tr0
	for len(fit.Index) < cfg.Steps {
		if cfg.Explicit {
			// Scores from K̂ itself.
			e.SqNorms64(st.sq, st.k, nil)
			for j := range m {
				st.diag[j] = float64(st.k.At(j, j))
			}
		}
		cand := []int(nil)
		if smp != nil {
			cand = smp.Next(size)
		}
		p := st.pick(cand, cfg.Explicit)
		if p < 0 {
			break // every remaining point lies in the span of the chosen ones
		}
		g, score := st.column(p, cfg.Explicit)
		if err := st.deflate(g, cfg.Explicit); err != nil {
			return nil, err
		}
		st.chosen[p] = true
		if smp != nil {
			smp.Remove(p)
		}
		fit.Index = append(fit.Index, p)
		fit.Scores = append(fit.Scores, score)
		trace -= score
		fit.Trace = append(fit.Trace, trace)
	}
	if len(fit.Index) == 0 {
		return nil, configErr("sparse KPCA: every κ(x_j, x_j) is 0: there is no point to choose")
	}
	fit.finish(x, st.f, st.steps)
	return fit, nil
}

// pick returns the candidate (all unchosen points when cand is nil) with
// the largest ‖d_j‖²/K̂_jj among those whose residual diagonal is above
// tol·κ(x_j,x_j), through the engine's ScoredArgMax on (‖d_j‖, K̂_jj); −1
// when there is none.
func (st *kpcaState) pick(cand []int, explicit bool) int {
	nrm := st.nrm
	if explicit {
		nrm = st.sq
	}
	eligible := func(j int) bool {
		return !st.chosen[j] && st.diag[j] > st.tol*st.kdiag[j]
	}
	if cand == nil {
		for j := range st.m {
			st.skip[j] = !eligible(j)
			st.elg[j] = max(st.diag[j], 0)
			st.sq[j] = math.Sqrt(max(nrm[j], 0))
		}
		j, _ := st.e.ScoredArgMax(st.sq, st.elg, st.skip)
		return j
	}
	s, n, skip := st.sq[:len(cand)], st.elg[:len(cand)], st.skip[:len(cand)]
	for i, j := range cand {
		skip[i] = !eligible(j)
		n[i] = max(st.diag[j], 0)
		s[i] = math.Sqrt(max(nrm[j], 0))
	}
	i, _ := st.e.ScoredArgMax(s, n, skip)
	if i < 0 {
		return -1
	}
	return cand[i]
}

// column returns g = d_p/sqrt(K̂_pp), the new column of the factor, and the
// step's score ‖d_p‖²/K̂_pp = ‖g‖² computed from the column itself.
func (st *kpcaState) column(p int, explicit bool) ([]float64, float64) {
	g := make([]float64, st.m)
	row := st.k.Row(p) // K symmetric: row p is column p
	for j, v := range row {
		g[j] = float64(v)
	}
	ns, steps := st.ns, st.steps
	st.w = st.w[:0]
	if !explicit && ns > 0 {
		// d_p = K_p − G G_pᵀ, and in the same pass over G the sums
		// Σ_j d_p[j] G_j for w = Gᵀg (deflate's corrections).
		gp := st.f[p*steps : p*steps+ns]
		threads := max(1, min(st.e.Threads(), st.m))
		parts := make([][]float64, threads)
		chunk := (st.m + threads - 1) / threads
		st.e.For(threads, threads, func(lo, hi int) {
			for t := lo; t < hi; t++ {
				acc := make([]float64, ns)
				for j := t * chunk; j < min(st.m, (t+1)*chunk); j++ {
					fj := st.f[j*steps : j*steps+ns]
					g[j] -= dot(fj, gp)
					axpy(g[j], fj, acc)
				}
				parts[t] = acc
			}
		})
		st.w = append(st.w, make([]float64, ns)...)
		for _, acc := range parts {
			for s, v := range acc {
				st.w[s] += v
			}
		}
	}
	piv := st.diag[p]
	if explicit {
		piv = g[p]
	}
	s := 1 / math.Sqrt(piv)
	var score float64
	for j := range g {
		g[j] *= s
		score += g[j] * g[j]
	}
	for i := range st.w {
		st.w[i] *= s
	}
	return g, score
}

// deflate applies K̂ ← K̂ − g gᵀ: in the explicit form to the stored
// matrix (RankUpdate), in the implicit form to ‖d_j‖² and K̂_jj from one
// DictProducts pass over K:
//
//	⟨d_j, g⟩ = (K g)_j − Σ_s g_s[j]⟨g_s, g⟩
//	‖d_j − g_j g‖² = ‖d_j‖² − 2 g_j ⟨d_j, g⟩ + g_j² ‖g‖².
func (st *kpcaState) deflate(g []float64, explicit bool) error {
	m := st.m
	if explicit {
		for j := range m {
			st.vecs.Row(0)[j] = float32(g[j])
		}
		u := st.vecs.Slice(0, 1, 0, m)
		if err := st.e.RankUpdate(st.k, -1, u, u); err != nil {
			return fmt.Errorf("sparse KPCA: deflation: %w", err)
		}
		st.store(g)
		return nil
	}
	par.SplitHiLo(g, st.vecs.Row(0), st.vecs.Row(1))
	if err := st.e.DictProducts(st.prod, st.k, st.vecs); err != nil {
		return fmt.Errorf("sparse KPCA: products with K: %w", err)
	}
	ns, steps := st.ns, st.steps
	var gg float64
	for _, v := range g {
		gg += v * v
	}
	w := st.w // Gᵀg, from column
	st.e.For(m, st.e.Threads(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			dg := st.prod[j] + st.prod[m+j] - dot(st.f[j*steps:j*steps+ns], w)
			gj := g[j]
			st.nrm[j] += gj * (gj*gg - 2*dg)
			st.diag[j] -= gj * gj
		}
	})
	st.store(g)
	return nil
}

// store appends g as the factor's next column.
func (st *kpcaState) store(g []float64) {
	for j, v := range g {
		st.f[j*st.steps+st.ns] = v
	}
	st.ns++
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

func dot(a, b []float64) float64 {
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(a); i += 2 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1
}

// finish fills G, L and the centres from the factor (m×steps row-major,
// the first len(p.Index) columns filled).
func (p *KPCA) finish(x pursuit.Matrix, f []float64, steps int) {
	m, k := x.Rows, len(p.Index)
	p.G = mat.NewDense(m, k, nil)
	for j := range m {
		copy(p.G.RawRowView(j), f[j*steps:j*steps+k])
	}
	p.L = mat.NewTriDense(k, mat.Lower, nil)
	for r, i := range p.Index {
		for s := 0; s <= r; s++ {
			p.L.SetTri(r, s, f[i*steps+s])
		}
	}
	p.Centres = pursuit.RowsOf(x, p.Index) // sparse rows stay sparse
}

// Transform returns, for each row x of xs, the k features z = L⁻¹ k_i(x)
// (k_i(x) = κ(x, x_{i_r}) over the chosen points; z·z' is the Nyström
// kernel) and the residual κ(x,x) − ‖z‖², the squared distance in feature
// space from φ(x) to the span of the chosen points.
func (p *KPCA) Transform(e *engine.Engine, xs pursuit.Matrix) (*mat.Dense, []float64, error) {
	k := len(p.Index)
	if xs.Cols != p.Centres.Cols {
		return nil, nil, configErr("sparse KPCA: points have %d features, the model %d", xs.Cols, p.Centres.Cols)
	}
	n := xs.Rows
	if n == 0 {
		return nil, nil, configErr("sparse KPCA: no points to transform")
	}
	z := mat.NewDense(n, k, nil)
	resid := make([]float64, n)
	kx := pursuit.NewMatrix(n, k)
	if err := e.KernelBlock(kx, p.Kernel, xs, nil, p.Centres, nil); err != nil {
		return nil, nil, fmt.Errorf("sparse KPCA: kernel with the chosen points: %w", err)
	}
	for i := range n {
		for r := range k {
			z.Set(i, r, float64(kx.At(i, r)))
		}
	}
	// Z ← Z L⁻ᵀ, i.e. z_i = L⁻¹ k_i(x_i).
	blas64.Trsm(blas.Right, blas.Trans, 1, p.L.RawTriangular(), z.RawMatrix())
	for i := range n {
		var s float64
		for r := range k {
			v := z.At(i, r)
			s += v * v
		}
		resid[i] = selfKernel(p.Kernel, xs, i) - s
	}
	return z, resid, nil
}

// selfKernel returns κ(x_i, x_i) for row i of xs, dense or sparse (in
// float64; a sparse row's from its non-zeros).
func selfKernel(k pursuit.Kernel, xs pursuit.Matrix, i int) float64 {
	if !xs.IsSparse() {
		return k.Eval(xs.Row(i), xs.Row(i))
	}
	var sq float64
	xs.ForEachNonZero(i, func(_ int, v float32) { sq += float64(v) * float64(v) })
	return k.FromDot(sq, 0)
}

// prepareSearch is the common start of the greedy fits over the m rows of
// x: the full kernel matrix K(x, x) within the engine's budget and, when
// stochastic is not nil, the candidate sampler (seeded by seed and a salt
// per method, so the methods draw different subsets) with the active-set
// size; without it every row is a candidate (smp nil, size m).
func prepareSearch(e *engine.Engine, k pursuit.Kernel, x pursuit.Matrix, stochastic *stochastic.Config, seed, salt uint64) (smp *activeset.Sampler, size int, K pursuit.Matrix, err error) {
	m := x.Rows
	size = m
	if stochastic != nil {
		s, err := stochastic.Size()
		if err != nil {
			return nil, 0, pursuit.Matrix{}, err
		}
		size = min(s, m)
		smp = activeset.New(m, seed, salt)
	}
	norms, err := e.SqNorms(x)
	if err != nil {
		return nil, 0, pursuit.Matrix{}, err
	}
	K, err = e.KernelMatrix(k, x, norms, x, norms)
	if err != nil {
		return nil, 0, pursuit.Matrix{}, err
	}
	return smp, size, K, nil
}

// TestResiduals returns the mean residual of the rows of xs after each
// number r+1 of chosen points (curve[r]; the features are nested, so the
// residual with r+1 points adds the squares of features r+1..k−1 to the
// full residual), and the features Transform gives.
func (p *KPCA) TestResiduals(e *engine.Engine, xs pursuit.Matrix) (curve []float64, z *mat.Dense, err error) {
	z, resid, err := p.Transform(e, xs)
	if err != nil {
		return nil, nil, err
	}
	k := len(p.Index)
	curve = make([]float64, k)
	for i := range xs.Rows {
		tail := 0.0
		for r := k - 1; r >= 0; r-- {
			curve[r] += resid[i] + tail
			tail += z.At(i, r) * z.At(i, r)
		}
	}
	for r := range curve {
		curve[r] /= float64(xs.Rows)
	}
	return curve, z, nil
}
