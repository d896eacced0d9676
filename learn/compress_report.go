package learn

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/pursuit-ml/pursuit/internal/plot"
)

// TradeoffReport is the trade-off table of a compression run
// (Compress.Run) as `pursuit compress` reports it: its JSON form is the
// command's --json object, WriteText its table and Plot its picture.
type TradeoffReport struct {
	Model    string              `json:"model"`
	Kernel   string              `json:"kernel"`
	Task     string              `json:"task"`
	Classes  []string            `json:"classes"`
	Machines int                 `json:"machines"` // binary decision functions of the source
	C        float64             `json:"c"`
	ErrorOn  string              `json:"error_on"` // the evaluation data
	NError   int                 `json:"n_error"`  // its rows
	Backend  string              `json:"backend"`
	Rows     []TradeoffReportRow `json:"rows"`
}

// TradeoffReportRow is one model of the table: the source first.
type TradeoffReportRow struct {
	Model            string   `json:"model"`
	Method           string   `json:"method"`
	Fraction         *float64 `json:"nz_frac,omitempty"`
	Vectors          int      `json:"vectors"`
	Error            *float64 `json:"error"`
	PredictMSPer1000 float64  `json:"predict_ms_per_1000"`
	Speedup          float64  `json:"speedup"`
	CompressSeconds  float64  `json:"compress_seconds,omitempty"`
	File             string   `json:"file,omitempty"`
}

// Report describes t: the source src read from model, compressed by
// method into files (one per compressed row), the errors measured on
// nEval rows of evalName, on backend. withFractions records each row's
// fraction of the source's vectors (not when an absolute count was asked).
func (t *Tradeoff) Report(src *CompressSource, model, method string, files []string, withFractions bool, evalName string, nEval int, backend string) *TradeoffReport {
	r := &TradeoffReport{Model: model, Kernel: src.Machines[0].Kernel.String(), Task: src.Plan.Task, C: t.C,
		ErrorOn: evalName, NError: nEval, Backend: backend}
	for _, sm := range src.Machines {
		r.Machines += sm.NumDecision()
	}
	for _, c := range src.Plan.Classes {
		r.Classes = append(r.Classes, FormatLabel(c))
	}
	opt := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	r.Rows = make([]TradeoffReportRow, len(t.Rows))
	for i, row := range t.Rows {
		rr := TradeoffReportRow{Model: model, Method: "svm", Vectors: row.Vectors, Error: opt(row.Error),
			PredictMSPer1000: row.PredictSeconds * 1e6 / float64(max(nEval, 1)), Speedup: row.Speedup}
		if i > 0 {
			rr.Model, rr.Method, rr.CompressSeconds, rr.File = files[i-1], method, row.CompressSeconds, files[i-1]
			if withFractions {
				rr.Fraction = opt(row.Fraction)
			}
		}
		r.Rows[i] = rr
	}
	return r
}

// WriteText writes the table for people.
func (r *TradeoffReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%-7s %8s %8s %10s %16s %8s  %s\n", "method", "nz-frac", "vectors", "error", "ms/1000 rows", "speedup", "model")
	for _, row := range r.Rows {
		frac := "-"
		if row.Fraction != nil {
			frac = strconv.FormatFloat(*row.Fraction, 'g', -1, 64)
		}
		fmt.Fprintf(w, "%-7s %8s %8d %9.2f%% %16.3f %7.1fx  %s\n", row.Method, frac, row.Vectors, 100**row.Error, row.PredictMSPer1000, row.Speedup, row.Model)
	}
	fmt.Fprintf(w, "errors on %s (%d examples); prediction time is the fastest of several runs, backend %s; C = %g\n", r.ErrorOn, r.NError, r.Backend, r.C)
}

// Plot draws the compressed models' error against their vectors, with the
// source's as a level line, at path (.png, .svg or .pdf).
func (r *TradeoffReport) Plot(path string) error {
	var x, y []float64
	for _, row := range r.Rows[1:] {
		x = append(x, float64(row.Vectors))
		y = append(y, *row.Error)
	}
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	src := *r.Rows[0].Error
	title := fmt.Sprintf("compress: error on %s against expansion vectors", filepath.Base(r.ErrorOn))
	return plot.LearningCurve(path, title, "expansion vectors", "error rate", []plot.Series{
		{Name: r.Rows[1].Method, X: x, Y: y},
		{Name: fmt.Sprintf("svm (%d vectors)", r.Rows[0].Vectors), X: []float64{lo, hi}, Y: []float64{src, src}},
	}, math.NaN(), "")
}
