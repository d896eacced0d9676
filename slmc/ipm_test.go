package slmc

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestIPMMatchesSMO compares the interior-point solver with SMO (tight
// tolerance) on a well-conditioned weighted problem: same optimum, bias and
// weight vector.
func TestIPMMatchesSMO(t *testing.T) {
	phi := randDense(40, 5, 1, 17)
	y := make([]float64, 40)
	u := make([]float64, 40)
	for i := range y {
		y[i] = 1
		if phi.At(i, 0)+0.3*phi.At(i, 1)*phi.At(i, 2) < 0.1 {
			y[i] = -1
		}
		u[i] = 2 * float64(1+i%3)
	}
	src, err := svm.NewLinear64(40, 5, phi.RawMatrix().Data)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, 40)
	for i := range w {
		w[i] = u[i] / 2
	}
	ref, err := svm.SolveCSVCWeighted(src, y, 2, 2, w, nil, svm.Options{Tol: 1e-11})
	if err != nil {
		t.Fatal(err)
	}
	ip, _, err := solveDualIPM(phi, y, u, 1e-11, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ip.Obj-ref.Obj) > 1e-8*math.Abs(ref.Obj) {
		t.Errorf("objective: IPM %.12g, SMO %.12g", ip.Obj, ref.Obj)
	}
	if math.Abs(ip.Bias-ref.Bias) > 1e-6 {
		t.Errorf("bias: IPM %.10g, SMO %.10g", ip.Bias, ref.Bias)
	}
	weights := func(al []float64) *mat.VecDense {
		v := mat.NewVecDense(5, nil)
		for i, a := range al {
			v.AddScaledVec(v, a*y[i], phi.RowView(i))
		}
		return v
	}
	wi, wr := weights(ip.Alpha), weights(ref.Alpha)
	for j := range 5 {
		if math.Abs(wi.AtVec(j)-wr.AtVec(j)) > 1e-6*math.Max(1, math.Abs(wr.AtVec(j))) {
			t.Errorf("weight %d: IPM %.10g, SMO %.10g", j, wi.AtVec(j), wr.AtVec(j))
		}
	}
}

// TestStiffInnerSVM is the titanic-like inner problem (C = 1e5, merged
// duplicates, 6 whitened features) on which SMO does not converge in 10⁷
// iterations: the fit must converge (through the fallback) and satisfy the
// KKT conditions of the dual.
func TestStiffInnerSVM(t *testing.T) {
	e := goEngine(t)
	cfg := Config{Kernel: rbf05, C: 1e5, NumXV: 6, Init: InitKMeans, Seed: 2}
	tr := data.Coarse(150, 2)
	p, z0, _, err := cfg.setup("test", e, tr.X, tr.Y, true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.fit(z0, cfg.C, nil, SolverOptions{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if !f.sol.Converged {
		t.Fatalf("inner SVM did not converge (%d iterations, gap %g)", f.sol.Iter, f.sol.Gap)
	}
	// KKT: y_i f(x_i) ≥ 1 where α_i = 0, ≤ 1 where α_i = u_i, = 1 between.
	dec := f.b.decision(f.beta, f.bias)
	for i, a := range f.alpha {
		u := cfg.C * p.w[i]
		m := p.y[i] * dec[i]
		switch {
		case a < 1e-6*u && m < 1-1e-5:
			t.Errorf("point %d: α = 0 but margin %v", i, m)
		case a > u*(1-1e-6) && m > 1+1e-5:
			t.Errorf("point %d: α at its bound but margin %v", i, m)
		case a >= 1e-6*u && a <= u*(1-1e-6) && math.Abs(m-1) > 1e-5:
			t.Errorf("point %d: α free but margin %v", i, m)
		}
	}
	t.Logf("W %.8g after %d iterations", f.w, f.sol.Iter)
}

// BenchmarkStiffInner times one inner solve of the titanic-like SLMC
// problem (C = 1e5, merged duplicates: SMO to its cap, then the
// interior-point method), against BenchmarkStiffSVM, the full SVM on the
// same 150 rows.
func BenchmarkStiffInner(b *testing.B) {
	e := goEngine(b)
	cfg := Config{Kernel: rbf05, C: 1e5, NumXV: 6, Init: InitKMeans, Seed: 2}
	tr := data.Coarse(150, 2)
	p, z0, _, err := cfg.setup("bench", e, tr.X, tr.Y, true)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := p.fit(z0, cfg.C, nil, SolverOptions{}.withDefaults()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStiffSVM(b *testing.B) {
	e := goEngine(b)
	tr := data.Coarse(150, 2)
	for range b.N {
		if _, err := svm.Train(e, tr.X, tr.Y, svm.Params{Kernel: rbf05, C: 1e5}); err != nil {
			b.Fatal(err)
		}
	}
}
