package learn

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// TrainOutputs are the steps of a training run that follow the fitting
// (Finish): the run recorded in the model's header, the test phase, the
// learning curve, the model's files, the pictures and the Result with
// the bound, as a program asks for them.
//
// A run with a test file may test in a phase of its own (TestLater), so
// that its peak memory is the larger of training and testing, not their
// sum: the caller checks the test file at the start (to refuse a bad one
// before any training; LoadTrainTest's checkTest) without keeping its
// rows; training holds the training rows only; then Finish gives the training rows back (unless
// KeepTrainRows: the bound, the pictures and the learning curve read
// them again) and reads the test file again (LoadTest), scaled as the
// training data were. Across ranks, and with pictures or a learning curve
// (which takes the training and test sets together), both are held
// throughout.
type TrainOutputs struct {
	// Data is the training data file (its base name is recorded in the
	// model's header), read with DataSettings (the Result names the CSV
	// column its labels were read from).
	Data         string
	DataSettings DataSettings
	// Test is the test file ("" for none); Options, when not nil, gives
	// the options it is read with at the training data's dim features,
	// and Restate, when not nil, restates an error in reading it (say, a
	// memory-limit error in a program's terms: RestateLimit).
	Test    string
	Options func(dim int) []data.Option
	Restate func(error) error
	// Storage says how the training data were held and why (the Result's).
	Storage *data.StorageReport
	// Seed and Version are recorded in the model's header (Fitted.Record).
	Seed    int64
	Version string
	// Curve records the learning curve in the model (File.LearningCurve,
	// at most 60 points); PlotDir, when not "", asks for the pictures too
	// (File.WritePlots, named PlotPrefix and titled PlotTitle, each path
	// offered to PlotCheck first when it is not nil).
	Curve                          bool
	PlotDir, PlotPrefix, PlotTitle string
	PlotCheck                      func(path string) error
	// Model is the file the model is written to ("" for none); with
	// ExportLIBSVM and ExportONNX (File.ExportLIBSVM, File.ExportONNX)
	// written too. Across ranks, rank 0 writes them.
	Model, ExportLIBSVM, ExportONNX string
	// Bound asks for the generalisation bound on the training rows
	// (BoundSettings.BoundOf).
	Bound BoundSettings
	// Name names the settings in Finish's errors as a program does (its
	// flags; nil: the settings' own names): "bound", "export-libsvm",
	// "export-onnx".
	Name func(setting string) string
	// Released, when not nil, is called when the training rows have been
	// given back to the budget and dropped, before the test phase (say, to
	// give the heap's free pages back to the system); TestPhase, when not
	// nil, as the test phase starts, before the test file is read.
	Released, TestPhase func()
}

// TestLater reports whether the test file is read and predicted in a phase
// of its own, after the training rows are given back, on ranks ranks (one:
// not across ranks).
func (t *TrainOutputs) TestLater(ranks int) bool {
	return t.Test != "" && ranks == 1 && t.PlotDir == "" && !t.Curve
}

// KeepTrainRows reports whether the training rows are used once the model
// and its training error are known (the bound, the pictures and the
// learning curve).
func (t *TrainOutputs) KeepTrainRows() bool {
	return t.Bound.On || t.PlotDir != "" || t.Curve
}

// CheckFiles refuses output files given twice: the LIBSVM export as the
// model, or the ONNX export as the model or the LIBSVM export (a
// SettingError about "export-libsvm" or "export-onnx").
func (t *TrainOutputs) CheckFiles() error {
	if t.ExportLIBSVM != "" && t.ExportLIBSVM == t.Model {
		return settingErr("export-libsvm", "{export-libsvm} %s is {model} too: give the LIBSVM model another file", t.Model)
	}
	if t.ExportONNX != "" && (t.ExportONNX == t.Model || t.ExportONNX == t.ExportLIBSVM) {
		return settingErr("export-onnx", "{export-onnx} %s is {model} or {export-libsvm} too: give the ONNX model another file", t.ExportONNX)
	}
	return nil
}

// name is t.Name(setting), or setting without t.Name.
func (t *TrainOutputs) name(setting string) string {
	if t.Name == nil {
		return setting
	}
	return t.Name(setting)
}

