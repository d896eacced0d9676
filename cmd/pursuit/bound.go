package main

import (
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// boundFlags are train's --bound, --delta and --alpha.
type boundFlags struct {
	bound bool
	delta float64
	alpha float64
}

// addBoundFlags adds --delta and --alpha, and with switchFlag --bound (train's
// switch; the bound command always bounds and has no such flag).
func addBoundFlags(fs *flag.FlagSet, b *boundFlags, switchFlag bool) {
	if !switchFlag {
		b.bound = true
		fs.Float64Var(&b.delta, "delta", 0.05, "the bound holds with probability at least 1 − `DELTA`")
		fs.Float64Var(&b.alpha, "alpha", 0, "regression: bound the probability that |f(x) − y| > `ALPHA`")
		return
	}
	fs.BoolVar(&b.bound, "bound", false, "report a generalisation bound for the trained model (Hussain et al. 2011: Theorem 4 for the KMP family and MP-KFDA, Theorem 2 for the support vectors of svm and bpdn)")
	fs.Float64Var(&b.delta, "delta", 0.05, "--bound holds with probability at least 1 − `DELTA`")
	fs.Float64Var(&b.alpha, "alpha", 0, "--bound for regression: bound the probability that |f(x) − y| > `ALPHA`")
}

// boundTheorems says which theorem bounds each algorithm's Models: Theorem
// 4 for the KMP family and MP-KFDA (the basis spans the function; its
// coefficients use every label), Theorem 2 for the SVM and bpdn (an SVM or
// SVR is a compression scheme: retrained on its support vectors it is the
// same machine — an extension of the paper, which states Theorem 2 for
// compression schemes in general).
var boundTheorems = map[string]string{
	"kmp": "Theorem 4", "kmp-backfit": "Theorem 4", "kmp-basic": "Theorem 4", "kmp-tanh": "Theorem 4", "skmp": "Theorem 4", "mpkfda": "Theorem 4",
	"svm": "Theorem 2", "bpdn": "Theorem 2",
}

// boundTheorem says which theorem bounds an algorithm's models, "" when
// none does.
func boundTheorem(algo string) string { return boundTheorems[algo] }

// boundAlgos lists the algorithms --bound applies to, for the flag table.
func boundAlgos() []string {
	var out []string
	for _, a := range algorithms() {
		if boundTheorem(a.name) != "" {
			out = append(out, a.name)
		}
	}
	return out
}

func (b *boundFlags) validate(set map[string]bool, algo string, regression bool) error {
	if !b.bound {
		for _, f := range []string{"delta", "alpha"} {
			if set[f] {
				return fmt.Errorf("--%s applies only with --bound", f)
			}
		}
		return nil
	}
	if boundTheorem(algo) == "" {
		return fmt.Errorf("--bound does not apply to --algo %s: its basis is not a subset of the training points (the bounds cover %s)", algo, strings.Join(boundAlgos(), ", "))
	}
	if !(b.delta > 0 && b.delta < 1) {
		return fmt.Errorf("--delta %v: must be in (0, 1)", b.delta)
	}
	if regression && (!(b.alpha > 0) || math.IsInf(b.alpha, 0)) {
		return fmt.Errorf("--alpha %v: the bound for a regressor needs the error threshold α > 0 (it is on P(|f(x) − y| > α))", b.alpha)
	}
	if !regression && set["alpha"] {
		return fmt.Errorf("--alpha applies to regression; a classifier's bound is on its error rate")
	}
	return nil
}

// boundJSON is the bound object of train's JSON output.
type boundJSON struct {
	Theorem string   `json:"theorem"`
	M       int      `json:"m"`
	K       int      `json:"k"`
	T       int      `json:"t"`
	Delta   float64  `json:"delta"`
	Alpha   *float64 `json:"alpha,omitempty"`
	Value   float64  `json:"value"`
	Trivial bool     `json:"trivial"`
}

// trainBound evaluates the bound for a trained binary classifier or
// regressor: m training points, k = the training points its basis uses
// (the compression set), t = its training errors outside them (sign
// errors, or |f − y| > α for regression).
//
// With strict (the bound command, given a saved model and a data file that
// should be its training data), every basis vector must be one of tr's
// rows: a file that is not the training data is refused. At training time
// tr is the training data; a basis point not found there (it cannot
// happen, but would) still counts in k.
func trainBound(e *engine.Engine, algo string, m *learn.File, tr *data.Dataset, plan *learn.LabelPlan, b *boundFlags, strict bool) (*boundJSON, error) {
	if len(m.Models) != 1 || plan.NumModels() != 1 || learn.IsMulti(m.Models[0]) {
		return nil, fmt.Errorf("the bounds are for one binary classifier or regressor; train one class against the rest with --positive LABEL")
	}
	f := m.Models[0]
	cs, err := learn.CompressionOf(e, f, tr.X, plan.Targets(tr.Y, 0), plan.Task == learn.TaskRegression, b.alpha)
	if err != nil {
		return nil, err
	}
	if strict && cs.Found < f.NBasis() {
		return nil, fmt.Errorf("%d of the model's %d basis vectors are not rows of %s: it is not the data the model was trained on", f.NBasis()-cs.Found, f.NBasis(), tr.Name)
	}
	k, t := cs.K, cs.T
	out := &boundJSON{Theorem: boundTheorem(algo), M: tr.Len(), K: k, T: t, Delta: b.delta}
	if plan.Task == learn.TaskRegression {
		out.Alpha = &b.alpha
	}
	if out.Theorem == "Theorem 2" {
		out.Value, err = bound.Compression(out.M, k, t, b.delta)
	} else {
		out.Value, err = bound.KMP(out.M, k, t, b.delta)
	}
	if err != nil {
		return nil, err
	}
	out.Trivial = bound.Trivial(out.Value)
	return out, nil
}

// humanLine is the bound's line in train's human output.
func (bj *boundJSON) humanLine() string {
	conf := fmt.Sprintf("with probability ≥ %s%%", trimFloat(100*(1-bj.Delta)))
	what := "the true error is"
	if bj.Alpha != nil {
		what = fmt.Sprintf("P(|f(x) − y| > %s) is", trimFloat(*bj.Alpha))
	}
	s := fmt.Sprintf("%s, %s at most %.1f%% (%s, k = %d, t = %d)", conf, what, 100*bj.Value, bj.Theorem, bj.K, bj.T)
	if bj.Trivial {
		s += " — trivial, above 100%"
	}
	return s
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}
