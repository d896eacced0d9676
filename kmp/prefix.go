package kmp

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// CanTruncate reports whether the model keeps its training path, so that
// Truncate, PrefixDecisions and PrefixSizes work: a freshly trained model
// (or a truncation of one), not a loaded one.
func (m *Model) CanTruncate() bool { return m.origin != nil }

// PrefixSizes returns the number of support vectors of the model as if
// training had stopped after n steps, for each n of steps (see Truncate).
func (m *Model) PrefixSizes(steps []int) ([]int, error) {
	out := make([]int, len(steps))
	for i, n := range steps {
		t, err := m.Truncate(n)
		if err != nil {
			return nil, err
		}
		out[i] = t.Size().SupportVectors
	}
	return out, nil
}

// PrefixDecisions returns every output's decision values at the rows of x
// as if training had stopped after n steps, for each n of steps:
// out[i][o][r] is Truncate(steps[i]).DecisionAll(x)[o][r]. It gives a
// learning curve in one pass: the kernel between x and the support vectors
// of all the truncations (with early stopping, steps past the kept one use
// vectors the model dropped) is computed once, block by block, and each
// truncation only combines its columns. Only a model that CanTruncate can.
func (m *Model) PrefixDecisions(e *engine.Engine, x pursuit.Matrix, steps []int) ([][][]float64, error) {
	if !m.CanTruncate() {
		return nil, errors.New("kmp: prefix decisions: the model keeps no training path (only freshly trained models have one)")
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("kmp: prefix decisions: %w", err)
	}
	if x.Cols != m.Support.Cols {
		return nil, fmt.Errorf("kmp: prefix decisions: data has %d features, the model %d", x.Cols, m.Support.Cols)
	}
	ts := make([]*Model, len(steps))
	for i, n := range steps {
		t, err := m.Truncate(n)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	out := make([][][]float64, len(steps))
	if m.Custom != nil {
		// A user's kernel function is evaluated point by point anyway.
		for i, t := range ts {
			d, err := t.DecisionAll(e, x)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	}
	// The union of the truncations' support vectors, grouped by kernel:
	// col[t][j] is the union column of truncation t's support vector j.
	type key struct{ row, kernel int }
	pos := map[key]int{}
	var kernelOf []int
	var union []pursuit.Matrix // one row each
	cols := make([][]int, len(ts))
	for i, t := range ts {
		cols[i] = make([]int, len(t.SupportIndex))
		for j, r := range t.SupportIndex {
			k := key{r, t.SupportKernel[j]}
			c, ok := pos[k]
			if !ok {
				c = len(kernelOf)
				pos[k] = c
				kernelOf = append(kernelOf, k.kernel)
				union = append(union, pursuit.RowsOf(t.Support, []int{j}))
			}
			cols[i][j] = c
		}
	}
	sv := stackRows(union, x.Cols, m.Support.IsSparse()) // sparse support vectors stay sparse
	xs, err := m.scaled(x)
	if err != nil {
		return nil, fmt.Errorf("kmp: prefix decisions: %w", err)
	}
	for i, t := range ts {
		out[i] = make([][]float64, len(t.Outputs))
		for o, op := range t.Outputs {
			d := make([]float64, x.Rows)
			for r := range d {
				d[r] = op.Bias
			}
			out[i][o] = d
		}
	}
	// One kernel block per kernel and block of rows: the block holds every
	// union column (those of other kernels are left at 0 and unused).
	groups := map[int][]int{}
	var order []int
	for c, k := range kernelOf {
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	for _, k := range order {
		idx := groups[k]
		g := pursuit.RowsOf(sv, idx)
		at := make([]int, sv.Rows) // union column → column of g, -1 if another kernel
		for c := range at {
			at[c] = -1
		}
		for r, c := range idx {
			at[c] = r
		}
		buf := make([]float32, min(predictBlock, x.Rows)*len(idx))
		for r0 := 0; r0 < x.Rows; r0 += predictBlock {
			r1 := min(r0+predictBlock, x.Rows)
			kb := pursuit.Matrix{Rows: r1 - r0, Cols: len(idx), Stride: len(idx), Data: buf[:(r1-r0)*len(idx)]}
			if err := e.KernelBlock(kb, m.Kernels[k], xs.Slice(r0, r1, 0, xs.Cols), nil, g, nil); err != nil {
				return nil, fmt.Errorf("kmp: prefix decisions: kernel block: %w", err)
			}
			for i, t := range ts {
				for o, op := range t.Outputs {
					dst := out[i][o][r0:r1]
					for j, c := range op.Coef {
						gc := at[cols[i][j]]
						if c == 0 || gc < 0 {
							continue
						}
						for r := range dst {
							dst[r] += c * float64(kb.Data[r*kb.Stride+gc])
						}
					}
				}
			}
		}
	}
	return out, nil
}
