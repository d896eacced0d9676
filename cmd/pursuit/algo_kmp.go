package main

import (
	"fmt"
	"io"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
)

// Defaults of the KMP family in the CLI.
const (
	kmpDefaultBasis    = 100  // --basis without early stopping
	kmpDefaultMaxSteps = 1000 // cap on the steps under early stopping
	kmpDefaultPatience = 20   // steps without validation improvement
)

// skmpDefaultFit is how stochastic KMP fits its expansion unless --fit
// says otherwise. Measured with --basis 50 and s = 59 on generated 50k-row
// two-class sets (issue 16; test error, training time in one run of a
// loaded machine): 20-D ringnorm, basic 50.0% (one class), backfit 7.4%
// (0.9 s), prefit 6.8% (1.7 s); 2-D two moons, basic 14.1%, backfit 3.9%
// (3.2 s), prefit 4.6% (1.6 s). Back-fitting and pre-fitting are about as
// accurate; back-fitting needs half the memory (peak RSS 58 MB against
// 94 MB on ringnorm; 224 against 471 MB at --basis 200) and its step does
// not grow with l·s·n, which is what large data sets, skmp's use, need.
const skmpDefaultFit = kmp.BackFit

// skmpFitHelp is the help of --fit: what each fit costs per step.
const skmpFitHelp = "stochastic KMP: how the expansion is fitted (per step, for l training rows, s functions searched, d features, n basis functions so far): " +
	"backfit (back-fitting: choose the function most collinear with the residual, then refit all coefficients; O(l·s·d + l·n) time, basis 8·l·n bytes), " +
	"prefit (pre-fitting: choose the function that is best with all coefficients refitted; O(l·s·(d + 2n)) time, 16·l·n bytes) or " +
	"basic (matching pursuit: fit the newest coefficient only; O(l·s·d + l·n) time, 8·l·n bytes; it needs far more steps, and is near chance at 50 steps on 50k rows)"

// parseSKMPFit maps --fit to the kmp variant.
func parseSKMPFit(s string) (kmp.Variant, error) {
	v, err := kmp.ParseVariant(s)
	if err != nil || v == kmp.Auto {
		return 0, fmt.Errorf("--fit %q: want backfit, prefit or basic", s)
	}
	return v, nil
}

// kmpFitted adapts a kmp.Model (one output, or one per class for
// one-vs-rest). Its payload is kmp's own versioned, checksummed format. The
// CLI scales the data itself, so the kmp model holds no scaler.
type kmpFitted struct {
	m    *kmp.Model
	perm []int // output order: perm[k] is the kmp output of the CLI's class k
	plan string
	// steps[o] is the number of steps of output o's curve within --basis
	// (nil: all of them); the learning curve stops there.
	steps []int
}

// Describe says how the dictionary was held during training.
func (f *kmpFitted) Describe() string { return f.plan }

// kmpBasis is the number of kernel basis functions --basis asks for (its
// default when not given) on n training examples.
func kmpBasis(p *trainParams, n int, earlyStop bool) int {
	switch {
	case p.basis > 0:
		return p.basis
	case earlyStop:
		return min(n, kmpDefaultMaxSteps)
	}
	return min(n, kmpDefaultBasis)
}

