//go:build race

package asm

// raceEnabled: the race detector needs only the parallel paths (see
// testBackends).
const raceEnabled = true
