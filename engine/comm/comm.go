package comm

import (
	"errors"
	"fmt"
	"math"
)

// Comm is a group of ranks that call the same collective operations in the
// same order. Every method is a collective: every rank must call it, with
// the same root and the same lengths, or the group deadlocks (MPI) or every
// rank gets an error wrapping ErrMismatch (in-process group).
//
// A Comm is used by one goroutine at a time.
type Comm interface {
	// Rank is this process's rank, 0 ≤ Rank < Size.
	Rank() int
	// Size is the number of ranks.
	Size() int
	// AllreduceSum replaces buf, on every rank, by the element-wise sum of
	// every rank's buf. All ranks pass the same length.
	AllreduceSum(buf []float64) error
	// AllreduceMaxLoc returns, on every rank, the largest value passed by
	// any rank and the index passed with it; among equal values the lowest
	// index wins. NaN counts as −Inf. The index must fit a C int (32 bits).
	AllreduceMaxLoc(value float64, index int) (float64, int, error)
	// BcastBytes copies root's buf into every rank's buf (same length).
	BcastBytes(buf []byte, root int) error
	// BcastFloat32 copies root's buf into every rank's buf (same length).
	BcastFloat32(buf []float32, root int) error
	// BcastFloat64 copies root's buf into every rank's buf (same length).
	BcastFloat64(buf []float64, root int) error
	// Allgatherv concatenates every rank's send, in rank order, into recv
	// on every rank. counts[r] is rank r's send length (the same counts on
	// every rank); len(recv) must be their sum.
	Allgatherv(send []float64, counts []int, recv []float64) error
	// Barrier returns once every rank has called it.
	Barrier() error
	// Abort brings the whole group down with err: in-process, every pending
	// and later collective of every rank returns an error wrapping
	// ErrAborted and err; under MPI the job is stopped (MPI_Abort) after
	// err is printed on standard error.
	Abort(err error)
	// Close releases the communicator (MPI_Finalize under MPI). Collectives
	// after Close return ErrClosed.
	Close() error
	// Describe says what the communicator is, for progress output: "single
	// process", "in-process rank 2 of 4", "MPI rank 0 of 8 (Open MPI …)".
	Describe() string
}

// Allgather returns every rank's send, in rank order: one Allgatherv with
// the same send length on every rank.
func Allgather(c Comm, send []float64) ([]float64, error) {
	counts := make([]int, c.Size())
	for r := range counts {
		counts[r] = len(send)
	}
	recv := make([]float64, len(send)*c.Size())
	if err := c.Allgatherv(send, counts, recv); err != nil {
		return nil, err
	}
	return recv, nil
}

// Errors wrapped by the communicators.
var (
	// ErrArgument: a collective's arguments are invalid on this rank.
	ErrArgument = errors.New("invalid collective argument")
	// ErrMismatch: ranks called different collectives, or the same one
	// with different roots or lengths (detected by the in-process group).
	ErrMismatch = errors.New("ranks disagree on a collective")
	// ErrAborted: a rank aborted the group.
	ErrAborted = errors.New("communicator aborted")
	// ErrClosed: the communicator was closed.
	ErrClosed = errors.New("communicator closed")
	// ErrConfig: ranks were started with different configurations.
	ErrConfig = errors.New("ranks see different configurations")
	// ErrNotDistributed: the method does not split its training rows
	// across ranks, so it cannot run with more than one.
	ErrNotDistributed = errors.New("does not run across ranks")
)

// maxLocValue maps NaN to −Inf, the one ordering every implementation uses.
func maxLocValue(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

// maxLocBetter reports whether (v, i) beats (bv, bi) under MAXLOC's rule:
// larger value, then lower index.
func maxLocBetter(v float64, i int, bv float64, bi int) bool {
	return v > bv || (v == bv && i < bi)
}

// checkIndex rejects indices that do not fit MPI's C int.
func checkIndex(index int) error {
	if index < math.MinInt32 || index > math.MaxInt32 {
		return fmt.Errorf("comm: AllreduceMaxLoc index %d does not fit a 32-bit int: %w", index, ErrArgument)
	}
	return nil
}

// checkRoot rejects a root outside [0, size).
func checkRoot(op string, root, size int) error {
	if root < 0 || root >= size {
		return fmt.Errorf("comm: %s root %d is not a rank of a group of %d: %w", op, root, size, ErrArgument)
	}
	return nil
}

// checkGather validates Allgatherv's lengths on one rank.
func checkGather(rank int, send []float64, counts []int, recv []float64, size int) error {
	if len(counts) != size {
		return fmt.Errorf("comm: Allgatherv got %d counts for %d ranks: %w", len(counts), size, ErrArgument)
	}
	total := 0
	for r, c := range counts {
		if c < 0 || c > math.MaxInt32 {
			return fmt.Errorf("comm: Allgatherv count %d of rank %d is negative or exceeds a 32-bit int: %w", c, r, ErrArgument)
		}
		total += c
	}
	if counts[rank] != len(send) {
		return fmt.Errorf("comm: Allgatherv on rank %d sends %d values but counts[%d] = %d: %w", rank, len(send), rank, counts[rank], ErrArgument)
	}
	if len(recv) != total || total > math.MaxInt32 {
		return fmt.Errorf("comm: Allgatherv receive buffer holds %d values, counts sum to %d (at most 2³¹−1): %w", len(recv), total, ErrArgument)
	}
	return nil
}

// Single is the one-rank communicator of a process that trains alone: every
// collective returns its input. The zero value is ready to use.
type Single struct{ closed bool }

var _ Comm = (*Single)(nil)

func (s *Single) live() error {
	if s.closed {
		return fmt.Errorf("comm: single-process communicator: %w", ErrClosed)
	}
	return nil
}

// Rank is 0.
func (s *Single) Rank() int { return 0 }

// Size is 1.
func (s *Single) Size() int { return 1 }

// AllreduceSum leaves buf as it is.
func (s *Single) AllreduceSum(buf []float64) error { return s.live() }

// AllreduceMaxLoc returns its arguments (NaN as −Inf).
func (s *Single) AllreduceMaxLoc(value float64, index int) (float64, int, error) {
	if err := s.live(); err != nil {
		return 0, 0, err
	}
	if err := checkIndex(index); err != nil {
		return 0, 0, err
	}
	return maxLocValue(value), index, nil
}

// BcastBytes leaves buf as it is.
func (s *Single) BcastBytes(buf []byte, root int) error { return s.bcast("BcastBytes", root) }

// BcastFloat32 leaves buf as it is.
func (s *Single) BcastFloat32(buf []float32, root int) error { return s.bcast("BcastFloat32", root) }

// BcastFloat64 leaves buf as it is.
func (s *Single) BcastFloat64(buf []float64, root int) error { return s.bcast("BcastFloat64", root) }

func (s *Single) bcast(op string, root int) error {
	if err := s.live(); err != nil {
		return err
	}
	return checkRoot(op, root, 1)
}

// Allgatherv copies send into recv.
func (s *Single) Allgatherv(send []float64, counts []int, recv []float64) error {
	if err := s.live(); err != nil {
		return err
	}
	if err := checkGather(0, send, counts, recv, 1); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

// Barrier returns at once.
func (s *Single) Barrier() error { return s.live() }

// Abort does nothing: the caller's own error stops the process.
func (s *Single) Abort(error) {}

// Close marks the communicator closed.
func (s *Single) Close() error { s.closed = true; return nil }

// Describe says "single process".
func (s *Single) Describe() string { return "single process" }
