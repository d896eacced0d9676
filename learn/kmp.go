package learn

import (
	"fmt"
	"io"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
)

// Defaults of the KMP family.
const (
	KMPDefaultBasis    = 100  // basis functions without early stopping
	KMPDefaultMaxSteps = 1000 // cap on the basis functions under early stopping
)

// KMP is the kernel matching pursuit family of package kmp (every
// variant, loss and the stochastic search).
//
// Basis counts kernel basis functions; the bias is not one of them. kmp's
// Config.N counts steps, and the bias (an atom of the dictionary) may take
// one, so Fit runs Basis+1 steps and then keeps the longest prefix with at
// most Basis kernel functions.
type KMP struct {
	// Name is the model's kind ("kmp", "kmp-backfit", "skmp", ...; ""
	// is "kmp").
	Name string
	// Config is kmp's configuration. Fit sets N from Basis, and ValX,
	// ValY from its validation set (Patience applies only with one);
	// Progress is replaced when the learner's Progress is set.
	Config kmp.Config
	// Basis is the number of kernel basis functions: the cap under early
	// stopping. 0 means min(rows, KMPDefaultBasis), or min(rows,
	// KMPDefaultMaxSteps) with a validation set.
	Basis int
	// Rows is the number of training rows of every rank together when
	// training across ranks (each rank passes its own); 0 is x's rows. The
	// default Basis counts them.
	Rows int
	// Progress, if not nil, is told of each step.
	Progress func(Progress)
}

// basis is the number of kernel basis functions to keep on n rows.
func (l KMP) basis(n int, earlyStop bool) int {
	switch {
	case l.Basis > 0:
		return l.Basis
	case earlyStop:
		return min(n, KMPDefaultMaxSteps)
	}
	return min(n, KMPDefaultBasis)
}

// Fit trains one output on y (±1 for classification, real values for
// kmp.Regression), early-stopping on the validation set when it has rows.
func (l KMP) Fit(e *engine.Engine, x pursuit.Matrix, y []float64, xVal pursuit.Matrix, yVal []float64) (Model, error) {
	return l.fit(e, x, y, nil, xVal, yVal, false)
}

// FitOneVsRest trains one output per class with kmp.TrainOneVsRest (one
// dictionary shared by the classes): one Multi model.
func (l KMP) FitOneVsRest(e *engine.Engine, x pursuit.Matrix, y, classes []float64, xVal pursuit.Matrix, yVal []float64) ([]Model, error) {
	f, err := l.fit(e, x, y, classes, xVal, yVal, true)
	if err != nil {
		return nil, err
	}
	return []Model{f}, nil
}

func (l KMP) fit(e *engine.Engine, x pursuit.Matrix, y, classes []float64, xVal pursuit.Matrix, yVal []float64, ovr bool) (*KMPModel, error) {
	n := x.Rows
	if l.Rows > 0 {
		n = l.Rows
	}
	early := xVal.Rows > 0
	basis := l.basis(n, early)
	cfg := l.Config
	cfg.N = basis + 1 // + the bias's step
	cfg.ValX, cfg.ValY = pursuit.Matrix{}, nil
	if early {
		cfg.ValX, cfg.ValY = xVal, yVal // Patience 0: no limit, run every step and keep the best
	} else {
		cfg.Patience = 0
	}
	if l.Progress != nil {
		total := cfg.N
		cfg.Progress = func(s kmp.Step) {
			l.Progress(Progress{Step: s.Step, Total: total, Metric: "residual", Value: s.Residual, ValErr: s.ValErr})
		}
	}
	plan, err := kmp.PlanTraining(e, x.Rows, cfg)
	if err != nil {
		return nil, err
	}
	var m *kmp.Model
	if ovr {
		m, err = kmp.TrainOneVsRest(e, x, y, cfg)
	} else {
		m, err = kmp.Train(e, x, y, cfg)
	}
	if err != nil {
		return nil, err
	}
	m, steps, err := m.CapKernelFunctions(basis)
	if err != nil {
		return nil, fmt.Errorf("--basis: %w", err)
	}
	f, err := NewKMPModel(m, classes)
	if err != nil {
		return nil, err
	}
	if l.Name != "" {
		f.kind = l.Name
	}
	f.plan, f.steps = plan.String(), steps
	if cfg.Stochastic != nil {
		f.plan += ", " + cfg.Variant.String() + " fit"
	}
	return f, nil
}

// KMPModel is a trained kmp.Model: one output, or one per class for
// one-vs-rest (a Multi model). It is saved in kmp's own versioned,
// checksummed format. The data are scaled before kmp sees them, so the kmp
// model holds no scaler.
type KMPModel struct {
	KMP  *kmp.Model
	kind string
	perm []int // output order: perm[k] is the kmp output of class k
	plan string
	// steps[o] is the number of steps of output o's curve within Basis
	// (nil: all of them); the learning curve stops there.
	steps []int
}

// NewKMPModel wraps m; classes, when not nil, are the one-vs-rest classes
// in increasing order, matched to the model's outputs.
func NewKMPModel(m *kmp.Model, classes []float64) (*KMPModel, error) {
	if m.Scaler != nil && m.Scaler.Mode != "none" {
		return nil, pursuit.BadInputf("kmp model carries its own %s scaling; the CLI scales data itself", m.Scaler.Mode)
	}
	f := &KMPModel{KMP: m, kind: "kmp"}
	if classes == nil {
		if len(m.Outputs) != 1 {
			return nil, pursuit.BadInputf("kmp model with %d outputs where one was expected", len(m.Outputs))
		}
		return f, nil
	}
	if len(m.Classes) != len(m.Outputs) || len(classes) != len(m.Outputs) {
		return nil, pursuit.BadInputf("kmp one-vs-rest model with %d outputs and %d classes, expected %d", len(m.Outputs), len(m.Classes), len(classes))
	}
	for _, c := range classes {
		k := ClassIndex(m.Classes, c)
		if k < 0 {
			return nil, pursuit.BadInputf("kmp one-vs-rest model has no output for class %s", FormatLabel(c))
		}
		f.perm = append(f.perm, k)
	}
	return f, nil
}

