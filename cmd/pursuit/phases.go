package main

import (
	"runtime/debug"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/residency"
)

// Train runs in phases, so that its peak memory is the larger of training
// and testing, not their sum: the --test file is checked at the start, to
// refuse a bad one before any training, without its rows being kept;
// training holds the training rows only; then the training rows are given back (unless
// --bound, which reads them again), and the test file is read again,
// scaled and predicted. The model holds copies of its centres, not the
// training rows. Across ranks, and with --plot or --curve (whose learning
// curve takes the training and test sets together), both are held
// throughout as before. The steps are learn.TrainOutputs' (TestLater,
// KeepTrainRows, LoadTest and Finish); the hooks below are the command's.

// endPhase ends a phase whose data the caller has given back to the
// budget and dropped: the collector runs and the heap's free pages go back
// to the system (debug.FreeOSMemory), so that the next phase grows from
// what is live (rather than from the old and new data together, or from
// the free pages of the phase before), and the pages of the program that
// the phase read are given back (residency.ReleaseProgram; code is read in
// again as it is used).
func endPhase() {
	debug.FreeOSMemory()
	residency.ReleaseProgram()
}

// phaseHook, when not nil, is called as train's phases start: "loaded"
// with the training set read at the start (with testLater only), "train" as training starts and "test" as the test phase starts
// (after the training rows are given back; with testLater only). Tests set
// it.
var phaseHook func(phase string, sets ...*data.Dataset)

// atPhase calls phaseHook when it is set.
func atPhase(phase string, sets ...*data.Dataset) {
	if phaseHook != nil {
		phaseHook(phase, sets...)
	}
}
