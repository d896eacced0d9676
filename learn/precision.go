package learn

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Precision is the arithmetic of a model's kernel values at prediction
// (issue 29).
//
// PrecisionFloat64 computes every kernel value in float64 from the data's
// and the model's float32 values (pursuit.Kernel.Values64: RBF distances as
// Σ(x_k − v_k)², no cancellation) and sums the expansion in float64: the
// decisions a float64 implementation such as LIBSVM's svm-predict gives for
// the same vectors, the same bits on every backend (the backend is not
// used) and for dense or sparse storage. Rows run in parallel on the
// engine's threads; on USPS it takes 0.6 to 0.8 times svm-predict's CPU
// time. It is `pursuit predict`'s default. PrecisionFloat32 (the zero value's
// meaning in DecisionsIn, and Decisions) is the engine's kernel blocks on
// its backend: float32 values, the RBF distances of pairs the float32 form
// would cancel in computed in float64 (engine.RBFCancellationLimit), so
// accurate to about 1e-6 relative per value, 4.5 to 10 times faster; a
// model whose coefficients cancel multiplies that error, and backends
// differ by it. Models imported from LIBSVM always predict in float64.
type Precision string

const (
	// PrecisionFloat32 predicts with the engine's float32 kernel blocks.
	PrecisionFloat32 Precision = "float32"
	// PrecisionFloat64 predicts with float64 kernel values and sums.
	PrecisionFloat64 Precision = "float64"
)

// ParsePrecision returns the precision named s: "float32" or "float64"
// ("" is float32).
func ParsePrecision(s string) (Precision, error) {
	switch Precision(s) {
	case "", PrecisionFloat32:
		return PrecisionFloat32, nil
	case PrecisionFloat64:
		return PrecisionFloat64, nil
	}
	return "", pursuit.BadInputf("unknown precision %q (float32 or float64)", s)
}

// Decider64 is implemented by models that can predict with float64 kernel
// values (PrecisionFloat64).
type Decider64 interface {
	// DecisionAll64 returns every output (one for a binary model or a
	// regressor, one per class for a Multi model, in class order) on
	// each row of x, with kernel values and sums in float64.
	DecisionAll64(e *engine.Engine, x pursuit.Matrix) ([][]float64, error)
}

// DecisionsIn is Decisions at precision p: PrecisionFloat32 is Decisions
// itself; PrecisionFloat64 takes every model's outputs from its float64
// path (Decider64), and is an error for a model without one.
func (m *File) DecisionsIn(e *engine.Engine, x pursuit.Matrix, p Precision) ([][]float64, error) {
	switch p {
	case "", PrecisionFloat32:
		return m.Decisions(e, x)
	case PrecisionFloat64:
	default:
		return nil, fmt.Errorf("predict: %w", pursuit.BadInputf("unknown precision %q (float32 or float64)", p))
	}
	var dec [][]float64
	for _, f := range m.Models {
		d64, ok := f.(Decider64)
		if !ok {
			return nil, fmt.Errorf("predict: %w", pursuit.BadInputf("a %s model has no float64 prediction path", f.Kind()))
		}
		ds, err := d64.DecisionAll64(e, x)
		if err != nil {
			return nil, fmt.Errorf("predict in float64: %w", err)
		}
		for _, d := range ds {
			if len(d) != x.Rows {
				return nil, fmt.Errorf("predict: %s returned %d outputs for %d examples", m.Header.Algorithm, len(d), x.Rows)
			}
		}
		dec = append(dec, ds...)
	}
	if want := m.Header.Labels.NumModels(); len(dec) != want {
		return nil, fmt.Errorf("predict: %s gave %d outputs per example, the task needs %d", m.Header.Algorithm, len(dec), want)
	}
	return dec, nil
}

// Expansion64 is one or more kernel expansions over the same vectors,
// evaluated in float64:
//
//	out[o][i] = Σ_s Coef[o][s]·K_s(Vectors_s, x_i) + Bias[o]
//
// with K_s = Kernels[s] when there is one kernel per vector, else
// Kernels[0] for every vector, each value with pursuit.Kernel.Eval's
// semantics (RBF distances as Σ(x_k − v_k)², no cancellation).
type Expansion64 struct {
	Kernels []pursuit.Kernel
	Vectors pursuit.Matrix // dense or sparse
	Coef    [][]float64    // one per output, each Vectors.Rows long
	Bias    []float64      // one per output
}

// check reports whether the expansion is well formed for data with cols
// features.
func (x *Expansion64) check(cols int) error {
	v := x.Vectors
	switch {
	case len(x.Kernels) != 1 && len(x.Kernels) != v.Rows:
		return fmt.Errorf("float64 decision: %d kernels for %d vectors", len(x.Kernels), v.Rows)
	case len(x.Coef) != len(x.Bias):
		return fmt.Errorf("float64 decision: %d coefficient sets but %d biases", len(x.Coef), len(x.Bias))
	case cols != v.Cols:
		return pursuit.BadInputf("float64 decision: data have %d features, the model %d", cols, v.Cols)
	}
	for o, c := range x.Coef {
		if len(c) != v.Rows {
			return fmt.Errorf("float64 decision: output %d has %d coefficients for %d vectors", o, len(c), v.Rows)
		}
	}
	return nil
}

