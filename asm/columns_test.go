package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// TestSparseColumnsBits checks the column path of kernel rows against a
// prepared sparse b (SparseScatter, the CPU driver's column index) against
// the streamed path (SparseDot) of the same kernels, which the driver takes
// when the kernels have no SparseScatter: every value equal bit for bit,
// for single rows and small gathers, every kernel, sparse and dense a, rows
// of every length parity (the assembly's two partial sums), empty rows and
// columns of a that b does not have.
func TestSparseColumnsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for name, ks := range kernelSets(t) {
		streamedOnly := ks
		streamedOnly.SparseScatter = nil
		cols := backend.NewCPU(name, 1, ks)
		streamed := backend.NewCPU(name+"-streamed", 1, streamedOnly)
		for ci, sh := range [][3]int{{300, 60, 5}, {97, 13, 3}, {1000, 500, 40}, {64, 2000, 9}} {
			m, d, perRow := sh[0], sh[1], sh[2]
			b := randomSparse(rng, m, d, perRow, d-5) // b has no columns from d−5 on
			a := randomSparse(rng, 40, d, perRow+2, d)
			hc, err := cols.Prepare(b)
			if err != nil {
				t.Fatal(err)
			}
			hs, err := streamed.Prepare(b)
			if err != nil {
				t.Fatal(err)
			}
			if tr, ok := hc.(backend.RowTiler); !ok || tr.TileRows() != 1 {
				t.Fatalf("%s: the handle of a sparse b has no column index", name)
			}
			dense := pursuit.Densified(a)
			for ki, k := range []pursuit.Kernel{pursuit.NewRBF(0.3), pursuit.NewLinear(), pursuit.NewPoly(0.5, 1, 3), pursuit.NewSigmoid(0.1, -0.2)} {
				for _, n := range []int{1, 2, 3} {
					idx := make([]int, n)
					for r := range idx {
						idx[r] = rng.IntN(a.Rows)
					}
					if ci == 0 && ki == 0 {
						idx[0] = 0 // an empty row of a
					}
					for _, op := range []struct {
						what string
						a    pursuit.Matrix
					}{{"sparse a", a}, {"dense a", dense}} {
						got, want := pursuit.NewMatrix(n, m), pursuit.NewMatrix(n, m)
						if err := cols.KernelGatherPrepared(got, k, op.a, nil, idx, hc); err != nil {
							t.Fatal(err)
						}
						if err := streamed.KernelGatherPrepared(want, k, op.a, nil, idx, hs); err != nil {
							t.Fatal(err)
						}
						what := fmt.Sprintf("%s %s %s %d×%d idx %v", name, k, op.what, m, d, idx)
						for i := range got.Data {
							if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
								t.Fatalf("%s: value %d = %v by columns, %v streamed", what, i, got.Data[i], want.Data[i])
							}
						}
					}
				}
			}
		}
	}
}

// randomSparse returns rows×cols sparse rows of about perRow non-zeros in
// columns below limit; row 0 is empty and row 1 has one non-zero.
func randomSparse(rng *rand.Rand, rows, cols, perRow, limit int) pursuit.Matrix {
	off := []int64{0}
	var idx []int32
	var val []float32
	for i := 0; i < rows; i++ {
		n := 0
		switch i {
		case 0:
		case 1:
			n = 1
		default:
			n = rng.IntN(2*perRow + 1)
		}
		used := map[int]bool{}
		var row []int
		for len(row) < min(n, limit) {
			c := rng.IntN(limit)
			if !used[c] {
				used[c] = true
				row = append(row, c)
			}
		}
		slices.Sort(row)
		for _, c := range row {
			idx = append(idx, int32(c))
			val = append(val, float32(rng.Float64()*2-1))
		}
		off = append(off, int64(len(idx)))
	}
	m, err := pursuit.SparseFrom(rows, cols, off, idx, val)
	if err != nil {
		panic(err)
	}
	return m
}
