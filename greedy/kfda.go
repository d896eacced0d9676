package greedy

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/par"
	"github.com/pursuit-ml/pursuit/stochastic"
)

// DefaultRidge is KFDAConfig.Ridge's default.
const DefaultRidge = 1e-3

// KFDAConfig configures MP-KFDA.
type KFDAConfig struct {
	Kernel pursuit.Kernel
	// Steps is k, the number of basis vectors (1 ≤ k ≤ m); fewer when no
	// column is left with a usable quotient.
	Steps int
	// Ridge regularises the Fisher direction: w = (S_W + λI)⁻¹(μ₊ − μ₋)
	// with λ = Ridge·trace(S_W)/k (DefaultRidge when 0; negative for none).
	Ridge float64
	// Stochastic, if not nil, searches a random subset of the unchosen
	// columns per step (stochastic.Config's size rule), drawn from Seed.
	Stochastic *stochastic.Config
	Seed       uint64
	// Tol: a column whose deflated squared norm is below Tol times its
	// original one lies in the span of the chosen columns and is never
	// chosen (DefaultTol when 0).
	Tol float64
}

// KFDA is a trained MP-KFDA binary classifier: f(x) = Σ_r α_r κ(x, c_r) + b,
// positive for the class labelled +1.
type KFDA struct {
	Kernel  pursuit.Kernel
	Index   []int          // chosen training rows, in order of choice
	Centres pursuit.Matrix // the chosen points c_r, k×d
	Alpha   []float64      // α = L⁻ᵀ w
	Bias    float64
	W       []float64 // the Fisher direction in the k Nyström features
	Scores  []float64 // each step's quotient (d_pᵀy)²/(d_pᵀB d_p)
}

// kfdaWeights are the within-class weights of the paper's B = D − C⁺ − C⁻:
// vᵀBv = a₊ Σ_{y_i=+1}(v_i − v̄₊)² + a₋ Σ_{y_i=−1}(v_i − v̄₋)² with
// a₊ = 2m⁻/m and a₋ = 2m⁺/m.
func kfdaWeights(y []float64) (pos []bool, mp, mn int, ap, an float64, err error) {
	pos = make([]bool, len(y))
	for i, v := range y {
		switch v {
		case 1:
			pos[i] = true
			mp++
		case -1:
			mn++
		default:
			return nil, 0, 0, 0, 0, configErr("MP-KFDA: label %v at row %d, want −1 or +1", v, i)
		}
	}
	if mp == 0 || mn == 0 {
		return nil, 0, 0, 0, 0, configErr("MP-KFDA: %d positive and %d negative labels, want both classes", mp, mn)
	}
	m := float64(len(y))
	return pos, mp, mn, 2 * float64(mn) / m, 2 * float64(mp) / m, nil
}

