// Package par holds the one helper the algorithm packages share for
// splitting a loop over goroutines.
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
