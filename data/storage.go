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
	// StorageAuto chooses by the cost of kernel rows and by memory (see
	// ResolveStorageLimit): sparse rows when the density is below the
	// measured crossover for the file's number of features, or when dense
	// rows would take more than four times the sparse ones' memory or more
	// than the memory limit; dense rows otherwise.
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

// SparseDensity is the density below which data count as sparse: their
// default scaling keeps zeros (DefaultScaleMode), and package svm keeps a
// LIBSVM model's support vectors sparse when it reads a model file. The
// storage of data sets does not follow it: StorageAuto's rule is
// ResolveStorageLimit's, by measured speed and memory.
const SparseDensity = 0.25

// DenseMemoryFactor is the most memory StorageAuto spends on dense rows
// for their speed: dense rows (4 bytes a value) are chosen only where they
// take at most this many times the bytes of compressed sparse rows (8
// bytes a non-zero and 8 a row), which holds from a density of about 1/8
// up.
const DenseMemoryFactor = 4

// SparseCrossover returns the density below which sparse rows give faster
// RBF kernel rows than dense rows of cols features on the avx2 backend
// (the default CPU backend): 0 up to 120 features (dense rows are faster
// at every density), rising linearly to 0.18 at 282 features and 0.18
// from there on. It is fitted to engine's BenchmarkStorageCrossover (the
// SVM's gathered rows, K(X[idx], X) for 16 and 64 rows of 2,000, one
// thread; November 2026), where sparse/dense time crossed 1 at no density
// from 0.02 up for 50 and 112 features, at about 0.05 for 150, 0.1–0.15
// for 200, 0.2 for 300 and 1,000, and 0.15–0.2 for 2,000. Below about a
// 1/8 density the memory rule (DenseMemoryFactor) chooses sparse rows
// anyway. On the go backend sparse rows were faster throughout that grid
// (0.05–0.93 of the dense time up to density 0.5).
func SparseCrossover(cols int) float64 {
	return min(0.18, max(0, float64(cols-120)/900))
}

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
// (by the speed of kernel rows and by memory, see ResolveStorageLimit),
// StorageDense or StorageSparse. The
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

// ResolveStorage is ResolveStorageLimit with DefaultMemoryLimit, the
// limit the readers use without WithMemoryLimit.
func ResolveStorage(s Storage, rows, dim int, nnz int64) (Storage, string) {
	return ResolveStorageLimit(s, rows, dim, nnz, DefaultMemoryLimit)
}

// ResolveStorageLimit returns the storage asked for as s of a rows×dim
// matrix with nnz non-zeros, and why, in words. StorageAuto resolves to
// sparse rows when any of these holds, and to dense rows otherwise:
//
//   - the density nnz/(rows·dim) is below SparseCrossover(dim): sparse
//     kernel rows are faster;
//   - dense rows (4·rows·dim bytes) would take more than DenseMemoryFactor
//     times the sparse rows' SparseBytes: too much memory for their speed;
//   - dense rows would not fit limit (the readers' memory limit).
func ResolveStorageLimit(s Storage, rows, dim int, nnz, limit int64) (Storage, string) {
	dens := Density(rows, dim, nnz)
	switch s {
	case StorageDense, StorageSparse:
		return s, fmt.Sprintf("%s storage asked for (density %.3g)", s, dens)
	}
	if rows <= 0 || dim <= 0 {
		return StorageDense, "no values: dense rows"
	}
	dense, sparse := 4*int64(rows)*int64(dim), SparseBytes(rows, nnz)
	cross := SparseCrossover(dim)
	switch {
	case dens < cross:
		return StorageSparse, fmt.Sprintf("density %.3g is below %.3g, under which sparse kernel rows of %d features are faster: sparse rows take %s instead of %s dense",
			dens, cross, dim, humanBytes(sparse), humanBytes(dense))
	case dense > DenseMemoryFactor*sparse:
		return StorageSparse, fmt.Sprintf("density %.3g: dense rows would take %s, over %d times the %s of sparse rows",
			dens, humanBytes(dense), DenseMemoryFactor, humanBytes(sparse))
	case dense > limit:
		return StorageSparse, fmt.Sprintf("density %.3g: dense rows would take %s, over the %s memory limit; sparse rows take %s",
			dens, humanBytes(dense), humanBytes(limit), humanBytes(sparse))
	}
	why := fmt.Sprintf("sparse kernel rows of %d features are faster only below density %.3g", dim, cross)
	if cross == 0 {
		why = fmt.Sprintf("dense kernel rows of %d features are faster at any density", dim)
	}
	return StorageDense, fmt.Sprintf("density %.3g: %s, and dense rows take %s against %s sparse (at most %d times allowed)",
		dens, why, humanBytes(dense), humanBytes(sparse), DenseMemoryFactor)
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
