package data

import (
	"fmt"
	"math"
	"strings"

	"github.com/pursuit-ml/pursuit"
)

// Storage names how a LIBSVM file's features are held in memory.
type Storage string

// The storages Load and ReadLibSVM know. CSV files are always dense.
const (
	// StorageAuto chooses by density: sparse when the file's non-zeros are
	// fewer than SparseDensity of its rows × features, dense otherwise.
	StorageAuto Storage = "auto"
	// StorageDense holds a row-major float32 matrix: 4 bytes a value, zeros
	// included.
	StorageDense Storage = "dense"
	// StorageSparse holds compressed sparse rows (pursuit.CSR): 8 bytes a
	// non-zero (int32 column, float32 value) and 8 a row.
	StorageSparse Storage = "sparse"
)

// DefaultStorage is the storage Load and ReadLibSVM use without
// WithStorage. It stays StorageDense while not every learner takes sparse
// rows (a caller that handles them, such as the pursuit command for the
// algorithms it has checked, asks for StorageAuto).
const DefaultStorage = StorageDense

// SparseDensity is the density (stored non-zeros / (rows·features)) below
// which StorageAuto chooses sparse rows.
//
// Memory alone would put the threshold at 0.5: sparse rows take 8 bytes a
// non-zero, dense rows 4 bytes a value. Speed puts it lower: a dense kernel
// row streams both operands with vector loads and FMAs, while a sparse one
// scatters a row into a dense block and gathers the other operand's values
// by column, about two to three times the work per stored value. At a
// quarter density the sparse matrix is half the dense one and its kernel
// rows cost about what dense ones do; below it sparse wins on both counts
// (text and web sets are far below it: rcv1 0.0016, news20 0.00034), above
// it dense wins on speed at a memory cost of at most 2×. Mushrooms' one-hot
// columns (0.19) are just below it.
const SparseDensity = 0.25

// MaxSparseIndex is the largest feature index sparse storage takes: its
// column indices are int32.
const MaxSparseIndex = math.MaxInt32

// ParseStorage parses "auto", "dense" or "sparse" (any case).
func ParseStorage(s string) (Storage, error) {
	switch st := Storage(strings.ToLower(strings.TrimSpace(s))); st {
	case StorageAuto, StorageDense, StorageSparse:
		return st, nil
	}
	return "", fmt.Errorf("unknown storage %q (want auto, dense or sparse)", s)
}

// WithStorage chooses how a LIBSVM file's features are held: StorageAuto
// (by density, see SparseDensity), StorageDense or StorageSparse. The
// default is DefaultStorage. CSV files are read dense whatever it says.
// In sparse storage the memory limit is charged the compressed rows (8
// bytes a non-zero and 8 a row) and nothing data-sized is dense: memory is
// O(non-zeros).
func WithStorage(s Storage) Option {
	return func(o *options) {
		switch s {
		case StorageAuto, StorageDense, StorageSparse:
			o.storage = s
		default:
			o.badOption = fmt.Errorf("WithStorage(%q): unknown storage (want %q, %q or %q)", string(s), StorageAuto, StorageDense, StorageSparse)
		}
	}
}

// ResolveStorage returns the storage asked for as s (StorageAuto resolved
// by density) of a rows×dim matrix with nnz non-zeros, and why, in words.
func ResolveStorage(s Storage, rows, dim int, nnz int64) (Storage, string) {
	dens := Density(rows, dim, nnz)
	switch s {
	case StorageDense, StorageSparse:
		return s, fmt.Sprintf("%s storage asked for (density %.3g)", s, dens)
	}
	if rows > 0 && dim > 0 && dens < SparseDensity {
		return StorageSparse, fmt.Sprintf("density %.3g is below %g: sparse rows take %s instead of %s dense",
			dens, SparseDensity, humanBytes(SparseBytes(rows, nnz)), humanBytes(4*int64(rows)*int64(dim)))
	}
	return StorageDense, fmt.Sprintf("density %.3g is at least %g: dense rows are faster to compute on", dens, SparseDensity)
}

// Density is nnz / (rows·dim), 0 for an empty shape.
func Density(rows, dim int, nnz int64) float64 {
	if rows <= 0 || dim <= 0 {
		return 0
	}
	return float64(nnz) / (float64(rows) * float64(dim))
}

// SparseBytes is the memory of rows compressed sparse rows holding nnz
// non-zeros: 8 bytes a non-zero and 8 a row (plus one).
func SparseBytes(rows int, nnz int64) int64 { return 8*nnz + 8*int64(rows+1) }

// checkSparse returns a *LimitError when rows sparse rows with nnz
// non-zeros exceed limit bytes.
func checkSparse(rows int, nnz int64, limit int64) error {
	if need := SparseBytes(rows, nnz); need > limit {
		return &LimitError{What: fmt.Sprintf("%d sparse rows with %d non-zeros", rows, nnz), Need: need, Limit: limit}
	}
	return nil
}

// CountNonZeros returns the non-zero values of x: its stored values when
// sparse (explicit zeros are not counted), a count over the matrix when
// dense.
func CountNonZeros(x pursuit.Matrix) int64 {
	var n int64
	if x.IsSparse() {
		c := x.Sparse
		for _, v := range c.Values[c.Offsets[0]:c.Offsets[x.Rows]] {
			if v != 0 {
				n++
			}
		}
		return n
	}
	for i := range x.Rows {
		for _, v := range x.Row(i) {
			if v != 0 {
				n++
			}
		}
	}
	return n
}

// Densify returns d with dense features: d itself when they are dense
// already, else a copy whose dense matrix must fit in limit bytes (a
// *LimitError otherwise).
func Densify(d *Dataset, limit int64) (*Dataset, error) {
	if !d.X.IsSparse() {
		return d, nil
	}
	if err := checkDense(d.X.Rows, d.X.Cols, limit); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	x := pursuit.NewMatrix(d.X.Rows, d.X.Cols)
	for i := range d.X.Rows {
		d.X.RowTo(x.Row(i), i)
	}
	return &Dataset{X: x, Y: d.Y, Name: d.Name}, nil
}

// Sparsify returns d with sparse features: d itself when they are sparse
// already, else a copy holding its non-zeros.
func Sparsify(d *Dataset) *Dataset {
	if d.X.IsSparse() {
		return d
	}
	nnz := CountNonZeros(d.X)
	off := make([]int64, 1, d.X.Rows+1)
	idx := make([]int32, 0, nnz)
	val := make([]float32, 0, nnz)
	for i := range d.X.Rows {
		for j, v := range d.X.Row(i) {
			if v != 0 {
				idx = append(idx, int32(j))
				val = append(val, v)
			}
		}
		off = append(off, int64(len(idx)))
	}
	x := pursuit.Matrix{Rows: d.X.Rows, Cols: d.X.Cols, Sparse: &pursuit.CSR{Offsets: off, Indices: idx, Values: val}}
	return &Dataset{X: x, Y: d.Y, Name: d.Name}
}
