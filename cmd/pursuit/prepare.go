package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
	"github.com/pursuit-ml/pursuit/learn"
)

func nan() float64 { return math.NaN() }

// loadOptions returns the data options of the flags, forcing dim features
// when dim > 0 (test and prediction data must match the model).
func (d *dataFlags) loadOptions(dim int) []data.Option {
	opts := []data.Option{data.WithHintNames("--header", "--format libsvm")}
	switch d.format {
	case "libsvm":
		opts = append(opts, data.WithFormat(data.FormatLibSVM))
	case "csv":
		opts = append(opts, data.WithFormat(data.FormatCSV))
	}
	if d.labelColumn != 0 {
		opts = append(opts, data.WithLabelColumn(d.labelColumn))
	}
	if d.header {
		opts = append(opts, data.WithHeader(true))
	}
	if dim > 0 {
		opts = append(opts, data.WithDim(dim))
	}
	return append(opts, data.WithStorage(d.loadStorage()))
}

// formatOption is --format as a data.Format.
func (d *dataFlags) formatOption() data.Format {
	switch d.format {
	case "libsvm":
		return data.FormatLibSVM
	case "csv":
		return data.FormatCSV
	}
	return data.FormatAuto
}

// sparseAlgos are the algorithms checked to train and predict on sparse
// rows (the same models as on dense rows); the others get their data
// dense. The list grows as each algorithm is verified (issue 28).
var sparseAlgos = map[string]bool{
	"svm": true,
	"kmp": true, "kmp-backfit": true, "kmp-basic": true, "kmp-tanh": true, "skmp": true,
	"mpkfda": true, "slmc": true, "bpdn": true,
}

// sparseAlgoList names the algorithms of sparseAlgos, or says there are
// none yet.
func sparseAlgoList() string {
	var names []string
	for _, a := range algorithms() {
		if sparseAlgos[a.name] {
			names = append(names, a.name)
		}
	}
	if len(names) == 0 {
		return "none yet"
	}
	return strings.Join(names, ", ")
}

// loadStorage is the storage the data are loaded in: --storage, except
// dense for an algorithm that does not take sparse rows yet and for the
// commands without the flag.
func (d *dataFlags) loadStorage() data.Storage {
	if d.storage == "" || !d.sparseOK {
		return data.StorageDense
	}
	st, err := data.ParseStorage(d.storage)
	if err != nil {
		return data.StorageDense // validate refused it already
	}
	return st
}

// storageNote is the warning for --storage sparse with an algorithm that
// does not take sparse rows yet ("" otherwise).
func (d *dataFlags) storageNote() string {
	if d.storage != "sparse" || d.sparseOK {
		return ""
	}
	return fmt.Sprintf("warning: --algo %s does not take sparse rows yet: the data are held dense, as with --storage dense", d.storageAlgo)
}

// storageJSON is the "storage" object of the JSON output: how the
// training data are held and why.
type storageJSON struct {
	Kind    string  `json:"kind"`      // dense or sparse
	Asked   string  `json:"requested"` // --storage
	Density float64 `json:"density"`   // non-zeros / (rows·features), this rank's rows
	NNZ     int64   `json:"nnz"`       // non-zeros, this rank's rows
	Bytes   int64   `json:"bytes"`     // the features' memory, this rank's rows
	Reason  string  `json:"reason"`
}

// describeStorage says how ds is held and why, given the flags.
func (d *dataFlags) describeStorage(ds *data.Dataset) *storageJSON {
	nnz := data.CountNonZeros(ds.X)
	asked := d.storage
	if asked == "" {
		asked = "dense"
	}
	kind := "dense"
	if ds.X.IsSparse() {
		kind = "sparse"
	}
	_, why := data.ResolveStorage(data.Storage(asked), ds.Len(), ds.Dim(), nnz)
	if !d.sparseOK && asked != "dense" {
		auto, autoWhy := data.ResolveStorage(data.StorageAuto, ds.Len(), ds.Dim(), nnz)
		if auto == data.StorageSparse || asked == "sparse" {
			why = fmt.Sprintf("--algo %s does not take sparse rows yet, so the data are held dense (--storage %s; %s)", d.storageAlgo, asked, autoWhy)
		} else {
			why = autoWhy
		}
	}
	return &storageJSON{Kind: kind, Asked: asked, Density: data.Density(ds.Len(), ds.Dim(), nnz), NNZ: nnz, Bytes: ds.X.Bytes(), Reason: why}
}