func decodeKMP(kind string, r io.Reader, _ int64) (Model, error) {
	m, err := kmp.Load(r)
	if err != nil {
		return nil, err
	}
	var classes []float64
	if len(m.Outputs) > 1 {
		// A saved one-vs-rest model keeps its outputs in class order
		// (increasing labels).
		classes = m.Classes
	}
	f, err := NewKMPModel(m, classes)
	if err != nil {
		return nil, err
	}
	f.kind = kind
	return f, nil
}

// Kind is the KMP variant's name the model was trained or loaded as.
func (f *KMPModel) Kind() string { return f.kind }

// Describe says how the dictionary was held during training.
func (f *KMPModel) Describe() string { return f.plan }

// StepsForBasis is the number of steps after which the (single-output)
// model is the model trained with Basis n ≤ its own; ok is false for a
// model with several outputs.
func (f *KMPModel) StepsForBasis(n int) (steps int, ok bool) {
	if len(f.KMP.Outputs) != 1 {
		return 0, false
	}
	return kmp.StepsWithin(f.KMP.Outputs[0].Curve, n), true
}

// Decision returns the first output on each row of x.
func (f *KMPModel) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	return f.KMP.Decision(e, x)
}

// Outputs is the number of outputs.
func (f *KMPModel) Outputs() int { return len(f.KMP.Outputs) }

// DecisionAll returns every output, in class order.
func (f *KMPModel) DecisionAll(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	all, err := f.KMP.DecisionAll(e, x)
	if err != nil {
		return nil, err
	}
	return f.ordered(all), nil
}

// ordered puts kmp's outputs in class order.
func (f *KMPModel) ordered(all [][]float64) [][]float64 {
	if f.perm == nil {
		return all
	}
	out := make([][]float64, len(f.perm))
	for k, o := range f.perm {
		out[k] = all[o]
	}
	return out
}

// NBasis is the number of support vectors (the bias not counted).
func (f *KMPModel) NBasis() int { return f.KMP.Size().SupportVectors }

// Basis returns the support vectors.
func (f *KMPModel) Basis() pursuit.Matrix { return f.KMP.Support }

// Save writes kmp's format.
func (f *KMPModel) Save(w io.Writer) error { return f.KMP.Save(w) }

// CanPrefix reports whether the model can predict as if stopped early: a
// model trained in this process (kmp keeps the path in memory only).
func (f *KMPModel) CanPrefix() bool { return f.KMP.CanTruncate() }

// PrefixLen is the number of steps training ran within Basis (the longest
// output).
func (f *KMPModel) PrefixLen() int {
	n := 0
	for o, out := range f.KMP.Outputs {
		s := len(out.Curve)
		if f.steps != nil {
			s = min(s, f.steps[o])
		}
		n = max(n, s)
	}
	return n
}

// RepicksAtoms reports whether a step may choose a function the expansion
// already has (basic and stochastic matching pursuit), so that steps and
// basis functions differ by more than the bias.
func (f *KMPModel) RepicksAtoms() bool { return f.KMP.Variant == kmp.Basic }

// KeptSteps is the number of steps the (single-output) model kept: all
// of them, or the early-stopping choice.
func (f *KMPModel) KeptSteps() int { return f.KMP.Outputs[0].Steps }

// PrefixSizes returns the support-vector count after each n of ns steps.
func (f *KMPModel) PrefixSizes(ns []int) ([]int, error) { return f.KMP.PrefixSizes(ns) }

// PrefixDecisions returns every output (in class order) as if training had
// stopped after n steps, for each n of ns (kmp's one-pass
// PrefixDecisions).
func (f *KMPModel) PrefixDecisions(e *engine.Engine, x pursuit.Matrix, ns []int) ([][][]float64, error) {
	out, err := f.KMP.PrefixDecisions(e, x, ns)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = f.ordered(out[i])
	}
	return out, nil
}

// Curve returns the learning curve kmp recorded (binary and regression
// models), against the step number.
func (f *KMPModel) Curve() []CurvePoint {
	if len(f.KMP.Outputs) != 1 {
		return nil
	}
	curve := f.KMP.Outputs[0].Curve
	if f.steps != nil {
		curve = curve[:min(len(curve), f.steps[0])]
	}
	var c []CurvePoint
	for _, s := range curve {
		c = append(c, CurvePoint{N: s.Step, Train: JSONNum(s.TrainErr), Val: JSONNum(s.ValErr), Test: JSONNum(math.NaN())})
	}
	return c
}

// Expansion returns the support vectors with the coefficients and bias of
// a single-output model with one kernel.
func (f *KMPModel) Expansion() (pursuit.Kernel, pursuit.Matrix, []float64, float64, error) {
	m := f.KMP
	switch {
	case len(m.Outputs) != 1:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("a one-vs-rest KMP model has %d outputs, and a LIBSVM model of one-vs-rest outputs does not exist (LIBSVM's multi-class is one-vs-one)", len(m.Outputs))
	case m.Custom != nil:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("the model uses the custom kernel %q, which LIBSVM does not have", m.Custom.Name)
	case len(m.Kernels) > 1:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("the model mixes %d kernels (widths), and a LIBSVM model has one", len(m.Kernels))
	case len(m.Kernels) == 0:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("the model has no kernel")
	}
	return m.Kernels[0], m.Support, m.Outputs[0].Coef, m.Outputs[0].Bias, nil
}
