package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/slmc"
)

type compressOptions struct {
	learn.CompressSettings
	model, data, test string
	out, plot         string
	format            string
	backend           string
	threads           int
	memBudget         string
	quiet             bool
	jsonOutput        bool
}

func newCompressFlags() (*flag.FlagSet, *compressOptions) {
	o := &compressOptions{}
	fs := flag.NewFlagSet("compress", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "the C-SVC model `FILE` to compress: a LIBSVM model from svm-train (binary or multi-class one-vs-one), or an svm model from `pursuit train` (binary or one-vs-rest)")
	fs.StringVar(&o.data, "data", "", "the training data `FILE` the model was trained on (LIBSVM or CSV)")
	fs.StringVar(&o.test, "test", "", "test data `FILE`: the table gives each model's error on it (without it, the error on --data)")
	fs.IntVar(&o.Nz, "nz", 0, "expansion vectors per binary machine (capped at a one-vs-one pair's own count); at most the model's vectors")
	fs.StringVar(&o.NzFrac, "nz-frac", "", "expansion vectors as a fraction of each machine's vectors, or a comma-separated `LIST` of fractions (one compressed model each; default 0.1)")
	fs.StringVar(&o.Method, "method", "slmc", "slmc (sparse large margin classifier started from the support vectors), mrs (reduced set with the SVM's coefficients on its span) or rs (Burges' reduced set); all need the rbf kernel")
	fs.Float64Var(&o.C, "c", 0, "the SVM cost of SLMC's and MRS's inner problem (default: the model's largest |coefficient|, which is its C when a support vector is at the bound)")
	fs.IntVar(&o.MaxIter, "max-iter", 0, "slmc: bound on the L-BFGS iterations per machine (default 200)")
	fs.Int64Var(&o.Seed, "seed", 1, "random seed (SLMC's initial vectors: a random subset of the support vectors)")
	fs.StringVar(&o.out, "out", "", "write the compressed model to `FILE` (with a list of --nz-frac, one file per fraction: FILE with -nzF before its extension, e.g. out-nz0.05.model; "+safeWriteHelp+")")
	fs.StringVar(&o.plot, "plot", "", "write the trade-off (test error against expansion vectors) to `FILE` (.png, .svg or .pdf)")
	fs.StringVar(&o.format, "format", "auto", "data file format: auto (from the name: .csv is CSV), libsvm or csv")
	fs.StringVar(&o.backend, "backend", "", backendUsage)
	fs.IntVar(&o.threads, "threads", 0, threadsUsage)
	fs.StringVar(&o.memBudget, "mem-budget", "", "memory budget, e.g. 512MiB or 8GiB (default 4GiB): the model, the data and each machine's inner problem (rows × expansion vectors in float64) must fit in it, else the command stops with an error naming the size")
	fs.BoolVar(&o.quiet, "quiet", false, "print no progress lines (errors and warnings still go to stderr)")
	fs.BoolVar(&o.jsonOutput, "json", false, "print one JSON object with the table instead of the text table")
	return fs, o
}

func compressCommand() *command {
	return withFlags(&command{
		name:    "compress",
		summary: "shrink a C-SVC model (pursuit's or svm-train's) to a few expansion vectors with SLMC, MRS or RS",
		usage: `pursuit compress --model FILE --data FILE (--nz N | --nz-frac F[,F...]) --out FILE
[--test FILE] [--method slmc|mrs|rs] [--json] [--plot FILE]`,
		examples: `svm-train -g 0.0078125 -c 10 usps8.train usps8.libsvm
pursuit compress --model usps8.libsvm --data usps8.train --test usps8.test --nz-frac 0.1 --out usps8-slmc.model
pursuit compress --model usps8.libsvm --data usps8.train --test usps8.test --nz-frac 0.01,0.02,0.05,0.1 --out usps8.model --plot tradeoff.png
pursuit predict --model usps8-slmc.model --data usps8.test
pursuit export --model usps8-slmc.model --out usps8-slmc.libsvm   # svm-predict reads it
# Multi-class one-vs-one models (svm-train's) are compressed pair by pair, each pair with its
# own vectors: no method shares them (SLMC moves a vector to its own pair's margin, RS fits its
# own pair's expansion), so --nz and --nz-frac size every pair by its own vector count and the
# total is about F times the pairs' summed counts. One-vs-rest models (pursuit train
# --one-vs-rest --algo svm) are compressed class by class, each class's machine on all the rows
# with its own ±1 targets, and predict the class with the largest decision, as before.
# Binary and one-vs-one results export as LIBSVM or ONNX; one-vs-rest ones as neither.`,
	}, true, newCompressFlags, runCompress)
}

