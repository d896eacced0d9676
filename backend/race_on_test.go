//go:build race

package backend_test

// raceEnabled skips repetitions that add nothing under the race detector.
const raceEnabled = true
