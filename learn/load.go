package learn

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// LoadWithin loads the data file path within what e's memory budget leaves
// (data.WithMemoryLimit: data over it are refused with a *data.LimitError)
// and charges the loaded data to the budget (e.Release(ds.Bytes()) gives
// them back). Across e's ranks, each rank loads its block of the rows
// (data.WithShard), which may be empty; in one process a file without
// examples is an error.
func LoadWithin(e *engine.Engine, path string, opts ...data.Option) (*data.Dataset, error) {
	ds, err := data.Load(path, withinOptions(e, opts)...)
	if err != nil {
		return nil, err
	}
	if ds.Len() == 0 && !e.Group().Sharded() {
		return nil, pursuit.BadInputf("%s: no examples", path)
	}
	if err := e.Hold("the data of "+path, ds.Bytes()); err != nil {
		return nil, err
	}
	return ds, nil
}

// RestateLimit restates the data package's memory-limit error (a
// *data.LimitError, inside a *data.ParseError naming the file or not) in
// terms of the setting that sets the limit, e.g. "--mem-budget" ("": a
// fixed limit for data held in memory), and, when sparse rows would fit,
// suggests them, naming the algorithms that take them (sparseAlgos). The
// result wraps engine.ErrBudget. Other errors are returned as they are.
func RestateLimit(err error, setting, sparseAlgos string) error {
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
			engine.FormatBytes(le.SparseNeed), sparseAlgos)
	}
	if setting == "" {
		return fmt.Errorf("%s%s needs %s, over the %s limit for data held in memory%s: %w",
			where, le.What, engine.FormatBytes(le.Need), engine.FormatBytes(le.Limit), sparse, engine.ErrBudget)
	}
	return fmt.Errorf("%s%s needs %s, over the %s that %s leaves for it (raise %s, or train on fewer examples or features)%s: %w",
		where, le.What, engine.FormatBytes(le.Need), engine.FormatBytes(le.Limit), setting, setting, sparse, engine.ErrBudget)
}

// LoadData reads the data the model is applied to within e's memory budget
// (LoadWithin), with the model's features: padded to them, and refused
// (data.ErrFeatureMismatch) when the file has more. opts must not hold
// data.WithDim; storage and format are the data.WithStorage and
// data.WithFormat among them.
//
// Rows held sparse from a LIBSVM file may name features beyond the
// model's, as svm-predict accepts them: they are read as they are and
// widened to the model's features when narrower, and the header's scaler
// is widened (Scaler.Widen) when wider, leaving the extra features as they
// are. When such a file ends up held dense (StorageAuto chose it), it is
// read again with the model's features.
func (m *File) LoadData(e *engine.Engine, path string, storage data.Storage, format data.Format, opts ...data.Option) (*data.Dataset, error) {
	dim := m.Header.Dim
	withDim := func(d int) []data.Option {
		return append(slices.Clone(opts), data.WithDim(d))
	}
	wide := storage != data.StorageDense && data.ResolveFormat(path, format) == data.FormatLibSVM && dim > 0
	if !wide {
		return LoadWithin(e, path, withDim(dim)...)
	}
	ds, err := LoadWithin(e, path, withDim(0)...)
	if err != nil {
		return nil, err
	}
	switch x := &ds.X; {
	case x.Cols == dim:
	case x.IsSparse() && x.Cols < dim:
		x.Cols = dim // the rows' non-zeros stay where they are
	case x.IsSparse():
		if m.Header.Scaler != nil {
			m.Header.Scaler = m.Header.Scaler.Widen(x.Cols)
		}
	default:
		e.Release(ds.Bytes())
		return LoadWithin(e, path, withDim(dim)...)
	}
	return ds, nil
}

// TrainTest is the data of a training run: the training rows (this
// rank's block across ranks), the test rows (nil without a test file) and
// the task planned from every rank's training labels.
type TrainTest struct {
	Train, Test *data.Dataset
	Plan        LabelPlan
}

