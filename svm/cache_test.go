package svm

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestRowCacheRandomAccess drives the cache (9 slots in chunks of 4, 4
// and 1, allocated on first use) with random gets and batch loads, checking
// every returned row against the fill function, the LRU bookkeeping after
// each step, and that both load paths (straight into the slots and through
// the scratch buffer) ran. A failing fill leaves no row
// cached whose slot it may have overwritten.
func TestRowCacheRandomAccess(t *testing.T) {
	const l = 40
	want := func(k, j int) float32 { return float32(k*1000 + j) }
	fail := false
	fill := func(dst []float32, idx []int) error {
		for r, k := range idx {
			for j := range l {
				dst[r*l+j] = want(k, j)
			}
		}
		if fail {
			return errors.New("fill failed")
		}
		return nil
	}
	c := newRowCacheChunked(l, 9*l*4, 4, 4, fill)
	if c.slots != 9 {
		t.Fatalf("%d slots, want 9", c.slots)
	}
	if _, err := c.get(5, nil); err != nil {
		t.Fatal(err)
	}
	allocated := 0
	for _, ch := range c.chunks {
		if ch != nil {
			allocated++
		}
	}
	if len(c.chunks) != 3 || allocated != 1 {
		t.Fatalf("after one row: %d of %d chunks allocated, want 1 of 3", allocated, len(c.chunks))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(step int) {
		t.Helper()
		n := 0
		for s := c.head; s >= 0; s = c.next[s] {
			n++
			if k := c.owner[s]; k >= 0 {
				if c.slotOf[k] != s {
					t.Fatalf("step %d: slot %d owned by %d, which maps to slot %d", step, s, k, c.slotOf[k])
				}
				for j, v := range c.row(s) {
					if v != want(int(k), j) {
						t.Fatalf("step %d: cached row %d[%d] = %v, want %v", step, k, j, v, want(int(k), j))
					}
				}
			}
		}
		if n != c.slots {
			t.Fatalf("step %d: LRU list holds %d of %d slots", step, n, c.slots)
		}
	}
	for step := range 2000 {
		k := rng.IntN(l)
		var pre []int
		for range rng.IntN(5) {
			if p := rng.IntN(l); !c.has(p) && !containsInt(pre, p) {
				pre = append(pre, p)
			}
		}
		fail = step%97 == 50 && !c.has(k)
		row, err := c.get(k, pre)
		if fail {
			if err == nil {
				t.Fatalf("step %d: failing fill gave no error", step)
			}
			check(step)
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		for j, v := range row {
			if v != want(k, j) {
				t.Fatalf("step %d: row %d[%d] = %v, want %v", step, k, j, v, want(k, j))
			}
		}
		if c.head != c.slotOf[k] {
			t.Fatalf("step %d: row %d is not the most recent", step, k)
		}
		check(step)
	}
	if c.direct == 0 || c.direct == c.misses {
		t.Errorf("%d of %d loads went straight into the slab: both paths should have run", c.direct, c.misses)
	}
}
