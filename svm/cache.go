package svm

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/backend"
)

// real is the element type of cached kernel rows.
type real interface{ ~float32 | ~float64 }

// rowCache is an LRU cache of kernel rows in fixed-size slots, keyed by
// kernel point (l keys); a row holds w values (w = l in one process; on a
// rank of a sharded solver, the row's part at the rank's own points). The slots live in chunks of consecutive slots, each allocated when
// a row is first stored in it, so that a problem whose rows fit a small part
// of the budget never allocates (and clears) the rest. Rows are computed by
// fill, in batches.
type rowCache[T real] struct {
	l       int // keys
	w       int // values per row
	slots   int
	chunk   int     // slots per chunk
	chunks  [][]T   // chunk q holds slots [q·chunk, (q+1)·chunk); nil until used
	slotOf  []int32 // kernel index → slot, −1 when absent
	owner   []int32 // slot → kernel index, −1 when free
	prev    []int32 // LRU list over slots; head = most recently used
	next    []int32
	head    int32
	tail    int32
	fill    func(dst []T, idx []int) error // writes len(idx) rows of length w into dst
	tmp     []T
	idxBuf  []int
	victims []int32

	hits, misses, computed int
	direct                 int // loads computed straight into their slots
}

// chunkBytes is the size of the chunks the cache allocates its slots in.
const chunkBytes = 8 << 20

// newRowCache makes a cache of at most budget bytes (at least two rows).
func newRowCache[T real](l int, budget int64, elemSize int, fill func(dst []T, idx []int) error) *rowCache[T] {
	return newRowCacheChunked(l, budget, elemSize, max(chunkBytes/(l*elemSize), 16), fill)
}

// newRowCacheChunked is newRowCache with chunks of the given number of
// slots.
func newRowCacheChunked[T real](l int, budget int64, elemSize, chunk int, fill func(dst []T, idx []int) error) *rowCache[T] {
	return newRowCacheWidth(l, l, budget, elemSize, chunk, fill)
}

// newRowCacheWidth makes a cache of l keys whose rows hold w values, with
// as many slots as full rows of l values fit in budget (the slot count of a
// one-process cache of the same l and budget, so that every rank of a
// sharded solver makes the same choices as one process would).
func newRowCacheWidth[T real](l, w int, budget int64, elemSize, chunk int, fill func(dst []T, idx []int) error) *rowCache[T] {
	slots := int(budget / int64(l*elemSize))
	if slots < 2 {
		slots = 2
	}
	if slots > l {
		slots = l
	}
	if slots < 1 {
		slots = 1
	}
	chunk = min(max(chunk, 1), slots)
	c := &rowCache[T]{
		l: l, w: w, slots: slots, chunk: chunk, chunks: make([][]T, (slots+chunk-1)/chunk),
		slotOf: make([]int32, l), owner: make([]int32, slots),
		prev: make([]int32, slots), next: make([]int32, slots), fill: fill,
	}
	for i := range c.slotOf {
		c.slotOf[i] = -1
	}
	for s := range slots {
		c.owner[s] = -1
		c.prev[s] = int32(s - 1)
		c.next[s] = int32(s + 1)
	}
	c.next[slots-1] = -1
	c.head, c.tail = 0, int32(slots-1)
	return c
}

func (c *rowCache[T]) has(k int) bool { return c.slotOf[k] >= 0 }