// Decision returns out[o][i], output o on row i of x (dense or sparse),
// the rows in parallel on e's threads (engine.Engine.For). The kernel
// values are pursuit.Kernel.Values64's, the same bits for either storage
// and on every backend; the sum over the vectors runs in their order from
// the bias. Dense rows and vectors are converted to float64 once
// (Value64), the vectors' copy checked against e's memory budget; without
// room for it the values are converted as they are used (the same bits,
// about three times slower).
func (x *Expansion64) Decision(e *engine.Engine, data pursuit.Matrix) ([][]float64, error) {
	if err := data.Validate(); err != nil {
		return nil, fmt.Errorf("float64 decision: %w", err)
	}
	if err := x.check(data.Cols); err != nil {
		return nil, err
	}
	out := make([][]float64, len(x.Coef))
	for o := range out {
		out[o] = make([]float64, data.Rows)
	}
	if data.Rows == 0 {
		return out, nil
	}
	v := x.Vectors
	kernel := func(s int) pursuit.Kernel {
		if len(x.Kernels) > 1 {
			return x.Kernels[s]
		}
		return x.Kernels[0]
	}
	// The vectors in float64, when dense and the budget has room.
	var v64 []float64
	if !data.IsSparse() {
		v64 = e.Float64Rows("the float64 copy of the model's vectors", v)
	}
	e.For(data.Rows, 0, func(lo, hi int) {
		kv := make([]float64, v.Rows)
		var x64 []float64
		for i := lo; i < hi; i++ {
			switch {
			case v64 != nil:
				x64 = pursuit.Float64Row(x64, data.Row(i))
				for s := range v.Rows {
					kv[s] = kernel(s).Value64(x64, v64[s*v.Cols:(s+1)*v.Cols])
				}
			case len(x.Kernels) == 1:
				x.Kernels[0].Values64(kv, data, i, v)
			default:
				for s := range v.Rows {
					kv[s] = kernel(s).ValueRows64(data, i, v, s)
				}
			}
			for o, c := range x.Coef {
				sum := x.Bias[o]
				for s, a := range c {
					sum += a * kv[s]
				}
				out[o][i] = sum
			}
		}
	})
	return out, nil
}

// DecisionAll64 returns the decision on the float64 path
// (svm.Model.DecisionValues64), positive for the label +1.
func (f *SVMModel) DecisionAll64(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	d, err := f.SVM.DecisionValues64(e, x)
	if err != nil {
		return nil, err
	}
	if f.flipped() {
		for i := range d {
			d[i] = -d[i]
		}
	}
	return [][]float64{d}, nil
}

// DecisionAll64 returns every output, in class order, with float64
// kernels (Expansion64); a model with a custom kernel has no float64
// path.
func (f *KMPModel) DecisionAll64(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	m := f.KMP
	ex := &Expansion64{Vectors: m.Support, Kernels: make([]pursuit.Kernel, m.Support.Rows)}
	if len(m.SupportKernel) != m.Support.Rows {
		return nil, fmt.Errorf("kmp: %d support vectors but %d kernel indices", m.Support.Rows, len(m.SupportKernel))
	}
	for s, k := range m.SupportKernel {
		if k < 0 || k >= len(m.Kernels) {
			return nil, pursuit.BadInputf("kmp: support vector %d uses a custom kernel, which has no float64 path", s)
		}
		ex.Kernels[s] = m.Kernels[k]
	}
	if len(ex.Kernels) == 0 {
		ex.Kernels = []pursuit.Kernel{{Kind: pursuit.Linear}} // no vectors: the bias alone
	}
	for _, o := range m.Outputs {
		ex.Coef, ex.Bias = append(ex.Coef, o.Coef), append(ex.Bias, o.Bias)
	}
	all, err := ex.Decision(e, x)
	if err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	return f.ordered(all), nil
}

// DecisionAll64 returns the expansion's output with float64 kernels
// (Expansion64).
func (f *SLMCModel) DecisionAll64(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	return expander64(e, x, f, "slmc")
}

// DecisionAll64 returns the discriminant's output with float64 kernels
// (Expansion64).
func (f *KFDAModel) DecisionAll64(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	return expander64(e, x, f, "MP-KFDA")
}

// expander64 evaluates a one-output Expander in float64.
func expander64(e *engine.Engine, x pursuit.Matrix, f Expander, name string) ([][]float64, error) {
	k, v, coef, bias, err := f.Expansion()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ex := &Expansion64{Kernels: []pursuit.Kernel{k}, Vectors: v, Coef: [][]float64{coef}, Bias: []float64{bias}}
	d, err := ex.Decision(e, x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}
