package greedy

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"gonum.org/v1/gonum/mat"
)

// twoViews returns m pairs: x in 4-D, y a noisy non-linear image in 3-D.
func twoViews(m int, seed uint64) (pursuit.Matrix, pursuit.Matrix) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x, y := pursuit.NewMatrix(m, 4), pursuit.NewMatrix(m, 3)
	for i := range m {
		var v [4]float64
		for c := range v {
			v[c] = rng.NormFloat64()
			x.Set(i, c, float32(v[c]))
		}
		y.Set(i, 0, float32(math.Sin(v[0])+0.3*rng.NormFloat64()))
		y.Set(i, 1, float32(v[1]*v[2]+0.3*rng.NormFloat64()))
		y.Set(i, 2, float32(rng.NormFloat64()))
	}
	return x, y
}

// algorithm3 is a dense float64 transcription of Hussain et al.'s
// Algorithm 3 (choosing by |correlation|, as FitKCCA does): score
// (K_x∘K_y)ᵀ1 / sqrt((K_x∘K_x)ᵀ1 ∘ (K_y∘K_y)ᵀ1), deflate each view
// K ← K − τ(τᵀK)/τᵀτ with its own chosen column.
func algorithm3(Kx, Ky [][]float64, k int) []int {
	m := len(Kx)
	Kx, Ky = clone2(Kx), clone2(Ky)
	n0x, n0y := make([]float64, m), make([]float64, m)
	for j := range m {
		for i := range m {
			n0x[j] += Kx[i][j] * Kx[i][j]
			n0y[j] += Ky[i][j] * Ky[i][j]
		}
	}
	deflate := func(K [][]float64, p int) {
		tau := make([]float64, m)
		var tt float64
		for i := range m {
			tau[i] = K[i][p]
			tt += tau[i] * tau[i]
		}
		tk := make([]float64, m)
		for j := range m {
			for i := range m {
				tk[j] += tau[i] * K[i][j]
			}
		}
		for i := range m {
			for j := range m {
				K[i][j] -= tau[i] * tk[j] / tt
			}
		}
	}
	var idx []int
	chosen := make([]bool, m)
	for range k {
		best, p := math.Inf(-1), -1
		for j := range m {
			var a, b, c float64
			for i := range m {
				a += Kx[i][j] * Ky[i][j]
				b += Kx[i][j] * Kx[i][j]
				c += Ky[i][j] * Ky[i][j]
			}
			if chosen[j] || !(b > DefaultTol*n0x[j]) || !(c > DefaultTol*n0y[j]) {
				continue
			}
			if v := math.Abs(a) / math.Sqrt(b*c); v > best {
				best, p = v, j
			}
		}
		deflate(Kx, p)
		deflate(Ky, p)
		idx = append(idx, p)
		chosen[p] = true
	}
	return idx
}

// bruteCorr returns the canonical correlations of the centred Nyström
// features of the chosen points through the eigenvalues of
// (C_xx+λI)⁻¹C_xy(C_yy+λI)⁻¹C_yx (explicit inverses), descending.
func bruteCorr(t *testing.T, Kx, Ky [][]float64, idx []int, ridge float64) []float64 {
	m, k := len(Kx), len(idx)
	feat := func(K [][]float64) *mat.Dense {
		kii := mat.NewDense(k, k, nil)
		kc := mat.NewDense(m, k, nil)
		for a, i := range idx {
			for b, j := range idx {
				kii.Set(a, b, K[i][j])
			}
			for j := range m {
				kc.Set(j, a, K[j][i])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(k, kii.RawMatrix().Data)) {
			t.Fatal("K[i,i] not positive definite")
		}
		var L mat.TriDense
		ch.LTo(&L)
		var inv, z mat.Dense
		if err := inv.Inverse(L.T()); err != nil {
			t.Fatal(err)
		}
		z.Mul(kc, &inv)
		// centre
		for c := range k {
			var s float64
			for j := range m {
				s += z.At(j, c)
			}
			for j := range m {
				z.Set(j, c, z.At(j, c)-s/float64(m))
			}
		}
		return &z
	}
	zx, zy := feat(Kx), feat(Ky)
	cov := func(a, b *mat.Dense, reg bool) *mat.Dense {
		var c mat.Dense
		c.Mul(a.T(), b)
		c.Scale(1/float64(m), &c)
		if reg {
			lam := ridge * mat.Trace(&c) / float64(k)
			for i := range k {
				c.Set(i, i, c.At(i, i)+lam)
			}
		}
		return &c
	}
	var ix, iy, a, b, prod mat.Dense
	if err := ix.Inverse(cov(zx, zx, true)); err != nil {
		t.Fatal(err)
	}
	if err := iy.Inverse(cov(zy, zy, true)); err != nil {
		t.Fatal(err)
	}
	a.Mul(&ix, cov(zx, zy, false))
	b.Mul(&iy, cov(zy, zx, false))
	prod.Mul(&a, &b)
	var eig mat.Eigen
	if !eig.Factorize(&prod, mat.EigenNone) {
		t.Fatal("eigen")
	}
	var out []float64
	for _, v := range eig.Values(nil) {
		out = append(out, math.Sqrt(max(real(v), 0)))
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(out)))
	return out
}

