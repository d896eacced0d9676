package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// loadOptions returns the data options of the flags, forcing dim features
// when dim > 0 (learn.DataSettings.LoadOptions).
func (d *dataFlags) loadOptions(dim int) []data.Option {
	return d.LoadOptions(dim, d.sparseOK, flagName)
}

// storageNote is the warning for --storage sparse with an algorithm that
// does not take sparse rows yet ("" otherwise).
func (d *dataFlags) storageNote() string {
	if d.Storage != "sparse" || d.sparseOK {
		return ""
	}
	return fmt.Sprintf("warning: --algo %s does not take sparse rows yet: the data are held dense, as with --storage dense", d.storageAlgo)
}

// storageJSON is the "storage" object of the JSON output: how the
// training data are held and why.
type storageJSON = data.StorageReport

// describeStorage says how ds is held and why, given the flags.
func (d *dataFlags) describeStorage(ds *data.Dataset) *storageJSON {
	denseOnly := ""
	if !d.sparseOK {
		denseOnly = fmt.Sprintf("--algo %s does not take sparse rows yet", d.storageAlgo)
	}
	return data.DescribeStorage(ds, data.Storage(d.Storage), "--storage", denseOnly)
}

// csvLabelColumn returns the 0-based column the labels of path were read
// from when it was read as CSV with dim features; ok is false for LIBSVM.
func csvLabelColumn(path, format string, labelColumn, dim int) (col int, ok bool) {
	return data.LabelColumnOf(path, (&learn.DataSettings{Format: format}).FormatOf(), labelColumn, dim)
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
// bound) within e's memory budget (learn.File.LoadData), its errors naming
// the model and the flags.
func loadForModel(e *engine.Engine, path string, df *dataFlags, m *learn.File, modelPath string) (*data.Dataset, error) {
	ds, err := m.LoadData(e, path, df.StorageFor(df.sparseOK), df.FormatOf(), df.loadOptions(0)...)
	if errors.Is(err, data.ErrFeatureMismatch) {
		return nil, fmt.Errorf("%w (model %s was trained on %d features)", err, modelPath, m.Header.Dim)
	}
	return ds, budgetError(err, "--mem-budget")
}

// budgetError restates the data package's memory-limit error in terms of
// the flag that sets the limit (learn.RestateLimit).
func budgetError(err error, flag string) error {
	return learn.RestateLimit(err, flag, strings.Join(learn.SparseAlgorithms(), ", "))
}

// loadWithin loads path within what e's memory budget leaves and charges
// the loaded data to it. Across ranks (e's communicator has several), each
// rank loads its block of the examples (data.WithShard), which may be
// empty.
func loadWithin(e *engine.Engine, path string, opts []data.Option) (*data.Dataset, error) {
	ds, err := learn.LoadWithin(e, path, opts...)
	return ds, budgetError(err, "--mem-budget")
}

// prepare is the library's preprocessing step (learn.Prep) with the flags'
// validation split (--val-frac, drawn with seed) and scaling (--scale):
// with inPlace, ds and test are the working sets themselves (no data-sized
// copy); otherwise copies charged to e's budget, given back by
// p.Release(e). keepRaw keeps an unscaled copy of the training part (for
// plots; also charged). Its errors name the flags.
func prepare(e *engine.Engine, df *dataFlags, seed int64, plan *learn.LabelPlan, ds, test *data.Dataset, inPlace, keepRaw bool) (*learn.Prepared, error) {
	p, err := df.prep(seed)
	if err != nil {
		return nil, err
	}
	p.InPlace, p.KeepRaw = inPlace, keepRaw
	pr, err := p.Apply(e, *plan, ds, test)
	return pr, prepError(err)
}

// prep is the preprocessing step of the flags (learn.DataSettings.Prep).
func (d *dataFlags) prep(seed int64) (learn.Prep, error) {
	p, err := d.Prep(seed)
	return p, flagErr(err)
}

// prepError restates the preprocessing step's refusal of the validation
// split in terms of --val-frac; other errors are returned as they are.
func prepError(err error) error {
	var se *learn.SplitError
	if !errors.As(err, &se) {
		return err
	}
	if se.Err != nil {
		return fmt.Errorf("--val-frac: %w", se.Err)
	}
	return fmt.Errorf("--val-frac %v of %d examples leaves an empty training or validation set", se.Frac, se.N)
}

// loadTrainTest reads the --data file and the --test file if given
// (learn.LoadTrainTest: within e's memory budget, each rank its block, the
// ranks agreeing), its errors naming the flags, and plans the labels from
// the training labels; with checkTest the test file is only checked
// (learn.CheckTest: read again after training) and test is nil. The run
// is then bounded by the budget: the Go heap's limit is set from it.
func (d *dataFlags) loadTrainTest(e *engine.Engine, checkTest bool) (all, test *data.Dataset, plan learn.LabelPlan, err error) {
	limitHeap(e.MemoryBudget())
	spec, err := d.LabelSpec()
	if err != nil {
		return nil, nil, learn.LabelPlan{}, flagErr(err)
	}
	tt, err := learn.LoadTrainTest(e, d.data, d.test, checkTest, d.loadOptions, spec, func(err error) error { return budgetError(err, "--mem-budget") })
	if err != nil {
		return nil, nil, learn.LabelPlan{}, labelError(err, d, d.data+": ")
	}
	return tt.Train, tt.Test, tt.Plan, nil
}