// LoadTest reads the test file within e's memory budget (LoadWithin;
// charged to it) with the training data's dim features, and scales it as
// the training data were (scaler nil: not scaled).
func (t *TrainOutputs) LoadTest(e *engine.Engine, dim int, scaler *data.Scaler) (*data.Dataset, error) {
	if t.TestPhase != nil {
		t.TestPhase()
	}
	var opts []data.Option
	if t.Options != nil {
		opts = t.Options(dim)
	}
	test, err := LoadWithin(e, t.Test, opts...)
	if t.Restate != nil {
		err = t.Restate(err)
	}
	if err != nil {
		if !errors.Is(err, engine.ErrBudget) {
			err = fmt.Errorf("%w (the test data must have the training data's %d features)", err, dim)
		}
		return nil, err
	}
	if scaler != nil {
		if err := ScaleInPlace(scaler, test); err != nil {
			e.Release(test.Bytes())
			return nil, err
		}
	}
	return test, nil
}

// Finish does the steps after fitting for f, trained on pr (the run's
// preprocessed sets, pr.Train a view of loaded, the training file's rows
// as loaded and charged to e's budget), nTrain training rows on every
// rank: it records the run in the model's header (Fitted.Record, the data
// file's base name), tests in a phase of its own when TestLater
// (releasing loaded and dropping pr.Train and pr.Val unless
// KeepTrainRows), records the learning curve, writes the model and its
// exports, draws the pictures and returns the Result: the model's, with
// the test figures, the model's size, the files written, the scaling,
// the storage, the dictionary, the CSV label column, the stop summary and
// the bound. Across ranks (e's communicator), every rank calls it and
// learns whether writing the model failed on rank 0.
func (t *TrainOutputs) Finish(e *engine.Engine, f *Fitted, pr *Prepared, loaded *data.Dataset, nTrain int) (Result, error) {
	world := e.Comm()
	m := f.Model
	nVal := 0
	if pr.Val != nil {
		nVal = pr.Val.Len()
	}
	dim, scaler, test := m.Header.Dim, pr.Scaler, pr.Test
	f.Record(scaler, nTrain, nVal, e.BackendName(), t.Seed, t.Version)
	m.Header.Train.Data = filepath.Base(t.Data)
	if t.TestLater(world.Size()) {
		if !t.KeepTrainRows() {
			e.Release(loaded.Bytes())
			pr.Train, pr.Val = nil, nil
			if t.Released != nil {
				t.Released()
			}
		}
		var err error
		if test, err = t.LoadTest(e, dim, scaler); err != nil {
			return Result{}, err
		}
		if err := f.EvaluateTest(e, test); err != nil {
			return Result{}, err
		}
	}
	var err error
	if t.PlotDir != "" || t.Curve {
		if m.Header.Curve, err = m.LearningCurve(e, pr.Train, pr.Val, test, 60, true); err != nil {
			return Result{}, err
		}
	}
	var size int64
	if t.Model != "" && world.Rank() == 0 { // rank 0 writes the model
		size, err = m.WriteFile(t.Model)
	} else {
		size, err = m.Size()
	}
	if err := engine.AgreeOn(world, err); err != nil {
		return Result{}, err
	}
	if t.ExportLIBSVM != "" && world.Rank() == 0 {
		if _, err := m.ExportLIBSVM(t.ExportLIBSVM); err != nil {
			return Result{}, fmt.Errorf("%s: %w", t.name("export-libsvm"), err)
		}
	}
	if t.ExportONNX != "" && world.Rank() == 0 {
		if err := m.ExportONNX(t.ExportONNX, t.Version, false); err != nil {
			return Result{}, fmt.Errorf("%s: %w", t.name("export-onnx"), err)
		}
	}
	var plots []string
	if t.PlotDir != "" {
		if plots, err = m.WritePlots(e, t.PlotDir, t.PlotPrefix, t.PlotTitle, pr.Raw, t.PlotCheck); err != nil {
			return Result{}, err
		}
	}
	out := m.Result(e.BackendName())
	out.NTest, out.TestError, out.PredictSeconds, out.ModelBytes = f.NTest, Num(f.TestError), f.PredictSeconds, size
	out.Model, out.Plots, out.Scale, out.Storage = t.Model, plots, string(scaler.Mode), t.Storage
	if d, ok := m.Models[0].(Describer); ok {
		out.Dictionary = d.Describe()
	}
	if col, ok := data.LabelColumnOf(t.Data, t.DataSettings.FormatOf(), t.DataSettings.LabelColumn, dim); ok {
		out.LabelColumn = &col
	}
	out.Stop = StopSummary(m.Models)
	if t.Bound.On {
		if out.Bound, err = t.Bound.BoundOf(e, m, pr.Train, false); err != nil {
			return Result{}, fmt.Errorf("%s: %w", t.name("bound"), Named(err, t.Name))
		}
	}
	return out, nil
}
