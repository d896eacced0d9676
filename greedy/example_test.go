package greedy_test

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

// points returns n points on a noisy circle in 2-D.
func points(n int) pursuit.Matrix {
	x := pursuit.NewMatrix(n, 2)
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		r := 1 + 0.1*math.Sin(7*a)
		x.Set(i, 0, float32(r*math.Cos(a)))
		x.Set(i, 1, float32(r*math.Sin(a)))
	}
	return x
}

// Sparse kernel PCA chooses training points whose span captures the data in
// feature space; its training residuals give Corollary 1's bound.
func ExampleFitKPCA() {
	e, err := engine.New()
	if err != nil {
		panic(err)
	}
	x := points(200)
	fit, err := greedy.FitKPCA(e, x, greedy.KPCAConfig{Kernel: pursuit.NewRBF(0.5), Steps: 12})
	if err != nil {
		panic(err)
	}
	res := fit.Residuals()
	fmt.Printf("chose %d points; mean residual %.3f after 1 step, below 0.01 after 12: %v\n", len(fit.Index), res[0], res[11] < 0.01)
	cb, err := bound.Subspace(x.Rows, res, 1, 0.05) // R = 1 for the RBF kernel
	if err != nil {
		panic(err)
	}
	fmt.Printf("Corollary 1: expected residual ≤ %.2f (minimum at t = %d)\n", cb.Value, cb.T)
	// New points: k features each and the residual κ(x,x) − ‖z‖².
	z, resid, err := fit.Transform(e, points(7))
	if err != nil {
		panic(err)
	}
	r, c := z.Dims()
	worst := 0.0
	for _, v := range resid {
		worst = max(worst, v)
	}
	fmt.Printf("%d×%d features, largest residual below 0.01: %v\n", r, c, worst < 0.01)
	// Output:
	// chose 12 points; mean residual 0.678 after 1 step, below 0.01 after 12: true
	// Corollary 1: expected residual ≤ 0.33 (minimum at t = 6)
	// 7×12 features, largest residual below 0.01: true
}

// MP-KFDA: a binary classifier whose basis is chosen by the Fisher quotient.
func ExampleTrainKFDA() {
	e, err := engine.New()
	if err != nil {
		panic(err)
	}
	// Inside (−1) and outside (+1) a circle of radius 0.8.
	x := pursuit.NewMatrix(300, 2)
	y := make([]float64, 300)
	for i := range 300 {
		u, v := math.Sin(float64(i)*1.7), math.Cos(float64(i)*2.3)
		x.Set(i, 0, float32(u))
		x.Set(i, 1, float32(v))
		y[i] = -1
		if u*u+v*v > 0.64 {
			y[i] = 1
		}
	}
	f, err := greedy.TrainKFDA(e, x, y, greedy.KFDAConfig{Kernel: pursuit.NewRBF(2), Steps: 15})
	if err != nil {
		panic(err)
	}
	dec, err := f.Decision(e, x)
	if err != nil {
		panic(err)
	}
	errs := 0
	for i, v := range dec {
		if v*y[i] <= 0 {
			errs++
		}
	}
	fmt.Printf("%d basis vectors, %d training errors of %d\n", len(f.Alpha), errs, len(y))
	b, _ := bound.KMP(len(y), len(f.Alpha), errs, 0.05)
	fmt.Printf("Theorem 4 (δ = 0.05): %.2f\n", b) // trivial: 300 points are too few
	// Output:
	// 15 basis vectors, 14 training errors of 300
	// Theorem 4 (δ = 0.05): 2.29
}

// Sparse kernel CCA on two views of the same points: the second view is a
// noisy non-linear function of the first.
func ExampleFitKCCA() {
	e, err := engine.New()
	if err != nil {
		panic(err)
	}
	const m = 300
	x, y := pursuit.NewMatrix(m, 2), pursuit.NewMatrix(m, 1)
	for i := range m {
		a, b := math.Sin(float64(i)*0.7), math.Cos(float64(i)*1.3)
		x.Set(i, 0, float32(a))
		x.Set(i, 1, float32(b))
		y.Set(i, 0, float32(a*a+0.1*math.Sin(float64(i)*5.1)))
	}
	f, err := greedy.FitKCCA(e, x, y, greedy.KCCAConfig{KernelX: pursuit.NewRBF(1), KernelY: pursuit.NewRBF(1), Steps: 20})
	if err != nil {
		panic(err)
	}
	px, py, err := f.Transform(e, x, y, 1)
	if err != nil {
		panic(err)
	}
	var sxy, sxx, syy float64
	for i := range m {
		sxy += px.At(i, 0) * py.At(i, 0)
		sxx += px.At(i, 0) * px.At(i, 0)
		syy += py.At(i, 0) * py.At(i, 0)
	}
	fmt.Printf("%d pairs chosen; first canonical correlation above 0.95: %v (projections: %v)\n",
		len(f.Index), f.Corr[0] > 0.95, math.Abs(sxy/math.Sqrt(sxx*syy)) > 0.95)
	// Output:
	// 20 pairs chosen; first canonical correlation above 0.95: true (projections: true)
}