// TrainKFDA trains matching-pursuit kernel Fisher discriminant analysis
// (Hussain et al., Section V, after Diethe, Hussain, Hardoon & Shawe-Taylor
// 2009) on the rows of x with labels y ∈ {−1, +1}:
//
//  1. k times, choose the column j of the (deflated) kernel matrix that
//     maximises the Fisher quotient (d_jᵀy)²/(d_jᵀB d_j), B the paper's
//     within-class matrix, and deflate one-sidedly, K ← (I − qqᵀ)K with q
//     the chosen deflated column normalised (as KMP, Algorithm 5);
//  2. map the points to the k Nyström features z = L⁻¹ k_i(x), L Lᵀ =
//     K[i,i], and take the regularised Fisher direction
//     w = (S_W + λI)⁻¹(μ₊ − μ₋), S_W = ZᵀBZ, and the bias at the midpoint
//     of the projected class means, b = −wᵀ(μ₊ + μ₋)/2.
//
// The kernel matrix (m×m float32, within the engine's memory budget) stays
// read-only: one DictProducts pass per step gives ⟨K_j, q⟩ and
// ⟨K_j, q∘1₊⟩, and the per-column quantities (d_jᵀy, ‖d_j‖², the class
// sums and squared sums of d_j) are updated in float64 in O(mk).
func TrainKFDA(e *engine.Engine, x pursuit.Matrix, y []float64, cfg KFDAConfig) (*KFDA, error) {
	if err := e.RequireOneRank("greedy.TrainKFDA"); err != nil {
		return nil, err
	}
	m := x.Rows
	if len(y) != m {
		return nil, configErr("MP-KFDA: %d labels for %d rows", len(y), m)
	}
	if cfg.Steps < 1 || cfg.Steps > m {
		return nil, configErr("MP-KFDA: k = %d basis vectors with m = %d training points, want 1 ≤ k ≤ m", cfg.Steps, m)
	}
	if err := cfg.Kernel.Validate(); err != nil {
		return nil, fmt.Errorf("MP-KFDA: %w", err)
	}
	tol := cfg.Tol
	if tol == 0 {
		tol = DefaultTol
	}
	if !(tol > 0 && tol < 1) {
		return nil, configErr("MP-KFDA: tolerance %v, want 0 < tol < 1", tol)
	}
	ridge := cfg.Ridge
	if ridge == 0 {
		ridge = DefaultRidge
	}
	if math.IsNaN(ridge) || math.IsInf(ridge, 0) {
		return nil, configErr("MP-KFDA: ridge %v, want a finite number", ridge)
	}
	ridge = max(ridge, 0)
	pos, mp, mn, ap, an, err := kfdaWeights(y)
	if err != nil {
		return nil, err
	}
	smp, size, K, err := prepareSearch(e, cfg.Kernel, x, cfg.Stochastic, cfg.Seed, 0x6d706b666461) // "mpkfda"
	if err != nil {
		return nil, fmt.Errorf("MP-KFDA: %w", err)
	}
	st := newKFDAState(e, K, y, pos, cfg.Steps, tol, ap, an, float64(mp), float64(mn))
	if err := st.init(); err != nil {
		return nil, err
	}
	var idx []int
	var scores []float64
	for len(idx) < cfg.Steps {
		var cand []int
		if smp != nil {
			cand = smp.Next(size)
		}
		p, score := st.pick(cand)
		if p < 0 {
			break
		}
		if err := st.deflate(p); err != nil {
			return nil, err
		}
		if smp != nil {
			smp.Remove(p)
		}
		idx = append(idx, p)
		scores = append(scores, score)
	}
	if len(idx) == 0 {
		return nil, configErr("MP-KFDA: no column has a usable Fisher quotient (all-zero kernel columns?)")
	}
	return fisherOnColumns(K, x, y, idx, scores, cfg.Kernel, ridge, ap, an)
}

type kfdaState struct {
	e          *engine.Engine
	k          pursuit.Matrix
	m, steps   int
	y          []float64
	pos        []bool
	tol        float64
	ap, an     float64
	mp, mn     float64
	q          [][]float64 // orthonormal basis of the chosen deflated columns
	p          []float64   // m × steps: p[j*steps+s] = ⟨q_s, K_j⟩
	dy         []float64   // d_jᵀy
	nrm, nrm0  []float64   // ‖d_j‖², ‖K_j‖²
	sp, sn     []float64   // Σ_{+} d_j², Σ_{−} d_j²
	tp, tn     []float64   // Σ_{+} d_j, Σ_{−} d_j
	chosen     []bool
	vecs       pursuit.Matrix
	prod       []float64
	s, n       []float64
	skip       []bool
	qy, qp, qn float64
}

func newKFDAState(e *engine.Engine, K pursuit.Matrix, y []float64, pos []bool, steps int, tol, ap, an, mp, mn float64) *kfdaState {
	m := K.Rows
	mk := func() []float64 { return make([]float64, m) }
	return &kfdaState{e: e, k: K, m: m, steps: steps, y: y, pos: pos, tol: tol, ap: ap, an: an, mp: mp, mn: mn,
		p: make([]float64, m*steps), dy: mk(), nrm: mk(), nrm0: mk(), sp: mk(), sn: mk(), tp: mk(), tn: mk(),
		chosen: make([]bool, m), vecs: pursuit.NewMatrix(4, m), prod: make([]float64, 4*m),
		s: mk(), n: mk(), skip: make([]bool, m)}
}

// init fills the per-column sums from K: one pass for the class sums, one
// for the squared ones.
func (st *kfdaState) init() error {
	m := st.m
	ind := st.vecs.Slice(0, 2, 0, m)
	for i := range m {
		if st.pos[i] {
			ind.Set(0, i, 1)
		} else {
			ind.Set(1, i, 1)
		}
	}
	if err := st.e.DictProducts(st.prod[:2*m], st.k, ind); err != nil {
		return fmt.Errorf("MP-KFDA: class sums: %w", err)
	}
	st.e.For(m, st.e.Threads(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			st.tp[j], st.tn[j] = st.prod[j], st.prod[m+j]
			st.dy[j] = st.tp[j] - st.tn[j]
			var a, b float64
			for i, v := range st.k.Row(j) {
				w := float64(v) * float64(v)
				if st.pos[i] {
					a += w
				} else {
					b += w
				}
			}
			st.sp[j], st.sn[j] = a, b
			st.nrm[j], st.nrm0[j] = a+b, a+b
		}
	})
	return nil
}

