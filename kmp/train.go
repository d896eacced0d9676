package kmp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
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
//
// Several ranks: when e.Group() has more than one rank, every rank calls
// Train with the same Config and its own rows: x and y (and ValX, ValY) are
// this rank's part, possibly empty, and the training set is every rank's
// rows concatenated in rank order. Every rank returns the same model, the
// one a single process trains on the concatenated rows (the same atoms;
// decisions equal up to the order in which sums over the rows are added).
// SupportIndex and the curves' Support name rows of the concatenation. The
// ValFrac split, the classes and Scale's statistics are taken over all
// rows; the memory budget counts only this rank's share. Ranks started
// with different settings or rows of different widths, or a rank with bad
// input, stop every rank with an error (engine.ErrConfigMismatch); a Custom kernel
// must be the same function on every rank (only its name is compared). See
// shard.go for how a step is split.
func Train(e *engine.Engine, x pursuit.Matrix, y []float64, cfg Config) (*Model, error) {
	return train(e, x, y, cfg, false)
}

// TrainOneVsRest fits one machine per class (target +1 for the class, −1
// for the others) on one shared dictionary, even for two classes. Across
// several ranks it works as Train does.
func TrainOneVsRest(e *engine.Engine, x pursuit.Matrix, y []float64, cfg Config) (*Model, error) {
	if cfg.Task != Classification {
		return nil, pursuit.Configf("kmp: one-vs-rest needs a classification task")
	}
	return train(e, x, y, cfg, true)
}

// checkInput validates one rank's training rows and validation set.
// allowEmpty admits a rank without training rows (sharded runs).
func checkInput(x pursuit.Matrix, y []float64, cfg *Config, allowEmpty bool) error {
	if err := x.Validate(); err != nil {
		return pursuit.BadInputf("kmp: training data: %w", err)
	}
	if (x.Rows == 0 && !allowEmpty) || x.Cols == 0 {
		return pursuit.BadInputf("kmp: training data is empty (%d×%d)", x.Rows, x.Cols)
	}
	if len(y) != x.Rows {
		return pursuit.BadInputf("kmp: %d training rows but %d targets", x.Rows, len(y))
	}
	if err := checkSparseScale(cfg, x); err != nil {
		return err
	}
	if err := checkFinite("training", x, y); err != nil {
		return err
	}
	if cfg.ValX.Rows > 0 {
		if err := cfg.ValX.Validate(); err != nil {
			return pursuit.BadInputf("kmp: validation data: %w", err)
		}
		if cfg.ValX.Cols != x.Cols {
			return pursuit.BadInputf("kmp: validation data has %d features, training data %d", cfg.ValX.Cols, x.Cols)
		}
		if len(cfg.ValY) != cfg.ValX.Rows {
			return pursuit.BadInputf("kmp: validation set has %d rows but %d targets", cfg.ValX.Rows, len(cfg.ValY))
		}
		if err := checkFinite("validation", cfg.ValX, cfg.ValY); err != nil {
			return err
		}
	}
	return nil
}

