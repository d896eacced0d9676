package kmp

import (
	"fmt"
	"math"
)

// KernelFunctions returns, for each step of curve, the number of distinct
// kernel functions in the expansion after it: the basis size less the bias
// (an atom with no support point), once a step has chosen it.
func KernelFunctions(curve []Step) []int {
	out := make([]int, len(curve))
	bias := 0
	for i, s := range curve {
		if s.Support < 0 && s.Kernel != CustomKernelIndex {
			bias = 1 // the constant function was chosen by this step
		}
		out[i] = s.Basis - bias
	}
	return out
}

// StepsWithin is the number of leading steps of curve that use at most n
// kernel functions and run at most n+1 steps (n functions and the bias's
// step): what training for n kernel functions with a bias
// (Config.N = n+1) keeps.
func StepsWithin(curve []Step, n int) int {
	fns := KernelFunctions(curve)
	s := 0
	for s < len(fns) && s <= n && fns[s] <= n {
		s++
	}
	return s
}

// CapKernelFunctions cuts a freshly trained model back to at most n kernel
// functions per output (the bias not counted). It returns the model (m
// itself when nothing had to change) and, per output, the number of steps
// within the limit (StepsWithin). When early stopping kept a step past the
// limit, the best step within it is kept instead, by the early-stopping
// rule: the lowest validation error, the earliest on ties (for regression,
// ties go to the lower validation loss); without validation, the last step
// within the limit.
func (m *Model) CapKernelFunctions(n int) (*Model, []int, error) {
	steps := make([]int, len(m.Outputs))
	keep := make([]int, len(m.Outputs))
	cut := false
	for o, out := range m.Outputs {
		s := StepsWithin(out.Curve, n)
		steps[o], keep[o] = s, out.Steps
		if out.Steps <= s {
			continue
		}
		cut = true
		if math.IsNaN(out.Curve[0].ValErr) { // no validation: the last step
			keep[o] = s
			continue
		}
		best := 0
		for i := range s {
			c := out.Curve[i]
			if best == 0 {
				best = i + 1
				continue
			}
			b := out.Curve[best-1]
			if c.ValErr < b.ValErr || (m.Task == Regression && c.ValErr == b.ValErr && c.ValLoss < b.ValLoss) {
				best = i + 1
			}
		}
		keep[o] = best
	}
	if !cut {
		return m, steps, nil
	}
	t, err := m.Truncate(keep...)
	if err != nil {
		return nil, nil, fmt.Errorf("kmp: keeping %d kernel functions: %w", n, err)
	}
	return t, steps, nil
}