// quad returns d_jᵀB d_j from the class sums.
func (st *kfdaState) quad(j int) float64 {
	return st.ap*(st.sp[j]-st.tp[j]*st.tp[j]/st.mp) + st.an*(st.sn[j]-st.tn[j]*st.tn[j]/st.mn)
}

// pick returns the eligible candidate (all columns when cand is nil)
// maximising (d_jᵀy)²/(d_jᵀB d_j) and that quotient, through the engine's
// ScoredArgMax on (d_jᵀy, d_jᵀBd_j); −1 when none is eligible.
func (st *kfdaState) pick(cand []int) (int, float64) {
	fill := func(i, j int) {
		q := st.quad(j)
		st.skip[i] = st.chosen[j] || !(st.nrm[j] > st.tol*st.nrm0[j]) || !(q > st.tol*st.nrm0[j]*max(st.ap, st.an))
		st.s[i], st.n[i] = st.dy[j], max(q, 0)
	}
	var i int
	if cand == nil {
		for j := range st.m {
			fill(j, j)
		}
		i, _ = st.e.ScoredArgMax(st.s, st.n, st.skip)
	} else {
		for c, j := range cand {
			fill(c, j)
		}
		i, _ = st.e.ScoredArgMax(st.s[:len(cand)], st.n[:len(cand)], st.skip[:len(cand)])
		if i >= 0 {
			i = cand[i]
		}
	}
	if i < 0 {
		return -1, 0
	}
	return i, st.dy[i] * st.dy[i] / st.quad(i)
}

// deflate adds column p's normalised deflated column q to the basis and
// updates every column's sums for d_j ← d_j − q⟨q, d_j⟩.
func (st *kfdaState) deflate(p int) error {
	m, ns := st.m, len(st.q)
	d := make([]float64, m)
	for i, v := range st.k.Row(p) { // K symmetric: row p is column p
		d[i] = float64(v)
	}
	// Classical Gram–Schmidt twice against the basis.
	for range 2 {
		for _, q := range st.q {
			c := dot(q, d)
			for i := range d {
				d[i] -= c * q[i]
			}
		}
	}
	nd := math.Sqrt(dot(d, d))
	if !(nd > 0) {
		return fmt.Errorf("MP-KFDA: chosen column %d has a zero deflated norm", p)
	}
	q := d
	for i := range q {
		q[i] /= nd
	}
	qp := make([]float64, m) // q∘1₊
	var qy, sqp, sqn, qqp, qqn float64
	for i, v := range q {
		qy += v * st.y[i]
		if st.pos[i] {
			qp[i] = v
			sqp += v
			qqp += v * v
		} else {
			sqn += v
			qqn += v * v
		}
	}
	par.SplitHiLo(q, st.vecs.Row(0), st.vecs.Row(1))
	par.SplitHiLo(qp, st.vecs.Row(2), st.vecs.Row(3))
	if err := st.e.DictProducts(st.prod, st.k, st.vecs); err != nil {
		return fmt.Errorf("MP-KFDA: products with K: %w", err)
	}
	// ⟨q, d_j⟩ = ⟨q, K_j⟩ − Σ_s ⟨q, q_s⟩⟨q_s, K_j⟩, likewise for q∘1₊.
	w, wp := make([]float64, ns), make([]float64, ns)
	for s, qs := range st.q {
		w[s] = dot(q, qs)
		wp[s] = dot(qp, qs)
	}
	steps := st.steps
	st.e.For(m, st.e.Threads(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			u := st.prod[j] + st.prod[m+j]
			up := st.prod[2*m+j] + st.prod[3*m+j]
			row := st.p[j*steps : j*steps+ns]
			c, cp := u, up
			for s, v := range row {
				c -= v * w[s]
				cp -= v * wp[s]
			}
			cn := c - cp
			st.p[j*steps+ns] = u
			st.dy[j] -= c * qy
			st.nrm[j] -= c * c
			st.sp[j] += c * (c*qqp - 2*cp)
			st.sn[j] += c * (c*qqn - 2*cn)
			st.tp[j] -= c * sqp
			st.tn[j] -= c * sqn
		}
	})
	st.q = append(st.q, q)
	st.chosen[p] = true
	st.nrm[p], st.dy[p] = 0, 0
	return nil
}