// loadCompressSource reads --model (learn.LoadCompressSource), its
// refusals naming the flag.
func loadCompressSource(e *engine.Engine, path string) (*learn.CompressSource, error) {
	src, err := learn.LoadCompressSource(e, path)
	var se *learn.SourceError
	switch {
	case errors.As(err, &se) && se.Open:
		return nil, fmt.Errorf("--model: %w", err)
	case errors.As(err, &se):
		return nil, fmt.Errorf("--model %w", err)
	}
	return src, err
}

func runCompress(ev *env, fs *flag.FlagSet, o *compressOptions) error {
	set := setFlags(fs)
	switch {
	case o.model == "":
		return fmt.Errorf("missing --model FILE (the C-SVC model to compress)")
	case o.data == "":
		return fmt.Errorf("missing --data FILE (the training data of the model)")
	case o.out == "":
		return fmt.Errorf("missing --out FILE (where to write the compressed model)")
	}
	if err := o.Validate(set); err != nil {
		return flagErr(err)
	}
	fracs, _ := o.Fractions(set)
	outs := learn.FractionPaths(o.out, fracs)
	df := dataFlags{DataSettings: learn.DataSettings{Format: o.format, Scale: "none"}}
	if err := df.validate(nil, false); err != nil {
		return err
	}
	inputs := []fileArg{{Name: "--model", Path: o.model}, {Name: "--data", Path: o.data}}
	if o.test != "" {
		inputs = append(inputs, fileArg{Name: "--test", Path: o.test})
	}
	var outArgs []fileArg
	for _, p := range outs {
		outArgs = append(outArgs, fileArg{Name: "--out", Path: p})
	}
	if o.plot != "" {
		outArgs = append(outArgs, fileArg{Name: "--plot", Path: o.plot})
	}
	if err := checkOutputs(inputs, outArgs...); err != nil {
		return err
	}
	mf := modelFlags{backend: o.backend, threads: o.threads, memBudget: o.memBudget}
	e, err := mf.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	src, err := loadCompressSource(e, o.model)
	if err != nil {
		return err
	}
	if err := o.CheckSource(src); err != nil {
		return flagErr(err)
	}
	// The data: a pursuit model's dimension is forced (an index above it
	// is an error); a LIBSVM model's vectors must not be wider than the
	// data (LIBSVM drops trailing zero features).
	ds, evalSet, err := src.LoadData(e, o.data, o.test, df.loadOptions, func(err error) error { return budgetError(err, "--mem-budget") })
	if err != nil {
		return flagErr(err)
	}
	evalName := o.data
	if o.test != "" {
		evalName = o.test
	}
	progress := func(line string) { fmt.Fprintf(ev.stderr, "pursuit compress: %s\n", line) }
	if o.quiet {
		progress = nil
	}
	comp := o.Compress(fracs, o.data, version, progress, func(i int, m *learn.File) error { _, err := m.WriteFile(outs[i]); return err })
	table, err := comp.Run(e, src, ds, evalSet)
	if err != nil {
		return compressError(err)
	}
	rep := table.Report(src, o.model, o.Method, outs, !set["nz"], evalName, evalSet.Len(), e.BackendName())
	if o.plot != "" {
		if err := rep.Plot(o.plot); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	if o.jsonOutput {
		return printJSON(ev, rep)
	}
	rep.WriteText(ev.stdout)
	if o.plot != "" {
		fmt.Fprintf(ev.stdout, "plot written to %s\n", o.plot)
	}
	return nil
}

// compressError turns slmc.Compress's errors into the command's words.
func compressError(err error) error {
	switch {
	case errors.Is(err, slmc.ErrKernel):
		return fmt.Errorf("%w; retrain the SVM with the rbf kernel (svm-train -t 2) to compress it", err)
	}
	return err
}
