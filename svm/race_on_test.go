//go:build race

package svm

// raceEnabled: under the race detector tests keep one engine where they
// compare several (the pure-Go kernels are leaf loops run by the same
// driver as the assembly ones, and instrumented tenfold slower).
const raceEnabled = true
