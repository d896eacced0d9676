package svm

import (
	"cmp"
	"slices"
)

// rowPool holds the batched solver's kernel rows across outer iterations:
// up to slots rows of w values, keyed by kernel point, the least recently
// wanted evicted first. A variable that leaves the working set often comes
// back a few outer iterations later; keeping its row saves computing it
// again. Slots are allocated in chunks when first used, so a problem whose
// working sets revisit few points does not allocate the whole budget.
type rowPool[T real] struct {
	w      int
	slots  int
	chunks [][]T // poolChunk slots each, allocated when first used
	slotOf []int // key → slot, −1 when absent
	keyOf  []int // slot → key
	last   []int // slot → the stamp of the last plan that wanted it
	stamp  int

	miss    []int
	order   []int // the slots of the last take
	scratch []T
}

// poolChunk is the number of slots the pool allocates together.
const poolChunk = 256

// newRowPool makes a pool of keys kernel points with rows of w values and
// room for slots rows.
func newRowPool[T real](keys, w, slots int) *rowPool[T] {
	p := &rowPool[T]{w: w, slots: slots, slotOf: make([]int, keys)}
	for k := range p.slotOf {
		p.slotOf[k] = -1
	}
	return p
}

// plan marks the rows of keys as wanted now (they are not evicted by the
// next take) and returns the keys whose rows are absent, each once, in
// the order of keys. The slice is valid until the next plan.
func (p *rowPool[T]) plan(keys []int) []int {
	p.stamp++
	miss := p.miss[:0]
	for _, k := range keys {
		switch s := p.slotOf[k]; {
		case s >= 0:
			p.last[s] = p.stamp
		case s == -1:
			p.slotOf[k] = -2 // listed (ε-SVR: two variables share a point)
			miss = append(miss, k)
		}
	}
	for _, k := range miss {
		p.slotOf[k] = -1
	}
	p.miss = miss
	return miss
}

