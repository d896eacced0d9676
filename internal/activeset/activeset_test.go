package activeset

import (
	"slices"
	"testing"
)

// TestSamplerRemove: removed items are never drawn again, the others are
// (every available item over enough draws), each draw is distinct and
// sorted, removing twice or an unavailable item changes nothing, and a
// restored sampler draws what the original does.
func TestSamplerRemove(t *testing.T) {
	const m = 50
	sp := New(m, 7, 1)
	removed := map[int]bool{}
	for _, k := range []int{0, 13, 49, 13, 27} {
		sp.Remove(k)
		removed[k] = true
	}
	if sp.Avail() != m-4 {
		t.Fatalf("%d available after removing 4 distinct items, want %d", sp.Avail(), m-4)
	}
	seen := map[int]bool{}
	for range 200 {
		got := sp.Next(6)
		if len(got) != 6 || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != 6 {
			t.Fatalf("draw %v: want 6 distinct items in increasing order", got)
		}
		for _, k := range got {
			if removed[k] {
				t.Fatalf("removed item %d drawn", k)
			}
			seen[k] = true
		}
	}
	if len(seen) != m-4 {
		t.Errorf("%d distinct items drawn over 200 draws, want all %d available", len(seen), m-4)
	}
	rng, perm, avail := sp.State()
	again := New(m, 0, 0)
	if err := again.Restore(rng, perm, avail); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		sp.Remove(sp.Next(3)[1])
		again.Remove(again.Next(3)[1])
		if a, b := sp.Next(5), again.Next(5); !slices.Equal(a, b) {
			t.Fatalf("restored sampler draws %v, the original %v", b, a)
		}
	}
	if all := sp.Next(m); len(all) != sp.Avail() || sp.Avail() != m-4-20 {
		t.Errorf("asking for every item gave %d of %d available, want %d", len(all), sp.Avail(), m-24)
	}
}
