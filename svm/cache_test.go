package svm

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
)

// TestRowCacheRandomAccess drives the cache (9 slots in chunks of 4, 4
// and 1, allocated on first use, from the Go heap and from a hugemem.Arena) with
// random gets and batch loads, checking every returned row against the fill
// function, the LRU bookkeeping after each step, that a load never evicts
// the two most recent rows, and that both load paths (straight into a range
// of slots, moving young rows out of it, and through the scratch buffer)
// ran. A failing fill leaves no row cached whose slot it may have
// overwritten.
func TestRowCacheRandomAccess(t *testing.T) {
	t.Run("heap", func(t *testing.T) { testRowCacheRandomAccess(t, false) })
	t.Run("arena", func(t *testing.T) { testRowCacheRandomAccess(t, true) })
}

func testRowCacheRandomAccess(t *testing.T, arena bool) {
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
	arenaFrom := math.MaxInt
	if arena {
		arenaFrom = 0
	}
	c := newRowCacheChunked(l, 9*l*4, 4, 4, arenaFrom, fill)
	defer c.release()
	if c.slots != 9 {
		t.Fatalf("%d slots, want 9", c.slots)
	}
	if (c.arena != nil) != (arena && runtime.GOOS == "linux") {
		t.Fatalf("arena %v for a cache asked for one: %v (on %s)", c.arena != nil, arena, runtime.GOOS)
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
		recent := [2]int32{c.owner[c.head], c.owner[c.next[c.head]]}
		row, err := c.get(k, pre)
		for _, r := range recent {
			if r >= 0 && !c.has(int(r)) {
				t.Fatalf("step %d: a load evicted row %d, one of the two most recent", step, r)
			}
		}
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
	if c.arena != nil {
		// Every chunk lies in the arena's mapping.
		for q, ch := range c.chunks {
			if !c.arena.Holds(unsafe.Pointer(unsafe.SliceData(ch)), len(ch)*4) {
				t.Errorf("chunk %d is not in the arena", q)
			}
		}
	}
	if c.direct == 0 || c.direct == c.misses || c.moved == 0 {
		t.Errorf("%d of %d loads went straight into their slots, moving %d rows: both paths, and moves, should have run", c.direct, c.misses, c.moved)
	}
}

// TestRowCacheFillsInOrder checks that a cache that never fills up keeps
// its rows in its first slots and allocates only the chunks they need, in
// order (so an arena's pages in use are contiguous): rows loaded one at a
// time and in batches of 3 into 40 slots in chunks of 8.
func TestRowCacheFillsInOrder(t *testing.T) {
	const l = 100
	fill := func(dst []float32, idx []int) error {
		for r, k := range idx {
			for j := range l {
				dst[r*l+j] = float32(k*l + j)
			}
		}
		return nil
	}
	c := newRowCacheChunked(l, 40*l*4, 4, 8, math.MaxInt, fill)
	defer c.release()
	next := 0
	for range 3 { // single rows
		if _, err := c.get(next, nil); err != nil {
			t.Fatal(err)
		}
		next++
	}
	for range 4 { // batches of 3
		if _, err := c.get(next, []int{next + 1, next + 2}); err != nil {
			t.Fatal(err)
		}
		next += 3
	}
	for k := range next {
		row, err := c.get(k, nil)
		if err != nil {
			t.Fatal(err)
		}
		if row[7] != float32(k*l+7) {
			t.Fatalf("row %d holds %v at 7", k, row[7])
		}
	}
	// 15 rows in batches of up to 3: a prefix of the chunks, at most 3 (a
	// batch that does not fit in the rest of a chunk starts the next one).
	used := 0
	for q, ch := range c.chunks {
		if ch == nil {
			continue
		}
		if q != used {
			t.Fatalf("chunks allocated %v: not the first ones in order", allocatedChunks(c))
		}
		used++
	}
	if used > 3 {
		t.Errorf("%d rows took %d chunks of 8 slots, want at most 3", next, used)
	}
	for s, k := range c.owner {
		if k >= 0 && s >= used*8 {
			t.Errorf("row %d in slot %d, beyond the chunks allocated", k, s)
		}
	}
}

// allocatedChunks lists the chunks of c that are allocated.
func allocatedChunks[T real](c *rowCache[T]) []int {
	var q []int
	for i, ch := range c.chunks {
		if ch != nil {
			q = append(q, i)
		}
	}
	return q
}
