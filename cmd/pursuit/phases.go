package main

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/residency"
	"github.com/pursuit-ml/pursuit/learn"
)

// Train runs in phases, so that its peak memory is the larger of training
// and testing, not their sum: the --test file is read at the start, to
// refuse a bad one before any training, and given back; training holds
// the training rows only; then the training rows are given back (unless
// --bound, which reads them again), and the test file is read again,
// scaled and predicted. The model holds copies of its centres, not the
// training rows. Across ranks, and with --plot or --curve (whose learning
// curve takes the training and test sets together), both are held
// throughout as before.

// testLater reports whether train predicts its --test file after the
// training rows are given back.
func (o *trainOptions) testLater(ranks int) bool {
	return o.test != "" && ranks == 1 && o.plotDir == "" && !o.curve
}

// keepTrainRows reports whether train uses the training rows once the
// model and its training error are known (--bound, --plot and --curve).
func (o *trainOptions) keepTrainRows() bool {
	return o.On || o.plotDir != "" || o.curve
}

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
// with the training and test sets read at the start (with testLater
// only), "train" as training starts and "test" as the test phase starts
// (after the training rows are given back; with testLater only). Tests set
// it.
var phaseHook func(phase string, sets ...*data.Dataset)

// atPhase calls phaseHook when it is set.
func atPhase(phase string, sets ...*data.Dataset) {
	if phaseHook != nil {
		phaseHook(phase, sets...)
	}
}

// loadTestLater reads the --test file after training, with the training
// data's dim features (charged to e's budget), and scales it as the
// training data were (scaler nil: not scaled).
func (o *trainOptions) loadTestLater(e *engine.Engine, dim int, scaler *data.Scaler) (*data.Dataset, error) {
	atPhase("test")
	test, err := loadWithin(e, o.test, o.loadOptions(dim))
	if err != nil {
		if !errors.Is(err, engine.ErrBudget) {
			err = fmt.Errorf("%w (the test data must have the training data's %d features)", err, dim)
		}
		return nil, err
	}
	if scaler != nil {
		if err := learn.ScaleInPlace(scaler, test); err != nil {
			e.Release(test.Bytes())
			return nil, err
		}
	}
	return test, nil
}
