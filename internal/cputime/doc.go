// Package cputime reads the CPU time the process has used, the steadier
// measure of a run than wall time on a machine shared with other jobs. The
// benchmarks of several packages (backendtest, svm, slmc) time with it.
package cputime
