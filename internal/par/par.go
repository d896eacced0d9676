// Package par holds small helpers the algorithm packages share: a loop
// split over goroutines and the hi/lo split of a float64 vector for
// float32 products.
package par

import (
	"runtime"
	"sync"
)

// For splits [0, n) into contiguous chunks run on up to threads goroutines
// (GOMAXPROCS when threads ≤ 0) and waits for them.
func For(n, threads int, body func(lo, hi int)) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if threads > n {
		threads = n
	}
	if threads <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + threads - 1) / threads
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(lo, hi)
	}
	wg.Wait()
}

// SplitHiLo writes v as the sum of two float32 vectors hi + lo, so that a
// float32 dictionary product with both recovers ⟨d, v⟩ to about float64
// accuracy (the error is that of d's own float32 values).
func SplitHiLo(v []float64, hi, lo []float32) {
	for i, x := range v {
		h := float32(x)
		hi[i] = h
		lo[i] = float32(x - float64(h))
	}
}
