package pursuit

import (
	"fmt"
	"unsafe"
)

// Matrix is a row-major float32 matrix view, held dense or sparse.
//
// Dense (Sparse == nil): row i occupies Data[i*Stride : i*Stride+Cols].
// Sparse (Sparse != nil): the rows are compressed sparse rows (CSR) and
// Data and Stride are unused; Row, Set and column slices are not defined
// for it, and code that reads rows of a matrix that may be sparse uses
// RowTo or SparseRow. Dense and sparse matrices are the same operand to
// every kernel operation of the engine and the backends.
//
// A Matrix is a view: copying it does not copy its storage, and
// sub-matrices share storage with their parent.
type Matrix struct {
	Rows, Cols, Stride int
	Data               []float32
	Sparse             *CSR
}

// CSR holds the rows of a sparse Matrix: the non-zeros of row i are
// Values[Offsets[i]:Offsets[i+1]] at the columns Indices[Offsets[i]:
// Offsets[i+1]], which increase strictly within a row. The offsets are
// positions in Indices and Values, so a view of rows r0..r1 shares the
// arrays and takes Offsets[r0 : r1+1]. Memory is 8 bytes a row plus 8
// bytes a non-zero.
type CSR struct {
	Offsets []int64
	Indices []int32
	Values  []float32
}

// NewMatrix allocates a zeroed rows×cols matrix with Stride == cols.
func NewMatrix(rows, cols int) Matrix {
	return Matrix{Rows: rows, Cols: cols, Stride: cols, Data: make([]float32, rows*cols)}
}

// NewAlignedMatrix allocates a zeroed rows×cols matrix whose rows start on
// 64-byte (cache-line) boundaries: Stride is AlignedStride(cols) and Data
// begins on such a boundary. The dot kernels stream a row with whole-line
// loads instead of loads split across two lines (about 7% faster for a
// dictionary pass that is not memory-bound); the values and every result
// computed from them are the same as with NewMatrix.
func NewAlignedMatrix(rows, cols int) Matrix {
	stride := AlignedStride(cols)
	n := rows * stride
	if n == 0 {
		return Matrix{Rows: rows, Cols: cols, Stride: stride}
	}
	buf := make([]float32, n+cacheLine/4-1)
	off := 0
	if a := uintptr(unsafe.Pointer(&buf[0])) % cacheLine; a != 0 {
		off = int(cacheLine-a) / 4
	}
	return Matrix{Rows: rows, Cols: cols, Stride: stride, Data: buf[off : off+n : off+n]}
}

// AlignedStride returns cols rounded up to a whole number of 64-byte cache
// lines of float32 (16 values).
func AlignedStride(cols int) int { return (cols + 15) &^ 15 }

const cacheLine = 64

// MatrixFrom wraps data as a rows×cols matrix with Stride == cols.
func MatrixFrom(rows, cols int, data []float32) (Matrix, error) {
	m := Matrix{Rows: rows, Cols: cols, Stride: cols, Data: data}
	return m, m.Validate()
}

// Row returns row i of a dense matrix as a slice of length Cols sharing
// storage with m. Rows of a matrix without columns are empty (its Data may
// be empty too). It panics for a sparse matrix: use RowTo or SparseRow.
func (m Matrix) Row(i int) []float32 {
	if m.Sparse != nil {
		panic("pursuit: Row of a sparse matrix (use RowTo or SparseRow)")
	}
	if m.Cols == 0 {
		return m.Data[:0:0]
	}
	off := i * m.Stride
	return m.Data[off : off+m.Cols : off+m.Cols]
}

