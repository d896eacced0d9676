package kmp

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Model is a trained kernel matching pursuit machine: one or more outputs
// f_o(x) = b_o + Σ_s Coef_o[s] K_s(x, Support_s), sharing one set of support
// vectors (for one-vs-rest, the union over the classes).
type Model struct {
	Task    Task
	Loss    Loss
	Variant Variant
	// Classes: for a binary model {negative, positive} (f > 0 means
	// positive); for one-vs-rest the class of each output; nil for
	// regression.
	Classes []float64
	// Kernels are the built-in kernels of the dictionary; Custom the
	// user-supplied one, if any (SupportKernel == CustomKernelIndex).
	Kernels []pursuit.Kernel
	Custom  *CustomKernel
	// Scaler is the feature scaling fitted on the training data (nil: none);
	// Decision applies it to new data. Support is in the scaled space.
	Scaler *data.Scaler
	// Support holds the support vectors (S×d, scaled), SupportIndex their
	// rows in the training data given to Train, SupportKernel which kernel
	// each uses (an index into Kernels, or CustomKernelIndex).
	Support       pursuit.Matrix
	SupportIndex  []int
	SupportKernel []int
	Outputs       []Output

	origin *origin // training path for Truncate (freshly trained models only)
}

// Output is one decision function of a model.
type Output struct {
	Coef  []float64 // one per support vector (0 where unused by this output)
	Bias  float64
	Steps int    // training steps kept (the early-stopping choice)
	Curve []Step // the whole learning curve, including steps after Steps
	// Stop says why training ended before its step limit ("" if it ran
	// them all): for instance StopExhausted when every dictionary function
	// left is dependent on the expansion.
	Stop StopReason
}

// Size describes how big a model is.
type Size struct {
	SupportVectors int   // distinct support vectors (a centre used with two kernels counts twice)
	PerOutput      []int // support vectors with a non-zero coefficient, per output
	Features       int
	Bytes          int64 // memory of the support vectors (their storage, dense or sparse) and coefficients
}

// Size reports the model's size.
func (m *Model) Size() Size {
	s := Size{SupportVectors: m.Support.Rows, Features: m.Support.Cols}
	for _, o := range m.Outputs {
		n := 0
		for _, c := range o.Coef {
			if c != 0 {
				n++
			}
		}
		s.PerOutput = append(s.PerOutput, n)
	}
	s.Bytes = m.Support.Bytes() + int64(len(m.Outputs))*int64(m.Support.Rows+1)*8 + int64(m.Support.Rows)*16
	return s
}

// Check reports whether the model is internally consistent.
func (m *Model) Check() error {
	if err := m.Support.Validate(); err != nil {
		return fmt.Errorf("kmp model: support vectors: %w", err)
	}
	S := m.Support.Rows
	if len(m.SupportIndex) != S || len(m.SupportKernel) != S {
		return fmt.Errorf("kmp model: %d support vectors but %d indices and %d kernel ids", S, len(m.SupportIndex), len(m.SupportKernel))
	}
	for i, k := range m.SupportKernel {
		switch {
		case k == CustomKernelIndex:
			if m.Custom == nil {
				return fmt.Errorf("kmp model: support vector %d uses the custom kernel but the model has none", i)
			}
		case k < 0 || k >= len(m.Kernels):
			return fmt.Errorf("kmp model: support vector %d uses kernel %d of %d", i, k, len(m.Kernels))
		}
	}
	for i, k := range m.Kernels {
		if err := k.Validate(); err != nil {
			return fmt.Errorf("kmp model: kernel %d: %w", i, err)
		}
	}
	if len(m.Outputs) == 0 {
		return errors.New("kmp model: no outputs")
	}
	for o, out := range m.Outputs {
		if len(out.Coef) != S {
			return fmt.Errorf("kmp model: output %d has %d coefficients for %d support vectors", o, len(out.Coef), S)
		}
	}
	switch m.Task {
	case Regression:
		if len(m.Outputs) != 1 {
			return fmt.Errorf("kmp model: regression with %d outputs", len(m.Outputs))
		}
	case Classification:
		if len(m.Outputs) == 1 && len(m.Classes) != 2 {
			return fmt.Errorf("kmp model: binary model with %d classes", len(m.Classes))
		}
		if len(m.Outputs) > 1 && len(m.Classes) != len(m.Outputs) {
			return fmt.Errorf("kmp model: %d outputs for %d classes", len(m.Outputs), len(m.Classes))
		}
	default:
		return fmt.Errorf("kmp model: unknown task %d", uint8(m.Task))
	}
	if m.Scaler != nil {
		if err := m.Scaler.Check(); err != nil {
			return fmt.Errorf("kmp model: %w", err)
		}
		if m.Scaler.Dim() != m.Support.Cols {
			return fmt.Errorf("kmp model: scaler has %d features, support vectors %d", m.Scaler.Dim(), m.Support.Cols)
		}
	}
	return nil
}

// predictBlock is the most rows evaluated per kernel block, and
// predictBlockValues the most kernel values a block holds: a model of many
// functions takes fewer rows at a time (but at least predictBlockMin), so
// that its block does not grow with the model (1,668 functions took
// 6.8 MB, twice over for the training and test errors, at the peak of a
// 50,000-point stochastic KMP run whose working set is 29 MB).
const (
	predictBlock       = 1024
	predictBlockMin    = 64
	predictBlockValues = 1 << 19 // 2 MiB of float32
)

