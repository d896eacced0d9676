//go:build race

package kmp

// raceEnabled: the race detector makes sync.Pool drop pooled buffers at
// random, so allocation counts are not meaningful under it.
const raceEnabled = true
