package main

import (
	"flag"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// boundFlags are train's --bound, --delta and --alpha (learn.BoundSettings).
type boundFlags = learn.BoundSettings

// addBoundFlags adds --delta and --alpha, and with switchFlag --bound (train's
// switch; the bound command always bounds and has no such flag).
func addBoundFlags(fs *flag.FlagSet, b *boundFlags, switchFlag bool) {
	if !switchFlag {
		b.On = true
		fs.Float64Var(&b.Delta, "delta", 0.05, "the bound holds with probability at least 1 − `DELTA`")
		fs.Float64Var(&b.Alpha, "alpha", 0, "regression: bound the probability that |f(x) − y| > `ALPHA`")
		return
	}
	fs.BoolVar(&b.On, "bound", false, "report a generalisation bound for the trained model (Hussain et al. 2011: Theorem 4 for the KMP family and MP-KFDA, Theorem 2 for the support vectors of svm and bpdn)")
	fs.Float64Var(&b.Delta, "delta", 0.05, "--bound holds with probability at least 1 − `DELTA`")
	fs.Float64Var(&b.Alpha, "alpha", 0, "--bound for regression: bound the probability that |f(x) − y| > `ALPHA`")
}

// boundJSON is the bound object of train's JSON output.
type boundJSON = learn.Bound

// trainBound evaluates the bound for a trained binary classifier or
// regressor on its training data tr (learn.BoundSettings.BoundOf); with
// strict (the bound command), tr must be the training data.
func trainBound(e *engine.Engine, m *learn.File, tr *data.Dataset, b *boundFlags, strict bool) (*boundJSON, error) {
	bd, err := b.BoundOf(e, m, tr, strict)
	return bd, flagErr(err)
}
