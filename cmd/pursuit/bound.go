package main

import (
	"flag"
	"fmt"

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

// validate checks --delta and --alpha: given without --bound, or against
// the models of algo (learn.ValidateBound).
func (b *boundFlags) validate(set map[string]bool, algo string, regression bool) error {
	if !b.bound {
		for _, f := range []string{"delta", "alpha"} {
			if set[f] {
				return fmt.Errorf("--%s applies only with --bound", f)
			}
		}
		return nil
	}
	return flagErr(learn.ValidateBound(algo, regression, b.delta, b.alpha, set))
}

// boundJSON is the bound object of train's JSON output.
type boundJSON = learn.Bound

// trainBound evaluates the bound for a trained binary classifier or
// regressor on its training data tr (learn.File.Bound); with strict (the
// bound command), tr must be the training data.
func trainBound(e *engine.Engine, m *learn.File, tr *data.Dataset, b *boundFlags, strict bool) (*boundJSON, error) {
	if len(m.Models) != 1 || m.Header.Labels.NumModels() != 1 || learn.IsMulti(m.Models[0]) {
		return nil, fmt.Errorf("the bounds are for one binary classifier or regressor; train one class against the rest with --positive LABEL")
	}
	return m.Bound(e, tr, b.delta, b.alpha, strict)
}
