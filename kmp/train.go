package kmp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Train fits a KMP machine on the rows of x with targets y. For
// classification, two distinct labels give a binary machine (the larger
// label is the positive class) and more give one-vs-rest machines sharing
// one dictionary; for regression y holds real targets.
//
// x and Config.ValX are read where they are, not copied, unless Scale or
// ValFrac asks for scaled or split copies; the model keeps no reference to
// them.
func Train(e *engine.Engine, x backend.Matrix, y []float64, cfg Config) (*Model, error) {
	return train(e, x, y, cfg, false)
}

// TrainOneVsRest fits one machine per class (target +1 for the class, −1
// for the others) on one shared dictionary, even for two classes.
func TrainOneVsRest(e *engine.Engine, x backend.Matrix, y []float64, cfg Config) (*Model, error) {
	if cfg.Task != Classification {
		return nil, errors.New("kmp: one-vs-rest needs a classification task")
	}
	return train(e, x, y, cfg, true)
}

func train(e *engine.Engine, x backend.Matrix, y []float64, cfg Config, forceOVR bool) (*Model, error) {
	if e == nil {
		return nil, errors.New("kmp: nil engine")
	}
	if err := e.RequireOneRank("kmp.Train"); err != nil {
		return nil, err
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("kmp: training data: %w", err)
	}
	if x.Rows == 0 || x.Cols == 0 {
		return nil, fmt.Errorf("kmp: training data is empty (%d×%d)", x.Rows, x.Cols)
	}
	if len(y) != x.Rows {
		return nil, fmt.Errorf("kmp: %d training rows but %d targets", x.Rows, len(y))
	}
	if err := checkFinite("training", x, y); err != nil {
		return nil, err
	}
	if cfg.ValX.Rows > 0 {
		if err := cfg.ValX.Validate(); err != nil {
			return nil, fmt.Errorf("kmp: validation data: %w", err)
		}
		if cfg.ValX.Cols != x.Cols {
			return nil, fmt.Errorf("kmp: validation data has %d features, training data %d", cfg.ValX.Cols, x.Cols)
		}
		if err := checkFinite("validation", cfg.ValX, cfg.ValY); err != nil {
			return nil, err
		}
	}
	if err := cfg.resolve(); err != nil {
		return nil, err
	}

	// Classes and the split off validation part.
	var classes []float64
	if cfg.Task == Classification {
		classes = distinct(y)
		if len(classes) < 2 {
			return nil, fmt.Errorf("kmp: classification needs at least two classes, the training labels have %d", len(classes))
		}
		if cfg.ValX.Rows > 0 {
			for i, v := range cfg.ValY {
				if _, ok := slices.BinarySearch(classes, v); !ok {
					return nil, fmt.Errorf("kmp: validation label %v (row %d) is not a training class", v, i)
				}
			}
		}
	}
	trIdx := make([]int, x.Rows)
	for i := range trIdx {
		trIdx[i] = i
	}
	valX, valY := cfg.ValX, cfg.ValY
	if cfg.ValFrac > 0 {
		var labels []float64
		if cfg.Task == Classification {
			labels = y
		}
		if err := data.CheckSplit(x.Rows, []float64{1 - cfg.ValFrac, cfg.ValFrac}, labels); err != nil {
			return nil, fmt.Errorf("kmp: validation split: %w", err)
		}
		parts := data.Split(x.Rows, []float64{1 - cfg.ValFrac, cfg.ValFrac}, cfg.Seed, labels)
		trIdx = parts[0]
		slices.Sort(trIdx)
		vi := parts[1]
		slices.Sort(vi)
		if len(trIdx) == 0 || len(vi) == 0 {
			return nil, fmt.Errorf("kmp: ValFrac %v leaves %d training and %d validation rows", cfg.ValFrac, len(trIdx), len(vi))
		}
		valX = backend.NewMatrix(len(vi), x.Cols)
		valY = make([]float64, len(vi))
		for r, i := range vi {
			copy(valX.Row(r), x.Row(i))
			valY[r] = y[i]
		}
	}

	// The training and validation data: the caller's matrices as they are
	// when there is nothing to scale or split, else copies (scaled in place).
	// Nothing keeps them after training (assemble copies the rows it needs).
	l := len(trIdx)
	scale := cfg.Scale != data.ScaleNone
	xt := x
	if scale || cfg.ValFrac > 0 {
		xt = backend.NewMatrix(l, x.Cols)
		for r, i := range trIdx {
			copy(xt.Row(r), x.Row(i))
		}
	}
	yt := make([]float64, l)
	for r, i := range trIdx {
		yt[r] = y[i]
	}
	var scaler *data.Scaler
	if scale {
		var err error
		if scaler, err = data.FitScaler(cfg.Scale, xt); err != nil {
			return nil, fmt.Errorf("kmp: %w", err)
		}
		if err := scaler.Apply(xt); err != nil {
			return nil, fmt.Errorf("kmp: scaling training data: %w", err)
		}
	}
	tr := trainSet{x: xt}
	var err error
	if tr.norms, err = e.SqNorms(xt); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	var vs *valSet
	if valX.Rows > 0 {
		xv := valX // a copy already when split off by ValFrac
		if scaler != nil {
			if cfg.ValFrac == 0 {
				xv = backend.NewMatrix(valX.Rows, valX.Cols)
				for i := range valX.Rows {
					copy(xv.Row(i), valX.Row(i))
				}
			}
			if err := scaler.Apply(xv); err != nil {
				return nil, fmt.Errorf("kmp: scaling validation data: %w", err)
			}
		}
		pts := trainSet{x: xv}
		if pts.norms, err = e.SqNorms(xv); err != nil {
			return nil, fmt.Errorf("kmp: %w", err)
		}
		vs = &valSet{e: e, cfg: &cfg, tr: tr, pts: pts, cache: map[int][]float64{}}
	}

	// The dictionary, shared by all outputs.
	cands := chooseCandidates(l, cfg.Candidates, cfg.Seed)
	atoms := dictAtoms(&cfg, cands)
	dict, err := newDictionary(e, &cfg, atoms, tr) // in memory, streamed or stochastic (scale.go)
	if err != nil {
		return nil, err
	}
	defer func() { _ = dict.release(e) }()
	if vs != nil {
		vs.atoms = atoms
	}

	// Targets per output.
	type target struct{ y, valY []float64 }
	var targets []target
	var outClasses []float64
	switch {
	case cfg.Task == Regression:
		targets = []target{{yt, valY}}
	case len(classes) == 2 && !forceOVR:
		targets = []target{{data.Signs(yt, classes[1]), data.Signs(valY, classes[1])}}
		outClasses = classes
	default:
		for _, c := range classes {
			targets = append(targets, target{data.Signs(yt, c), data.Signs(valY, c)})
		}
		outClasses = classes
	}

	// The outputs train side by side (one dictionary pass per step for all
	// of them) where they can, else one after the other; either way each
	// output's expansion is the one it gets alone.
	results := make([]*result, len(targets))
	probs := make([]*problem, len(targets))
	for o, t := range targets {
		// Classification outputs see ±1 targets; their error is sign(f) ≠ y.
		probs[o] = &problem{e: e, cfg: &cfg, dict: dict, y: t.y, val: vs, valY: t.valY, output: o}
	}
	fit := func(o int) error {
		var err error
		results[o], err = probs[o].fit()
		return err
	}
	errs := make([]error, len(probs))
	if ls := newLockstep(e, &cfg, dict, len(probs), l); ls != nil {
		for _, p := range probs {
			p.batch = ls
		}
		errs = ls.run(len(probs), fit)
	} else {
		for o := range probs {
			if errs[o] = fit(o); errs[o] != nil {
				break
			}
		}
	}
	if err := firstError(errs, outClasses); err != nil {
		return nil, err
	}
	m := assemble(&cfg, dict.atoms, tr.x, trIdx, scaler, outClasses, results, true)
	m.origin = newOrigin(dict.atoms, tr.x, trIdx, results)
	return m, nil
}

