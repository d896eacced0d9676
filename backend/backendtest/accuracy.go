package backendtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// KernelOps is the part of a backend.Backend (and of engine.Ops) that the
// accuracy case drives: kernel blocks and gathers.
type KernelOps interface {
	KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b pursuit.Matrix, bNorms []float32) error
	KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32) error
}

// AccurateTol is the error RunAccurate allows a kernel value K against
// the float64 reference: AccurateTol·(1 + |K|) with the float32 rounding of
// the result being 2⁻²⁵ at most.
const AccurateTol = 8 * u

// OffsetCase is one data set of the accuracy case: a and b, rows of d
// features, with γ of the RBF kernel.
type OffsetCase struct {
	Name  string
	A, B  pursuit.Matrix
	Gamma float64
}

// OffsetCases returns the data of the accuracy case, on which float32
// distances ‖a‖²+‖b‖²−2a·b cancel: points close to each other (γ·‖a−b‖²
// about 1) far from the origin, with features of very different scales
// like the unscaled Boston housing data (0.01 … 700, γ = 1), and the same
// after a common offset of 1000 on every feature (data that centring would
// fix); b shares some rows of a (distance 0, kernel 1).
func OffsetCases() []OffsetCase {
	rng := rand.New(rand.NewPCG(29, 1))
	scales := []float64{0.01, 18, 2.3, 1, 0.5, 6.5, 65, 4, 9, 400, 18, 390, 12}
	mk := func(rows, d int, centre func(j int) float64, spread float64, base pursuit.Matrix) pursuit.Matrix {
		m := pursuit.NewMatrix(rows, d)
		for i := range rows {
			for j := range d {
				if base.Rows > 0 && i%5 == 0 {
					m.Set(i, j, base.At(i%base.Rows, j))
					continue
				}
				m.Set(i, j, float32(centre(j)+spread*rng.NormFloat64()))
			}
		}
		return m
	}
	var cs []OffsetCase
	boston := func(j int) float64 { return scales[j%len(scales)] * (1 + 0.1*float64(j/len(scales))) }
	for _, d := range []int{13, 40} {
		a := mk(37, d, boston, 0.25, pursuit.Matrix{})
		b := mk(53, d, boston, 0.25, a)
		cs = append(cs, OffsetCase{Name: "boston-like", A: a, B: b, Gamma: 1})
	}
	offset := func(int) float64 { return 1000 }
	a := mk(41, 31, offset, 0.1, pursuit.Matrix{})
	b := mk(29, 31, offset, 0.1, a)
	cs = append(cs, OffsetCase{Name: "offset", A: a, B: b, Gamma: 1.0 / 31})
	return cs
}

// RunAccurate checks RBF kernel blocks and gathers of ops on OffsetCases
// against the float64 reference pursuit.Kernel.Eval to AccurateTol: a
// float32 distance ‖a‖²+‖b‖²−2a·b loses most of its digits there (within
// the bound of the package documentation, which Run checks), so plain
// backends fail this case and the engine's operations (engine.Ops, which
// take such blocks in float64) pass it. It returns the largest error
// found, relative to 1+|K|.
func RunAccurate(t testing.TB, ops KernelOps) (worst float64) {
	for _, c := range OffsetCases() {
		k := pursuit.NewRBF(c.Gamma)
		dst := pursuit.NewMatrix(c.A.Rows, c.B.Rows)
		if err := ops.KernelBlock(dst, k, c.A, nil, c.B, nil); err != nil {
			t.Fatalf("%s: KernelBlock: %v", c.Name, err)
		}
		worst = max(worst, checkAccurate(t, c.Name+" KernelBlock", k, dst, c.A, nil, c.B))
		idx := []int{c.A.Rows - 1, 0, 5, 5, 3}
		g := pursuit.NewMatrix(len(idx), c.B.Rows)
		if err := ops.KernelGather(g, k, c.A, nil, idx, c.B, nil); err != nil {
			t.Fatalf("%s: KernelGather: %v", c.Name, err)
		}
		worst = max(worst, checkAccurate(t, c.Name+" KernelGather", k, g, c.A, idx, c.B))
	}
	return worst
}

// checkAccurate compares dst (rows idx of a, all when nil) with
// k.Eval to AccurateTol and returns the largest error relative to 1+|K|.
func checkAccurate(t testing.TB, name string, k pursuit.Kernel, dst, a pursuit.Matrix, idx []int, b pursuit.Matrix) float64 {
	var worst float64
	bad, near := 0, 0
	for r := range dst.Rows {
		i := r
		if idx != nil {
			i = idx[r]
		}
		for j := range b.Rows {
			want := k.Eval(a.Row(i), b.Row(j))
			if want > 1e-3 {
				near++
			}
			got := float64(dst.At(r, j))
			e := math.Abs(got-want) / (1 + math.Abs(want))
			worst = max(worst, e)
			if !(e <= AccurateTol) {
				if bad < maxReports {
					t.Errorf("%s: K[%d][%d] = %v, float64 reference %v (error %.3g, allowed %.3g)", name, i, j, got, want, got-want, AccurateTol*(1+math.Abs(want)))
				}
				bad++
			}
		}
	}
	if bad > maxReports {
		t.Errorf("%s: %d of %d values off", name, bad, dst.Rows*dst.Cols)
	}
	if near < dst.Rows {
		t.Errorf("%s: only %d kernel values above 1e-3: the case tests nothing", name, near)
	}
	return worst
}

// testOffset runs OffsetCases on a backend with the tolerance of the
// package documentation (refKernel): a backend may cancel there, but by no
// more than the documented bound.
func testOffset(t testing.TB, be KernelOps) {
	for _, c := range OffsetCases() {
		k := pursuit.NewRBF(c.Gamma)
		dst := pursuit.NewMatrix(c.A.Rows, c.B.Rows)
		if err := be.KernelBlock(dst, k, c.A, nil, c.B, nil); err != nil {
			t.Fatalf("%s: KernelBlock: %v", c.Name, err)
		}
		bad := 0
		for i := range c.A.Rows {
			for j := range c.B.Rows {
				want, tol := refKernel(k, statsOf(c.A.Row(i), c.B.Row(j)))
				if got := float64(dst.At(i, j)); !within(got, want, tol) || !(got >= 0 && got <= 1) {
					if bad < maxReports {
						t.Errorf("%s: K[%d][%d] = %v, want %v ± %.3g", c.Name, i, j, got, want, tol)
					}
					bad++
				}
			}
		}
	}
}
