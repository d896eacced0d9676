package bench

// Hussain et al. Figure 6 analogue (issue 12): sparse KCCA against full
// ridge kernel CCA on paired views built from USPS — the left and right
// halves (8 of the 16 pixel columns) of each digit image; 1000 training
// pairs (the first 1000 training digits), the 2007 test pairs. Reported:
// the test canonical correlation of the first direction, SKCCA at
// k = 10..200 against full KCCA (all 1000 points; eigen-features of K, the
// best of several ridges on the test pairs — a favourable choice for the
// full method). Europarl, the paper's data, is not available here.
//
//	PURSUIT_SKCCA=1 go test ./bench -run TestSKCCAUSPS -v -timeout 30m

import (
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

// halves splits 16×16 images into their left and right 8 columns.
func halves(x pursuit.Matrix, n int) (pursuit.Matrix, pursuit.Matrix) {
	l, r := pursuit.NewMatrix(n, 128), pursuit.NewMatrix(n, 128)
	for i := range n {
		row := x.Row(i)
		for y := range 16 {
			copy(l.Row(i)[y*8:y*8+8], row[y*16:y*16+8])
			copy(r.Row(i)[y*8:y*8+8], row[y*16+8:y*16+16])
		}
	}
	return l, r
}

// fullFeatures returns Z = V Λ^{1/2} (eigenvalues above 1e-9 of the
// largest) with Z Zᵀ = K for the training rows, and the map for new rows
// z(x) = Λ^{-1/2} Vᵀ k(x).
func fullFeatures(t *testing.T, e *engine.Engine, kern pursuit.Kernel, tr, te pursuit.Matrix) (*mat.Dense, *mat.Dense) {
	K, err := e.KernelMatrix(kern, tr, nil, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := tr.Rows
	S := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			S.SetSym(i, j, float64(K.At(i, j)))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(S, true) {
		t.Fatal("eigen")
	}
	lam := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	top := lam[m-1]
	var keep []int
	for i := m - 1; i >= 0; i-- {
		if lam[i] > 1e-9*top {
			keep = append(keep, i)
		}
	}
	z := mat.NewDense(m, len(keep), nil)
	P := mat.NewDense(m, len(keep), nil) // V Λ^{-1/2}
	for c, i := range keep {
		s := math.Sqrt(lam[i])
		for j := range m {
			z.Set(j, c, V.At(j, i)*s)
			P.Set(j, c, V.At(j, i)/s)
		}
	}
	Kt, err := e.KernelMatrix(kern, te, nil, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	kt := mat.NewDense(te.Rows, m, nil)
	for i := range te.Rows {
		for j := range m {
			kt.Set(i, j, float64(Kt.At(i, j)))
		}
	}
	var zt mat.Dense
	zt.Mul(kt, P)
	return z, &zt
}

func centreBy(z, zt *mat.Dense) {
	m, k := z.Dims()
	for c := range k {
		var s float64
		for j := range m {
			s += z.At(j, c)
		}
		s /= float64(m)
		for j := range m {
			z.Set(j, c, z.At(j, c)-s)
		}
		n, _ := zt.Dims()
		for j := range n {
			zt.Set(j, c, zt.At(j, c)-s)
		}
	}
}

func TestSKCCAUSPS(t *testing.T) {
	if os.Getenv("PURSUIT_SKCCA") == "" {
		t.Skip("set PURSUIT_SKCCA=1 to run the sparse KCCA reproduction on USPS halves")
	}
	train := loadShared(t, "usps", "usps.train.gz")
	test := loadShared(t, "usps", "usps.test.gz", data.WithDim(train.Dim()))
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	const m = 1000
	xl, xr := halves(train.X, m)
	tl, tr := halves(test.X, test.Len())
	kern := pursuit.NewRBF(1.0 / 64)
	// Full ridge KCCA.
	zl, ztl := fullFeatures(t, e, kern, xl, tl)
	zr, ztr := fullFeatures(t, e, kern, xr, tr)
	centreBy(zl, ztl)
	centreBy(zr, ztr)
	// Pad the two views to the same width (CCA wants equal k).
	_, kl := zl.Dims()
	_, kr := zr.Dims()
	w := max(kl, kr)
	pad := func(a *mat.Dense) *mat.Dense {
		r, c := a.Dims()
		out := mat.NewDense(r, w, nil)
		out.Slice(0, r, 0, c).(*mat.Dense).Copy(a)
		return out
	}
	zl, zr, ztl, ztr = pad(zl), pad(zr), pad(ztl), pad(ztr)
	bestFull, bestRidge := math.Inf(-1), 0.0
	for _, ridge := range []float64{1e-3, 1e-2, 1e-1, 0.3, 1} {
		wl, wr, rho, err := greedy.CCA(zl, zr, ridge)
		if err != nil {
			t.Logf("full KCCA, ridge %g: %v", ridge, err)
			continue
		}
		var pl, pr mat.VecDense
		pl.MulVec(ztl, wl.ColView(0))
		pr.MulVec(ztr, wr.ColView(0))
		c := math.Abs(greedy.Correlation(pl.RawVector().Data, pr.RawVector().Data))
		t.Logf("full KCCA (%d features per view), ridge %g: training correlation %.4f, test %.4f", w, ridge, rho[0], c)
		if c > bestFull {
			bestFull, bestRidge = c, ridge
		}
	}
	t.Logf("full KCCA: best test correlation %.4f (ridge %g)", bestFull, bestRidge)
	for _, k := range []int{10, 25, 50, 100, 200} {
		f, err := greedy.FitKCCA(e, xl, xr, greedy.KCCAConfig{KernelX: kern, KernelY: kern, Steps: k})
		if err != nil {
			t.Fatal(err)
		}
		pl, pr, err := f.Transform(e, tl, tr, 1)
		if err != nil {
			t.Fatal(err)
		}
		c := math.Abs(greedy.Correlation(mat.Col(nil, 0, pl), mat.Col(nil, 0, pr)))
		t.Logf("SKCCA k = %d: training correlation %.4f, test %.4f (%.3f of full)", len(f.Index), f.Corr[0], c, c/bestFull)
		if k == 100 && c < 0.9*bestFull {
			t.Errorf("SKCCA at k = 100: test correlation %.4f below 0.9 × full KCCA's %.4f", c, bestFull)
		}
	}
}
