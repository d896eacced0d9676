//go:build race

package backendtest

// raceEnabled skips repetitions that add nothing under the race detector.
const raceEnabled = true
