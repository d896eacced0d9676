package svm

import (
	"cmp"
	"slices"
)

// rowPool holds the batched solver's kernel rows across outer iterations:
// up to slots rows of w values, keyed by kernel point, the least recently
// wanted evicted first. A variable that leaves the working set often comes
// back a few outer iterations later; keeping its row saves computing it
// again. Slots are allocated when first used, so a problem whose working
// sets revisit few points does not allocate the whole budget.
type rowPool[T real] struct {
	w      int
	slots  int
	rows   [][]T // per slot
	slotOf []int // key → slot, −1 when absent
	keyOf  []int // slot → key
	last   []int // slot → the stamp of the last plan that wanted it
	stamp  int

	miss    []int
	order   []int // scratch of place: slots by age
	scratch []T
}

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
// next place) and returns the keys whose rows are absent, each once, in
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

// place stores the rows of the keys miss (as plan returned them), rows
// holding them one after another, into free slots or the slots of the
// rows least recently wanted, and returns the slots it used (valid until
// the next place). There must be room: at most slots rows are wanted at
// once.
func (p *rowPool[T]) place(miss []int, rows []T) []int {
	used := p.order[:0]
	for len(p.keyOf) < p.slots && len(used) < len(miss) {
		s := len(p.keyOf)
		p.keyOf = append(p.keyOf, -1)
		p.last = append(p.last, 0)
		p.rows = append(p.rows, make([]T, p.w))
		used = append(used, s)
	}
	if need := len(miss) - len(used); need > 0 {
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
			used = append(used, s)
		}
	}
	for t, k := range miss {
		s := used[t]
		copy(p.rows[s], rows[t*p.w:(t+1)*p.w])
		p.keyOf[s], p.slotOf[k], p.last[s] = k, s, p.stamp
	}
	p.order = used
	return used
}

// buffer returns scratch room for n rows.
func (p *rowPool[T]) buffer(n int) []T {
	if cap(p.scratch) < n*p.w {
		p.scratch = make([]T, n*p.w)
	}
	return p.scratch[:n*p.w]
}

// row returns the held row of key k.
func (p *rowPool[T]) row(k int) []T { return p.rows[p.slotOf[k]] }
