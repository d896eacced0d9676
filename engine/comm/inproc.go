package comm

import (
	"errors"
	"fmt"
	"sync"
)

// group is the state the ranks of one in-process group share.
type group struct {
	size int

	mu       sync.Mutex
	cur      *round
	aborted  chan struct{} // closed by the first Abort
	abortErr error
}

// round is one collective call: each rank deposits its contribution, and
// the last to arrive computes the result for all and closes done.
type round struct {
	contrib []contribution
	arrived int
	done    chan struct{}
	result  any
	err     error
}

// contribution is what one rank passes to a collective.
type contribution struct {
	op    string
	root  int
	f64   []float64
	f32   []float32
	bytes []byte
	value float64
	index int
	count []int
	err   error // a local argument error: every rank then fails
}

type maxLoc struct {
	value float64
	index int
}

func newRound(size int) *round {
	return &round{contrib: make([]contribution, size), done: make(chan struct{})}
}

// inproc is one rank of an in-process group.
type inproc struct {
	g      *group
	rank   int
	closed bool
}

var _ Comm = (*inproc)(nil)

// NewGroup returns the n ranks of an in-process group; rank r's Comm is
// element r. Each must be driven by its own goroutine (see Run).
func NewGroup(n int) ([]Comm, error) {
	if n < 1 {
		return nil, fmt.Errorf("comm: an in-process group needs at least one rank, got %d: %w", n, ErrArgument)
	}
	g := &group{size: n, cur: newRound(n), aborted: make(chan struct{})}
	out := make([]Comm, n)
	for r := range out {
		out[r] = &inproc{g: g, rank: r}
	}
	return out, nil
}

// Run runs body on n in-process ranks, each in its own goroutine, and waits
// for all. When a rank's body returns an error the group is aborted, so the
// other ranks' collectives return instead of waiting for it; Run returns the
// errors of the ranks that failed first (those that only saw the abort are
// left out), each prefixed with its rank.
func Run(n int, body func(c Comm) error) error {
	ranks, err := NewGroup(n)
	if err != nil {
		return err
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r, c := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := body(c); err != nil {
				errs[r] = err
				c.Abort(err)
			}
		}()
	}
	wg.Wait()
	var first []error
	for r, err := range errs {
		if err != nil && !errors.Is(err, ErrAborted) {
			first = append(first, fmt.Errorf("rank %d: %w", r, err))
		}
	}
	if len(first) == 0 {
		for r, err := range errs {
			if err != nil {
				first = append(first, fmt.Errorf("rank %d: %w", r, err))
			}
		}
	}
	return errors.Join(first...)
}

func (c *inproc) Rank() int { return c.rank }
func (c *inproc) Size() int { return c.g.size }
func (c *inproc) Describe() string {
	return fmt.Sprintf("in-process rank %d of %d", c.rank, c.g.size)
}

// collective deposits this rank's contribution and waits for the result.
func (c *inproc) collective(in contribution) (any, error) {
	if c.closed {
		return nil, fmt.Errorf("comm: in-process rank %d: %w", c.rank, ErrClosed)
	}
	g := c.g
	g.mu.Lock()
	if g.abortErr != nil {
		err := g.abortErr
		g.mu.Unlock()
		return nil, err
	}
	r := g.cur
	r.contrib[c.rank] = in
	r.arrived++
	if r.arrived == g.size {
		r.result, r.err = combine(r.contrib)
		g.cur = newRound(g.size)
		close(r.done)
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.result, r.err
	case <-g.aborted:
		// A round that completed just as the group aborted still counts.
		select {
		case <-r.done:
			return r.result, r.err
		default:
		}
		g.mu.Lock()
		err := g.abortErr
		g.mu.Unlock()
		return nil, err
	}
}