// predictRows is the rows per kernel block for n functions.
func predictRows(n int) int {
	return max(predictBlockMin, min(predictBlock, predictBlockValues/max(n, 1)))
}

// DecisionAll returns every output's decision values at the rows of x (in
// the caller's unscaled feature space): out[o][i] = f_o(x_i).
func (m *Model) DecisionAll(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("kmp: decision: %w", err)
	}
	if x.Cols != m.Support.Cols {
		return nil, fmt.Errorf("kmp: decision: data has %d features, the model %d", x.Cols, m.Support.Cols)
	}
	xs, err := m.scaled(x) // read only; a scaled copy when the model scales
	if err != nil {
		return nil, fmt.Errorf("kmp: decision: %w", err)
	}
	out := make([][]float64, len(m.Outputs))
	for o := range out {
		out[o] = make([]float64, x.Rows)
		for i := range out[o] {
			out[o][i] = m.Outputs[o].Bias
		}
	}
	// Group the support vectors by kernel.
	groups := map[int][]int{}
	var order []int
	for s, k := range m.SupportKernel {
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	for _, k := range order {
		idx := groups[k]
		sv := pursuit.RowsOf(m.Support, idx) // sparse support vectors stay sparse
		rows := predictRows(len(idx))
		buf := make([]float32, min(rows, x.Rows)*len(idx)) // kernel block, reused
		// Each output's coefficients of the group, contiguous.
		coef := make([][]float64, len(m.Outputs))
		for o, op := range m.Outputs {
			coef[o] = make([]float64, len(idx))
			for j, s := range idx {
				coef[o][j] = op.Coef[s]
			}
		}
		for r0 := 0; r0 < x.Rows; r0 += rows {
			r1 := min(r0+rows, x.Rows)
			blk := xs.Slice(r0, r1, 0, xs.Cols)
			kb := pursuit.Matrix{Rows: r1 - r0, Cols: len(idx), Stride: len(idx), Data: buf[:(r1-r0)*len(idx)]}
			if k == CustomKernelIndex {
				if m.Custom == nil || m.Custom.Func == nil {
					return nil, errors.New("kmp: decision: the model uses a custom kernel function that was not supplied")
				}
				// A Go function on dense rows: sparse rows are densified
				// one at a time for it.
				bi, bj := make([]float32, xs.Cols), make([]float32, xs.Cols)
				for i := range kb.Rows {
					xi := blk.DenseRow(i, bi)
					for j := range kb.Cols {
						kb.Set(i, j, float32(m.Custom.Func(xi, sv.DenseRow(j, bj))))
					}
				}
			} else if err := e.KernelBlock(kb, m.Kernels[k], blk, nil, sv, nil); err != nil {
				return nil, fmt.Errorf("kmp: decision: kernel block: %w", err)
			}
			// The rows' sums over the group, split over threads above 64K
			// multiply-adds (each sum in the same order on any split).
			threads := 1
			if kb.Rows*kb.Cols*len(coef) >= 1<<16 {
				threads = e.Threads()
			}
			e.For(kb.Rows, threads, func(lo, hi int) {
				for o, c := range coef {
					dst := out[o][r0:r1]
					for i := lo; i < hi; i++ {
						row := kb.Row(i)[:len(c)]
						var acc float64
						for j, cj := range c {
							acc += cj * float64(row[j])
						}
						dst[i] += acc
					}
				}
			})
		}
	}
	return out, nil
}

// scaled returns x in the model's scaled feature space: x itself without
// a Scaler, else a scaled copy. Sparse rows stay sparse under a scaling
// that keeps zeros (maxabs); one that fills them in (a dense model's
// minmax or standard) gets them dense.
func (m *Model) scaled(x pursuit.Matrix) (pursuit.Matrix, error) {
	if m.Scaler == nil {
		return x, nil
	}
	var xs pursuit.Matrix
	if x.IsSparse() && !m.Scaler.Mode.KeepsZeros() {
		xs = pursuit.Densified(x)
	} else {
		xs = pursuit.RowsOf(x, seq(x.Rows))
	}
	if err := m.Scaler.Apply(xs); err != nil {
		return pursuit.Matrix{}, fmt.Errorf("scaling: %w", err)
	}
	return xs, nil
}

// Decision returns the decision values of a single-output model (binary or
// regression).
func (m *Model) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	if len(m.Outputs) != 1 {
		return nil, fmt.Errorf("kmp: Decision needs a single-output model, this one has %d outputs (use DecisionAll)", len(m.Outputs))
	}
	out, err := m.DecisionAll(e, x)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Predict returns class labels (classification: the positive class where
// f > 0; one-vs-rest: the class of the largest output) or the regression
// values.
func (m *Model) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	out, err := m.DecisionAll(e, x)
	if err != nil {
		return nil, err
	}
	pred := make([]float64, x.Rows)
	switch {
	case m.Task == Regression:
		copy(pred, out[0])
	case len(m.Outputs) == 1:
		for i, f := range out[0] {
			if f > 0 {
				pred[i] = m.Classes[1]
			} else {
				pred[i] = m.Classes[0]
			}
		}
	default:
		for i := range pred {
			best := 0
			for o := 1; o < len(out); o++ {
				if out[o][i] > out[best][i] {
					best = o
				}
			}
			pred[i] = m.Classes[best]
		}
	}
	return pred, nil
}
