package greedy

import (
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/stochastic"
)

func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// boston returns the Boston housing inputs, standardised.
func boston(t testing.TB) *data.Dataset {
	t.Helper()
	path, err := data.SharedFile("boston", "boston.gz")
	if err != nil {
		t.Skip(err)
	}
	d, err := data.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := data.FitScaler(data.ScaleStandard, d.X)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Apply(d.X); err != nil {
		t.Fatal(err)
	}
	return d
}

// kernel64 returns the engine's float32 kernel matrix as float64 — the
// matrix FitKPCA works on, so the references see the same entries.
func kernel64(t testing.TB, e *engine.Engine, k pursuit.Kernel, x pursuit.Matrix) [][]float64 {
	t.Helper()
	norms, err := e.SqNorms(x)
	if err != nil {
		t.Fatal(err)
	}
	K, err := e.KernelMatrix(k, x, norms, x, norms)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, K.Rows)
	for i := range out {
		out[i] = make([]float64, K.Cols)
		for j := range out[i] {
			out[i][j] = float64(K.At(i, j))
		}
	}
	return out
}

func clone2(a [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i := range a {
		out[i] = slices.Clone(a[i])
	}
	return out
}

// argmaxRatio returns argmax num_j/den_j over j with den_j > tol·ref_j
// (0/0 for the chosen points is skipped), ties to the smallest index.
func argmaxRatio(num, den, ref []float64, tol float64) int {
	best, bi := math.Inf(-1), -1
	for j := range num {
		if !(den[j] > tol*ref[j]) {
			continue
		}
		if v := num[j] / den[j]; v > best {
			best, bi = v, j
		}
	}
	return bi
}

// algorithm2 is a literal float64 transcription of Hussain et al.'s
// Algorithm 2: choose argmax (K.^2)'1 ./ diag K, deflate
// K ← K − ττ'/K[i,i]. It returns the indices, the deflated matrix and the
// trace of K̂ after every step.
func algorithm2(K [][]float64, k int) ([]int, [][]float64, []float64) {
	m := len(K)
	K = clone2(K)
	ref := make([]float64, m)
	for j := range m {
		ref[j] = K[j][j]
	}
	var idx []int
	var traces []float64
	num, den := make([]float64, m), make([]float64, m)
	for range k {
		for j := range m {
			var s float64
			for i := range m {
				s += K[i][j] * K[i][j]
			}
			num[j], den[j] = s, K[j][j]
		}
		p := argmaxRatio(num, den, ref, DefaultTol)
		tau := make([]float64, m)
		for i := range m {
			tau[i] = K[i][p]
		}
		piv := K[p][p]
		for i := range m {
			for j := range m {
				K[i][j] -= tau[i] * tau[j] / piv
			}
		}
		idx = append(idx, p)
		var tr float64
		for j := range m {
			tr += K[j][j]
		}
		traces = append(traces, tr)
	}
	return idx, K, traces
}

// algorithm6 is a literal float64 transcription of Smola & Schölkopf's
// Algorithm 6 as printed in Hussain et al.'s appendix: K̃ = K̂T, choose
// argmax 1'(K − K̃).^2 ./ (diag K − diag K̃), then t = (−T[:,i]'/r, 1/r)
// with r = K[i,i] − K̃[i,i] (the printed K̂[i_i,i_i] read as K̃'s entry,
// the only reading with matching shapes), dot = K[:,i] − K̃[:,i],
// T ← [T; 0] + t'dot', K̂ ← (K̂, K[:,i]).
func algorithm6(K [][]float64, k int) []int {
	m := len(K)
	ref := make([]float64, m)
	for j := range m {
		ref[j] = K[j][j]
	}
	var idx []int
	var Khat [][]float64 // m × i, columns K[:, i_s]
	var T [][]float64    // i × m
	num, den := make([]float64, m), make([]float64, m)
	approx := func() [][]float64 {
		A := make([][]float64, m)
		for a := range m {
			A[a] = make([]float64, m)
			for s := range T {
				if Khat[a][s] == 0 {
					continue
				}
				for b := range m {
					A[a][b] += Khat[a][s] * T[s][b]
				}
			}
		}
		return A
	}
	for it := range k {
		A := approx()
		for j := range m {
			var s float64
			for i := range m {
				r := K[i][j] - A[i][j]
				s += r * r
			}
			num[j], den[j] = s, K[j][j]-A[j][j]
		}
		p := argmaxRatio(num, den, ref, DefaultTol)
		if it == 0 {
			T = [][]float64{make([]float64, m)}
			for b := range m {
				T[0][b] = K[b][p] / K[p][p]
			}
			Khat = make([][]float64, m)
			for a := range m {
				Khat[a] = []float64{K[a][p]}
			}
		} else {
			r := K[p][p] - A[p][p]
			tv := make([]float64, len(T)+1)
			for s := range T {
				tv[s] = -T[s][p] / r
			}
			tv[len(T)] = 1 / r
			dotv := make([]float64, m)
			for b := range m {
				dotv[b] = K[b][p] - A[b][p]
			}
			T = append(T, make([]float64, m))
			for s := range T {
				for b := range m {
					T[s][b] += tv[s] * dotv[b]
				}
			}
			for a := range m {
				Khat[a] = append(Khat[a], K[a][p])
			}
		}
		idx = append(idx, p)
	}
	return idx
}

// nystrom returns K[:, i] K[i, i]⁻¹ K[i, :] in float64 (gonum Cholesky).
func nystrom(t testing.TB, K [][]float64, idx []int) *mat.Dense {
	m, k := len(K), len(idx)
	Kii := mat.NewSymDense(k, nil)
	for a, i := range idx {
		for b, j := range idx {
			Kii.SetSym(a, b, K[i][j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(Kii) {
		t.Fatal("K[i,i] not positive definite")
	}
	C := mat.NewDense(k, m, nil)
	for a, i := range idx {
		for j := range m {
			C.Set(a, j, K[i][j])
		}
	}
	var S mat.Dense
	if err := ch.SolveTo(&S, C); err != nil {
		t.Fatal(err)
	}
	var N mat.Dense
	N.Mul(C.T(), &S)
	return &N
}

var bostonKernel = pursuit.NewRBF(0.05)

// Theorem 5: the literal Algorithms 2 and 6 choose the same 30 points on
// Boston, and FitKPCA (implicit and explicit) chooses them too.
func TestKPCATheorem5(t *testing.T) {
	e := newEngine(t)
	d := boston(t)
	K := kernel64(t, e, bostonKernel, d.X)
	const k = 30
	i2, _, _ := algorithm2(K, k)
	i6 := algorithm6(K, k)
	if !slices.Equal(i2, i6) {
		t.Fatalf("Algorithm 2 chose %v\nAlgorithm 6 chose %v", i2, i6)
	}
	for _, explicit := range []bool{false, true} {
		fit, err := FitKPCA(e, d.X, KPCAConfig{Kernel: bostonKernel, Steps: k, Explicit: explicit})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fit.Index, i2) {
			t.Errorf("FitKPCA (explicit %v) chose %v\nAlgorithm 2 chose %v", explicit, fit.Index, i2)
		}
	}
}

// After k steps K − K̂ is the Nyström approximation; FitKPCA's G Gᵀ is the
// same matrix to 1e-9, and each step lowers trace(K̂) by its score.
func TestKPCANystromAndTrace(t *testing.T) {
	e := newEngine(t)
	d := boston(t)
	K := kernel64(t, e, bostonKernel, d.X)
	m := len(K)
	const k = 30
	idx, Kd, traces := algorithm2(K, k)
	N := nystrom(t, K, idx)
	var worst float64
	for i := range m {
		for j := range m {
			worst = max(worst, math.Abs(K[i][j]-Kd[i][j]-N.At(i, j)))
		}
	}
	t.Logf("literal Algorithm 2 after %d steps: max |K − K̂ − Nyström| = %.3g", k, worst)
	if worst > 1e-9 {
		t.Errorf("literal Algorithm 2: max |K − K̂ − Nyström| = %.3g, want ≤ 1e-9", worst)
	}
	fit, err := FitKPCA(e, d.X, KPCAConfig{Kernel: bostonKernel, Steps: k})
	if err != nil {
		t.Fatal(err)
	}
	var GG mat.Dense
	GG.Mul(fit.G, fit.G.T())
	worst = 0
	for i := range m {
		for j := range m {
			worst = max(worst, math.Abs(GG.At(i, j)-N.At(i, j)))
		}
	}
	t.Logf("FitKPCA after %d steps: max |G Gᵀ − Nyström| = %.3g", k, worst)
	if worst > 1e-9 {
		t.Errorf("FitKPCA: max |G Gᵀ − Nyström| = %.3g, want ≤ 1e-9", worst)
	}
	var tr0 float64
	for j := range m {
		tr0 += K[j][j]
	}
	prev := tr0
	for s := range k {
		drop := prev - traces[s]
		if math.Abs(drop-fit.Scores[s]) > 1e-9*max(1, drop) {
			t.Errorf("step %d: trace(K̂) fell by %.12g, score %.12g", s+1, drop, fit.Scores[s])
		}
		if math.Abs(fit.Trace[s]-traces[s]) > 1e-9*tr0 {
			t.Errorf("step %d: trace %.12g, literal %.12g", s+1, fit.Trace[s], traces[s])
		}
		prev = traces[s]
	}
	// Residuals are trace/(m − t), decreasing.
	res := fit.Residuals()
	for s := range k {
		if want := traces[s] / float64(m-s-1); math.Abs(res[s]-want) > 1e-9 {
			t.Errorf("residual after %d steps %v, want %v", s+1, res[s], want)
		}
	}
}

// The implicit and explicit forms agree: same points, same factor (the
// explicit form deflates in float32, hence the tolerance).
func TestKPCAImplicitExplicit(t *testing.T) {
	e := newEngine(t)
	d := boston(t)
	const k = 40
	a, err := FitKPCA(e, d.X, KPCAConfig{Kernel: bostonKernel, Steps: k})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitKPCA(e, d.X, KPCAConfig{Kernel: bostonKernel, Steps: k, Explicit: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Index, b.Index) {
		t.Fatalf("implicit chose %v\nexplicit chose %v", a.Index, b.Index)
	}
	if !mat.EqualApprox(a.G, b.G, 1e-3) {
		t.Error("implicit and explicit factors differ by more than 1e-3")
	}
	for s := range k {
		if math.Abs(a.Scores[s]-b.Scores[s]) > 1e-3*a.Scores[s] {
			t.Errorf("step %d: scores %v (implicit), %v (explicit)", s+1, a.Scores[s], b.Scores[s])
		}
	}
}

// Transform reproduces the training features and residuals; the chosen
// points have residual 0.
func TestKPCATransform(t *testing.T) {
	e := newEngine(t)
	d := boston(t)
	fit, err := FitKPCA(e, d.X, KPCAConfig{Kernel: bostonKernel, Steps: 25})
	if err != nil {
		t.Fatal(err)
	}
	z, resid, err := fit.Transform(e, d.X)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(z, fit.G, 1e-5) {
		t.Error("Transform of the training points differs from G by more than 1e-5")
	}
	var sum float64
	for j, r := range resid {
		var g2 float64
		for s := range 25 {
			g2 += fit.G.At(j, s) * fit.G.At(j, s)
		}
		if math.Abs(r-(1-g2)) > 1e-5 {
			t.Fatalf("point %d: residual %v, want 1 − ‖g‖² = %v", j, r, 1-g2)
		}
		sum += r
	}
	for _, i := range fit.Index {
		if math.Abs(resid[i]) > 1e-5 {
			t.Errorf("chosen point %d has residual %v", i, resid[i])
		}
	}
	if math.Abs(sum-fit.Trace[24]) > 1e-4*fit.Trace0 {
		t.Errorf("Σ residuals %v, final trace %v", sum, fit.Trace[24])
	}
}

// Random candidate subsets: an active set as large as m chooses what the
// full search chooses; a small one is reproducible from the seed and never
// scores above the full search's first step.
func TestKPCAStochastic(t *testing.T) {
	e := newEngine(t)
	d := boston(t)
	m := d.X.Rows
	full, err := FitKPCA(e, d.X, KPCAConfig{Kernel: bostonKernel, Steps: 15})
	if err != nil {
		t.Fatal(err)
	}
	all, err := FitKPCA(e, d.X, KPCAConfig{Kernel: bostonKernel, Steps: 15, Stochastic: &stochastic.Config{ActiveSet: m}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full.Index, all.Index) {
		t.Errorf("active set of m chose %v, full search %v", all.Index, full.Index)
	}
	cfg := KPCAConfig{Kernel: bostonKernel, Steps: 15, Stochastic: &stochastic.Config{}, Seed: 7}
	a, err := FitKPCA(e, d.X, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FitKPCA(e, d.X, cfg)
	if !slices.Equal(a.Index, b.Index) {
		t.Errorf("same seed, different choices: %v vs %v", a.Index, b.Index)
	}
	if slices.Equal(a.Index, full.Index) {
		t.Error("59 random candidates per step chose exactly the full search's 15 points")
	}
	if a.Scores[0] > full.Scores[0]*(1+1e-12) {
		t.Errorf("first sampled score %v above the full search's maximum %v", a.Scores[0], full.Scores[0])
	}
	seen := map[int]bool{}
	for _, i := range a.Index {
		if seen[i] {
			t.Fatalf("point %d chosen twice", i)
		}
		seen[i] = true
	}
}

func TestKPCABadInput(t *testing.T) {
	e := newEngine(t)
	x := pursuit.NewMatrix(5, 2)
	for _, c := range []KPCAConfig{
		{Kernel: bostonKernel, Steps: 6},
		{Kernel: bostonKernel, Steps: 0},
		{Kernel: bostonKernel, Steps: 2, Tol: 2},
	} {
		if _, err := FitKPCA(e, x, c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err = %v, want ErrConfig", c, err)
		}
	}
	// A linear kernel on all-zero points has nothing to choose.
	if _, err := FitKPCA(e, x, KPCAConfig{Kernel: pursuit.NewLinear(), Steps: 2}); !errors.Is(err, ErrConfig) {
		t.Errorf("zero points, linear kernel: err = %v, want ErrConfig", err)
	}
}

// The spectrum's eigenvalues sum to the traces of K and of the centred K,
// and the largest matches the Rayleigh quotient bound of a power iteration.
func TestKernelSpectrum(t *testing.T) {
	e := newEngine(t)
	x, _ := twoClass(60, 3, 11)
	kern := pursuit.NewRBF(0.3)
	sp, err := KernelSpectrum(e, kern, x)
	if err != nil {
		t.Fatal(err)
	}
	K := kernel64(t, e, kern, x)
	m := len(K)
	var tr, trc, all float64
	rows := make([]float64, m)
	for i := range m {
		tr += K[i][i]
		for j := range m {
			rows[i] += K[i][j]
			all += K[i][j]
		}
	}
	for i := range m {
		trc += K[i][i] - 2*rows[i]/float64(m) + all/float64(m*m)
	}
	var s, sc float64
	for i := range m {
		s += sp.Lambda[i]
		sc += sp.Centred[i]
	}
	if math.Abs(s-tr) > 1e-9*tr || math.Abs(sc-trc) > 1e-9*tr {
		t.Errorf("eigenvalue sums %v, %v; traces %v, %v", s, sc, tr, trc)
	}
	v := make([]float64, m)
	for i := range v {
		v[i] = 1
	}
	var lam float64
	for range 200 {
		w := make([]float64, m)
		for i := range m {
			for j := range m {
				w[i] += K[i][j] * v[j]
			}
		}
		n := math.Sqrt(dot(w, w))
		lam = n / math.Sqrt(dot(v, v))
		for i := range w {
			v[i] = w[i] / n
		}
	}
	if top := sp.Lambda[m-1]; math.Abs(top-lam) > 1e-8*top {
		t.Errorf("largest eigenvalue %v, power iteration %v", top, lam)
	}
}
