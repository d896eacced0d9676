package checkpoint

import (
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// csrOf returns the rows of x as a CSR matrix (its non-zeros).
func csrOf(t *testing.T, x pursuit.Matrix) pursuit.Matrix {
	t.Helper()
	offsets := []int64{0}
	var idx []int32
	var val []float32
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
		offsets = append(offsets, int64(len(idx)))
	}
	m, err := pursuit.SparseFrom(x.Rows, x.Cols, offsets, idx, val)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDataSparse: the data entry of sparse rows digests their CSR arrays
// (no panic), changes with any value, column or target, is the same for
// a row view as for a copy of those rows, and differs from the same
// numbers held dense, naming the storage.
func TestDataSparse(t *testing.T) {
	x := pursuit.NewMatrix(5, 4)
	for i := range 5 {
		x.Set(i, i%4, float32(i+1))
		x.Set(i, (i+2)%4, -0.5)
	}
	y := []float64{1, -1, 1, -1, 1}
	sp := csrOf(t, x)
	dense, sparse := Data("d", x, y), Data("d", sp, y)
	if !strings.Contains(dense.Value, "(dense)") || !strings.Contains(sparse.Value, "(sparse)") || dense.Value == sparse.Value {
		t.Fatalf("dense %q and sparse %q entries of the same numbers should differ and name their storage", dense.Value, sparse.Value)
	}
	if again := Data("d", csrOf(t, x), y); again != sparse {
		t.Fatalf("the same sparse rows digest to %q and %q", sparse.Value, again.Value)
	}
	// A row view (offsets not from 0) digests as a copy of its rows.
	view := sp.Slice(2, 5, 0, 4)
	if a, b := Data("d", view, y[2:]), Data("d", csrOf(t, x.Slice(2, 5, 0, 4)), y[2:]); a != b {
		t.Fatalf("a view of rows 2..4 digests to %q, a copy to %q", a.Value, b.Value)
	}
	changed := map[string]func() (pursuit.Matrix, []float64){
		"a value": func() (pursuit.Matrix, []float64) {
			c := csrOf(t, x)
			c.Sparse.Values[3] += 1e-3
			return c, y
		},
		"a column": func() (pursuit.Matrix, []float64) {
			z := pursuit.NewMatrix(5, 4)
			copy(z.Data, x.Data)
			z.Set(0, 1, z.At(0, 0))
			z.Set(0, 0, 0)
			return csrOf(t, z), y
		},
		"a target": func() (pursuit.Matrix, []float64) {
			return csrOf(t, x), []float64{1, -1, 1, -1, -1}
		},
		"an entry moved to the next row": func() (pursuit.Matrix, []float64) {
			c := csrOf(t, x)
			c.Sparse.Offsets[1]--
			return c, y
		},
	}
	for what, f := range changed {
		xx, yy := f()
		if e := Data("d", xx, yy); e == sparse {
			t.Errorf("changing %s left the digest %q", what, e.Value)
		}
	}
	if err := compare([]Entry{dense}, []Entry{sparse}); err == nil || !strings.Contains(err.Error(), "(dense)") || !strings.Contains(err.Error(), "(sparse)") {
		t.Errorf("resuming a dense run on sparse rows: %v, want the storages named", err)
	}
}

// BenchmarkBoundaryNotDue is the cost of a step boundary between two
// checkpoints (the default interval not yet passed): what a learner pays
// per step or iteration for checkpointing at the default interval.
func BenchmarkBoundaryNotDue(b *testing.B) {
	stop := make(chan struct{})
	r, _, err := Start(&Options{Path: b.TempDir() + "/ck", Stop: stop}, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	step := 0
	for b.Loop() {
		step++
		if err := r.Boundary(func() string { return "step" }, func(w *Writer) { w.Int(step) }); err != nil {
			b.Fatal(err)
		}
	}
	if r.Written != 0 {
		b.Fatalf("%d checkpoints written within the default interval", r.Written)
	}
}