func distinct(y []float64) []float64 {
	c := append([]float64(nil), y...)
	slices.Sort(c)
	return slices.Compact(c)
}

func checkFinite(what string, x backend.Matrix, y []float64) error {
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("kmp: %s row %d feature %d is %v", what, i, j, v)
			}
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("kmp: %s target %d is %v", what, i, v)
		}
	}
	return nil
}

// assemble builds the model: the union of the outputs' kernel atoms become
// the support vectors, the constant atom the bias.
// With mapCurve the curves' Support fields are mapped from training-part
// rows to rows of the caller's data.
func assemble(cfg *Config, dictAtoms []atom, x backend.Matrix, trIdx []int, scaler *data.Scaler, classes []float64, results []*result, mapCurve bool) *Model {
	m := &Model{
		Task: cfg.Task, Loss: cfg.Loss, Variant: cfg.Variant, Classes: classes,
		Kernels: append([]backend.Kernel(nil), cfg.Kernels...), Custom: cfg.Custom, Scaler: scaler,
	}
	slot := map[int]int{} // atom → support row
	var svAtoms []int
	for _, r := range results {
		for _, a := range r.atoms {
			if dictAtoms[a].kernel == biasKernel {
				continue
			}
			if _, ok := slot[a]; !ok {
				slot[a] = len(svAtoms)
				svAtoms = append(svAtoms, a)
			}
		}
	}
	m.Support = backend.NewMatrix(len(svAtoms), x.Cols)
	for s, a := range svAtoms {
		at := dictAtoms[a]
		copy(m.Support.Row(s), x.Row(at.center))
		m.SupportIndex = append(m.SupportIndex, trIdx[at.center])
		m.SupportKernel = append(m.SupportKernel, at.kernel)
	}
	if m.SupportIndex == nil {
		m.SupportIndex, m.SupportKernel = []int{}, []int{}
	}
	for _, r := range results {
		for i := range r.curve {
			if c := r.curve[i].Support; c >= 0 && mapCurve {
				r.curve[i].Support = trIdx[c]
			}
		}
		out := Output{Coef: make([]float64, len(svAtoms)), Steps: r.kept, Curve: r.curve, Stop: r.stop}
		for i, a := range r.atoms {
			if dictAtoms[a].kernel == biasKernel {
				out.Bias += r.coef[i]
				continue
			}
			out.Coef[slot[a]] += r.coef[i]
		}
		m.Outputs = append(m.Outputs, out)
	}
	return m
}

