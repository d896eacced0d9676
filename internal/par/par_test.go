package par

import (
	"math"
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	for _, c := range [][2]int{{0, 4}, {1, 4}, {7, 3}, {100, 0}, {5, 9}} {
		n, threads := c[0], c[1]
		seen := make([]atomic.Int32, n)
		For(n, threads, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if v := seen[i].Load(); v != 1 {
				t.Fatalf("n = %d, threads = %d: index %d visited %d times", n, threads, i, v)
			}
		}
	}
}

func TestSplitHiLo(t *testing.T) {
	v := []float64{1.0 / 3, math.Pi * 1e5, -2.5e-7, 0}
	hi, lo := make([]float32, len(v)), make([]float32, len(v))
	SplitHiLo(v, hi, lo)
	for i, x := range v {
		if got := float64(hi[i]) + float64(lo[i]); math.Abs(got-x) > 1e-14*math.Abs(x) {
			t.Errorf("%v split into %v + %v = %v", x, hi[i], lo[i], got)
		}
		if float64(hi[i]) != float64(float32(x)) {
			t.Errorf("hi part of %v is %v, want float32(x)", x, hi[i])
		}
	}
}

// TestChunksCoverOnce checks that every index is visited exactly once for
// any split, and that setup and done run once per goroutine that ran.
func TestChunksCoverOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 64, 1000} {
		for _, workers := range []int{0, 1, 2, 3, 16} {
			for _, chunk := range []int{0, 1, 5, 64} {
				seen := make([]atomic.Int32, n)
				var setups, dones atomic.Int32
				Chunks(n, chunk, workers, func() int { setups.Add(1); return 0 }, func(int) { dones.Add(1) },
					func(_ int, lo, hi int) {
						for i := lo; i < hi; i++ {
							seen[i].Add(1)
						}
					})
				for i := range seen {
					if c := seen[i].Load(); c != 1 {
						t.Fatalf("n=%d workers=%d chunk=%d: index %d visited %d times", n, workers, chunk, i, c)
					}
				}
				if setups.Load() != dones.Load() || (n > 0 && setups.Load() == 0) || int(setups.Load()) > max(workers, 1) {
					t.Fatalf("n=%d workers=%d: %d setups, %d dones", n, workers, setups.Load(), dones.Load())
				}
			}
		}
	}
}

func TestForPieces(t *testing.T) {
	for _, n := range []int{1, 5, 100} {
		for _, w := range []int{1, 2, 7} {
			var pieces atomic.Int32
			For(n, w, func(lo, hi int) { pieces.Add(1) })
			if p := int(pieces.Load()); p > w || p < 1 {
				t.Errorf("For(%d, %d): %d pieces, want 1 to %d", n, w, p, w)
			}
		}
	}
}

func TestChunkLen(t *testing.T) {
	if got := ChunkLen(1000, 2, 8, 16); got%16 != 0 || got < 16 || (1000+got-1)/got > 16 {
		t.Errorf("ChunkLen(1000, 2, 8, 16) = %d", got)
	}
	if got := ChunkLen(3, 4, 8, 8); got != 8 {
		t.Errorf("ChunkLen(3, 4, 8, 8) = %d, want 8 (the grain)", got)
	}
}
