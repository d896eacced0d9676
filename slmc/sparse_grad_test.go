package slmc

import (
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestSparseGradient: SLMC's W(Z) and its gradient at the same Z have the
// same bits on dense and sparse rows (Ψ's dot products and the gradient's
// Σ_i c_i x_i sum the rows' non-zeros in feature order either way).
func TestSparseGradient(t *testing.T) {
	xd, xs, y, _, _ := sparseFixture(t)
	k := pursuit.NewRBF(0.5)
	cfg := Config{Kernel: k, C: 10, NumXV: 5, Seed: 3, Float64Kernels: true, KeepDuplicates: true}
	pd, z, _, err := cfg.setup("test", nil, xd, y, false)
	if err != nil {
		t.Fatal(err)
	}
	ps, zs, _, err := cfg.setup("test", nil, xs, y, false)
	if err != nil {
		t.Fatal(err)
	}
	nz, d := z.Dims()
	for i := range nz {
		for j := range d {
			if z.At(i, j) != zs.At(i, j) {
				t.Fatalf("initial Z differs at (%d, %d)", i, j)
			}
		}
	}
	// Off the data: Z moved by a fixed pattern, so that its rows are dense.
	for i := range nz {
		for j := range d {
			z.Set(i, j, z.At(i, j)+0.01*float64((i*7+j*3)%5-2))
		}
	}
	gd, gs := make([]float64, nz*d), make([]float64, nz*d)
	wd, err := (&slmcW{p: pd, c: 10, so: cfg.Solver.withDefaults()}).eval(z, gd)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := (&slmcW{p: ps, c: 10, so: cfg.Solver.withDefaults()}).eval(z, gs)
	if err != nil {
		t.Fatal(err)
	}
	var scale, diff float64
	for i := range gd {
		scale = math.Max(scale, math.Abs(gd[i]))
		diff = math.Max(diff, math.Abs(gd[i]-gs[i]))
	}
	t.Logf("W %v vs %v; gradient differs by %.3g of its largest entry %.3g", wd, ws, diff/scale, scale)
	if wd != ws || diff != 0 {
		t.Errorf("W %v (dense) and %v (sparse); gradients differ by %.3g relative", wd, ws, diff/scale)
	}
}
