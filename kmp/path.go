package kmp

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
)

// path records how an output's expansion grew, step by step, so that the
// model can be cut back to any step without retraining (Model.Truncate).
// It is kept in memory only, not saved.
type path struct {
	// Squared-loss back-fitting and pre-fitting: the basis in order and the
	// triangular factor and Qᵀy; the step-n coefficients are
	// Rf[:n,:n]⁻¹ c[:n] on atoms[:n].
	rcols [][]float64
	cs    []float64
	// Basic MP (any loss): the atom and coefficient increment of each step.
	// Non-squared back-fitting: the basis order (atoms) and the coefficients
	// after each step (snaps, as long as memory allows).
	atoms []int
	inc   []float64
	snaps [][]float64
}

// maxSnapFloats bounds the coefficient snapshots kept for truncating
// non-squared back-fitting (128 MiB).
const maxSnapFloats = 16 << 20

// at returns the expansion after step n (1 ≤ n ≤ steps run).
func (pa *path) at(variant Variant, loss Loss, n int) ([]int, []float64, error) {
	switch {
	case pa.rcols != nil || (loss == Squared && variant != Basic):
		if n > len(pa.cs) {
			return nil, nil, fmt.Errorf("step %d of %d", n, len(pa.cs))
		}
		c, err := triSolve(pa.rcols[:n], pa.cs[:n])
		return append([]int(nil), pa.atoms[:n]...), c, err
	case pa.inc != nil || variant == Basic:
		if n > len(pa.inc) {
			return nil, nil, fmt.Errorf("step %d of %d", n, len(pa.inc))
		}
		pos := map[int]int{}
		var atoms []int
		var coef []float64
		for i := range n {
			a := pa.atoms[i]
			if j, ok := pos[a]; ok {
				coef[j] += pa.inc[i]
				continue
			}
			pos[a] = len(atoms)
			atoms = append(atoms, a)
			coef = append(coef, pa.inc[i])
		}
		return atoms, coef, nil
	default:
		if n > len(pa.snaps) {
			return nil, nil, fmt.Errorf("step %d: only the first %d steps' coefficients were kept", n, len(pa.snaps))
		}
		c := pa.snaps[n-1]
		return append([]int(nil), pa.atoms[:len(c)]...), append([]float64(nil), c...), nil
	}
}

// origin is what Truncate needs besides the paths: the atoms on the
// paths (centred on rows of x) and copies of the (scaled) training points
// they are centred on (see newOrigin).
type origin struct {
	atoms map[int]atom
	x     pursuit.Matrix
	trIdx []int
	paths []*path // per output; nil entries when not recorded
}

// Truncate returns the model as if training had stopped after the given
// number of steps: one value for every output, or one per output (values
// beyond the steps run are capped). It works on a freshly trained model;
// a loaded model keeps no training path. The learning curves are kept and
// Output.Steps says the step used.
func (m *Model) Truncate(steps ...int) (*Model, error) {
	if m.origin == nil {
		return nil, errors.New("kmp: truncate: the model keeps no training path (only freshly trained models can be truncated)")
	}
	if len(steps) != 1 && len(steps) != len(m.Outputs) {
		return nil, fmt.Errorf("kmp: truncate: %d step counts for %d outputs", len(steps), len(m.Outputs))
	}
	results := make([]*result, len(m.Outputs))
	for o, out := range m.Outputs {
		n := steps[0]
		if len(steps) > 1 {
			n = steps[o]
		}
		if n < 0 {
			return nil, fmt.Errorf("kmp: truncate: negative step count %d", n)
		}
		n = min(n, len(out.Curve))
		r := &result{curve: out.Curve, kept: n, stop: out.Stop, path: m.origin.paths[o]}
		if n > 0 {
			pa := m.origin.paths[o]
			if pa == nil {
				return nil, fmt.Errorf("kmp: truncate: output %d has no recorded path", o)
			}
			var err error
			if r.atoms, r.coef, err = pa.at(m.Variant, m.Loss, n); err != nil {
				return nil, fmt.Errorf("kmp: truncate: output %d: %w", o, err)
			}
		}
		results[o] = r
	}
	cfg := &Config{Task: m.Task, Loss: m.Loss, Variant: m.Variant, Kernels: m.Kernels, Custom: m.Custom}
	t := assemble(cfg, func(k int) atom { return m.origin.atoms[k] }, m.origin.x, m.origin.trIdx, m.Scaler, m.Classes, results, false)
	t.origin = m.origin
	return t, nil
}
