package main

import (
	"flag"
	"fmt"

	"github.com/pursuit-ml/pursuit/learn"
)

type equivOptions struct {
	dataFlags
	modelFlags
	eq learn.EquivSettings
}

func newEquivFlags() (*flag.FlagSet, *equivOptions) {
	o := &equivOptions{}
	fs := flag.NewFlagSet("equiv", flag.ContinueOnError)
	d, m := &o.dataFlags, &o.eq.Model
	fs.StringVar(&d.data, "data", "", "regression data `FILE` (LIBSVM/svmlight or .csv; .gz and .bz2 are decompressed)")
	fs.StringVar(&d.Format, "format", "auto", "data file format: auto (from the name: .csv is CSV), libsvm or csv")
	fs.IntVar(&d.LabelColumn, "label-column", 0, "CSV only: 0-based column holding the target (negative counts from the end)")
	fs.BoolVar(&d.Header, "header", false, "CSV only: the first line is a header")
	fs.StringVar(&d.Scale, "scale", "minmax", "feature scaling: minmax ([-1,1]), standard or none")
	fs.Float64Var(&m.Epsilon, "epsilon", 0, "ε: the ℓ1 weight of Girosi's problem = the ε-SVR tube half-width (LIBSVM -p); default 0.1")
	fs.Float64Var(&m.C, "c", 0, "C: the box |a_i| ≤ C (LIBSVM -c); default inf, the hard ε-tube, for which the SVR gets C = 10·‖a‖∞ of bpdn's solution")
	fs.StringVar(&m.Kernel, "kernel", "rbf", "kernel: rbf, linear, poly or sigmoid")
	fs.Float64Var(&m.Gamma, "gamma", 0, "kernel γ (default 1/number of features)")
	fs.Float64Var(&m.Sigma, "sigma", 0, "RBF width σ in exp(−‖x−z‖²/σ²); same as --gamma 1/σ²")
	fs.IntVar(&m.Degree, "degree", 3, "poly kernel degree")
	fs.Float64Var(&m.Coef0, "coef0", 0, "poly and sigmoid kernel constant c0")
	fs.Float64Var(&o.eq.SMOTol, "smo-tol", 1e-10, "stopping tolerance of the SMO solver (LIBSVM's -e)")
	fs.StringVar(&o.backend, "backend", "", backendUsage)
	fs.IntVar(&o.threads, "threads", 0, "CPU threads for the CPU backends (default GOMAXPROCS)")
	fs.StringVar(&o.memBudget, "mem-budget", "", "memory budget for large allocations, e.g. 512MiB")
	fs.BoolVar(&o.jsonOutput, "json", false, "print one JSON object with the certificate")
	return fs, o
}

func equivCommand() *command {
	return withFlags(&command{
		name:    "equiv",
		summary: "solve ε-SVR two ways (bpdn and SMO) and certify they agree",
		usage:   `pursuit equiv --data FILE [--epsilon E] [--c C] [--kernel K --gamma G | --sigma S] [--scale S] [--json]`,
		examples: `# Girosi's sparse approximation (C = ∞) against the SVM's ε-SVR by SMO:
pursuit equiv --data boston.gz --epsilon 0.5 --gamma 1
# the finite-C (box) problem; exit status 0 when they agree, 1 when not:
pursuit equiv --data boston.gz --epsilon 0.5 --gamma 1 --c 10 --json`,
	}, true, newEquivFlags, runEquiv)
}

// exitStatusError is an error with its own exit status (equiv's 1 for "the
// solutions disagree").
type exitStatusError struct {
	msg  string
	code int
}

func (e *exitStatusError) Error() string { return e.msg }
func (e *exitStatusError) ExitCode() int { return e.code }

func runEquiv(ev *env, fs *flag.FlagSet, o *equivOptions) error {
	set := setFlags(fs)
	o.dataFlags.ValFrac = 0
	if err := o.dataFlags.validate(set, true); err != nil {
		return err
	}
	if err := o.eq.Validate(set, cliAlgoFlags()); err != nil {
		return flagErr(err)
	}
	o.Regression = true
	e, err := o.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	ds, err := loadData(o.data, o.loadOptions(0))
	if err != nil {
		return err
	}
	o.eq.Scale = o.Scale
	eq, k, err := o.eq.Run(e, o.data, ds)
	if err != nil {
		return flagErr(err)
	}
	n, eps, cBox, ct := ds.Len(), o.eq.Model.Epsilon, o.eq.Model.C, eq.Certificate
	if o.jsonOutput {
		if err := printJSON(ev, eq.Report(o.data, n, k, e.BackendName(), eps, cBox)); err != nil {
			return err
		}
	} else if err := eq.WriteText(ev.stdout, o.data, n, ds.Dim(), k, e.BackendName(), eps, cBox, o.eq.SMOTol); err != nil {
		return err
	}
	if !ct.Agree {
		return &exitStatusError{code: 1, msg: fmt.Sprintf("bpdn and SMO disagree on %s (max|Δa| %.3g, |Δb| %.3g, same support %v)", o.data, ct.MaxDA, ct.DB, ct.SameSupport)}
	}
	return nil
}