// kmpConfig builds the kmp configuration for the CLI's parameters.
//
// --basis counts kernel basis functions; the bias is not one of them. kmp's
// N counts steps, and the bias (an atom of the dictionary) may take one, so
// the CLI runs basis+1 steps and kmpCapBasis then keeps the longest prefix
// with at most basis kernel functions.
func kmpConfig(variant kmp.Variant, loss kmp.Loss, stochastic bool, p *trainParams, n int, xVal pursuit.Matrix, yVal []float64) kmp.Config {
	cfg := kmp.Config{
		Variant: variant,
		Loss:    loss,
		Task:    kmp.Classification,
		Kernels: []pursuit.Kernel{p.kernel},
		Bias:    true,
		N:       kmpBasis(p, n, xVal.Rows > 0) + 1, // + the bias's step
		Seed:    uint64(p.seed),
	}
	if p.regression {
		cfg.Task = kmp.Regression
	}
	if stochastic {
		cfg.Stochastic = &kmp.Stochastic{ActiveSet: p.activeSet, Eps: p.eps, Q: p.q}
	}
	if xVal.Rows > 0 {
		cfg.ValX, cfg.ValY = xVal, yVal
		cfg.Patience = p.patience // 0: no limit, run every step and keep the best
	}
	if p.progress != nil {
		total := cfg.N
		cfg.Progress = func(s kmp.Step) {
			p.progress(progressUpdate{Step: s.Step, Total: total, Metric: "residual", Value: s.Residual, ValErr: s.ValErr})
		}
	}
	return cfg
}

// kmpTrainer returns the binary and one-vs-rest trainers of one KMP
// variant; stochastic searches a random active set per step (skmp), with
// the variant p.fit names.
func kmpTrainer(variant kmp.Variant, loss kmp.Loss, stochastic bool) (trainFunc, trainOVRFunc) {
	run := func(e *engine.Engine, p *trainParams, x pursuit.Matrix, y, classes []float64, xVal pursuit.Matrix, yVal []float64, ovr bool) (*kmpFitted, error) {
		variant := variant
		if stochastic {
			variant = skmpDefaultFit
			if p.fit != "" {
				v, err := parseSKMPFit(p.fit)
				if err != nil {
					return nil, err
				}
				variant = v
			}
		}
		n := x.Rows
		if p.nTrain > 0 {
			n = p.nTrain // across ranks: the default --basis counts every rank's rows
		}
		cfg := kmpConfig(variant, loss, stochastic, p, n, xVal, yVal)
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
		m, steps, err := m.CapKernelFunctions(kmpBasis(p, n, xVal.Rows > 0))
		if err != nil {
			return nil, fmt.Errorf("--basis: %w", err)
		}
		f, err := newKMPFitted(m, classes)
		if err != nil {
			return nil, err
		}
		f.plan, f.steps = plan.String(), steps
		if stochastic {
			f.plan += ", " + variant.String() + " fit"
		}
		return f, nil
	}
	bin := func(e *engine.Engine, p *trainParams, x pursuit.Matrix, y []float64, xVal pursuit.Matrix, yVal []float64) (fitted, error) {
		return run(e, p, x, y, nil, xVal, yVal, false)
	}
	ovr := func(e *engine.Engine, p *trainParams, x pursuit.Matrix, y, classes []float64, xVal pursuit.Matrix, yVal []float64) ([]fitted, error) {
		f, err := run(e, p, x, y, classes, xVal, yVal, true)
		if err != nil {
			return nil, err
		}
		return []fitted{f}, nil
	}
	return bin, ovr
}

// StepsForBasis is the number of steps after which the (single-output)
// model is the model trained with --basis n ≤ its own; ok is false for a
// model with several outputs.
func (f *kmpFitted) StepsForBasis(n int) (steps int, ok bool) {
	if len(f.m.Outputs) != 1 {
		return 0, false
	}
	return kmp.StepsWithin(f.m.Outputs[0].Curve, n), true
}

// newKMPFitted wraps m; classes, when not nil, are the CLI's one-vs-rest
// classes, matched to the model's outputs.
func newKMPFitted(m *kmp.Model, classes []float64) (*kmpFitted, error) {
	if m.Scaler != nil && m.Scaler.Mode != "none" {
		return nil, fmt.Errorf("kmp model carries its own %s scaling; the CLI scales data itself", m.Scaler.Mode)
	}
	f := &kmpFitted{m: m}
	if classes == nil {
		if len(m.Outputs) != 1 {
			return nil, fmt.Errorf("kmp model with %d outputs where one was expected", len(m.Outputs))
		}
		return f, nil
	}
	if len(m.Classes) != len(m.Outputs) || len(classes) != len(m.Outputs) {
		return nil, fmt.Errorf("kmp one-vs-rest model with %d outputs and %d classes, expected %d", len(m.Outputs), len(m.Classes), len(classes))
	}
	for _, c := range classes {
		k := classIndex(m.Classes, c)
		if k < 0 {
			return nil, fmt.Errorf("kmp one-vs-rest model has no output for class %s", formatLabel(c))
		}
		f.perm = append(f.perm, k)
	}
	return f, nil
}

