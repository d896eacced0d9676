package data

import (
	"slices"

	"github.com/pursuit-ml/pursuit"
)

// Shape is what Check finds in a data file: the examples and features of
// the Dataset Load would return, how it would hold them and the bytes it
// would take (Dataset.Bytes).
type Shape struct {
	Rows, Cols int
	Storage    Storage
	Bytes      int64
}

// Check reads the data set at path as Load does, with the same options,
// the same errors and the same memory limit, but keeps no rows: every
// line is parsed and checked (a LIBSVM file is read twice, as by Load),
// so a file that Check accepts Load reads, while the memory taken is a
// line's rather than the data's. It returns the shape of the Dataset
// Load would return.
//
// A file that is not a regular file (a pipe) cannot be read again: Check
// reads it into memory as Load does, and the data are then dropped.
func Check(path string, opts ...Option) (Shape, error) {
	var sh Shape
	ds, err := Load(path, append(slices.Clone(opts), func(o *options) { o.check = &sh })...)
	if err != nil {
		return Shape{}, err
	}
	if ds != nil { // read by a stream reader, which keeps the rows
		sh = Shape{Rows: ds.Len(), Cols: ds.Dim(), Storage: StorageDense, Bytes: ds.Bytes()}
		if ds.X.IsSparse() {
			sh.Storage = StorageSparse
		}
	}
	return sh, nil
}

// checkedShape is the Shape of n rows of d features held in storage st,
// with nnz stored non-zeros when sparse.
func checkedShape(st Storage, n, d int, nnz int64) Shape {
	x := pursuit.Matrix{Rows: n, Cols: d, Stride: d} // dense: its size needs no values
	bytes := x.Bytes()
	if st == StorageSparse {
		bytes = SparseBytes(n, nnz)
	}
	return Shape{Rows: n, Cols: d, Storage: st, Bytes: bytes + 8*int64(n)} // and the labels
}
