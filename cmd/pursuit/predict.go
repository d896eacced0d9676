package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/pursuit-ml/pursuit/internal/safefile"
	"github.com/pursuit-ml/pursuit/learn"
)

type predictOptions struct {
	model, data, out string
	format           string
	storage          string
	labelColumn      int
	header           bool
	decision         bool
	backend          string
	threads          int
	memBudget        string
	quiet            bool
	jsonOutput       bool
	precision        string
}

func newPredictFlags() (*flag.FlagSet, *predictOptions) {
	o := &predictOptions{}
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "model `FILE` written by `pursuit train --model`, or by LIBSVM's svm-train: a two-class C-SVC or an epsilon-SVR with a linear, poly, rbf or sigmoid kernel")
	fs.StringVar(&o.data, "data", "", "data `FILE` to predict (LIBSVM or CSV; its labels give the error rate)")
	fs.StringVar(&o.out, "out", "", "write the predicted labels to `FILE`, one per line (- for standard output, the summary going to stderr; "+safeWriteHelp+")")
	fs.BoolVar(&o.decision, "decision", false, "with --out: also write each classifier's real-valued output after the label")
	fs.StringVar(&o.format, "format", "auto", "data file format: auto (from the name: .csv is CSV), libsvm or csv")
	fs.StringVar(&o.storage, "storage", "auto", predictStorageUsage)
	fs.IntVar(&o.labelColumn, "label-column", 0, labelColumnUsage)
	fs.BoolVar(&o.header, "header", false, "CSV only: the first line is a header")
	fs.StringVar(&o.backend, "backend", "", backendUsage)
	fs.IntVar(&o.threads, "threads", 0, threadsUsage)
	fs.StringVar(&o.memBudget, "mem-budget", "", memBudgetReadUsage)
	fs.BoolVar(&o.quiet, "quiet", false, "print no summary line (errors and warnings still go to stderr; --json still prints)")
	fs.BoolVar(&o.jsonOutput, "json", false, "print one JSON object with the results")
	fs.StringVar(&o.precision, "precision", string(learn.PrecisionFloat64), precisionUsage)
	return fs, o
}

// precisionUsage is predict's --precision help.
const precisionUsage = "arithmetic of the kernel values: float64 (every kernel value and sum in float64, as svm-predict computes them: the same answer on every backend and for dense or sparse data) or float32 (the engine's kernel blocks on the chosen backend, accurate to about 1e-6 relative per kernel value, several times faster). Models from LIBSVM's svm-train always predict in float64"

// predictStorageUsage is predict's --storage help.
const predictStorageUsage = "how LIBSVM data are held in memory: auto (sparse rows below the density where they give faster kernel rows, 0 up to 120 features rising to 0.18 from 282, or where dense rows would take over 4 times the memory or exceed the memory limit; else dense), dense or sparse; CSV is always dense. Models of algorithms that do not take sparse rows yet get dense data. In sparse rows, features beyond the model's (an svm model's) are accepted as svm-predict accepts them: the model's support vectors are zero there, so they add nothing to linear and polynomial kernels and their squares to RBF distances, as in svm-predict; dense data must not go beyond the model's features"

func predictCommand() *command {
	return withFlags(&command{
		name:    "predict",
		summary: "predict a data file with a trained model and report the error rate",
		usage:   "pursuit predict --model FILE --data FILE [--out FILE [--decision]] [--precision float32|float64] [--json] [--quiet]",
		examples: `pursuit predict --model usps8.model --data usps.test.gz
pursuit predict --model usps8.model --data usps.test.gz --out predictions.txt --decision
pursuit predict --model usps8.model --data usps.test.gz --json
pursuit predict --model boston.model --data boston --precision float32   # the backend's float32 kernel blocks
pursuit predict --model heart.libsvm.model --data heart.scaled   # a model from LIBSVM's svm-train
# LIBSVM Models: C-SVC (two classes) and epsilon-SVR (-s 0 and 3) with kernels -t 0 to 3`,
	}, true, newPredictFlags, runPredict)
}

func runPredict(ev *env, fs *flag.FlagSet, o *predictOptions) error {
	switch {
	case o.model == "":
		return fmt.Errorf("missing --model FILE (written by `pursuit train --model FILE`)")
	case o.data == "":
		return fmt.Errorf("missing --data FILE (the examples to predict)")
	case o.decision && o.out == "":
		return fmt.Errorf("--decision needs --out FILE")
	case o.jsonOutput && o.out == "-":
		return fmt.Errorf("--json and --out - both write to standard output; give --out a file name")
	}
	prec, err := learn.ParsePrecision(o.precision)
	if err != nil {
		return fmt.Errorf("--precision: %w", err)
	}
	df := dataFlags{DataSettings: learn.DataSettings{Format: o.format, LabelColumn: o.labelColumn, Header: o.header, Scale: "none", Storage: o.storage}}
	if err := df.validate(nil, false); err != nil {
		return err
	}
	if err := checkOutputs([]fileArg{{Name: "--model", Path: o.model}, {Name: "--data", Path: o.data}}, fileArg{Name: "--out", Path: o.out}); err != nil {
		return err
	}
	mf := modelFlags{backend: o.backend, threads: o.threads, memBudget: o.memBudget}
	e, err := mf.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	m, err := learn.LoadModel(e, o.model)
	if err != nil {
		return err
	}
	df.sparseOK, df.storageAlgo = learn.TakesSparse(m.Header.Algorithm), m.Header.Algorithm
	ds, err := loadForModel(e, o.data, &df, m, o.model)
	if err != nil {
		return err
	}
	pr, err := m.PredictScaled(e, o.data, ds, prec)
	if err != nil {
		return err
	}
	if warning := pr.ForeignWarning(m, o.data, ds.Len()); warning != "" {
		fmt.Fprintf(ev.stderr, "pursuit predict: warning: %s\n", warning)
	}
	if o.out != "" {
		if err := writePredictions(ev, o.out, pr, o.decision); err != nil {
			return err
		}
	}
	if o.jsonOutput {
		out := pr.Result(m, ds.Len(), e.BackendName(), o.model)
		if col, ok := csvLabelColumn(o.data, o.format, o.labelColumn, ds.Dim()); ok {
			out.LabelColumn = &col
		}
		return printJSON(ev, out)
	}
	if o.quiet {
		return nil
	}
	summary := ev.stdout
	if o.out == "-" { // the predictions are on stdout
		summary = ev.stderr
	}
	pr.WriteText(summary, m, o.data, ds.Len(), e.BackendName())
	if col, ok := csvLabelColumn(o.data, o.format, o.labelColumn, ds.Dim()); ok {
		fmt.Fprintf(summary, "%s\n", learn.LabelColumnText(col, ds.Dim(), flagName))
	}
	if o.out != "" && o.out != "-" {
		fmt.Fprintf(ev.stdout, "predictions written to %s\n", o.out)
	}
	return nil
}

// writePredictions writes --out (learn.Prediction.WritePredictions): "-"
// is standard output; a file is written with safefile (replaced whole or
// not at all).
func writePredictions(ev *env, path string, pr *learn.Prediction, decision bool) error {
	write := func(w io.Writer) error { return pr.WritePredictions(w, decision) }
	if path == "-" {
		if err := write(ev.stdout); err != nil {
			return fmt.Errorf("--out -: standard output: %w", err)
		}
		return nil
	}
	if err := safefile.WriteFile(path, 0o666, write); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}
