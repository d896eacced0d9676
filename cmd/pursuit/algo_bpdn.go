package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/learn"
)

// bpdnDefaultEpsilon is ε when --epsilon is not given: LIBSVM's default -p.
const bpdnDefaultEpsilon = 0.1

// validateBPDN completes and checks the bpdn flags: C is +Inf (the hard
// ε-tube) unless --c is given, and ε defaults to LIBSVM's 0.1.
func (m *modelFlags) validateBPDN(set map[string]bool) error {
	if m.algo != "bpdn" {
		return nil
	}
	if !set["epsilon"] {
		m.epsilon = bpdnDefaultEpsilon
	}
	if !(m.epsilon >= 0) || math.IsInf(m.epsilon, 0) {
		return fmt.Errorf("--epsilon %v: must be a non-negative finite number", m.epsilon)
	}
	if !set["c"] {
		m.c = math.Inf(1)
	}
	if !(m.c > 0) || math.IsInf(m.c, -1) {
		return fmt.Errorf("--c %v: must be positive (or inf, the default for bpdn: the hard ε-tube)", m.c)
	}
	return nil
}

// implyRegressionBPDN: bpdn fits real-valued targets only.
func (d *dataFlags) implyRegressionBPDN() error {
	if d.positive != "" || d.oneVsRest {
		return fmt.Errorf("--algo bpdn fits real-valued targets (ε-SVR); --positive and --one-vs-rest are for classification")
	}
	d.regression = true
	return nil
}

// bpdnLearner maps the flags to learn.BPDN (--c 0: the hard ε-tube).
func bpdnLearner(p *trainParams) (learn.Learner, error) {
	return learn.BPDN{Kernel: p.kernel, Params: bpdn.Params{Epsilon: p.epsilon, C: p.c}, Progress: p.progress}, nil
}

// parseEpsGrid parses cv's --grid-epsilon (bpdn's ε, or the svm's ε-SVR
// tube); without it the grid has the single value NaN ("as the flags say").
func parseEpsGrid(s, algo string, m *modelFlags) ([]float64, error) {
	if s == "" {
		return []float64{math.NaN()}, nil
	}
	if algo != "bpdn" && algo != "svm" {
		return nil, fmt.Errorf("--grid-epsilon does not apply to --algo %s (it is for bpdn, and svm with --svr-epsilon)", algo)
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) || (algo == "svm" && v == 0) {
			return nil, fmt.Errorf("--grid-epsilon %q: want comma-separated non-negative numbers (positive for svm), e.g. 0.05,0.1,0.5", s)
		}
		out = append(out, v)
	}
	if algo == "svm" && m.svrEps == 0 {
		return nil, fmt.Errorf("--grid-epsilon with --algo svm needs ε-SVR: give --svr-epsilon too (or --regression)")
	}
	return out, nil
}

// setEps sets the ε of a cv grid point (NaN: leave the flags' value).
func setEps(m *modelFlags, eps float64) {
	if math.IsNaN(eps) {
		return
	}
	if m.algo == "bpdn" {
		m.epsilon = eps
	} else {
		m.svrEps = eps
	}
}
