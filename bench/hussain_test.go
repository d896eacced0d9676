package bench

// Hussain et al. 2011, Figures 2–5 analogues: sparse KPCA's test residual
// against the sample compression bound of Corollary 1, the global
// Rademacher bound of Theorem 7 and the local one of Theorem 8 (c = 80),
// for k = 1..150.
//
//	PURSUIT_HUSSAIN=1 go test ./bench -run TestHussainFigure -v -timeout 30m
//
// Figure 2 (Boston housing): standardised on each training part, 10 random
// 2/3–1/3 splits, RBF kernel. The paper's σ = 0.035 is for its own scaling
// of the data, which it does not state; on standardised features that σ
// makes K ≈ I (every residual ≈ 1), so we use γ = PURSUIT_HUSSAIN_GAMMA
// (default below) and print it. Paper: Corollary 1 is minimal at k = 43,
// below Theorem 7 everywhere and below 1.
//
// Figure 3 (toy): 1000 training and 1000 test points in 450 dimensions,
// Gaussian with 50 dimensions of much larger variance, rows scaled to unit
// norm, linear kernel (so R = κ(x,x) = 1). Paper: Corollary 1 is minimal at
// k = 46, Theorem 7 at k = 29.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

const hussainK = 150

// hussainCurves holds one split's curves, index k−1.
type hussainCurves struct {
	train, test, cor1, th7, th8 []float64
	th8u                        []float64 // Theorem 8 with the eigenvalues of K and K̄ unnormalised, as printed
}

