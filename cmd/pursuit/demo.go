package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

type demoOptions struct {
	sparse     string
	out        string
	algos      string
	backend    string
	seed       int64
	small      bool
	quiet      bool
	jsonOutput bool
}

func newDemoFlags() (*flag.FlagSet, *demoOptions) {
	o := &demoOptions{}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.StringVar(&o.out, "out", "pursuit-demo", "directory `DIR` for the plots and the generated data files")
	fs.StringVar(&o.algos, "algo", "", "comma-separated algorithms to run (default: every one in this build)")
	fs.StringVar(&o.backend, "backend", "", backendUsage)
	fs.Int64Var(&o.seed, "seed", 1, "random seed for the generated data and the algorithms")
	fs.BoolVar(&o.small, "small", false, "smaller problems, for a quick check (a few seconds)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&o.jsonOutput, "json", false, "print one JSON object with every result instead of the table")
	fs.StringVar(&o.sparse, "sparse", "", "only write a generated text-like sparse data set of `SHAPE` rcv1 (20,242 × 47,236, 76 non-zeros a row) or news20 (19,996 × 1,355,191, 455 a row) into --out as SHAPE-like.train.svm and, a quarter of its size, SHAPE-like.test.svm (LIBSVM format; Zipf vocabulary, topic mixtures, unit-norm tf-idf rows, labels by topic), and stop")
	return fs, o
}

func demoCommand() *command {
	return withFlags(&command{
		name:    "demo",
		summary: "train every algorithm on generated data, print a comparison table, write plots",
		usage:   "pursuit demo [--out DIR] [--algo A,B,...] [--backend B] [--seed S] [--small] [--json]",
		examples: `pursuit demo                      # two moons (2-D) and ringnorm (20-D); plots in ./pursuit-demo
pursuit demo --out /tmp/demo --algo kmp,svm
pursuit demo --small --json
pursuit demo --sparse rcv1 --out /tmp/text   # writes rcv1-like.train.svm and rcv1-like.test.svm`,
	}, true, newDemoFlags, runDemo)
}

// demoResult is one row of the table (and of --json's "results").
type demoResult = learn.DemoResult

func runDemo(ev *env, fs *flag.FlagSet, o *demoOptions) error {
	if o.sparse != "" {
		return writeSparseDemo(ev, o)
	}
	algos, err := learn.DemoAlgorithms(o.algos)
	if err != nil {
		return fmt.Errorf("--algo: %w", err)
	}
	mf0 := modelFlags{backend: o.backend, quiet: o.quiet}
	e, err := mf0.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	problems := learn.DemoProblems(uint64(o.seed), o.small)
	// The generated data, for trying train and predict by hand.
	files, err := learn.WriteDemoData(o.out, problems)
	if err != nil {
		return err
	}
	var results []demoResult
	for _, p := range problems {
		for _, a := range algos {
			r, plots, err := demoRun(ev, e, o, p, a)
			files = append(files, plots...)
			if err != nil {
				// One algorithm failing does not spoil the comparison; the
				// row says why and the exit status reports it at the end.
				r.Error = oneLine(err.Error())
			}
			results = append(results, r)
		}
	}
	rep := &learn.DemoReport{Backend: e.BackendName(), Reason: e.Reason(), Out: o.out, Results: results, Files: files}
	if o.jsonOutput {
		if err := printJSON(ev, rep); err != nil {
			return err
		}
	} else if err := rep.WriteText(ev.stdout, learn.DemoFullData()); err != nil {
		return err
	}
	if failed := rep.Failed(); len(failed) > 0 {
		return fmt.Errorf("%d run(s) failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// demoRun trains algorithm a on problem p (learn.DemoProblem.Run) and
// writes its plots.
func demoRun(ev *env, e *engine.Engine, o *demoOptions, p *learn.DemoProblem, a learn.Algorithm) (demoResult, []string, error) {
	bar := newProgressBar(ev, p.Name+" "+a.Name, o.quiet)
	bar.setLabel(trainLabel(a.Name, learn.LabelPlan{Task: learn.TaskBinary}))
	r, m, err := p.Run(e, a, o.seed, bar.Update, version, bar.Done)
	if err != nil {
		return r, nil, prepError(flagErr(err))
	}
	plots, err := writePlots(e, m, o.out, p.Name+"-"+a.Name, fmt.Sprintf("%s on %s", a.Name, p.Name), p.Train, nil)
	r.Plots = plots
	return r, plots, err
}

// writeSparseDemo writes the text-like set of --sparse's shape (and a test
// set a quarter its size, from the same topics and vocabulary) into --out.
func writeSparseDemo(ev *env, o *demoOptions) error {
	shape, err := data.TextLikeShape(o.sparse)
	if err != nil {
		return fmt.Errorf("--sparse: %w", err)
	}
	nTrain := shape.Rows
	shape.Rows += nTrain / 4
	shape.Seed = uint64(o.seed)
	ds, err := data.TextLike(shape)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o777); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	tr, te := ds.TrainTest(nTrain)
	for _, f := range []struct {
		ds   *data.Dataset
		name string
	}{{tr, "train"}, {te, "test"}} {
		path := filepath.Join(o.out, o.sparse+"-like."+f.name+".svm")
		if err := learn.WriteDemoSet(path, f.ds); err != nil {
			return err
		}
		fmt.Fprintf(ev.stdout, "wrote %s: %d examples, %d features, %d non-zeros\n", path, f.ds.Len(), f.ds.Dim(), f.ds.X.NNZ())
	}
	return nil
}