// combine computes a round's result from every rank's contribution, in rank
// order, after checking that the ranks agree on the call.
func combine(cs []contribution) (any, error) {
	first := cs[0]
	for r, c := range cs {
		if c.op != first.op {
			return nil, fmt.Errorf("comm: rank %d called %s while rank 0 called %s: %w", r, c.op, first.op, ErrMismatch)
		}
		if c.root != first.root {
			return nil, fmt.Errorf("comm: %s: rank %d names root %d, rank 0 names root %d: %w", c.op, r, c.root, first.root, ErrMismatch)
		}
		if len(c.f64) != len(first.f64) && first.op != "Allgatherv" || len(c.f32) != len(first.f32) || len(c.bytes) != len(first.bytes) {
			return nil, fmt.Errorf("comm: %s: rank %d passes a buffer of a different length than rank 0: %w", c.op, r, ErrMismatch)
		}
	}
	for r, c := range cs {
		if c.err != nil {
			return nil, fmt.Errorf("comm: %s failed because rank %d's arguments are invalid: %w", c.op, r, c.err)
		}
	}
	switch first.op {
	case "AllreduceSum":
		sum := make([]float64, len(first.f64))
		for _, c := range cs { // rank order: the result never depends on scheduling
			for i, v := range c.f64 {
				sum[i] += v
			}
		}
		return sum, nil
	case "AllreduceMaxLoc":
		best := maxLoc{maxLocValue(first.value), first.index}
		for _, c := range cs[1:] {
			if v := maxLocValue(c.value); maxLocBetter(v, c.index, best.value, best.index) {
				best = maxLoc{v, c.index}
			}
		}
		return best, nil
	case "BcastBytes":
		return append([]byte(nil), cs[first.root].bytes...), nil
	case "BcastFloat32":
		return append([]float32(nil), cs[first.root].f32...), nil
	case "BcastFloat64":
		return append([]float64(nil), cs[first.root].f64...), nil
	case "Allgatherv":
		var all []float64
		for r, c := range cs {
			if !equalInts(c.count, first.count) {
				return nil, fmt.Errorf("comm: Allgatherv: rank %d passes counts %v, rank 0 passes %v: %w", r, c.count, first.count, ErrMismatch)
			}
			all = append(all, c.f64...)
		}
		return all, nil
	case "Barrier":
		return nil, nil
	}
	return nil, fmt.Errorf("comm: unknown collective %q", first.op)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (c *inproc) AllreduceSum(buf []float64) error {
	res, err := c.collective(contribution{op: "AllreduceSum", f64: buf})
	if err != nil {
		return err
	}
	copy(buf, res.([]float64))
	return nil
}

func (c *inproc) AllreduceMaxLoc(value float64, index int) (float64, int, error) {
	res, err := c.collective(contribution{op: "AllreduceMaxLoc", value: value, index: index, err: checkIndex(index)})
	if err != nil {
		return 0, 0, err
	}
	m := res.(maxLoc)
	return m.value, m.index, nil
}

func (c *inproc) BcastBytes(buf []byte, root int) error {
	res, err := c.collective(contribution{op: "BcastBytes", root: root, bytes: buf, err: checkRoot("BcastBytes", root, c.g.size)})
	if err != nil {
		return err
	}
	copy(buf, res.([]byte))
	return nil
}

func (c *inproc) BcastFloat32(buf []float32, root int) error {
	res, err := c.collective(contribution{op: "BcastFloat32", root: root, f32: buf, err: checkRoot("BcastFloat32", root, c.g.size)})
	if err != nil {
		return err
	}
	copy(buf, res.([]float32))
	return nil
}

func (c *inproc) BcastFloat64(buf []float64, root int) error {
	res, err := c.collective(contribution{op: "BcastFloat64", root: root, f64: buf, err: checkRoot("BcastFloat64", root, c.g.size)})
	if err != nil {
		return err
	}
	copy(buf, res.([]float64))
	return nil
}

func (c *inproc) Allgatherv(send []float64, counts []int, recv []float64) error {
	res, err := c.collective(contribution{op: "Allgatherv", f64: send, count: counts,
		err: checkGather(c.rank, send, counts, recv, c.g.size)})
	if err != nil {
		return err
	}
	copy(recv, res.([]float64))
	return nil
}

func (c *inproc) Barrier() error {
	_, err := c.collective(contribution{op: "Barrier"})
	return err
}

func (c *inproc) Abort(err error) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.abortErr != nil {
		return
	}
	if err == nil {
		err = errors.New("no reason given")
	}
	g.abortErr = fmt.Errorf("comm: rank %d aborted the group: %w: %w", c.rank, ErrAborted, err)
	close(g.aborted)
}

// Close marks this rank closed; it does not wait for the others.
func (c *inproc) Close() error { c.closed = true; return nil }
