package pursuit

import "fmt"

// RowsOf returns a copy of the rows idx of x (in that order; repeats
// allowed), held as x is: dense rows in a new dense matrix with Stride ==
// Cols, sparse rows in new compressed sparse rows holding their non-zeros
// only. It panics if an index is out of range, like a slice expression.
// RowsBytes(x, idx) is what the copy takes.
func RowsOf(x Matrix, idx []int) Matrix {
	for _, i := range idx {
		if i < 0 || i >= x.Rows {
			panic(fmt.Sprintf("pursuit: RowsOf index %d out of range [0, %d)", i, x.Rows))
		}
	}
	if !x.IsSparse() {
		out := NewMatrix(len(idx), x.Cols)
		for r, i := range idx {
			copy(out.Row(r), x.Row(i))
		}
		return out
	}
	c := x.Sparse
	var nnz int64
	for _, i := range idx {
		nnz += c.Offsets[i+1] - c.Offsets[i]
	}
	off := make([]int64, 1, len(idx)+1)
	ind := make([]int32, 0, nnz)
	val := make([]float32, 0, nnz)
	for _, i := range idx {
		ri, rv := x.SparseRow(i)
		ind = append(ind, ri...)
		val = append(val, rv...)
		off = append(off, int64(len(ind)))
	}
	return Matrix{Rows: len(idx), Cols: x.Cols, Sparse: &CSR{Offsets: off, Indices: ind, Values: val}}
}

// RowsBytes returns the bytes of storage that RowsOf(x, idx) allocates:
// 4 a value for dense rows, 8 a non-zero and 8 a row (plus one) for sparse
// ones. Indices out of range count nothing.
func RowsBytes(x Matrix, idx []int) int64 {
	if !x.IsSparse() {
		return 4 * int64(len(idx)) * int64(x.Cols)
	}
	c := x.Sparse
	var nnz int64
	for _, i := range idx {
		if i >= 0 && i < x.Rows {
			nnz += c.Offsets[i+1] - c.Offsets[i]
		}
	}
	return 8*nnz + 8*int64(len(idx)+1)
}

// DenseRow returns row i as a dense slice of length Cols: a view of a
// dense matrix's row (no copy), or a sparse row written into buf, which
// must have room for Cols values. It is for code that needs dense vectors
// by nature (a user's kernel function on []float32 rows, say); kernel
// operations take sparse rows as they are.
func (m Matrix) DenseRow(i int, buf []float32) []float32 {
	if m.Sparse == nil {
		return m.Row(i)
	}
	return m.RowTo(buf, i)
}

// Densified returns x with dense rows: x itself when dense, else a new
// dense copy of its rows (Rows×Cols×4 bytes).
func Densified(x Matrix) Matrix {
	if !x.IsSparse() {
		return x
	}
	out := NewMatrix(x.Rows, x.Cols)
	for i := range x.Rows {
		x.RowTo(out.Row(i), i)
	}
	return out
}

// ForEachNonZero calls f(j, v) for the non-zero values v at columns j of
// row i, in increasing j, dense or sparse alike (a sparse row's stored
// zeros are skipped too).
func (m Matrix) ForEachNonZero(i int, f func(j int, v float32)) {
	if m.Sparse == nil {
		for j, v := range m.Row(i) {
			if v != 0 {
				f(j, v)
			}
		}
		return
	}
	idx, val := m.SparseRow(i)
	for p, j := range idx {
		if val[p] != 0 {
			f(int(j), val[p])
		}
	}
}
