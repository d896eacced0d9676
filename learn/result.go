package learn

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Result is the summary of a training or prediction run, the JSON object
// the pursuit command prints with --json (train, predict, cv and demo).
// Error rates are fractions in [0,1] (mean squared errors for regression),
// times in seconds; nil (JSON null) where a figure does not apply.
type Result struct {
	Algorithm      string   `json:"algorithm"`
	Backend        string   `json:"backend"`
	Task           string   `json:"task"`
	Kernel         string   `json:"kernel,omitempty"`
	NTrain         int      `json:"n_train"`
	NVal           int      `json:"n_val"`
	NTest          int      `json:"n_test"`
	NBasis         int      `json:"n_basis"`
	TrainError     *float64 `json:"train_error"`
	ValError       *float64 `json:"val_error"`
	TestError      *float64 `json:"test_error"`
	TrainSeconds   float64  `json:"train_seconds"`
	PredictSeconds float64  `json:"predict_seconds"`
	ModelBytes     int64    `json:"model_bytes"`
	Model          string   `json:"model,omitempty"`
	Classes        []string `json:"classes,omitempty"`
	Plots          []string `json:"plots,omitempty"`
	Dictionary     string   `json:"dictionary,omitempty"`
	// LabelColumn is the 0-based CSV column the labels were read from
	// (absent for LIBSVM files).
	LabelColumn *int `json:"label_column,omitempty"`
	// ForeignLabels (prediction) counts the examples whose label is none
	// of the model's classes: each counts as an error.
	ForeignLabels int `json:"foreign_labels,omitempty"`
	// Method is SLMC's method (slmc, rs, mrs, rsvm, mrsvm, skfd); Stop
	// says why SLMC's or SKFD's minimisation stopped.
	Method string `json:"method,omitempty"`
	Stop   string `json:"stop,omitempty"`
	// Bound is the generalisation bound of the trained model (File.Bound).
	Bound *Bound `json:"bound,omitempty"`
	// Scale is the feature scaling fitted; Storage says how the training
	// data were held and why.
	Scale   string              `json:"scale,omitempty"`
	Storage *data.StorageReport `json:"storage,omitempty"`
}

// Num returns a pointer to v, or nil for NaN (JSON null): a Result's
// figure.
func Num(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// Result is the summary m's header gives: algorithm, task, kernel, sizes,
// training figures, classes and method, on the named backend (the test
// figures, model size, file names and plots are the caller's).
func (m *File) Result(backend string) Result {
	h := &m.Header
	r := Result{
		Algorithm: h.Algorithm, Backend: backend, Task: h.Labels.Task, Kernel: h.Kernel,
		NTrain: h.Train.NTrain, NVal: h.Train.NVal, NBasis: h.NBasis,
		TrainError: Num(h.Train.TrainError), TrainSeconds: h.Train.TrainSeconds,
		Method: MethodOf(m.Models),
	}
	if h.Train.NVal > 0 {
		r.ValError = Num(h.Train.ValError)
	}
	for _, c := range h.Labels.Classes {
		r.Classes = append(r.Classes, FormatLabel(c))
	}
	return r
}

// Prediction is what File.PredictData computed for a data set.
type Prediction struct {
	Decisions [][]float64 // per binary model, per example
	Labels    []float64   // the predicted labels (values for regression)
	Seconds   float64     // the time of the decisions and labels
	// Error is the error rate (mean squared error for regression) against
	// the data's labels; Foreign counts the labels that are none of the
	// model's classes (ForeignValues lists them), each an error.
	Error         float64
	Foreign       int
	ForeignValues []float64
}

// PredictData computes m's decisions on ds (already scaled, with the model's
// features) in precision p, the labels they give and their error against
// ds's labels.
func (m *File) PredictData(e *engine.Engine, ds *data.Dataset, p Precision) (*Prediction, error) {
	t0 := time.Now()
	dec, err := m.DecisionsIn(e, ds.X, p)
	if err != nil {
		return nil, err
	}
	lp := &m.Header.Labels
	r := &Prediction{Decisions: dec, Labels: lp.Decide(dec)}
	r.Seconds = time.Since(t0).Seconds()
	r.Error = lp.ErrorRate(r.Labels, lp.Truth(ds.Y))
	r.Foreign, r.ForeignValues = lp.ForeignLabels(ds.Y)
	return r, nil
}

// PredictScaled scales ds, read from path (named in the errors), as m's
// training data were (ScaleData) and computes m's decisions on it
// (PredictData in precision p): a saved model's prediction of the data
// File.LoadData read.
func (m *File) PredictScaled(e *engine.Engine, path string, ds *data.Dataset, p Precision) (*Prediction, error) {
	if err := m.ScaleData(path, ds); err != nil {
		return nil, err
	}
	pr, err := m.PredictData(e, ds, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pr, nil
}

// WritePredictions writes one line per example to w: the predicted label,
// then, with decisions, every binary model's output (the shortest text
// that reads back the same float64, "nan" for NaN), separated by spaces.
func (p *Prediction) WritePredictions(w io.Writer, decisions bool) error {
	bw := bufio.NewWriter(w)
	buf := make([]byte, 0, 64)
	for i, l := range p.Labels {
		buf = strconv.AppendFloat(buf[:0], l, 'g', -1, 64)
		if decisions {
			for k := range p.Decisions {
				buf = append(buf, ' ')
				if v := p.Decisions[k][i]; math.IsNaN(v) {
					buf = append(buf, "nan"...)
				} else {
					buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
				}
			}
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