// csvLabelColumn returns the 0-based column the labels of path were read
// from when it was read as CSV with dim features; ok is false for LIBSVM.
func csvLabelColumn(path, format string, labelColumn, dim int) (col int, ok bool) {
	f := data.FormatAuto
	switch format {
	case "libsvm":
		f = data.FormatLibSVM
	case "csv":
		f = data.FormatCSV
	}
	if data.ResolveFormat(path, f) != data.FormatCSV {
		return 0, false
	}
	if labelColumn < 0 {
		return labelColumn + dim + 1, true // dim features + the label
	}
	return labelColumn, true
}

// describeLabelColumn says where the labels of a CSV file came from, for
// the human-readable output; "" for LIBSVM.
func describeLabelColumn(path, format string, labelColumn, dim int) string {
	col, ok := csvLabelColumn(path, format, labelColumn, dim)
	if !ok {
		return ""
	}
	switch {
	case col == 0:
		return "labels from CSV column 0 (the first; --label-column to change)"
	case col == dim:
		return fmt.Sprintf("labels from CSV column %d (the last)", col)
	}
	return fmt.Sprintf("labels from CSV column %d", col)
}

// loadData reads a data file, checking it has examples. Data over the data
// package's memory limit (data.DefaultMemoryLimit unless opts say
// otherwise) gets an error in the command's terms.
func loadData(path string, opts []data.Option) (*data.Dataset, error) {
	ds, err := data.Load(path, opts...)
	if err != nil {
		return nil, budgetError(err, "")
	}
	if ds.Len() == 0 {
		return nil, fmt.Errorf("%s: no examples", path)
	}
	return ds, nil
}

// loadForModel reads the data a saved model is applied to (predict, plot,
// bound) within e's memory budget, and charges it: padded to the model's
// features, and refused, naming the model, when it has more.
//
// For a model whose algorithm takes sparse rows, a LIBSVM file that is not
// held dense (--storage auto or sparse) may name features beyond the
// model's, as svm-predict accepts them: its rows are read as they are and
// widened to the model's features when narrower. The scaler, fitted on the
// model's features, leaves the others as they are.
func loadForModel(e *engine.Engine, path string, df *dataFlags, m *learn.File, modelPath string) (*data.Dataset, error) {
	dim := m.Header.Dim
	wide := df.sparseOK && df.loadStorage() != data.StorageDense &&
		data.ResolveFormat(path, df.formatOption()) == data.FormatLibSVM && dim > 0
	if wide {
		dim = 0
	}
	ds, err := loadWithin(e, path, df.loadOptions(dim))
	if errors.Is(err, data.ErrFeatureMismatch) {
		return nil, fmt.Errorf("%w (model %s was trained on %d features)", err, modelPath, m.Header.Dim)
	}
	if err != nil || !wide {
		return ds, err
	}
	switch x := &ds.X; {
	case x.Cols == m.Header.Dim:
	case x.IsSparse() && x.Cols < m.Header.Dim:
		x.Cols = m.Header.Dim // the rows' non-zeros stay where they are
	case x.IsSparse():
		if m.Header.Scaler != nil {
			m.Header.Scaler = widenScaler(m.Header.Scaler, x.Cols)
		}
	default:
		// Held dense (auto chose it): as with the model's feature count.
		e.Release(ds.Bytes())
		return loadWithin(e, path, df.loadOptions(m.Header.Dim))
	}
	return ds, nil
}

// widenScaler returns a copy of s for cols ≥ its features: the features
// beyond them are left as they are (scale 1, offset 0).
func widenScaler(s *data.Scaler, cols int) *data.Scaler {
	if len(s.Scale) != len(s.Offset) {
		return s // a damaged scaler, which Apply reports
	}
	w := *s
	w.Scale = append(append([]float64(nil), s.Scale...), make([]float64, cols-len(s.Scale))...)
	for j := len(s.Scale); j < cols; j++ {
		w.Scale[j] = 1
	}
	w.Offset = append(append([]float64(nil), s.Offset...), make([]float64, cols-len(s.Offset))...)
	return &w
}

// budgetError restates the data package's memory-limit error (a
// *data.LimitError) in terms of the flag that sets the limit (none: the
// command's fixed limit); other errors are returned as they are.
func budgetError(err error, flag string) error {
	var le *data.LimitError
	if !errors.As(err, &le) {
		return err
	}
	where := ""
	var pe *data.ParseError
	if errors.As(err, &pe) {
		where = pe.File
		if pe.Line > 0 {
			where += ":" + strconv.Itoa(pe.Line)
		}
		where += ": "
	}
	sparse := ""
	if le.SparseNeed > 0 {
		sparse = fmt.Sprintf("; use sparse storage, which needs %s (--storage sparse, with an algorithm that takes sparse rows: %s)",
			engine.FormatBytes(le.SparseNeed), sparseAlgoList())
	}
	if flag == "" {
		return fmt.Errorf("%s%s needs %s, over the %s limit for data held in memory%s: %w",
			where, le.What, engine.FormatBytes(le.Need), engine.FormatBytes(le.Limit), sparse, engine.ErrBudget)
	}
	return fmt.Errorf("%s%s needs %s, over the %s that %s leaves for it (raise %s, or train on fewer examples or features)%s: %w",
		where, le.What, engine.FormatBytes(le.Need), engine.FormatBytes(le.Limit), flag, flag, sparse, engine.ErrBudget)
}

