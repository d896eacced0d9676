package main

import (
	"github.com/pursuit-ml/pursuit/learn"
)

// trainParams are the validated model flags with what a training run adds
// to them (learn.Run): the kernel for the data, the task, the progress
// report, the checkpointing and the row count across ranks.
type trainParams struct {
	*modelFlags
	run learn.Run
}

// skmpFitHelp is the help of --fit: what each fit costs per step.
const skmpFitHelp = "stochastic KMP: how the expansion is fitted (per step, for l training rows, s functions searched, d features, n basis functions so far): " +
	"backfit (back-fitting: choose the function most collinear with the residual, then refit all coefficients; O(l·s·d + l·n) time, basis 8·l·n bytes), " +
	"prefit (pre-fitting: choose the function that is best with all coefficients refitted; O(l·s·(d + 2n)) time, 16·l·n bytes) or " +
	"basic (matching pursuit: fit the newest coefficient only; O(l·s·d) time, no basis: its memory does not grow with the steps; it needs far more steps, and is near chance at 50 steps on 50k rows)"

// findAlgorithm returns the named algorithm (learn.FindAlgorithm).
func findAlgorithm(name string) (learn.Algorithm, error) { return learn.FindAlgorithm(name) }