func TestKCCABruteForce(t *testing.T) {
	e := newEngine(t)
	x, y := twoViews(80, 1)
	kx, ky := pursuit.NewRBF(0.3), pursuit.NewRBF(0.5)
	Kx, Ky := kernel64(t, e, kx, x), kernel64(t, e, ky, y)
	const k = 20
	idx := algorithm3(Kx, Ky, k)
	f, err := FitKCCA(e, x, y, KCCAConfig{KernelX: kx, KernelY: ky, Steps: k})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Index, idx) {
		t.Fatalf("FitKCCA chose %v\nAlgorithm 3 chose %v", f.Index, idx)
	}
	want := bruteCorr(t, Kx, Ky, idx, DefaultCCARidge)
	for c := range 5 {
		if math.Abs(f.Corr[c]-want[c]) > 1e-8 {
			t.Errorf("canonical correlation %d: %.12f, brute force %.12f", c+1, f.Corr[c], want[c])
		}
	}
	t.Logf("first canonical correlations %.4f", f.Corr[:5])
	// Without a ridge the training projections of each direction have unit
	// variance and correlate exactly as Corr says.
	g, err := FitKCCA(e, x, y, KCCAConfig{KernelX: kx, KernelY: ky, Steps: 10, Ridge: -1})
	if err != nil {
		t.Fatal(err)
	}
	px, py, err := g.Transform(e, x, y, 3)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		var sx, sy, sxy float64
		for i := range x.Rows {
			a, b := px.At(i, c), py.At(i, c)
			sx += a * a
			sy += b * b
			sxy += a * b
		}
		n := float64(x.Rows)
		if math.Abs(sx/n-1) > 1e-4 || math.Abs(sy/n-1) > 1e-4 || math.Abs(sxy/n-g.Corr[c]) > 1e-4 {
			t.Errorf("direction %d: variances %.6f, %.6f, covariance %.6f, want 1, 1, %.6f", c+1, sx/n, sy/n, sxy/n, g.Corr[c])
		}
	}
}

func TestKCCABadInput(t *testing.T) {
	e := newEngine(t)
	x, y := twoViews(30, 2)
	k := pursuit.NewRBF(0.5)
	for name, c := range map[string]struct {
		x, y pursuit.Matrix
		cfg  KCCAConfig
	}{
		"row counts differ": {x, y.Slice(0, 20, 0, 3), KCCAConfig{KernelX: k, KernelY: k, Steps: 3}},
		"k > m":             {x, y, KCCAConfig{KernelX: k, KernelY: k, Steps: 31}},
		"k = 0":             {x, y, KCCAConfig{KernelX: k, KernelY: k}},
	} {
		if _, err := FitKCCA(e, c.x, c.y, c.cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

// TestNystromJitter checks the jitter of nystromFeatures: a K[i,i] whose
// smallest eigenvalue is rounding noise (−1e-6 with k = 3, below k·2⁻²⁰)
// gets features reproducing it to that noise, and a clearly indefinite one
// (an eigenvalue of −0.1) is refused.
func TestNystromJitter(t *testing.T) {
	// K = V diag(λ) Vᵀ with V the normalised 3×3 Hadamard-like basis.
	v := [3][3]float64{{1 / math.Sqrt(3), 1 / math.Sqrt(2), 1 / math.Sqrt(6)},
		{1 / math.Sqrt(3), -1 / math.Sqrt(2), 1 / math.Sqrt(6)},
		{1 / math.Sqrt(3), 0, -2 / math.Sqrt(6)}}
	build := func(lam [3]float64) pursuit.Matrix {
		k := pursuit.NewMatrix(3, 3)
		for a := range 3 {
			for b := range 3 {
				var s float64
				for c := range 3 {
					s += v[a][c] * lam[c] * v[b][c]
				}
				k.Set(a, b, float32(s))
			}
		}
		return k
	}
	idx := []int{0, 1, 2}
	noisy := build([3]float64{2.5, 0.5, -1e-6})
	z, _, err := nystromFeatures(noisy, idx)
	if err != nil {
		t.Fatalf("eigenvalue −1e-6 (rounding noise for k = 3): %v", err)
	}
	for a := range 3 {
		for b := range 3 {
			got := mat.Dot(z.RowView(a), z.RowView(b))
			if want := float64(noisy.At(a, b)); math.Abs(got-want) > 3*0x1p-20 {
				t.Errorf("features reproduce K[%d,%d] = %v as %v", a, b, want, got)
			}
		}
	}
	if _, _, err := nystromFeatures(build([3]float64{2.5, 0.5, -0.1}), idx); err == nil {
		t.Errorf("an eigenvalue of −0.1: err = %v, want a refusal", err)
	}
}