// hussainSplit fits sparse KPCA on tr with k = 1..K and evaluates the
// residuals and the three bounds.
func hussainSplit(t *testing.T, e *engine.Engine, kern pursuit.Kernel, tr, te pursuit.Matrix, K int) hussainCurves {
	t.Helper()
	m := tr.Rows
	fit, err := greedy.FitKPCA(e, tr, greedy.KPCAConfig{Kernel: kern, Steps: K})
	if err != nil {
		t.Fatal(err)
	}
	var c hussainCurves
	c.train = fit.Residuals()
	if c.cor1, err = bound.SubspaceCurve(m, c.train, 1, 0.05); err != nil {
		t.Fatal(err)
	}
	// Test residuals after each k: the features are nested (z_1..z_k of
	// the k-step model are the first k of the K-step one), so the residual
	// after k steps is κ(x,x) − Σ_{r≤k} z_r².
	z, resid, err := fit.Transform(e, te)
	if err != nil {
		t.Fatal(err)
	}
	c.test = make([]float64, K)
	for i := range te.Rows {
		full := resid[i]
		var tail float64
		for r := K - 1; r >= 0; r-- {
			c.test[r] += full + tail
			tail += z.At(i, r) * z.At(i, r)
		}
	}
	for r := range c.test {
		c.test[r] /= float64(te.Rows)
	}
	// Eigenvalues of K and of the centred K for Theorems 7 and 8.
	sp, err := greedy.KernelSpectrum(e, kern, tr)
	if err != nil {
		t.Fatal(err)
	}
	lam, diag := sp.Lambda, sp.Diag
	lamN, lamC := make([]float64, m), make([]float64, m)
	var r2 float64
	for i := range m {
		lamN[i] = lam[i] / float64(m)
		lamC[i] = sp.Centred[i] / float64(m)
		r2 = max(r2, diag[i])
	}
	lamCU := sp.Centred
	c.th7, c.th8, c.th8u = make([]float64, K), make([]float64, K), make([]float64, K)
	for k := 1; k <= K; k++ {
		if c.th7[k-1], err = bound.GlobalPCA(k, lam, diag, r2, 0.05); err != nil {
			t.Fatal(err)
		}
		if c.th8[k-1], err = bound.LocalPCA(k, lamN, lamC, r2, bound.LocalPCAConstant, 0.05); err != nil {
			t.Fatal(err)
		}
		if c.th8u[k-1], err = bound.LocalPCA(k, lam, lamCU, r2, bound.LocalPCAConstant, 0.05); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func argmin(v []float64) int {
	b := 0
	for i := range v {
		if v[i] < v[b] {
			b = i
		}
	}
	return b
}

func addTo(dst, src []float64, w float64) {
	for i := range dst {
		dst[i] += w * src[i]
	}
}

func reportHussain(t *testing.T, name string, c hussainCurves) {
	t.Logf("%s: k, train residual, test residual, Corollary 1, Theorem 7, Theorem 8 (c = 80; eigenvalues of K/m, and of K as printed)", name)
	for _, k := range []int{1, 5, 10, 20, 29, 43, 46, 50, 75, 100, 150} {
		if k <= len(c.train) {
			t.Logf("  %4d %.4f %.4f %.4f %.4f %.1f %.1f", k, c.train[k-1], c.test[k-1], c.cor1[k-1], c.th7[k-1], c.th8[k-1], c.th8u[k-1])
		}
	}
}

func TestHussainFigure2(t *testing.T) {
	if os.Getenv("PURSUIT_HUSSAIN") == "" {
		t.Skip("set PURSUIT_HUSSAIN=1 to run the Hussain et al. figure reproductions")
	}
	path, err := data.SharedFile("boston", "boston.gz")
	if err != nil {
		t.Skip(err)
	}
	d, err := data.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	gamma := 0.2
	if s := os.Getenv("PURSUIT_HUSSAIN_GAMMA"); s != "" {
		if gamma, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatal(err)
		}
	}
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	kern := pursuit.NewRBF(gamma)
	const splits = 10
	var avg hussainCurves
	for s := range splits {
		parts := data.Split(d.Len(), []float64{2.0 / 3, 1.0 / 3}, uint64(100+s), nil)
		tr, te := d.Subset(parts[0]), d.Subset(parts[1])
		sc, err := data.FitScaler(data.ScaleStandard, tr.X)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Apply(tr.X); err != nil {
			t.Fatal(err)
		}
		if err := sc.Apply(te.X); err != nil {
			t.Fatal(err)
		}
		c := hussainSplit(t, e, kern, tr.X, te.X, hussainK)
		if s == 0 {
			avg = hussainCurves{make([]float64, hussainK), make([]float64, hussainK), make([]float64, hussainK), make([]float64, hussainK), make([]float64, hussainK), make([]float64, hussainK)}
		}
		for _, p := range [][2][]float64{{avg.train, c.train}, {avg.test, c.test}, {avg.cor1, c.cor1}, {avg.th7, c.th7}, {avg.th8, c.th8}, {avg.th8u, c.th8u}} {
			addTo(p[0], p[1], 1.0/splits)
		}
	}
	reportHussain(t, fmt.Sprintf("Boston, RBF γ = %g (σ = %.3g in exp(−‖x−z‖²/σ²); paper σ = 0.035 on unstated scaling), mean of %d splits", gamma, 1/math.Sqrt(gamma), splits), avg)
	kc, k7, k8, k8u := argmin(avg.cor1)+1, argmin(avg.th7)+1, argmin(avg.th8)+1, argmin(avg.th8u)+1
	t.Logf("minimum of Corollary 1 at k = %d (%.4f; paper 43), Theorem 7 at k = %d (%.4f), Theorem 8 at k = %d (%.1f) with K/m's eigenvalues, k = %d (%.1f) with K's (paper 150)", kc, avg.cor1[kc-1], k7, avg.th7[k7-1], k8, avg.th8[k8-1], k8u, avg.th8u[k8u-1])
	for k := 1; k <= hussainK; k++ {
		if !(avg.cor1[k-1] < avg.th7[k-1]) {
			t.Errorf("k = %d: Corollary 1 %.4f not below Theorem 7 %.4f", k, avg.cor1[k-1], avg.th7[k-1])
		}
		if !(avg.test[k-1] < avg.cor1[k-1]) {
			t.Errorf("k = %d: test residual %.4f not below Corollary 1 %.4f", k, avg.test[k-1], avg.cor1[k-1])
		}
	}
	if !(avg.cor1[kc-1] < 1) {
		t.Errorf("Corollary 1's minimum %.4f is not below 1", avg.cor1[kc-1])
	}
}

func TestHussainFigure3(t *testing.T) {
	if os.Getenv("PURSUIT_HUSSAIN") == "" {
		t.Skip("set PURSUIT_HUSSAIN=1 to run the Hussain et al. figure reproductions")
	}
	const n, dim, big = 1000, 450, 50
	toy := func(seed uint64) pursuit.Matrix {
		rng := rand.New(rand.NewPCG(seed, 3))
		x := pursuit.NewMatrix(n, dim)
		for i := range n {
			var s float64
			row := x.Row(i)
			for c := range dim {
				v := rng.NormFloat64()
				if c < big {
					v *= 10
				}
				row[c] = float32(v)
				s += v * v
			}
			for c := range row {
				row[c] = float32(float64(row[c]) / math.Sqrt(s))
			}
		}
		return x
	}
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	c := hussainSplit(t, e, pursuit.NewLinear(), toy(1), toy(2), hussainK)
	reportHussain(t, "toy: 1000 points, 450 dimensions, 50 with 100× the variance, unit rows, linear kernel", c)
	t.Logf("minimum of Corollary 1 at k = %d (paper 46), Theorem 7 at k = %d (paper 29), Theorem 8 at k = %d (K/m) or %d (K; paper 150)", argmin(c.cor1)+1, argmin(c.th7)+1, argmin(c.th8)+1, argmin(c.th8u)+1)
}