// loadWithin loads path within what e's memory budget leaves and charges
// the loaded data to it. Across ranks (e's communicator has several), each
// rank loads its block of the examples (data.WithShard), which may be
// empty.
func loadWithin(e *engine.Engine, path string, opts []data.Option) (*data.Dataset, error) {
	opts = append(opts, data.WithMemoryLimit(max(e.Available(), 1)))
	c := e.Comm()
	if c.Size() > 1 {
		opts = append(opts, data.WithShard(c.Rank(), c.Size()))
	}
	ds, err := data.Load(path, opts...)
	if err != nil {
		return nil, budgetError(err, "--mem-budget")
	}
	if ds.Len() == 0 && c.Size() == 1 {
		return nil, fmt.Errorf("%s: no examples", path)
	}
	if err := e.Hold("the data of "+path, ds.Bytes()); err != nil {
		return nil, err
	}
	return ds, nil
}

// prepared is the data of one training run: the training and validation
// parts and the test set, scaled.
type prepared struct {
	tr, val, test *data.Dataset // val nil without --val-frac, test nil without --test
	raw           *data.Dataset // unscaled copy of tr, when asked for
	scaler        *data.Scaler
	held          int64 // bytes of working copies charged to the engine
}

// prepare holds out the --val-frac part of ds (stratified for
// classification) and scales the training, validation and test sets with
// the scaling fitted on the training part. With inPlace, ds and test are
// the working sets themselves: ds's rows are reordered (training rows
// first), both are scaled in place and the parts are views of ds, so no
// data-sized copy is made. Otherwise the working sets are copies, charged
// to e's budget: e.Release(p.held) when done with them. keepRaw keeps an
// unscaled copy of the training part (for plots; also charged).
func prepare(e *engine.Engine, df *dataFlags, seed int64, plan *learn.LabelPlan, ds, test *data.Dataset, inPlace, keepRaw bool) (p *prepared, err error) {
	p = &prepared{}
	defer func() {
		if err != nil {
			e.Release(p.held)
		}
	}()
	work := func(d *data.Dataset) (*data.Dataset, error) {
		if d == nil || inPlace {
			return d, nil
		}
		if err := e.Hold("a working copy of "+d.Name, d.Bytes()); err != nil {
			return nil, err
		}
		p.held += d.Bytes()
		return d.Subset(identity(d.Len())), nil
	}
	if ds, err = work(ds); err != nil {
		return nil, err
	}
	if p.test, err = work(test); err != nil {
		return nil, err
	}
	if p.tr, p.val, err = splitVal(ds, df.valFrac, seed, plan); err != nil {
		return nil, err
	}
	if keepRaw {
		if err := e.Hold("an unscaled copy of "+ds.Name, p.tr.Bytes()); err != nil {
			return nil, err
		}
		p.held += p.tr.Bytes()
		p.raw = p.tr.Subset(identity(p.tr.Len()))
	}
	if p.scaler, err = fitScalerOn(e, df.scale, p.tr); err != nil {
		return nil, err
	}
	// The training and validation parts are the rows of ds: one pass.
	for _, d := range []*data.Dataset{ds, p.test} {
		if err := scaleInPlace(p.scaler, d); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// splitVal holds out a stratified fraction of ds for validation, in place:
// it reorders ds's rows, training rows first, and returns views of the two
// parts; val is nil when frac is 0.
func splitVal(ds *data.Dataset, frac float64, seed int64, plan *learn.LabelPlan) (train, val *data.Dataset, err error) {
	if frac == 0 {
		return ds, nil, nil
	}
	var strat []float64
	if plan.Task != learn.TaskRegression {
		strat = ds.Y
	}
	if err := data.CheckSplit(ds.Len(), []float64{1 - frac, frac}, strat); err != nil {
		return nil, nil, fmt.Errorf("--val-frac: %w", err)
	}
	sets := data.Split(ds.Len(), []float64{1 - frac, frac}, uint64(seed), strat)
	if len(sets[0]) == 0 || len(sets[1]) == 0 {
		return nil, nil, fmt.Errorf("--val-frac %v of %d examples leaves an empty training or validation set", frac, ds.Len())
	}
	n0 := len(sets[0])
	if err := ds.Reorder(append(sets[0], sets[1]...)); err != nil {
		return nil, nil, err
	}
	return ds.View(0, n0), ds.View(n0, ds.Len()), nil
}

// scaleMode parses --scale for ds: auto is data.DefaultScaleMode (maxabs
// for sparse rows, minmax for dense ones).
func scaleMode(mode string, ds *data.Dataset) (data.ScaleMode, error) {
	if mode == "auto" {
		return data.DefaultScaleMode(ds.X), nil
	}
	m, err := data.ParseScaleMode(mode)
	if err != nil {
		return "", fmt.Errorf("--scale: %w", err)
	}
	return m, nil
}

// fitScaler fits the scaling of the flags on ds.
func fitScaler(mode string, ds *data.Dataset) (*data.Scaler, error) {
	m, err := scaleMode(mode, ds)
	if err != nil {
		return nil, err
	}
	s, err := data.FitScaler(m, ds.X)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return s, nil
}

// fitScalerOn fits the scaling of the flags on ds: across ranks, on every
// rank's rows of it together (a collective).
func fitScalerOn(e *engine.Engine, mode string, ds *data.Dataset) (*data.Scaler, error) {
	c := e.Comm()
	if c.Size() == 1 {
		return fitScaler(mode, ds)
	}
	m, err := scaleMode(mode, ds)
	if err != nil {
		return nil, err
	}
	s, err := data.FitScalerComm(m, ds.X, e.Group())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return s, nil
}

// scaleInPlace scales ds (nothing for a nil ds).
func scaleInPlace(s *data.Scaler, ds *data.Dataset) error {
	if ds == nil {
		return nil
	}
	if err := s.Apply(ds.X); err != nil {
		return fmt.Errorf("%s: %w", ds.Name, err)
	}
	return nil
}

// loadTrainTest reads the --data file, the --test file if given (padded to
// the training data's features, and refused if it has more), within what
// e's memory budget leaves, charging both to it, and plans the labels
// (binary, one-vs-rest or regression) from the training labels. The run is
// then bounded by the budget: the Go heap's limit is set from it.
func (d *dataFlags) loadTrainTest(e *engine.Engine) (all, test *data.Dataset, plan learn.LabelPlan, err error) {
	limitHeap(e.MemoryBudget())
	c := e.Comm() // across ranks, each loads its block; they agree on the outcome
	all, err = loadWithin(e, d.data, d.loadOptions(0))
	if err = agreeOn(c, err); err != nil {
		return nil, nil, learn.LabelPlan{}, err
	}
	if c.Size() > 1 {
		n, err := engine.GroupOf(c).Sum(all.Len())
		if err == nil && n == 0 {
			err = fmt.Errorf("%s: no examples", d.data)
		}
		if err != nil {
			return nil, nil, learn.LabelPlan{}, err
		}
	}
	if d.test != "" {
		test, err = loadWithin(e, d.test, d.loadOptions(all.Dim()))
		if err != nil && !errors.Is(err, engine.ErrBudget) {
			err = fmt.Errorf("%w (the test data must have the training data's %d features)", err, all.Dim())
		}
		if err = agreeOn(c, err); err != nil {
			return nil, nil, learn.LabelPlan{}, err
		}
	}
	if plan, err = planLabelsOn(c, all.Y, d); err != nil {
		return nil, nil, learn.LabelPlan{}, fmt.Errorf("%s: %w", d.data, err)
	}
	return all, test, plan, nil
}

// planLabelsOn is planLabels on the labels of every rank: each rank passes
// its own (a collective across ranks). Regression targets are checked on
// each rank; classes are the union of the ranks' distinct labels, gathered.
func planLabelsOn(c comm.Comm, y []float64, d *dataFlags) (learn.LabelPlan, error) {
	if c.Size() == 1 {
		return planLabels(y, d)
	}
	if d.regression {
		var err error
		if len(y) > 0 {
			err = data.CheckTargets(y)
		}
		if err := agree(c, err); err != nil {
			return learn.LabelPlan{}, err
		}
		return learn.LabelPlan{Task: learn.TaskRegression}, nil
	}
	cls, err := engine.GroupOf(c).Labels(y)
	if err != nil {
		return learn.LabelPlan{}, err
	}
	if len(cls) == 1 {
		return learn.LabelPlan{}, fmt.Errorf("every training example is labelled %v: a classifier needs at least two classes", cls[0])
	}
	// planLabels' decisions depend on the set of labels only.
	return planLabels(cls, d)
}
