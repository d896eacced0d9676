package svm

import (
	"fmt"
	"runtime"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/hugemem"
)

// real is the element type of cached kernel rows.
type real interface{ ~float32 | ~float64 }

// rowCache is an LRU cache of kernel rows in fixed-size slots, keyed by
// kernel point (l keys); a row holds w values (w = l in one process; on a
// rank of a sharded solver, the row's part at the rank's own points). The slots live in chunks of consecutive slots, each allocated when
// a row is first stored in it, so that a problem whose rows fit a small part
// of the budget never allocates (and clears) the rest. A cache of at least
// arenaMin bytes takes its chunks from a hugemem.Arena (huge pages, outside
// the Go heap) where the platform has one; release gives it back. Rows are
// computed by fill, in batches.
type rowCache[T real] struct {
	l       int // keys
	w       int // values per row
	slots   int
	chunk   int            // slots per chunk
	chunks  [][]T          // chunk q holds slots [q·chunk, (q+1)·chunk); nil until used
	arena   *hugemem.Arena // where chunks come from; nil: the Go heap
	slotOf  []int32        // kernel index → slot, −1 when absent
	owner   []int32        // slot → kernel index, −1 when free
	prev    []int32        // LRU list over slots; head = most recently used
	next    []int32
	head    int32
	tail    int32
	fill    func(dst []T, idx []int) error // writes len(idx) rows of length w into dst
	tmp     []T
	idxBuf  []int
	victims []int32
	oldMark []uint32 // oldMark[s] == stamp: slot s is in the old window of this load
	stamp   uint32

	hits, misses, computed int
	direct                 int // loads computed straight into their slots
	moved                  int // rows moved to make a range of slots free
}

// chunkBytes is the size of the chunks the cache allocates its slots in.
const chunkBytes = 8 << 20

// arenaMin is the smallest budget in use (slots × row bytes) for which the
// cache maps a hugemem.Arena: below it the Go heap serves as well.
const arenaMin = 8 << 20

// newRowCache makes a cache of at most budget bytes (at least two rows).
func newRowCache[T real](l int, budget int64, elemSize int, fill func(dst []T, idx []int) error) *rowCache[T] {
	return newRowCacheChunked(l, budget, elemSize, max(chunkBytes/(l*elemSize), 16), arenaMin, fill)
}

// newRowCacheChunked is newRowCache with chunks of the given number of
// slots.
func newRowCacheChunked[T real](l int, budget int64, elemSize, chunk, arenaFrom int, fill func(dst []T, idx []int) error) *rowCache[T] {
	return newRowCacheWidth(l, l, budget, elemSize, chunk, arenaFrom, fill)
}

// newRowCacheWidth makes a cache of l keys whose rows hold w values, with
// as many slots as full rows of l values fit in budget (the slot count of a
// one-process cache of the same l and budget, so that every rank of a
// sharded solver makes the same choices as one process would).
func newRowCacheWidth[T real](l, w int, budget int64, elemSize, chunk, arenaFrom int, fill func(dst []T, idx []int) error) *rowCache[T] {
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
		oldMark: make([]uint32, slots),
	}
	for i := range c.slotOf {
		c.slotOf[i] = -1
	}
	// The free slots are taken from the least recently used end, slot 0
	// first: the rows of a cache that is never full fill its first chunks
	// in order, which are handed out of the arena in order, one partly
	// used chunk at the end. (Taken from the top slot down, the mushrooms
	// data's 1,416 rows of 24 KB, 34.5 MB, lay in five chunks with a partly
	// used one at each end, and the arena held 47.1 MB of huge pages; from
	// slot 0 up, 43.0 MB.)
	for s := range slots {
		c.owner[s] = -1
		c.prev[s] = int32(s + 1)
		c.next[s] = int32(s - 1)
	}
	c.prev[slots-1] = -1
	c.head, c.tail = int32(slots-1), 0
	if size := slots * w * elemSize; size >= arenaFrom {
		if c.arena = hugemem.New(size); c.arena != nil {
			// In case release is never called.
			runtime.AddCleanup(c, func(a *hugemem.Arena) { a.Free() }, c.arena)
		}
	}
	return c
}

// release gives the arena's memory back; the cache and every row it
// returned must not be used afterwards.
func (c *rowCache[T]) release() {
	c.arena.Free()
	c.arena = nil
	clear(c.chunks)
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
		n := min(c.chunk, c.slots-q*c.chunk) * c.w
		if c.chunks[q] = hugemem.Slice[T](c.arena, n); c.chunks[q] == nil {
			c.chunks[q] = make([]T, n)
		}
	}
	off := int(lo) % c.chunk * c.w
	return c.chunks[q][off : off+n*c.w]
}

// get returns row k, computing it (with the extra rows in prefetch, which
// must not already be cached) when absent. The returned slice stays valid
// until the next call that computes rows (see load).
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

// oldWindow is how many of the least recently used slots, per row of a
// batch, load may evict.
const oldWindow = 4

// load computes the rows in batch (none cached, len n ≤ slots − 1) and
// inserts them, the first index most recent. The rows are computed straight
// into n contiguous slots of one chunk: the range holding the most of the
// oldWindow·n least recently used slots (the old window), whose rows are
// evicted. The rows in the range outside the old window are first moved to
// the oldest slots of the window outside the range, evicting those; so n
// rows of the window are evicted, and rows are copied only as many as the
// range holds young ones (a batch brought in together and not used since
// leaves a whole range old; a batch whose requested row and a few
// prefetched ones were used, a few young rows). The two most recently used
// rows are never evicted (the window leaves them out) but may move: a row
// returned by get is valid until the next load. When no range fits in a
// chunk or the window, the rows are computed into a scratch buffer and
// copied into the n least recently used slots.
func (c *rowCache[T]) load(batch []int) error {
	if lo, ok := c.freeRange(len(batch)); ok {
		return c.loadInto(lo, batch)
	}
	return c.loadScattered(batch)
}