// fisherOnColumns fits the regularised Fisher direction on the Nyström
// features of the chosen columns.
func fisherOnColumns(K, x pursuit.Matrix, y []float64, idx []int, scores []float64, kern pursuit.Kernel, ridge, ap, an float64) (*KFDA, error) {
	k := len(idx)
	z, L, err := nystromFeatures(K, idx)
	if err != nil {
		return nil, fmt.Errorf("MP-KFDA: %w", err)
	}
	w, bias, err := fisher(z, y, ridge, ap, an)
	if err != nil {
		return nil, err
	}
	alpha := mat.NewVecDense(k, slicesClone(w))
	if err := alpha.SolveVec(L.T(), alpha); err != nil {
		return nil, fmt.Errorf("MP-KFDA: α = L⁻ᵀw: %w", err)
	}
	centres := pursuit.RowsOf(x, idx) // sparse rows stay sparse
	return &KFDA{Kernel: kern, Index: idx, Centres: centres, Alpha: alpha.RawVector().Data, Bias: bias, W: w, Scores: scores}, nil
}

func slicesClone(a []float64) []float64 { return append([]float64(nil), a...) }

// fisher returns w = (S_W + λI)⁻¹(μ₊ − μ₋), S_W = ZᵀBZ (weights a₊, a₋),
// λ = ridge·trace(S_W)/k, and b = −wᵀ(μ₊ + μ₋)/2, for the rows of z.
func fisher(z *mat.Dense, y []float64, ridge, ap, an float64) ([]float64, float64, error) {
	m, k := z.Dims()
	mup, mun := make([]float64, k), make([]float64, k)
	var np, nn float64
	for j := range m {
		row := z.RawRowView(j)
		mu := mun
		if y[j] > 0 {
			mu, np = mup, np+1
		} else {
			nn++
		}
		for r, v := range row {
			mu[r] += v
		}
	}
	for r := range k {
		mup[r] /= np
		mun[r] /= nn
	}
	c := mat.NewDense(m, k, nil)
	for j := range m {
		row, mu, a := z.RawRowView(j), mun, an
		if y[j] > 0 {
			mu, a = mup, ap
		}
		sa := math.Sqrt(a)
		for r, v := range row {
			c.Set(j, r, sa*(v-mu[r]))
		}
	}
	sw := mat.NewSymDense(k, nil)
	sw.SymOuterK(1, c.T())
	var tr float64
	for r := range k {
		tr += sw.At(r, r)
	}
	lam := ridge * tr / float64(k)
	for r := range k {
		sw.SetSym(r, r, sw.At(r, r)+lam)
	}
	diff := mat.NewVecDense(k, nil)
	for r := range k {
		diff.SetVec(r, mup[r]-mun[r])
	}
	var ch mat.Cholesky
	if !ch.Factorize(sw) {
		return nil, 0, fmt.Errorf("MP-KFDA: the within-class scatter of the %d features is singular (raise the ridge)", k)
	}
	var w mat.VecDense
	if err := ch.SolveVecTo(&w, diff); err != nil {
		return nil, 0, fmt.Errorf("MP-KFDA: Fisher direction: %w", err)
	}
	var b float64
	for r := range k {
		b -= w.AtVec(r) * (mup[r] + mun[r]) / 2
	}
	return w.RawVector().Data, b, nil
}

// Decision returns f(x) = Σ_r α_r κ(x, c_r) + b for each row of xs.
func (f *KFDA) Decision(e *engine.Engine, xs pursuit.Matrix) ([]float64, error) {
	if xs.Cols != f.Centres.Cols {
		return nil, configErr("MP-KFDA: points have %d features, the model %d", xs.Cols, f.Centres.Cols)
	}
	n, k := xs.Rows, len(f.Alpha)
	out := make([]float64, n)
	if n == 0 {
		return out, nil
	}
	kx := pursuit.NewMatrix(n, k)
	if err := e.KernelBlock(kx, f.Kernel, xs, nil, f.Centres, nil); err != nil {
		return nil, fmt.Errorf("MP-KFDA: kernel with the basis: %w", err)
	}
	for i := range n {
		s := f.Bias
		for r, v := range kx.Row(i) {
			s += f.Alpha[r] * float64(v)
		}
		out[i] = s
	}
	return out, nil
}
