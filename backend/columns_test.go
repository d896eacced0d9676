package backend

import (
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestSparseColumns checks the column index against the rows it was built
// from, for a view whose offsets do not start at 0, with the columns
// counted in an array (no more columns than non-zeros) and in a map (a
// wide matrix), for one and two partial sums.
func TestSparseColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, cols := range []int{40, 1 << 20} {
		// rows 1…rows of a matrix with a guard row each side
		rows := 50
		off := []int64{0}
		var idx []int32
		var val []float32
		for i := 0; i < rows+2; i++ {
			for c := 0; c < 39; c++ { // the last column stays empty
				if rng.Float64() < 0.2 {
					idx = append(idx, int32(c*(cols/40)))
					val = append(val, float32(i)+float32(c)/64)
				}
			}
			off = append(off, int64(len(idx)))
		}
		full, err := pursuit.SparseFrom(rows+2, cols, off, idx, val)
		if err != nil {
			t.Fatal(err)
		}
		m := full.Slice(1, rows+1, 0, cols)
		for _, chains := range []int{1, 2} {
			sc := newSparseColumns(m, chains)
			if got, most := 8*int64(len(sc.slot))+12*int64(len(sc.cols))+8, sparseColumnsBytes(m); got > most {
				t.Errorf("cols %d: the index takes %d bytes, more than the %d charged", cols, got, most)
			}
			seen := 0
			for j := 0; j < rows; j++ {
				ri, rv := m.SparseRow(j)
				for p, c := range ri {
					slot, v := sc.column(c)
					found := false
					for e := range slot {
						if slot[e] == uint32(p%chains*rows+j) && v[e] == rv[p] {
							found = true
						}
					}
					if !found {
						t.Fatalf("cols %d chains %d: row %d's non-zero %d (column %d) is not in its column", cols, chains, j, p, c)
					}
					seen++
				}
			}
			if seen != len(sc.slot) {
				t.Errorf("cols %d: %d entries for %d non-zeros", cols, len(sc.slot), seen)
			}
			for q := 1; q < len(sc.cols); q++ {
				if sc.cols[q] <= sc.cols[q-1] {
					t.Fatalf("cols %d: columns out of order: %v", cols, sc.cols[:q+1])
				}
			}
			for q := range sc.cols {
				s := sc.slot[sc.start[q]:sc.start[q+1]]
				for e := 1; e < len(s); e++ {
					if s[e]%uint32(rows) <= s[e-1]%uint32(rows) {
						t.Fatalf("cols %d: column %d's rows out of order", cols, sc.cols[q])
					}
				}
			}
			if slot, _ := sc.column(int32(cols - 1)); len(slot) != 0 {
				t.Errorf("cols %d: an empty column has %d entries", cols, len(slot))
			}
		}
	}
}

// TestColumnsChosen checks the choice between the column path and the
// streamed one: on a mushrooms-like shape (6,093 rows, 21 of 112 columns a
// row) single rows and pairs go by columns; on a nearly dense b (200 rows
// and columns, 90% non-zeros), whose columns each hold most rows, a block
// of 64 rows is streamed.
func TestColumnsChosen(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := NewCPU("go", 1, GoKernels())
	for _, c := range []struct {
		rows, cols int
		density    float64
		n          int
		columns    bool
	}{{6093, 112, 21.0 / 112, 1, true}, {6093, 112, 21.0 / 112, 2, true}, {200, 200, 0.9, 64, false}} {
		off := []int64{0}
		var idx []int32
		var val []float32
		for i := 0; i < c.rows; i++ {
			for j := 0; j < c.cols; j++ {
				if rng.Float64() < c.density {
					idx = append(idx, int32(j))
					val = append(val, 1)
				}
			}
			off = append(off, int64(len(idx)))
		}
		x, err := pursuit.SparseFrom(c.rows, c.cols, off, idx, val)
		if err != nil {
			t.Fatal(err)
		}
		sc := newSparseColumns(x, 1)
		gather := make([]int, c.n)
		for r := range gather {
			gather[r] = rng.IntN(c.rows)
		}
		op := &kernelOp{k: pursuit.NewRBF(1), dst: pursuit.NewMatrix(c.n, c.rows), a: x, idx: gather, b: x}
		cw, sw := b.columnsWork(op, sc)
		if (cw < sw) != c.columns {
			t.Errorf("%d×%d at %.2f, %d rows: column work %d, streamed %d: columns chosen %v, want %v", c.rows, c.cols, c.density, c.n, cw, sw, cw < sw, c.columns)
		}
	}
}
