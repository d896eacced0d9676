package pursuit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sparseOf returns the rows of dense as a sparse Matrix of their non-zeros.
func sparseOf(t *testing.T, dense Matrix) Matrix {
	t.Helper()
	var off []int64
	var idx []int32
	var val []float32
	for i := range dense.Rows {
		off = append(off, int64(len(idx)))
		for j, v := range dense.Row(i) {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
	}
	off = append(off, int64(len(idx)))
	s, err := SparseFrom(dense.Rows, dense.Cols, off, idx, val)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestValues64 (issue 29): Values64 gives the same bits on any mix of
// dense and sparse storage of the same rows, for every kernel and for
// widths with every tail length, rows that are empty, half zeros or far
// from the origin; and it agrees with the in-order reference Eval to a few
// float64 roundings.
func TestValues64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 29))
	kernels := []Kernel{NewRBF(0.3), NewRBF(1), NewLinear(), NewPoly(0.5, 1, 3), NewSigmoid(0.01, -0.2)}
	for _, cols := range []int{1, 2, 3, 4, 5, 7, 8, 13, 64, 67} {
		dense := NewMatrix(6, cols)
		for i := 1; i < dense.Rows; i++ { // row 0 stays empty
			for j := range cols {
				switch {
				case i == 2 && j%2 == 0: // half zeros
				case i == 5:
					dense.Set(i, j, float32(300+rng.NormFloat64())) // features in the hundreds
				default:
					dense.Set(i, j, float32(rng.NormFloat64()))
				}
			}
		}
		sparse := sparseOf(t, dense)
		for _, k := range kernels {
			want := make([]float64, dense.Rows)
			got := make([]float64, dense.Rows)
			for i := range dense.Rows {
				k.Values64(want, dense, i, dense)
				for j := range dense.Rows {
					ref := k.Eval(dense.Row(i), dense.Row(j))
					if d := math.Abs(want[j] - ref); d > 1e-12*math.Max(1, math.Abs(ref)) {
						t.Errorf("%v cols %d rows %d, %d: Values64 %v, Eval %v", k, cols, i, j, want[j], ref)
					}
				}
				x64 := Float64Row(nil, dense.Row(i))
				for j := range dense.Rows {
					if got := k.Value64(x64, Float64Row(nil, dense.Row(j))); math.Float64bits(got) != math.Float64bits(want[j]) {
						t.Errorf("%v cols %d rows %d, %d: Value64 %v, Values64 %v", k, cols, i, j, got, want[j])
					}
				}
				for _, c := range [][2]Matrix{{sparse, sparse}, {dense, sparse}, {sparse, dense}} {
					clear(got)
					k.Values64(got, c[0], i, c[1])
					for j := range got {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							t.Errorf("%v cols %d rows %d, %d (sparse %v, %v): %v, dense %v", k, cols, i, j, c[0].IsSparse(), c[1].IsSparse(), got[j], want[j])
						}
					}
				}
			}
		}
	}
}

// TestValues64Widths: rows of different widths count the features one
// lacks as zeros, the same bits as the narrower rows padded with zeros.
func TestValues64Widths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 29))
	for _, w := range [][2]int{{3, 9}, {9, 3}, {8, 13}, {13, 8}, {0, 5}, {6, 6}} {
		a, b := NewMatrix(2, w[0]), NewMatrix(3, w[1])
		for i := range a.Data {
			a.Data[i] = float32(rng.NormFloat64())
		}
		for i := range b.Data {
			b.Data[i] = float32(rng.NormFloat64())
		}
		n := max(w[0], w[1])
		pad := func(m Matrix) Matrix {
			p := NewMatrix(m.Rows, n)
			for i := range m.Rows {
				copy(p.Row(i), m.Row(i))
			}
			return p
		}
		ap, bp := pad(a), pad(b)
		for _, k := range []Kernel{NewRBF(0.7), NewLinear(), NewPoly(0.5, 1, 2)} {
			for i := range a.Rows {
				want := make([]float64, b.Rows)
				k.Values64(want, ap, i, bp)
				for _, c := range [][2]Matrix{{a, b}, {sparseOf(t, a), b}, {a, sparseOf(t, b)}} {
					got := make([]float64, b.Rows)
					k.Values64(got, c[0], i, c[1])
					for j := range got {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							t.Errorf("%v widths %v row %d, %d: %v, padded %v", k, w, i, j, got[j], want[j])
						}
						if v := k.Value64(Float64Row(nil, a.Row(i)), Float64Row(nil, b.Row(j))); math.Float64bits(v) != math.Float64bits(want[j]) {
							t.Errorf("%v widths %v row %d, %d: Value64 %v, padded %v", k, w, i, j, v, want[j])
						}
					}
				}
			}
		}
	}
}

// TestValues64NoCancellation: the RBF value of two nearby points far from
// the origin keeps its digits (the distance is not ‖a‖² + ‖b‖² − 2a·b).
func TestValues64NoCancellation(t *testing.T) {
	m := NewMatrix(2, 3)
	copy(m.Row(0), []float32{1000, 2000, 3000})
	copy(m.Row(1), []float32{1000.5, 2000, 3000})
	dst := make([]float64, 2)
	NewRBF(1).Values64(dst, m, 0, m)
	if dst[0] != 1 || dst[1] != math.Exp(-0.25) {
		t.Fatalf("got %v, want [1 %v]", dst, math.Exp(-0.25))
	}
}

func BenchmarkValues64(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 29))
	m := NewMatrix(512, 256)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	dst := make([]float64, m.Rows)
	k := NewRBF(1.0 / 256)
	b.Run("Values64", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			k.Values64(dst, m, i%m.Rows, m)
		}
		b.ReportMetric(float64(b.N)*float64(m.Rows*m.Cols)*3/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("EvalRows", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			for j := range m.Rows {
				dst[j] = k.EvalRows(m, i%m.Rows, m, j)
			}
		}
		b.ReportMetric(float64(b.N)*float64(m.Rows*m.Cols)*3/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// TestSparseF64: the float64 sparse lane sums give the dense ones' bits.
func TestSparseF64(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 29))
	for _, n := range []int{0, 1, 3, 5, 8, 13, 30} {
		x, z := make([]float64, n), make([]float64, n+3)
		var xi, zi []int32
		var xv, zv []float64
		for f := range x {
			if rng.IntN(3) > 0 {
				x[f] = rng.NormFloat64() * 100
				xi, xv = append(xi, int32(f)), append(xv, x[f])
			}
		}
		for f := range z {
			if rng.IntN(3) > 0 {
				z[f] = rng.NormFloat64()
				zi, zv = append(zi, int32(f)), append(zv, z[f])
			}
		}
		if a, b := SqDistSparseF64(xi, xv, zi, zv), SqDistF64(x, z); math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("n %d: sparse distance %v, dense %v", n, a, b)
		}
		if a, b := DotSparseF64(xi, xv, zi, zv), DotF64(x, z); math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("n %d: sparse product %v, dense %v", n, a, b)
		}
	}
}