// touch moves slot s to the head of the LRU list.
func (c *rowCache[T]) touch(s int32) {
	if c.head == s {
		return
	}
	p, n := c.prev[s], c.next[s]
	if p >= 0 {
		c.next[p] = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
	c.prev[s], c.next[s] = -1, c.head
	c.prev[c.head] = s
	c.head = s
}

// row returns the storage of slot s, which must have been stored in (its
// chunk allocated by load).
func (c *rowCache[T]) row(s int32) []T {
	off := int(s) % c.chunk * c.w
	return c.chunks[int(s)/c.chunk][off : off+c.w : off+c.w]
}

// slotRange returns the storage of the n slots from lo on, which must lie in
// one chunk, allocating the chunk if needed.
func (c *rowCache[T]) slotRange(lo int32, n int) []T {
	q := int(lo) / c.chunk
	if c.chunks[q] == nil {
		c.chunks[q] = make([]T, min(c.chunk, c.slots-q*c.chunk)*c.w)
	}
	off := int(lo) % c.chunk * c.w
	return c.chunks[q][off : off+n*c.w]
}

// get returns row k, computing it (with the extra rows in prefetch, which
// must not already be cached) when absent. The returned slice stays valid
// until more than slots−1 other rows have been brought in.
func (c *rowCache[T]) get(k int, prefetch []int) ([]T, error) {
	if s := c.slotOf[k]; s >= 0 {
		c.hits++
		c.touch(s)
		return c.row(s), nil
	}
	c.misses++
	batch := append(c.idxBuf[:0], k)
	for _, p := range prefetch {
		if len(batch) >= c.slots-1 {
			break
		}
		if p != k && c.slotOf[p] < 0 {
			batch = append(batch, p)
		}
	}
	c.idxBuf = batch
	if err := c.load(batch); err != nil {
		return nil, err
	}
	s := c.slotOf[k]
	c.touch(s)
	return c.row(s), nil
}

// load computes the rows in batch (none cached, len ≤ slots) and inserts
// them, evicting the least recently used. The first index ends up most
// recent. When the slots to evict form one contiguous range within a chunk
// (as they mostly do while the cache fills, and whenever the least recently
// used rows are a batch brought in together and not used since), the rows
// are computed straight into them; otherwise into a scratch buffer, then
// copied.
func (c *rowCache[T]) load(batch []int) error {
	n := len(batch)
	victims := c.victims[:0]
	lo, hi := int32(c.slots), int32(-1)
	for s := c.tail; len(victims) < n; s = c.prev[s] {
		victims = append(victims, s)
		lo, hi = min(lo, s), max(hi, s)
	}
	c.victims = victims
	direct := n > 0 && int(hi-lo) == n-1 && int(lo)/c.chunk == int(hi)/c.chunk
	var buf []T
	if direct {
		buf = c.slotRange(lo, n)
	} else {
		for _, s := range victims {
			c.slotRange(s, 1)
		}
		if cap(c.tmp) < n*c.w {
			c.tmp = make([]T, n*c.w)
		}
		buf = c.tmp[:n*c.w]
	}
	// Free the victims before the fill may overwrite them: after a failed
	// fill they are empty slots at the tail of the LRU list.
	for _, s := range victims {
		if old := c.owner[s]; old >= 0 {
			c.slotOf[old] = -1
			c.owner[s] = -1
		}
	}
	if err := c.fill(buf, batch); err != nil {
		return fmt.Errorf("kernel rows %v…: %w", batch[0], err)
	}
	c.computed += n
	if direct {
		c.direct++
	}
	for r := n - 1; r >= 0; r-- {
		s := victims[n-1-r]
		if direct {
			s = lo + int32(r)
		} else {
			copy(c.row(s), buf[r*c.w:(r+1)*c.w])
		}
		c.owner[s] = int32(batch[r])
		c.slotOf[batch[r]] = s
		c.touch(s)
	}
	return nil
}

// fill32 adapts a KernelRows to the cache's fill function.
func fill32(src KernelRows) func(dst []float32, idx []int) error {
	l := src.Len()
	return func(dst []float32, idx []int) error {
		m := backend.Matrix{Rows: len(idx), Cols: l, Stride: l, Data: dst[:len(idx)*l]}
		return src.Rows(m, idx)
	}
}

// fill64 adapts a KernelRows64 to the cache's fill function.
func fill64(src KernelRows64) func(dst []float64, idx []int) error {
	return func(dst []float64, idx []int) error { return src.Rows64(dst, idx) }
}
