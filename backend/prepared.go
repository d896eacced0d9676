package backend

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/pursuit-ml/pursuit"
)

// Prepared is a matrix that a backend has put once into the form its kernel
// blocks read fastest (packed into the GEMM micro-kernel's panel layout on
// the CPU, uploaded on a device), with its squared row norms, for use as the
// b operand of many kernel blocks: an SMO solver's kernel rows K(X[idx], X)
// read all of X for every batch, and preparing X once saves packing (or
// shipping) it again each time. The matrix it was prepared from must not
// change while the handle is in use.
type Prepared interface {
	// Matrix returns the view the handle was prepared from.
	Matrix() pursuit.Matrix
	// Norms returns ‖b_j‖² of every row, computed once at preparation
	// (float64 partial sums rounded to float32, as SqNorms). The caller
	// must not modify it.
	Norms() []float32
	// Release frees what the handle holds. Using it afterwards is an error
	// wrapping ErrPrepared; releasing twice is a no-op.
	Release() error
}

// Preparer is the optional capability of a backend that prepares a matrix
// once for repeated use as the b operand of its kernel blocks. Find it by
// type assertion (the engine does: engine.Engine.Prepare). The *Prepared
// methods have the contract of KernelBlock and KernelGather with b and its
// norms taken from the handle, and two guarantees more:
//   - a value does not depend on the other rows of the call or on its
//     row's place among them: a kernel row K(a_i, b) has the same bits in
//     every gather that contains it, so that an SMO solver's iterates (and
//     model) do not depend on its cache size or on how it batches rows;
//   - blocks of 16 rows or more give the same values as KernelBlock and
//     KernelGather on the matrix the handle was prepared from. (Smaller
//     unprepared blocks may take a faster path that rounds differently.)
type Preparer interface {
	// Prepare prepares b.
	Prepare(b pursuit.Matrix) (Prepared, error)
	// KernelBlockPrepared writes dst[i][j] = k(a_i, b_j).
	KernelBlockPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b Prepared) error
	// KernelGatherPrepared writes dst[r][j] = k(a_{idx[r]}, b_j).
	KernelGatherPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b Prepared) error
}

// RowTiler is the optional capability of a backend that computes the rows
// of its kernel blocks and gathers in tiles: a block costs whole tiles of
// TileRows() rows, so a caller free to choose how many rows it computes
// together (the SVM's row batches) wastes no work with a multiple of it.
// The CPU driver's tile is its GEMM micro-kernel's height (2 rows in pure
// Go, 6 with AVX2, 12 with AVX-512). Find it by type assertion (the engine
// does: engine.Engine.TileRows).
//
// A Prepared handle may implement it too, for the gathers against it: the
// CPU driver's handle of a sparse matrix computes a row from the columns
// it has (its column index), so each row costs about its own work and its
// tile is 1 (engine.Engine.TileRowsOf).
type RowTiler interface {
	TileRows() int
}

// PreparedSizer is the optional capability of a Preparer that says how
// many bytes Prepare(m) will hold, for the caller's memory budget (the
// engine charges it before preparing).
type PreparedSizer interface {
	PreparedBytes(m pursuit.Matrix) int64
}

// ErrPrepared is wrapped by the errors a Preparer returns for a handle it
// cannot use: nil, released, or prepared by another backend.
var ErrPrepared = errors.New("prepared operand not usable")

// PreparedBase is the part of a Prepared every backend shares: the source
// view, its norms and the released flag. Backends embed it in their handle
// types.
type PreparedBase struct {
	M        pursuit.Matrix
	SqNorms  []float32
	released atomic.Bool
}

// Matrix returns the view the handle was prepared from.
func (p *PreparedBase) Matrix() pursuit.Matrix { return p.M }

// Norms returns the squared row norms.
func (p *PreparedBase) Norms() []float32 { return p.SqNorms }

// MarkReleased records the release and reports whether this call did it
// (false when the handle was already released).
func (p *PreparedBase) MarkReleased() bool { return p.released.CompareAndSwap(false, true) }

// Released reports whether the handle has been released.
func (p *PreparedBase) Released() bool { return p.released.Load() }

// CheckPrepared validates the handle b for the operation op and returns it
// as the backend's own handle type H: it must not be nil, must be an H that
// mine reports as prepared by this backend, and must not be released.
func CheckPrepared[H interface {
	Prepared
	Released() bool
	comparable
}](op string, b Prepared, mine func(H) bool) (H, error) {
	var zero H
	if b == nil {
		return zero, fmt.Errorf("%s: %w: b is nil", op, ErrPrepared)
	}
	h, ok := b.(H)
	if !ok || h == zero || !mine(h) {
		return zero, fmt.Errorf("%s: %w: b (%T) was prepared by another backend", op, ErrPrepared, b)
	}
	if h.Released() {
		return zero, fmt.Errorf("%s: %w: b was released", op, ErrPrepared)
	}
	return h, nil
}
