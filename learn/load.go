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
	opts = append(opts, data.WithMemoryLimit(max(e.Available(), 1)))
	g := e.Group()
	if g.Sharded() {
		opts = append(opts, data.WithShard(g.Rank(), g.Size()))
	}
	ds, err := data.Load(path, opts...)
	if err != nil {
		return nil, err
	}
	if ds.Len() == 0 && !g.Sharded() {
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