// freeRange makes the n slots from the returned one on free, within one
// chunk, as load describes, and reports whether it could.
func (c *rowCache[T]) freeRange(n int) (int32, bool) {
	w := min(oldWindow*n, c.slots-2)
	if n == 0 || w < n {
		return 0, false
	}
	c.stamp++
	if c.stamp == 0 { // wrapped: old marks could match
		clear(c.oldMark)
		c.stamp = 1
	}
	old := c.victims[:0]
	for s := c.tail; len(old) < w; s = c.prev[s] {
		old = append(old, s)
		c.oldMark[s] = c.stamp
	}
	c.victims = old
	best, bestLo := 0, int32(0)
	for _, s := range old {
		q := int(s) / c.chunk
		start, end := q*c.chunk, min((q+1)*c.chunk, c.slots)
		if end-start < n {
			continue
		}
		lo := min(int(s), end-n)
		count := 0
		for t := lo; t < lo+n; t++ {
			if c.oldMark[t] == c.stamp {
				count++
			}
		}
		if count > best {
			best, bestLo = count, int32(lo)
			if best == n {
				break
			}
		}
	}
	if best == 0 {
		return 0, false
	}
	lo, hi := bestLo, bestLo+int32(n)
	c.slotRange(lo, n) // allocate the chunk
	// Move the young rows of the range to the oldest window slots outside it.
	target := 0
	for y := lo; y < hi; y++ {
		if c.oldMark[y] == c.stamp {
			continue
		}
		for old[target] >= lo && old[target] < hi {
			target++
		}
		o := old[target]
		target++
		c.evict(o)
		if k := c.owner[y]; k >= 0 {
			copy(c.slotRange(o, 1), c.row(y))
			c.owner[o], c.slotOf[k], c.owner[y] = k, o, -1
			c.moved++
		}
		// o takes y's place in the LRU list; y goes to the tail.
		c.unlink(o)
		c.replace(y, o)
		c.prev[y], c.next[y] = c.tail, -1
		c.next[c.tail] = y
		c.tail = y
	}
	for s := lo; s < hi; s++ {
		c.evict(s)
	}
	return lo, true
}

// evict drops the row held in slot s, if any.
func (c *rowCache[T]) evict(s int32) {
	if k := c.owner[s]; k >= 0 {
		c.slotOf[k] = -1
		c.owner[s] = -1
	}
}

// unlink takes slot s out of the LRU list.
func (c *rowCache[T]) unlink(s int32) {
	p, n := c.prev[s], c.next[s]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
}

// replace puts slot s (not in the list) in old's place in the LRU list,
// leaving old out of it.
func (c *rowCache[T]) replace(old, s int32) {
	p, n := c.prev[old], c.next[old]
	c.prev[s], c.next[s] = p, n
	if p >= 0 {
		c.next[p] = s
	} else {
		c.head = s
	}
	if n >= 0 {
		c.prev[n] = s
	} else {
		c.tail = s
	}
}

// loadInto computes the rows in batch straight into the free slots from lo
// on and inserts them.
func (c *rowCache[T]) loadInto(lo int32, batch []int) error {
	n := len(batch)
	if err := c.fill(c.slotRange(lo, n), batch); err != nil {
		return fmt.Errorf("kernel rows %v…: %w", batch[0], err)
	}
	c.computed += n
	c.direct++
	for r := n - 1; r >= 0; r-- {
		s := lo + int32(r)
		c.owner[s] = int32(batch[r])
		c.slotOf[batch[r]] = s
		c.touch(s)
	}
	return nil
}

// loadScattered computes the rows in batch into a scratch buffer and copies
// them into the n least recently used slots.
func (c *rowCache[T]) loadScattered(batch []int) error {
	n := len(batch)
	victims := c.victims[:0]
	for s := c.tail; len(victims) < n; s = c.prev[s] {
		victims = append(victims, s)
	}
	c.victims = victims
	for _, s := range victims {
		c.slotRange(s, 1)
	}
	if cap(c.tmp) < n*c.w {
		c.tmp = make([]T, n*c.w)
	}
	buf := c.tmp[:n*c.w]
	// Free the victims before the fill: after a failed fill they are empty
	// slots at the tail of the LRU list.
	for _, s := range victims {
		c.evict(s)
	}
	if err := c.fill(buf, batch); err != nil {
		return fmt.Errorf("kernel rows %v…: %w", batch[0], err)
	}
	c.computed += n
	for r := n - 1; r >= 0; r-- {
		s := victims[n-1-r]
		copy(c.row(s), buf[r*c.w:(r+1)*c.w])
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
		m := pursuit.Matrix{Rows: len(idx), Cols: l, Stride: l, Data: dst[:len(idx)*l]}
		return src.Rows(m, idx)
	}
}

// fill64 adapts a KernelRows64 to the cache's fill function.
func fill64(src KernelRows64) func(dst []float64, idx []int) error {
	return func(dst []float64, idx []int) error { return src.Rows64(dst, idx) }
}