func train(e *engine.Engine, x pursuit.Matrix, y []float64, cfg Config, forceOVR bool) (m *Model, err error) {
	if e == nil {
		return nil, errors.New("kmp: nil engine")
	}
	var sh *shard
	if c := e.Group(); c.Sharded() {
		if sh, err = startShard(c, x, y, &cfg); err != nil {
			return nil, err
		}
		defer func() {
			// An error of this rank alone would leave the others waiting in
			// a collective: bring the group down with it. Errors the ranks
			// agreed on (or met together) return on every rank.
			var ag agreedError
			if err != nil && sh.err == nil && !errors.As(err, &ag) {
				c.Abort(err)
			}
		}()
	} else if err := checkInput(x, y, &cfg, false); err != nil {
		return nil, err
	}
	if err := cfg.resolve(); err != nil {
		return nil, together(err)
	}
	classes, err := trainClasses(y, &cfg, sh)
	if err != nil {
		return nil, err
	}
	trIdx, vi, err := splitRows(x, y, &cfg, sh)
	if err != nil {
		return nil, err
	}
	td, err := prepareData(e, x, y, &cfg, sh, trIdx, vi)
	if td != nil {
		defer td.release(e)
	}
	if td != nil && identityRows(td.trIdx) {
		// The training part is x itself: nil stands for the identity
		// (trainRow), and the l-long list is not kept through training.
		td.trIdx, trIdx = nil, nil
	}
	if err != nil {
		return nil, err
	}

	// The dictionary, shared by all outputs; its atoms hold their centres
	// in int32.
	if td.lAll > math.MaxInt32 {
		return nil, fmt.Errorf("kmp: %d training points: at most %d (2³¹−1) can be centres", td.lAll, math.MaxInt32)
	}
	nCands := numCandidates(td.lAll, cfg.Candidates)
	atoms := everyPoint(&cfg, nCands)
	if nCands < td.lAll {
		atoms = listed(dictAtoms(&cfg, chooseCandidates(td.lAll, cfg.Candidates, cfg.Seed)))
	}
	dc := &dictionary{atoms: atoms, tr: td.tr, sh: sh}
	if sh.sharded() {
		if dc.cs, err = newCentres(e, sh, &cfg, td.tr.x, atoms, nCands); err != nil {
			return nil, err
		}
		defer e.Release(dc.cs.held)
	}
	dict, err := newDictionary(e, &cfg, dc) // in memory, streamed or stochastic (stream.go)
	if err != nil {
		return nil, err
	}
	defer func() { _ = dict.release(e) }()
	if td.vs != nil {
		td.vs.dict = dict
	}

	targets, outClasses := outputTargets(&cfg, classes, td.yt, td.valY, forceOVR)
	// The targets are the ±1 signs of the labels, or for regression the
	// labels themselves; the labels when they are the targets already
	// (signs). Training reads them and never writes them, and keeps no
	// other copy.
	td.yt = nil
	if cfg.ck, err = startCheckpoint(&cfg, x, y, len(targets), sh); err != nil {
		return nil, err
	}
	results, err := fitOutputs(e, &cfg, dict, td, sh, targets, outClasses)
	if err != nil {
		return nil, err
	}
	mx, mIdx, mAtoms := td.tr.x, td.trIdx, dict.atoms
	if sh.sharded() {
		// The chosen centres, which every rank kept, and their rows in the
		// concatenated input.
		var remapped []atom
		mx, mIdx, remapped = dict.cs.modelRows(dict.atoms)
		mAtoms = listed(remapped)
		for _, r := range results {
			for i := range r.curve {
				if c := r.curve[i].Support; c >= 0 {
					r.curve[i].Support = sh.origRow(c)
				}
			}
		}
	}
	atomOf := mAtoms.at
	m = assemble(&cfg, atomOf, mx, mIdx, td.scaler, outClasses, results, !sh.sharded())
	m.origin = newOrigin(atomOf, mx, mIdx, results)
	return m, nil
}

// trainClasses returns the classes of a classification task (over every
// rank's labels), checking that there are two or more and that the
// validation labels are among them; nil for regression.
func trainClasses(y []float64, cfg *Config, sh *shard) ([]float64, error) {
	if cfg.Task != Classification {
		return nil, nil
	}
	classes := distinct(y)
	if sh.sharded() {
		var err error
		if classes, err = sh.union(classes); err != nil {
			return nil, err
		}
	}
	if len(classes) < 2 {
		return nil, together(pursuit.BadInputf("kmp: classification needs at least two classes, the training labels have %d", len(classes)))
	}
	var bad error
	if cfg.ValX.Rows > 0 {
		for i, v := range cfg.ValY {
			if _, ok := slices.BinarySearch(classes, v); !ok {
				bad = pursuit.BadInputf("kmp: validation label %v (row %d) is not a training class", v, i)
				break
			}
		}
	}
	if err := sh.agree(bad); errors.Is(err, engine.ErrRankFailed) {
		return nil, pursuit.BadInputf("kmp: bad validation labels: %w", err)
	} else if err != nil {
		return nil, err
	}
	return classes, nil
}