func loadKMP(r io.Reader, _ int64) (fitted, error) {
	m, err := kmp.Load(r)
	if err != nil {
		return nil, err
	}
	if len(m.Outputs) > 1 {
		// A saved one-vs-rest model keeps its outputs in class order,
		// which is the CLI's (increasing labels).
		return newKMPFitted(m, m.Classes)
	}
	return newKMPFitted(m, nil)
}

func (f *kmpFitted) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	return f.m.Decision(e, x)
}

func (f *kmpFitted) Outputs() int { return len(f.m.Outputs) }

func (f *kmpFitted) DecisionAll(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	return f.decisionAll(e, x, f.m)
}

func (f *kmpFitted) decisionAll(e *engine.Engine, x pursuit.Matrix, m *kmp.Model) ([][]float64, error) {
	all, err := m.DecisionAll(e, x)
	if err != nil {
		return nil, err
	}
	return f.ordered(all), nil
}

// ordered puts kmp's outputs in the CLI's class order.
func (f *kmpFitted) ordered(all [][]float64) [][]float64 {
	if f.perm == nil {
		return all
	}
	out := make([][]float64, len(f.perm))
	for k, o := range f.perm {
		out[k] = all[o]
	}
	return out
}

func (f *kmpFitted) NBasis() int            { return f.m.Size().SupportVectors }
func (f *kmpFitted) Basis() pursuit.Matrix  { return f.m.Support }
func (f *kmpFitted) Save(w io.Writer) error { return f.m.Save(w) }

// CanPrefix reports whether the model can predict as if stopped early: a
// model trained in this process (kmp keeps the path in memory only).
func (f *kmpFitted) CanPrefix() bool { return f.m.CanTruncate() }

// PrefixLen is the number of steps training ran within --basis (the
// longest output).
func (f *kmpFitted) PrefixLen() int {
	n := 0
	for o, out := range f.m.Outputs {
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
func (f *kmpFitted) RepicksAtoms() bool { return f.m.Variant == kmp.Basic }

// KeptSteps is the number of steps the (single-output) model kept: all
// of them, or the early-stopping choice.
func (f *kmpFitted) KeptSteps() int { return f.m.Outputs[0].Steps }

// PrefixSizes returns the support-vector count after each n of ns steps.
func (f *kmpFitted) PrefixSizes(ns []int) ([]int, error) { return f.m.PrefixSizes(ns) }

// PrefixDecisions returns every output (in the CLI's class order) as if
// training had stopped after n steps, for each n of ns (kmp's one-pass
// PrefixDecisions).
func (f *kmpFitted) PrefixDecisions(e *engine.Engine, x pursuit.Matrix, ns []int) ([][][]float64, error) {
	out, err := f.m.PrefixDecisions(e, x, ns)
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
func (f *kmpFitted) Curve() []curvePoint {
	if len(f.m.Outputs) != 1 {
		return nil
	}
	curve := f.m.Outputs[0].Curve
	if f.steps != nil {
		curve = curve[:min(len(curve), f.steps[0])]
	}
	var c []curvePoint
	for _, s := range curve {
		c = append(c, curvePoint{N: s.Step, Train: jsonNum(s.TrainErr), Val: jsonNum(s.ValErr), Test: jsonNum(math.NaN())})
	}
	return c
}