// LoadTrainTest reads the training file and, when testPath is not "", the
// test file at the training data's width (a test file with more features
// is refused), each with the options opts gives for that width (0: the
// file's own) within what e's memory budget leaves, charged to it
// (LoadWithin: across e's ranks each rank reads its block of the rows, and
// the ranks agree on each file's outcome), and plans the task spec asks
// for from the training labels (PlanLabels, across the ranks; its errors
// are wrapped with trainPath). restate, if not nil, rewrites a loading
// error before the ranks agree on it (RestateLimit in a caller's terms,
// say). With checkTest the test file is only checked (CheckTest: a run
// that reads it again after training), and Test is nil.
func LoadTrainTest(e *engine.Engine, trainPath, testPath string, checkTest bool, opts func(dim int) []data.Option, spec LabelSpec, restate func(error) error) (*TrainTest, error) {
	if restate == nil {
		restate = func(err error) error { return err }
	}
	c := e.Comm()
	all, err := LoadWithin(e, trainPath, opts(0)...)
	if err = engine.AgreeOn(c, restate(err)); err != nil {
		return nil, err
	}
	if c.Size() > 1 {
		n, err := e.Group().Sum(all.Len())
		if err == nil && n == 0 {
			err = pursuit.BadInputf("%s: no examples", trainPath)
		}
		if err != nil {
			return nil, err
		}
	}
	tt := &TrainTest{Train: all}
	switch {
	case testPath != "" && checkTest:
		err = CheckTest(e, testPath, all.Dim(), opts, restate)
	case testPath != "":
		tt.Test, err = LoadWithin(e, testPath, opts(all.Dim())...)
		err = testError(e, err, all.Dim(), restate)
	}
	if err != nil {
		e.Release(all.Bytes())
		return nil, err
	}
	if tt.Plan, err = PlanLabels(e.Group(), all.Y, spec, func(err error) error { return engine.AgreeFailure(c, err) }); err != nil {
		return nil, fmt.Errorf("%s: %w", trainPath, err)
	}
	return tt, nil
}

// CheckTest refuses a test file that LoadTrainTest would refuse next to
// the training data of dim features, with the same error (after restate,
// when not nil), without keeping its rows: data.Check within what e's
// memory budget leaves, charged to it only while checked. A run that
// reads the test file again once the training rows are given back
// (TrainOutputs.TestLater) checks it so before training.
func CheckTest(e *engine.Engine, testPath string, dim int, opts func(dim int) []data.Option, restate func(error) error) error {
	_, err := CheckWithin(e, testPath, opts(dim)...)
	if restate == nil {
		restate = func(err error) error { return err }
	}
	return testError(e, err, dim, restate)
}

// testError is LoadTrainTest's error in reading or checking the test
// file, restated and agreed on by e's ranks: one that is not about the
// budget says that the test data must have the training data's dim
// features.
func testError(e *engine.Engine, err error, dim int, restate func(error) error) error {
	err = restate(err)
	if err != nil && !errors.Is(err, engine.ErrBudget) {
		err = fmt.Errorf("%w (the test data must have the training data's %d features)", err, dim)
	}
	return engine.AgreeOn(e.Comm(), err)
}

// CheckWithin is LoadWithin keeping no rows: it checks the data file path
// as LoadWithin would read it (data.Check, each rank its block) and
// refuses data that the budget could not hold, as LoadWithin does, but
// charges nothing. It returns the shape of the data LoadWithin would
// return.
func CheckWithin(e *engine.Engine, path string, opts ...data.Option) (data.Shape, error) {
	sh, err := data.Check(path, withinOptions(e, opts)...)
	if err != nil {
		return data.Shape{}, err
	}
	if sh.Rows == 0 && !e.Group().Sharded() {
		return data.Shape{}, pursuit.BadInputf("%s: no examples", path)
	}
	if err := e.Hold("the data of "+path, sh.Bytes); err != nil {
		return data.Shape{}, err
	}
	e.Release(sh.Bytes)
	return sh, nil
}

// withinOptions are opts with the limit of what e's memory budget leaves
// and, across ranks, this rank's block of the rows.
func withinOptions(e *engine.Engine, opts []data.Option) []data.Option {
	opts = append(opts, data.WithMemoryLimit(max(e.Available(), 1)))
	if g := e.Group(); g.Sharded() {
		opts = append(opts, data.WithShard(g.Rank(), g.Size()))
	}
	return opts
}
