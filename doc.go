// Package pursuit is the vocabulary every other package of Pursuit shares:
// the dense row-major Matrix (a float32 view), the Kernel specification
// with its float64 reference Eval, and the error sentinels ErrConfig,
// ErrBadInput and ErrShape that every package wraps.
//
// It is a leaf: it imports nothing else of Pursuit, so that learners (kmp,
// svm, slmc, greedy, bpdn), the engine and the backends can all name the
// same operand and model types without the learners importing the CPU
// driver. The learners reach the backends only through package engine.
package pursuit
