package greedy

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/stochastic"
)

// twoClass returns m points in d dimensions: class +1 around +c, −1
// around −c, overlapping, with about a third positive.
func twoClass(m, d int, seed uint64) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := pursuit.NewMatrix(m, d)
	y := make([]float64, m)
	for i := range m {
		y[i] = -1
		if rng.Float64() < 0.35 {
			y[i] = 1
		}
		for c := range d {
			v := rng.NormFloat64()
			if c < 2 {
				v += 0.8 * y[i]
			}
			x.Set(i, c, float32(v))
		}
	}
	return x, y
}

// bruteKFDA is a dense float64 MP-KFDA: the explicit B matrix, explicit
// one-sided deflation K ← K − τ(τᵀK)/τᵀτ, scores (K_jᵀy)²/(K_jᵀBK_j), then
// the Fisher direction through explicit inverses.
func bruteKFDA(t *testing.T, K0 [][]float64, y []float64, k int, ridge float64) ([]int, []float64, float64) {
	m := len(K0)
	var mp, mn float64
	for _, v := range y {
		if v > 0 {
			mp++
		} else {
			mn++
		}
	}
	fm := float64(m)
	B := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			var v float64
			if i == j {
				if y[i] > 0 {
					v = 2 * mn / fm
				} else {
					v = 2 * mp / fm
				}
			}
			if y[i] > 0 && y[j] > 0 {
				v -= 2 * mn / (fm * mp)
			}
			if y[i] < 0 && y[j] < 0 {
				v -= 2 * mp / (fm * mn)
			}
			B.Set(i, j, v)
		}
	}
	K := mat.NewDense(m, m, nil)
	nrm0 := make([]float64, m)
	for i := range m {
		for j := range m {
			K.Set(i, j, K0[i][j])
			nrm0[j] += K0[i][j] * K0[i][j]
		}
	}
	yv := mat.NewVecDense(m, y)
	var idx []int
	chosen := make([]bool, m)
	for range k {
		best, p := math.Inf(-1), -1
		for j := range m {
			col := K.ColView(j)
			if chosen[j] || !(mat.Dot(col, col) > DefaultTol*nrm0[j]) {
				continue
			}
			num := mat.Dot(col, yv)
			var bc mat.VecDense
			bc.MulVec(B, col)
			if v := num * num / mat.Dot(col, &bc); v > best {
				best, p = v, j
			}
		}
		tau := mat.VecDenseCopyOf(K.ColView(p))
		var tk mat.VecDense
		tk.MulVec(K.T(), tau)
		K.RankOne(K, -1/mat.Dot(tau, tau), tau, &tk)
		idx = append(idx, p)
		chosen[p] = true
	}
	kk := len(idx)
	Kii := mat.NewDense(kk, kk, nil)
	Kc := mat.NewDense(m, kk, nil)
	for a, i := range idx {
		for b, j := range idx {
			Kii.Set(a, b, K0[i][j])
		}
		for j := range m {
			Kc.Set(j, a, K0[j][i])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(kk, Kii.RawMatrix().Data)) {
		t.Fatal("K[i,i] not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	var LTinv mat.Dense
	if err := LTinv.Inverse(L.T()); err != nil {
		t.Fatal(err)
	}
	var Z mat.Dense
	Z.Mul(Kc, &LTinv)
	mup, mun := mat.NewVecDense(kk, nil), mat.NewVecDense(kk, nil)
	for j := range m {
		if y[j] > 0 {
			mup.AddScaledVec(mup, 1/mp, Z.RowView(j))
		} else {
			mun.AddScaledVec(mun, 1/mn, Z.RowView(j))
		}
	}
	var BZ, SW mat.Dense
	BZ.Mul(B, &Z)
	SW.Mul(Z.T(), &BZ)
	lam := ridge * mat.Trace(&SW) / float64(kk)
	for r := range kk {
		SW.Set(r, r, SW.At(r, r)+lam)
	}
	var SWinv mat.Dense
	if err := SWinv.Inverse(&SW); err != nil {
		t.Fatal(err)
	}
	var diff, w, alpha mat.VecDense
	diff.SubVec(mup, mun)
	w.MulVec(&SWinv, &diff)
	alpha.MulVec(&LTinv, &w)
	var sum mat.VecDense
	sum.AddVec(mup, mun)
	return idx, alpha.RawVector().Data, -mat.Dot(&w, &sum) / 2
}

func TestKFDABruteForce(t *testing.T) {
	e := newEngine(t)
	x, y := twoClass(100, 5, 3)
	kern := pursuit.NewRBF(0.2)
	K := kernel64(t, e, kern, x)
	const k = 30
	idx, alpha, bias := bruteKFDA(t, K, y, k, DefaultRidge)
	f, err := TrainKFDA(e, x, y, KFDAConfig{Kernel: kern, Steps: k})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Index, idx) {
		t.Fatalf("MP-KFDA chose %v\nbrute force chose %v", f.Index, idx)
	}
	var worst, scale float64
	for r := range alpha {
		worst = max(worst, math.Abs(f.Alpha[r]-alpha[r]))
		scale = max(scale, math.Abs(alpha[r]))
	}
	t.Logf("max |α − α_brute| = %.3g (max |α| = %.3g), bias %.12g vs %.12g", worst, scale, f.Bias, bias)
	if worst > 1e-7*scale || math.Abs(f.Bias-bias) > 1e-7*max(1, math.Abs(bias)) {
		t.Errorf("coefficients differ: max |Δα| = %.3g (scale %.3g), bias %v vs %v", worst, scale, f.Bias, bias)
	}
	// Training accuracy is well above chance on this separable-ish set,
	// and Decision reproduces Σ α κ + b.
	dec, err := f.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	var errs int
	for i, v := range dec {
		var want float64 = f.Bias
		for r, c := range f.Index {
			want += f.Alpha[r] * K[i][c]
		}
		if math.Abs(v-want) > 1e-6*max(1, math.Abs(want)) {
			t.Fatalf("Decision[%d] = %v, want %v", i, v, want)
		}
		if v*y[i] <= 0 {
			errs++
		}
	}
	if errs > 15 {
		t.Errorf("%d training errors of 100", errs)
	}
}

// Random candidate subsets: a subset as large as m chooses what the full
// search does; a seed reproduces a run.
func TestKFDAStochastic(t *testing.T) {
	e := newEngine(t)
	x, y := twoClass(150, 4, 5)
	kern := pursuit.NewRBF(0.3)
	full, err := TrainKFDA(e, x, y, KFDAConfig{Kernel: kern, Steps: 12})
	if err != nil {
		t.Fatal(err)
	}
	all, err := TrainKFDA(e, x, y, KFDAConfig{Kernel: kern, Steps: 12, Stochastic: &stochastic.Config{ActiveSet: 150}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full.Index, all.Index) {
		t.Errorf("active set of m chose %v, full search %v", all.Index, full.Index)
	}
	cfg := KFDAConfig{Kernel: kern, Steps: 12, Stochastic: &stochastic.Config{ActiveSet: 10}, Seed: 4}
	a, _ := TrainKFDA(e, x, y, cfg)
	b, _ := TrainKFDA(e, x, y, cfg)
	if !slices.Equal(a.Index, b.Index) || slices.Equal(a.Index, full.Index) {
		t.Errorf("seeded subsets: %v and %v (full %v): want equal to each other, not to the full search", a.Index, b.Index, full.Index)
	}
}

func TestKFDABadInput(t *testing.T) {
	e := newEngine(t)
	x, y := twoClass(20, 3, 1)
	kern := pursuit.NewRBF(0.5)
	ones := slices.Repeat([]float64{1}, 20)
	bad := slices.Clone(y)
	bad[3] = 0.5
	for name, c := range map[string]struct {
		y   []float64
		cfg KFDAConfig
	}{
		"k > m":        {y, KFDAConfig{Kernel: kern, Steps: 21}},
		"k = 0":        {y, KFDAConfig{Kernel: kern}},
		"one class":    {ones, KFDAConfig{Kernel: kern, Steps: 3}},
		"label 0.5":    {bad, KFDAConfig{Kernel: kern, Steps: 3}},
		"short labels": {y[:10], KFDAConfig{Kernel: kern, Steps: 3}},
		"ridge NaN":    {y, KFDAConfig{Kernel: kern, Steps: 3, Ridge: math.NaN()}},
	} {
		if _, err := TrainKFDA(e, x, c.y, c.cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

func TestKFDASaveLoad(t *testing.T) {
	e := newEngine(t)
	x, y := twoClass(80, 3, 9)
	f, err := TrainKFDA(e, x, y, KFDAConfig{Kernel: pursuit.NewRBF(0.4), Steps: 10})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Save(&buf); err != nil {
		t.Fatal(err)
	}
	file := slices.Clone(buf.Bytes())
	g, err := LoadKFDA(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Decision(e, x)
	b, _ := g.Decision(e, x)
	if !slices.Equal(a, b) {
		t.Error("the loaded model decides differently")
	}
	var again bytes.Buffer
	if err := g.Save(&again); err != nil || !bytes.Equal(again.Bytes(), file) {
		t.Errorf("save → load → save is not a fixed point (err %v)", err)
	}
	// A flipped payload byte and a cut file are ErrCorrupt.
	bad := slices.Clone(file)
	bad[len(bad)/2] ^= 1
	if _, err := LoadKFDA(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("flipped byte: err = %v, want ErrCorrupt", err)
	}
	if _, err := LoadKFDA(bytes.NewReader(file[:len(file)-5])); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: err = %v, want ErrCorrupt", err)
	}
}
