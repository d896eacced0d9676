package learn

import (
	"fmt"
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// CompressSource is a C-SVC model to compress (slmc.Compress): its SVM
// machines with the labels they are trained on, and what the compressed
// model file keeps of it.
type CompressSource struct {
	// Machines are the svm.Models to compress: one LIBSVM model (binary
	// or one-vs-one), or each binary machine of a pursuit model.
	Machines []*svm.Model
	// targets[k] maps a data label to machine k's training label (nil:
	// the label itself; the machine's classes are the data's labels).
	targets []func(y []float64) []float64
	// Plan is the task of the model's outputs.
	Plan LabelPlan
	// Scaler is the scaling the model applies (nil: none).
	Scaler *data.Scaler
	// Dim is the model's features (0: the data's, for a LIBSVM model).
	Dim int
	// Vectors is the model's number of support vectors.
	Vectors int
	predict func(e *engine.Engine, x pursuit.Matrix) ([]float64, error)
}

// LIBSVMSource is the source of a LIBSVM C-SVC model (svm-train's, any
// number of classes).
func LIBSVMSource(sm *svm.Model) *CompressSource {
	src := &CompressSource{Machines: []*svm.Model{sm}, targets: []func([]float64) []float64{nil}, Vectors: sm.TotalSV(), predict: sm.Predict}
	if len(sm.Labels) == 2 {
		// The compressed machine is positive for Labels[0], the binary
		// plan's Classes[1].
		src.Plan = LabelPlan{Task: TaskBinary, Classes: []float64{sm.Labels[1], sm.Labels[0]}}
	} else {
		src.Plan = LabelPlan{Task: TaskOneVsOne, Classes: append([]float64(nil), sm.Labels...)}
	}
	return src
}

// FileSource is the source of a model file of C-SVC classifiers (binary
// or one-vs-rest).
func FileSource(m *File) (*CompressSource, error) {
	if m.Header.Labels.Task == TaskRegression {
		return nil, pursuit.BadInputf("a regression model cannot be compressed: only classifiers (C-SVC) can")
	}
	src := &CompressSource{Plan: m.Header.Labels, Scaler: m.Header.Scaler, Dim: m.Header.Dim, Vectors: m.NBasis(), predict: m.Predict}
	for k, f := range m.Models {
		sf, ok := f.(*SVMModel)
		if !ok || sf.SVM.Type != svm.CSVC {
			return nil, pursuit.BadInputf("a %s model cannot be compressed: only C-SVC models can", m.Header.Algorithm)
		}
		src.Machines = append(src.Machines, sf.SVM)
		plan := m.Header.Labels
		src.targets = append(src.targets, func(y []float64) []float64 { return plan.Targets(y, k) })
	}
	return src, nil
}

// DefaultC is the SVM cost slmc.Compress uses for the source unless told
// otherwise: the largest |coefficient| of its machines.
func (src *CompressSource) DefaultC() float64 {
	cost := 0.0
	for _, sm := range src.Machines {
		for _, row := range sm.Coef {
			for _, v := range row {
				cost = math.Max(cost, math.Abs(v))
			}
		}
	}
	return cost
}

// Compress is the trade-off of compressing a model: one compressed model
// per fraction of its vectors, each measured against the original.
type Compress struct {
	// Config is slmc.Compress's configuration; Fraction is set from
	// Fractions, and C 0 is the source's DefaultC.
	Config slmc.CompressConfig
	// Fractions size the compressed models (one each); with Config.NumXV
	// set, one model of that size (give one fraction, any).
	Fractions []float64
	// Data names the training data in the models' headers; Seed and
	// Version are recorded there too.
	Data    string
	Seed    int64
	Version string
	// Save, when not nil, is given each compressed model as soon as it is
	// made (to write it, say), with its index in Fractions.
	Save func(i int, m *File) error
}

// TradeoffRow is one model of the trade-off table.
type TradeoffRow struct {
	// Model is the compressed model (nil for the original).
	Model    *File
	Fraction float64 // of the original's vectors (0 for the original, or with NumXV)
	Vectors  int
	Error    float64 // on the evaluation set
	// PredictSeconds is the fastest of several predictions of the
	// evaluation set; Speedup the original's over it.
	PredictSeconds  float64
	Speedup         float64
	CompressSeconds float64
}

// Tradeoff is the table Compress.Run measures: the original first.
type Tradeoff struct {
	C    float64 // the SVM cost the compression used
	Rows []TradeoffRow
}

// Run scales train and eval (the model's training data and the set the
// table's errors are measured on, which may be train) in place with the
// source's scaling, compresses src for each fraction, and measures every
// model's error on eval and prediction time.
func (c Compress) Run(e *engine.Engine, src *CompressSource, train, eval *data.Dataset) (*Tradeoff, error) {
	if src.Scaler != nil {
		if err := ScaleInPlace(src.Scaler, train); err != nil {
			return nil, err
		}
		if eval != train {
			if err := ScaleInPlace(src.Scaler, eval); err != nil {
				return nil, err
			}
		}
	}
	dim := src.Dim
	if dim == 0 {
		dim = train.Dim()
	}
	plan := src.Plan
	truth := plan.Truth(eval.Y)
	pred, err := src.predict(e, eval.X)
	if err != nil {
		return nil, fmt.Errorf("the original model on %s: %w", eval.Name, err)
	}
	t := &Tradeoff{C: c.Config.C, Rows: []TradeoffRow{{Vectors: src.Vectors, Error: plan.ErrorRate(pred, truth)}}}
	if t.C == 0 {
		t.C = src.DefaultC()
	}
	predictors := []predictFunc{src.predict}
	for fi, frac := range c.Fractions {
		cfg := c.Config
		cfg.Fraction, cfg.C = frac, t.C
		t0 := time.Now()
		cm := &File{Header: Header{Algorithm: "slmc", Labels: plan, Dim: dim, Scaler: src.Scaler}}
		for k, sm := range src.Machines {
			y := train.Y
			if src.targets[k] != nil {
				y = src.targets[k](train.Y)
			}
			res, err := slmc.Compress(e, sm, train.X, y, cfg)
			if err != nil {
				return nil, err
			}
			for _, mach := range res.Machines {
				m := mach.Model
				if src.targets[k] != nil && sm.Labels[mach.Pos] != 1 {
					// A pursuit machine: the model file's decision is
					// positive for +1.
					m = negated(m)
				}
				cm.Models = append(cm.Models, NewSLMCModel(m, mach.Stop))
			}
		}
		secs := time.Since(t0).Seconds()
		cm.Header.Kernel = src.Machines[0].Kernel.String()
		cm.Header.NBasis = cm.NBasis()
		trainPred, err := cm.Predict(e, train.X)
		if err != nil {
			return nil, err
		}
		cm.Header.Train = TrainSummary{Data: c.Data, NTrain: train.Len(), TrainError: plan.ErrorRate(trainPred, plan.Truth(train.Y)),
			TrainSeconds: secs, Backend: e.BackendName(), Seed: c.Seed, Version: c.Version}
		if c.Save != nil {
			if err := c.Save(fi, cm); err != nil {
				return nil, err
			}
		}
		pred, err := cm.Predict(e, eval.X)
		if err != nil {
			return nil, fmt.Errorf("the compressed model on %s: %w", eval.Name, err)
		}
		predictors = append(predictors, cm.Predict)
		t.Rows = append(t.Rows, TradeoffRow{Model: cm, Fraction: frac, Vectors: cm.NBasis(), Error: plan.ErrorRate(pred, truth), CompressSeconds: secs})
	}
	if c.Config.Progress != nil {
		c.Config.Progress(fmt.Sprintf("timing the predictions of %d models on %s", len(predictors), eval.Name))
	}
	best, err := timePredictions(e, eval.X, predictors)
	if err != nil {
		return nil, err
	}
	for i := range t.Rows {
		t.Rows[i].PredictSeconds = best[i]
		t.Rows[i].Speedup = best[0] / best[i]
	}
	return t, nil
}

// negated returns m with its decision's sign flipped.
func negated(m *slmc.Model) *slmc.Model {
	out := *m
	out.Beta = make([]float64, len(m.Beta))
	for i, b := range m.Beta {
		out.Beta[i] = -b
	}
	out.Bias = -m.Bias
	return &out
}

// predictFunc predicts the labels of x (already scaled).
type predictFunc func(e *engine.Engine, x pursuit.Matrix) ([]float64, error)

// timePredictions times each predictor on x and returns the fastest run's
// seconds of each. The predictors take turns, round after round (at least
// 5 rounds, until about 2 s have passed, at most 50), so that a load from
// other processes on a shared machine falls on all of them alike, and the
// fastest run of each is the one least disturbed.
func timePredictions(e *engine.Engine, x pursuit.Matrix, ps []predictFunc) ([]float64, error) {
	best := make([]float64, len(ps))
	for i := range best {
		best[i] = math.Inf(1)
	}
	start := time.Now()
	for round := 0; round < 50 && (round < 5 || time.Since(start) < 2*time.Second); round++ {
		for i, p := range ps {
			t0 := time.Now()
			if _, err := p(e, x); err != nil {
				return nil, fmt.Errorf("timing the predictions: %w", err)
			}
			best[i] = math.Min(best[i], time.Since(t0).Seconds())
		}
	}
	return best, nil
}