// At returns element (i, j).
func (m Matrix) At(i, j int) float32 {
	if m.Sparse != nil {
		idx, val := m.SparseRow(i)
		lo, hi := 0, len(idx)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if int(idx[mid]) < j {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(idx) && int(idx[lo]) == j {
			return val[lo]
		}
		return 0
	}
	return m.Data[i*m.Stride+j]
}

// Set sets element (i, j) of a dense matrix; it panics for a sparse one.
func (m Matrix) Set(i, j int, v float32) {
	if m.Sparse != nil {
		panic("pursuit: Set on a sparse matrix")
	}
	m.Data[i*m.Stride+j] = v
}

// IsSparse reports whether m is held in compressed sparse rows.
func (m Matrix) IsSparse() bool { return m.Sparse != nil }

// SparseRow returns the columns and values of the non-zeros of row i of a
// sparse matrix, sharing storage with m. It panics for a dense matrix.
func (m Matrix) SparseRow(i int) (indices []int32, values []float32) {
	c := m.Sparse
	lo, hi := c.Offsets[i], c.Offsets[i+1]
	return c.Indices[lo:hi:hi], c.Values[lo:hi:hi]
}

// RowTo writes row i into dst[:Cols], dense or sparse alike, and returns
// dst[:Cols]. dst must have room for Cols values.
func (m Matrix) RowTo(dst []float32, i int) []float32 {
	dst = dst[:m.Cols]
	if m.Sparse == nil {
		copy(dst, m.Row(i))
		return dst
	}
	clear(dst)
	idx, val := m.SparseRow(i)
	for p, j := range idx {
		dst[j] = val[p]
	}
	return dst
}

// NNZ returns the number of stored values: the non-zeros of a sparse
// matrix, Rows×Cols of a dense one.
func (m Matrix) NNZ() int64 {
	if m.Sparse != nil {
		return m.Sparse.Offsets[m.Rows] - m.Sparse.Offsets[0]
	}
	return int64(m.Rows) * int64(m.Cols)
}

// Bytes returns the bytes of storage the view spans: 4 a value for dense
// rows (the stride's padding included), 8 a non-zero and 8 a row for
// sparse ones.
func (m Matrix) Bytes() int64 {
	if m.Sparse != nil {
		return 8*m.NNZ() + 8*int64(m.Rows+1)
	}
	return 4 * int64(m.Rows) * int64(m.Stride)
}

// SparseFrom wraps CSR arrays as a rows×cols sparse matrix and validates
// them (see Validate).
func SparseFrom(rows, cols int, offsets []int64, indices []int32, values []float32) (Matrix, error) {
	m := Matrix{Rows: rows, Cols: cols, Sparse: &CSR{Offsets: offsets, Indices: indices, Values: values}}
	return m, m.Validate()
}

// Slice returns the view of rows [r0, r1) and columns [c0, c1). A sparse
// matrix has row views only: c0 must be 0 and c1 its Cols.
func (m Matrix) Slice(r0, r1, c0, c1 int) Matrix {
	if r0 < 0 || r1 < r0 || r1 > m.Rows || c0 < 0 || c1 < c0 || c1 > m.Cols {
		panic(fmt.Sprintf("pursuit: Slice [%d:%d, %d:%d] out of range for %d×%d matrix", r0, r1, c0, c1, m.Rows, m.Cols))
	}
	if m.Sparse != nil {
		if c0 != 0 || c1 != m.Cols {
			panic(fmt.Sprintf("pursuit: Slice of columns [%d:%d] of a sparse matrix (row views only)", c0, c1))
		}
		c := m.Sparse
		return Matrix{Rows: r1 - r0, Cols: m.Cols, Sparse: &CSR{Offsets: c.Offsets[r0 : r1+1 : r1+1], Indices: c.Indices, Values: c.Values}}
	}
	if r1 == r0 || c1 == c0 {
		return Matrix{Rows: r1 - r0, Cols: c1 - c0, Stride: m.Stride}
	}
	return Matrix{Rows: r1 - r0, Cols: c1 - c0, Stride: m.Stride, Data: m.Data[r0*m.Stride+c0 : (r1-1)*m.Stride+c1]}
}

// Validate reports whether the view is well formed: non-negative shape;
// dense, Stride ≥ Cols and Data long enough for the last row; sparse,
// Rows+1 non-decreasing offsets within Indices and Values (of equal length)
// and, in every row, columns in [0, Cols) that increase strictly. It reads
// every index of a sparse matrix once.
func (m Matrix) Validate() error {
	switch {
	case m.Rows < 0 || m.Cols < 0:
		return fmt.Errorf("matrix shape %d×%d is negative", m.Rows, m.Cols)
	case m.Sparse != nil:
		return m.validateSparse()
	case m.Rows > 0 && m.Stride < m.Cols:
		return fmt.Errorf("matrix stride %d is less than its %d columns", m.Stride, m.Cols)
	case m.Rows > 0 && m.Cols > 0 && len(m.Data) < (m.Rows-1)*m.Stride+m.Cols:
		return fmt.Errorf("matrix %d×%d (stride %d) needs %d elements, has %d",
			m.Rows, m.Cols, m.Stride, (m.Rows-1)*m.Stride+m.Cols, len(m.Data))
	}
	return nil
}

func (m Matrix) validateSparse() error {
	c := m.Sparse
	if len(c.Offsets) != m.Rows+1 {
		return fmt.Errorf("sparse matrix with %d rows has %d offsets, want %d", m.Rows, len(c.Offsets), m.Rows+1)
	}
	if len(c.Indices) != len(c.Values) {
		return fmt.Errorf("sparse matrix has %d indices and %d values", len(c.Indices), len(c.Values))
	}
	if c.Offsets[0] < 0 || c.Offsets[m.Rows] > int64(len(c.Indices)) {
		return fmt.Errorf("sparse matrix offsets [%d, %d] outside its %d non-zeros", c.Offsets[0], c.Offsets[m.Rows], len(c.Indices))
	}
	for i := 0; i < m.Rows; i++ {
		lo, hi := c.Offsets[i], c.Offsets[i+1]
		if hi < lo {
			return fmt.Errorf("sparse matrix row %d: offsets decrease (%d then %d)", i, lo, hi)
		}
		prev := int32(-1)
		for _, j := range c.Indices[lo:hi] {
			switch {
			case j < 0 || int(j) >= m.Cols:
				return fmt.Errorf("sparse matrix row %d: column %d outside [0, %d)", i, j, m.Cols)
			case j <= prev:
				return fmt.Errorf("sparse matrix row %d: column %d after column %d (columns must increase)", i, j, prev)
			}
			prev = j
		}
	}
	return nil
}