// newOrigin keeps what Truncate needs: the atoms and, of the training
// points, copies of only those that the outputs' paths use as centres (at
// most the steps run per output), so the model does not keep the training
// data alive nor depend on the caller leaving it unchanged.
func newOrigin(dictAtoms []atom, x backend.Matrix, trIdx []int, results []*result) *origin {
	o := &origin{atoms: append([]atom(nil), dictAtoms...)}
	slot := map[int]int{} // centre in x → row of o.x
	var rows []int
	for _, r := range results {
		o.paths = append(o.paths, r.path)
		if r.path == nil {
			continue
		}
		for _, a := range r.path.atoms {
			if c := dictAtoms[a].center; dictAtoms[a].kernel != biasKernel {
				if _, ok := slot[c]; !ok {
					slot[c] = len(rows)
					rows = append(rows, c)
				}
			}
		}
	}
	o.x = backend.NewMatrix(len(rows), x.Cols)
	o.trIdx = make([]int, len(rows))
	for k, c := range rows {
		copy(o.x.Row(k), x.Row(c))
		o.trIdx[k] = trIdx[c]
	}
	for i, a := range o.atoms {
		if k, ok := slot[a.center]; ok && a.kernel != biasKernel {
			o.atoms[i].center = k
		} else {
			o.atoms[i].center = -1 // not on any path: Truncate never uses it
		}
	}
	return o
}