// splitRows returns the rows of the training part (local indices into x,
// increasing) and, with ValFrac, those split off for validation. The split
// is drawn over every rank's rows, alike on each; a sharded run keeps the
// training part's rows in the concatenation (sh.orig) for the model.
func splitRows(x pursuit.Matrix, y []float64, cfg *Config, sh *shard) (trIdx, vi []int, err error) {
	trIdx = make([]int, x.Rows)
	for i := range trIdx {
		trIdx[i] = i
	}
	if cfg.ValFrac <= 0 {
		return trIdx, nil, nil
	}
	n := x.Rows
	var labels []float64
	if cfg.Task == Classification {
		labels = y
	}
	if sh.sharded() {
		n = sh.rows()
		if labels != nil {
			if labels, err = sh.gatherAll(y, sh.inRows()); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := data.CheckSplit(n, []float64{1 - cfg.ValFrac, cfg.ValFrac}, labels); err != nil {
		return nil, nil, together(fmt.Errorf("kmp: validation split: %w", err))
	}
	parts := data.Split(n, []float64{1 - cfg.ValFrac, cfg.ValFrac}, cfg.Seed, labels)
	trIdx = parts[0]
	slices.Sort(trIdx)
	vi = parts[1]
	slices.Sort(vi)
	if len(trIdx) == 0 || len(vi) == 0 {
		return nil, nil, together(pursuit.Configf("kmp: ValFrac %v leaves %d training and %d validation rows", cfg.ValFrac, len(trIdx), len(vi)))
	}
	if sh.sharded() {
		// This rank's rows of either part, as local indices.
		sh.orig = trIdx
		vi, _ = sh.localPart(vi)
		trIdx, sh.offset = sh.localPart(trIdx)
		cfg.valRows = len(parts[1])
	}
	return trIdx, vi, nil
}

// trainData is what the outputs train on: the training part (the caller's
// rows, or a copy when Scale or ValFrac asks for one) with its targets and
// squared norms, the validation set, and the scaler the model keeps.
type trainData struct {
	trIdx      []int // the training part's rows, local indices into x; nil (once prepared): all of x, in order (trainRow)
	yt         []float64
	valY       []float64
	l          int // this rank's training rows
	lAll, nVal int // every rank's training and validation rows
	scaler     *data.Scaler
	tr         trainSet
	vs         *valSet // nil without validation
	// held is what the copies charge to the engine's budget (Hold) while
	// training; release gives it back.
	held int64
}

// checkSparseScale refuses a Scale that would fill in the zeros of sparse
// training or validation rows (min-max with a non-zero minimum, standard):
// the model would not be the one the same data held dense gets, and the
// rows would no longer be sparse. Max-abs scaling keeps the zeros.
func checkSparseScale(cfg *Config, x pursuit.Matrix) error {
	if cfg.Scale == "" || cfg.Scale.KeepsZeros() || (!x.IsSparse() && !cfg.ValX.IsSparse()) {
		return nil
	}
	return pursuit.Configf("kmp: Scale %q on sparse rows would fill in their zeros: use %q (or %q), which keep them, or dense rows",
		cfg.Scale, data.ScaleMaxAbs, data.ScaleNone)
}

// copyBytes is the size of the copies prepareData makes of the caller's
// rows, held as the caller's are (RowsBytes: O(non-zeros) for sparse
// rows): the training part trIdx when Scale or ValFrac asks for one, the
// validation rows vi that ValFrac splits off, and the given validation set
// when Scale scales it.
func copyBytes(cfg *Config, x pursuit.Matrix, trIdx, vi []int) int64 {
	var b int64
	if cfg.Scale != data.ScaleNone || cfg.ValFrac > 0 {
		b += pursuit.RowsBytes(x, trIdx)
	}
	if cfg.ValFrac > 0 {
		b += pursuit.RowsBytes(x, vi)
	} else if cfg.Scale != data.ScaleNone {
		b += cfg.ValX.Bytes()
	}
	return b
}

// prepareData makes the training and validation data: the caller's
// matrices as they are when there is nothing to scale or split, else
// copies (scaled in place), held against the engine's memory budget while
// training, so that the dictionary and the fitters plan with what is left.
// Nothing keeps them after training (assemble copies the rows it needs).
// The data it returns is to be released even with an error.
func prepareData(e *engine.Engine, x pursuit.Matrix, y []float64, cfg *Config, sh *shard, trIdx, vi []int) (*trainData, error) {
	l := len(trIdx)
	td := &trainData{trIdx: trIdx, l: l, lAll: l, valY: cfg.ValY}
	valX := cfg.ValX
	td.nVal = valX.Rows
	if cfg.ValFrac > 0 {
		td.nVal = len(vi)
	}
	if sh.sharded() {
		td.lAll, td.nVal = sh.rows(), cfg.valRows
	}
	scale := cfg.Scale != data.ScaleNone
	if scale || cfg.ValFrac > 0 {
		bytes := copyBytes(cfg, x, trIdx, vi)
		what := fmt.Sprintf("kmp's copy of the training data (%d rows × %d features, %s; Scale %q, ValFrac %v)", l+len(vi), x.Cols, storageName(x), cfg.Scale, cfg.ValFrac)
		if err := holdAll(e, sh, what, bytes); err != nil {
			return td, fmt.Errorf("kmp: %w", err)
		}
		td.held = bytes
	}
	if cfg.ValFrac > 0 {
		valX = pursuit.RowsOf(x, vi)
		td.valY = make([]float64, len(vi))
		for r, i := range vi {
			td.valY[r] = y[i]
		}
	}
	xt := x
	if scale || cfg.ValFrac > 0 {
		xt = pursuit.RowsOf(x, trIdx)
	}
	if cfg.ValFrac > 0 {
		td.yt = make([]float64, l)
		for r, i := range trIdx {
			td.yt[r] = y[i]
		}
	} else {
		td.yt = y // every row trains, in order: read, never written
	}
	if scale {
		var err error
		if sh.sharded() {
			td.scaler, err = data.FitScalerComm(cfg.Scale, xt, sh.c)
		} else {
			td.scaler, err = data.FitScaler(cfg.Scale, xt)
		}
		if err != nil {
			return td, fmt.Errorf("kmp: %w", err)
		}
		if err := td.scaler.Apply(xt); err != nil {
			return td, fmt.Errorf("kmp: scaling training data: %w", err)
		}
	}
	td.tr = trainSet{x: xt}
	if cfg.Stochastic != nil && e.ResidentBlocks() && !sh.sharded() {
		// A device keeps X prepared for the stochastic search
		// (newDictionary); its norms come with it, so X is uploaded once.
		prep, err := e.Prepare(xt)
		if err != nil {
			return td, fmt.Errorf("kmp: %w", err)
		}
		td.tr.prep = prep
		td.tr.norms = prep.Norms()
	} else {
		var err error
		if td.tr.norms, err = e.SqNorms(xt); err != nil {
			return td, fmt.Errorf("kmp: %w", err)
		}
	}
	if td.nVal > 0 {
		vs, err := validationSet(e, cfg, valX, td.scaler, x.Cols)
		if err != nil {
			return td, err
		}
		td.vs = vs
	}
	return td, nil
}

// validationSet scales the validation rows valX (a copy already when
// ValFrac split them off; copied here otherwise) and takes their norms.
func validationSet(e *engine.Engine, cfg *Config, valX pursuit.Matrix, scaler *data.Scaler, cols int) (*valSet, error) {
	xv := valX
	if xv.Rows == 0 {
		xv = pursuit.NewMatrix(0, cols) // a rank without validation rows
	}
	if scaler != nil {
		if cfg.ValFrac == 0 {
			xv = pursuit.RowsOf(valX, seq(valX.Rows))
		}
		if err := scaler.Apply(xv); err != nil {
			return nil, fmt.Errorf("kmp: scaling validation data: %w", err)
		}
	}
	pts := trainSet{x: xv}
	var err error
	if pts.norms, err = e.SqNorms(xv); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	return &valSet{e: e, cfg: cfg, pts: pts, cache: map[int][]float64{}}, nil
}

// release gives back the prepared X and the copies' budget.
func (td *trainData) release(e *engine.Engine) {
	if td.tr.prep != nil {
		_ = td.tr.prep.Release()
	}
	e.Release(td.held)
}

// target is one output's targets at the training and validation points.
type target struct{ y, valY []float64 }

// outputTargets returns the outputs' targets (real for regression, ±1 for
// a binary machine or each class of one-vs-rest) and the model's classes.
func outputTargets(cfg *Config, classes, yt, valY []float64, forceOVR bool) ([]target, []float64) {
	switch {
	case cfg.Task == Regression:
		return []target{{yt, valY}}, nil
	case len(classes) == 2 && !forceOVR:
		return []target{{signs(yt, classes[1]), signs(valY, classes[1])}}, classes
	}
	var targets []target
	for _, c := range classes {
		targets = append(targets, target{signs(yt, c), signs(valY, c)})
	}
	return targets, classes
}

// signs returns the ±1 targets of labels y for class positive
// (data.Signs): y itself when they are y already (labels +1 and −1 with
// positive +1, as most binary LIBSVM files have them), which saves a copy
// as long as the training rows; else a new slice.
func signs(y []float64, positive float64) []float64 {
	if positive == 1 && !slices.ContainsFunc(y, func(v float64) bool { return v != 1 && v != -1 }) {
		return y
	}
	return data.Signs(y, positive)
}

// fitOutputs trains the outputs side by side (one dictionary pass per
// step for all of them) where they can, else one after the other; either
// way each output's expansion is the one it gets alone.
func fitOutputs(e *engine.Engine, cfg *Config, dict *dictionary, td *trainData, sh *shard, targets []target, outClasses []float64) ([]*result, error) {
	results := make([]*result, len(targets))
	probs := make([]*problem, len(targets))
	for o, t := range targets {
		// Classification outputs see ±1 targets; their error is sign(f) ≠ y.
		probs[o] = &problem{e: e, cfg: cfg, dict: dict, y: t.y, val: td.vs, valY: t.valY, output: o, sh: sh, n: td.lAll, nVal: td.nVal}
	}
	fit := func(o int) error {
		var err error
		results[o], err = probs[o].fit()
		if err == nil {
			err = cfg.ck.finish(o, cfg.N)
		}
		return err
	}
	errs := make([]error, len(probs))
	if ls := newLockstep(e, cfg, dict, len(probs), td.l, td.lAll); ls != nil {
		for _, p := range probs {
			p.batch = ls
		}
		errs = ls.run(len(probs), fit, cfg.Progress)
	} else {
		for o := range probs {
			if errs[o] = fit(o); errs[o] != nil {
				break
			}
		}
	}
	if err := firstError(errs, outClasses); err != nil {
		return nil, cfg.ck.stopped(err)
	}
	return results, nil
}

// distinct returns the sorted distinct values of y, in a slice of their
// own: not a prefix of a copy of y, which would keep l values alive for a
// handful of classes.
func distinct(y []float64) []float64 {
	c := append([]float64(nil), y...)
	slices.Sort(c)
	return slices.Clone(slices.Compact(c))
}

func checkFinite(what string, x pursuit.Matrix, y []float64) error {
	for i := range x.Rows {
		bad, badJ := float32(0), -1
		x.ForEachNonZero(i, func(j int, v float32) {
			if badJ < 0 && (math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)) {
				bad, badJ = v, j
			}
		})
		if badJ >= 0 {
			return pursuit.BadInputf("kmp: %s row %d feature %d is %v", what, i, badJ, bad)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return pursuit.BadInputf("kmp: %s target %d is %v", what, i, v)
		}
	}
	return nil
}

// assemble builds the model: the union of the outputs' kernel atoms become
// the support vectors, the constant atom the bias.
// With mapCurve the curves' Support fields are mapped from training-part
// rows to rows of the caller's data.
func assemble(cfg *Config, atomOf func(k int) atom, x pursuit.Matrix, trIdx []int, scaler *data.Scaler, classes []float64, results []*result, mapCurve bool) *Model {
	m := &Model{
		Task: cfg.Task, Loss: cfg.Loss, Variant: cfg.Variant, Classes: classes,
		Kernels: append([]pursuit.Kernel(nil), cfg.Kernels...), Custom: cfg.Custom, Scaler: scaler,
	}
	slot := map[int]int{} // atom → support row
	var svAtoms []int
	for _, r := range results {
		for _, a := range r.atoms {
			if atomOf(a).kernel == biasKernel {
				continue
			}
			if _, ok := slot[a]; !ok {
				slot[a] = len(svAtoms)
				svAtoms = append(svAtoms, a)
			}
		}
	}
	centres := make([]int, len(svAtoms))
	for s, a := range svAtoms {
		centres[s] = int(atomOf(a).center)
	}
	m.Support = pursuit.RowsOf(x, centres) // sparse rows stay sparse
	for _, a := range svAtoms {
		at := atomOf(a)
		m.SupportIndex = append(m.SupportIndex, trainRow(trIdx, int(at.center)))
		m.SupportKernel = append(m.SupportKernel, int(at.kernel))
	}
	if m.SupportIndex == nil {
		m.SupportIndex, m.SupportKernel = []int{}, []int{}
	}
	for _, r := range results {
		for i := range r.curve {
			if c := r.curve[i].Support; c >= 0 && mapCurve {
				r.curve[i].Support = trainRow(trIdx, c)
			}
		}
		out := Output{Coef: make([]float64, len(svAtoms)), Steps: r.kept, Curve: r.curve, Stop: r.stop}
		for i, a := range r.atoms {
			if atomOf(a).kernel == biasKernel {
				out.Bias += r.coef[i]
				continue
			}
			out.Coef[slot[a]] += r.coef[i]
		}
		m.Outputs = append(m.Outputs, out)
	}
	return m
}

// newOrigin keeps what Truncate needs: the atoms the outputs' paths
// choose (not the whole dictionary, as long as the training points for a
// stochastic search) and, of the training points, copies of only those
// that they are centred on (at most the steps run per output), so the
// model does not keep the training data alive nor depend on the caller
// leaving it unchanged.
func newOrigin(atomOf func(k int) atom, x pursuit.Matrix, trIdx []int, results []*result) *origin {
	o := &origin{atoms: map[int]atom{}}
	slot := map[int]int{} // centre in x → row of o.x
	var rows []int
	for _, r := range results {
		o.paths = append(o.paths, r.path)
		if r.path == nil {
			continue
		}
		for _, k := range r.path.atoms {
			a := atomOf(k)
			if a.kernel != biasKernel {
				c, ok := slot[int(a.center)]
				if !ok {
					c = len(rows)
					slot[int(a.center)] = c
					rows = append(rows, int(a.center))
				}
				a.center = int32(c)
			}
			o.atoms[k] = a
		}
	}
	o.x = pursuit.RowsOf(x, rows)
	o.trIdx = make([]int, len(rows))
	for k, c := range rows {
		o.trIdx[k] = trainRow(trIdx, c)
	}
	return o
}

// seq returns 0, 1, …, n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// storageName says how x holds its rows, for messages.
func storageName(x pursuit.Matrix) string {
	if x.IsSparse() {
		return "sparse"
	}
	return "float32"
}

// identityRows reports whether idx lists 0, 1, …, len(idx)−1.
func identityRows(idx []int) bool {
	for r, i := range idx {
		if i != r {
			return false
		}
	}
	return true
}

// trainRow returns the row of the caller's data that row r of the training
// part is: trIdx[r], or r where trIdx is nil (the identity).
func trainRow(trIdx []int, r int) int {
	if trIdx == nil {
		return r
	}
	return trIdx[r]
}