// take returns n slots for the keys of the last plan's misses, sorted:
// free slots first, then the slots of the rows least recently wanted
// (evicted). There must be room: at most slots rows are wanted at once.
// Rows that age together were placed together, so the slots returned are
// mostly consecutive and the rows can be computed straight into them
// (runs).
func (p *rowPool[T]) take(n int) []int {
	used := p.order[:0]
	for len(p.keyOf) < p.slots && len(used) < n {
		s := len(p.keyOf)
		p.keyOf = append(p.keyOf, -1)
		p.last = append(p.last, 0)
		used = append(used, s)
	}
	if need := n - len(used); need > 0 {
		var old []int
		for s, k := range p.keyOf {
			if k >= 0 && p.last[s] != p.stamp {
				old = append(old, s)
			}
		}
		// Oldest first; among rows wanted at the same stamp, the lower slot.
		slices.SortFunc(old, func(a, b int) int {
			if c := cmp.Compare(p.last[a], p.last[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		for _, s := range old[:need] {
			p.slotOf[p.keyOf[s]] = -1
			p.keyOf[s] = -1
			used = append(used, s)
		}
	}
	slices.Sort(used)
	p.order = used
	return used
}

// storage returns the storage of n consecutive slots from s on, allocating
// the chunks they lie in when first used.
func (p *rowPool[T]) storage(s, n int) []T {
	for c := s / poolChunk; c <= (s+n-1)/poolChunk; c++ {
		for len(p.chunks) <= c {
			p.chunks = append(p.chunks, nil)
		}
		if p.chunks[c] == nil {
			p.chunks[c] = make([]T, poolChunk*p.w)
		}
	}
	if s/poolChunk != (s+n-1)/poolChunk {
		return nil // a run across chunks
	}
	c, o := s/poolChunk, s%poolChunk
	return p.chunks[c][o*p.w : (o+n)*p.w]
}

// commit records that slots[t] now holds the row of miss[t].
func (p *rowPool[T]) commit(miss, slots []int) {
	for t, k := range miss {
		s := slots[t]
		p.keyOf[s], p.slotOf[k], p.last[s] = k, s, p.stamp
	}
}

// minRun is the shortest run of consecutive slots whose rows fillRuns
// computes in place; shorter runs are computed together into scratch and
// copied (a kernel block of a few rows wastes most of a GEMM tile).
const minRun = 48

// fillRuns computes the rows of miss (the last plan's misses) into the
// slots take returns (fill computes the rows of keys into dst, one after
// another): runs of at least minRun consecutive slots within a chunk in
// place, the other rows in one block into scratch, copied. It commits the
// rows and returns the slots.
func (p *rowPool[T]) fillRuns(miss []int, fill func(dst []T, keys []int) error) ([]int, error) {
	slots := p.take(len(miss))
	var rest []int // positions in miss computed into scratch
	err := func() error {
		for t0 := 0; t0 < len(slots); {
			t1 := t0 + 1
			for t1 < len(slots) && slots[t1] == slots[t1-1]+1 {
				t1++
			}
			n := t1 - t0
			if dst := p.storage(slots[t0], n); dst != nil && n >= minRun {
				if err := fill(dst, miss[t0:t1]); err != nil {
					return err
				}
			} else {
				for t := t0; t < t1; t++ {
					rest = append(rest, t)
				}
			}
			t0 = t1
		}
		if len(rest) == 0 {
			return nil
		}
		keys := make([]int, len(rest))
		for i, t := range rest {
			keys[i] = miss[t]
		}
		buf := p.buffer(len(rest))
		if err := fill(buf, keys); err != nil {
			return err
		}
		for i, t := range rest {
			copy(p.slotRow(slots[t]), buf[i*p.w:(i+1)*p.w])
		}
		return nil
	}()
	if err != nil {
		for _, s := range slots {
			p.keyOf[s] = -1
		}
		return nil, err
	}
	p.commit(miss, slots)
	return slots, nil
}

// slotRow returns the storage of slot s (its chunk allocated).
func (p *rowPool[T]) slotRow(s int) []T {
	o := s % poolChunk
	return p.chunks[s/poolChunk][o*p.w : (o+1)*p.w : (o+1)*p.w]
}

// buffer returns scratch room for n rows.
func (p *rowPool[T]) buffer(n int) []T {
	if cap(p.scratch) < n*p.w {
		p.scratch = make([]T, n*p.w)
	}
	return p.scratch[:n*p.w]
}

// row returns the held row of key k.
func (p *rowPool[T]) row(k int) []T { return p.slotRow(p.slotOf[k]) }

// topCands reorders cs so that cs[:k] holds its k best candidates in the
// order of byValueThenVar (value descending, then variable ascending) and
// returns cs[:k] (all of cs, sorted, when k ≥ len(cs)). The order is total
// (variables differ), so the result does not depend on how cs was
// arranged. It partitions around medians of three until the k best are
// in front (expected linear time) and sorts only those.
func topCands(cs []cand, k int) []cand {
	if k >= len(cs) {
		slices.SortFunc(cs, byValueThenVar)
		return cs
	}
	lo, hi := 0, len(cs) // the k-th best lies in cs[lo:hi]
	for hi-lo > 16 {
		a, b, c := lo, lo+(hi-lo)/2, hi-1
		if byValueThenVar(cs[b], cs[a]) < 0 {
			a, b = b, a
		}
		if byValueThenVar(cs[c], cs[b]) < 0 {
			b = c
			if byValueThenVar(cs[b], cs[a]) < 0 {
				b = a
			}
		}
		pivot := cs[b]
		// Three-way split: better than the pivot, then the pivot, then worse.
		i := lo
		for j := lo; j < hi; j++ {
			if byValueThenVar(cs[j], pivot) < 0 {
				cs[i], cs[j] = cs[j], cs[i]
				i++
			}
		}
		// cs[lo:i] are better than the pivot; put the pivot at i.
		for j := i; j < hi; j++ {
			if cs[j].a == pivot.a {
				cs[i], cs[j] = cs[j], cs[i]
				break
			}
		}
		switch {
		case k <= i:
			hi = i
		case k == i+1:
			lo, hi = k, k
		default:
			lo = i + 1
		}
	}
	if hi > lo {
		slices.SortFunc(cs[lo:hi], byValueThenVar)
	}
	slices.SortFunc(cs[:k], byValueThenVar)
	return cs[:k]
}
