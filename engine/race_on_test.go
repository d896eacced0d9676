//go:build race

package engine

// raceEnabled: the race detector slows the float64 reference loops and the
// pure-Go kernels tenfold; tests keep their parallel paths under it and
// leave the largest shapes to the plain run.
const raceEnabled = true
