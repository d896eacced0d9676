package learn

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/engine"
)

// BPDN is Girosi's sparse approximation in the RKHS (package bpdn), the
// ε-SVR solved without SMO; it fits real-valued targets only, and its model
// is an ε-SVR model of package svm (kind "bpdn").
type BPDN struct {
	Kernel pursuit.Kernel
	// Params are bpdn's; C 0 means +Inf (the hard ε-tube).
	Params bpdn.Params
	// Progress, if not nil, is told when training starts.
	Progress func(Progress)
}

// Fit trains on the real-valued targets y, which must take more than two
// distinct values; the validation set is not used.
func (l BPDN) Fit(e *engine.Engine, x pursuit.Matrix, y []float64, _ pursuit.Matrix, _ []float64) (Model, error) {
	if err := CheckRegressionTargets(y); err != nil {
		return nil, err
	}
	if l.Progress != nil {
		l.Progress(Progress{Step: 0, Total: 1, Metric: "active set", Value: nan(), ValErr: nan()})
	}
	p := l.Params
	if p.C == 0 {
		p.C = math.Inf(1)
	}
	m, _, err := bpdn.Train(e, x, y, l.Kernel, p)
	if err != nil {
		return nil, err
	}
	f, err := NewSVMModel(m)
	if err != nil {
		return nil, err
	}
	f.kind, f.exact = "bpdn", true
	return f, nil
}

// CheckRegressionTargets refuses targets that look like class labels (at
// most two distinct values): ε-SVR on them is almost surely a mistaken data
// file.
func CheckRegressionTargets(y []float64) error {
	var vals []float64
	for _, v := range y {
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
			if len(vals) > 2 {
				return nil
			}
		}
	}
	return pursuit.BadInputf("the targets take only %d distinct values (%s): this is a classification data set, and bpdn fits real-valued targets (use --algo svm for classification)", len(vals), ListLabels(vals, 2))
}

// ListLabels formats at most max of the labels v, separated by spaces
// ("..." after them when there are more).
func ListLabels(v []float64, max int) string {
	var parts []string
	for i, x := range v {
		if i == max {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, strconv.FormatFloat(x, 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}

// FormatLabel formats one label as the model file and messages write it.
func FormatLabel(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func nan() float64 { return math.NaN() }
