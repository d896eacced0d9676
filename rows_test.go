package pursuit

import "testing"

func TestRowsOf(t *testing.T) {
	d := NewMatrix(3, 4)
	copy(d.Data, []float32{1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 4, 0})
	off := []int64{0, 2, 2, 4}
	s, err := SparseFrom(3, 4, off, []int32{0, 3, 1, 2}, []float32{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{2, 0, 2, 1}
	rd, rs := RowsOf(d, idx), RowsOf(s, idx)
	if rd.IsSparse() || !rs.IsSparse() {
		t.Fatalf("RowsOf changed storage: dense→sparse %v, sparse→sparse %v", rd.IsSparse(), rs.IsSparse())
	}
	if err := rs.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := RowsBytes(s, idx), rs.Bytes(); got != want {
		t.Errorf("RowsBytes sparse = %d, the copy takes %d", got, want)
	}
	if got, want := RowsBytes(d, idx), rd.Bytes(); got != want {
		t.Errorf("RowsBytes dense = %d, the copy takes %d", got, want)
	}
	dd := Densified(rs)
	buf := make([]float32, 4)
	for r, i := range idx {
		for j := range 4 {
			if rd.At(r, j) != d.At(i, j) || dd.At(r, j) != d.At(i, j) || rs.DenseRow(r, buf)[j] != d.At(i, j) {
				t.Fatalf("row %d (of %d) column %d: dense %v, sparse %v, densified %v, want %v", r, i, j, rd.At(r, j), rs.At(r, j), dd.At(r, j), d.At(i, j))
			}
		}
	}
	var nd, ns []float32
	d.ForEachNonZero(2, func(_ int, v float32) { nd = append(nd, v) })
	s.ForEachNonZero(2, func(_ int, v float32) { ns = append(ns, v) })
	if len(nd) != 2 || len(ns) != 2 || nd[0] != ns[0] || nd[1] != ns[1] {
		t.Errorf("ForEachNonZero row 2: dense %v, sparse %v, want [3 4]", nd, ns)
	}
}
