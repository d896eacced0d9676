package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/safefile"
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
	return &command{
		name:    "demo",
		summary: "train every algorithm on generated data, print a comparison table, write plots",
		usage:   "pursuit demo [--out DIR] [--algo A,B,...] [--backend B] [--seed S] [--small] [--json]",
		examples: `pursuit demo                      # two moons (2-D) and ringnorm (20-D); plots in ./pursuit-demo
pursuit demo --out /tmp/demo --algo kmp,svm
pursuit demo --small --json
pursuit demo --sparse rcv1 --out /tmp/text   # writes rcv1-like.train.svm and rcv1-like.test.svm`,
		run: runDemo,
	}
}

// demoProblem is one generated data set and the settings each algorithm
// uses on it.
type demoProblem struct {
	name        string
	train, test *data.Dataset
	scale       string
	gamma       float64
	basis       int     // cap on KMP steps (early stopping on a validation part)
	valFrac     float64 // validation part for the KMP family's early stopping
	c           float64
	nz          int
}

func demoProblems(seed uint64, small bool) []*demoProblem {
	nMoons, nRing, dRing := 600, 3000, 20
	if small {
		nMoons, nRing = 240, 600
	}
	moons := data.TwoMoons(nMoons, 0.2, seed)
	ring := data.Ringnorm(nRing, dRing, seed)
	mTr, mTe := moons.TrainTest(nMoons * 2 / 3)
	rTr, rTe := ring.TrainTest(nRing * 2 / 3)
	return []*demoProblem{
		{name: "two-moons", train: mTr, test: mTe, scale: "minmax", gamma: 4, basis: 100, valFrac: 0.25, c: 10, nz: 10},
		{name: "ringnorm-20d", train: rTr, test: rTe, scale: "standard", gamma: 1.0 / 40, basis: 200, valFrac: 0.25, c: 10, nz: 20},
	}
}

// demoResult is one row of the table (and of --json's "results").
type demoResult struct {
	Problem string `json:"problem"`
	resultJSON
	Gamma float64  `json:"gamma"`       // the RBF kernel's γ
	C     *float64 `json:"c,omitempty"` // SVM / SLMC regularisation (null for the KMP family)
	Error string   `json:"error,omitempty"`
}

func runDemo(ev *env, args []string) error {
	c := demoCommand()
	fs, o := newDemoFlags()
	if err := parseFlags(ev, c, fs, args); err != nil {
		return err
	}
	if o.sparse != "" {
		return writeSparseDemo(ev, o)
	}
	var algos []*algorithm
	if o.algos == "" {
		for _, a := range algorithms() {
			if a.learner != nil && !a.notInDemo {
				algos = append(algos, a)
			}
		}
	} else {
		for _, name := range strings.Split(o.algos, ",") {
			a, err := findAlgorithm(strings.TrimSpace(name))
			if err != nil {
				return fmt.Errorf("--algo: %w", err)
			}
			algos = append(algos, a)
		}
	}
	if len(algos) == 0 {
		return fmt.Errorf("no algorithm is part of this build")
	}
	mf0 := modelFlags{backend: o.backend, seed: o.seed, quiet: o.quiet}
	e, err := mf0.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	problems := demoProblems(uint64(o.seed), o.small)
	var files []string
	// The generated data, for trying train and predict by hand.
	for _, p := range problems {
		for _, part := range []struct {
			ds  *data.Dataset
			ext string
		}{{p.train, "train"}, {p.test, "test"}} {
			path := filepath.Join(o.out, p.name+"."+part.ext)
			if err := writeDataset(path, part.ds); err != nil {
				return err
			}
			files = append(files, path)
		}
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
	var failed []string
	for _, r := range results {
		if r.Error != "" {
			failed = append(failed, r.Problem+"/"+r.Algorithm)
		}
	}
	if o.jsonOutput {
		if err := printJSON(ev, struct {
			Backend string       `json:"backend"`
			Reason  string       `json:"reason"`
			Out     string       `json:"out"`
			Results []demoResult `json:"results"`
			Files   []string     `json:"files"`
		}{e.BackendName(), e.Reason(), o.out, results, files}); err != nil {
			return err
		}
	} else {
		printDemoTable(ev, e, results, o.out, files)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d run(s) failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// demoRun trains algorithm a on problem p and writes its plots.
func demoRun(ev *env, e *engine.Engine, o *demoOptions, p *demoProblem, a *algorithm) (demoResult, []string, error) {
	r := demoResult{Problem: p.name, resultJSON: resultJSON{Algorithm: a.name, Backend: e.BackendName(), Task: learn.TaskBinary, NTrain: p.train.Len(), NTest: p.test.Len()}, Gamma: p.gamma}
	if contains(algoFlags()["c"], a.name) {
		c := p.c
		r.C = &c
	}
	mf := modelFlags{algo: a.name, kernel: "rbf", gamma: p.gamma, c: p.c, patience: kmpDefaultPatience, seed: o.seed, quiet: o.quiet}
	df := dataFlags{scale: p.scale}
	if a.usesBasis {
		mf.basis, df.valFrac = p.basis, p.valFrac
	}
	if a.name == "slmc" {
		mf.nz = p.nz
	}
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 1}}
	bar := newProgressBar(ev, p.name+" "+a.name, o.quiet)
	res, err := fitSplit(e, a, &mf, &df, plan, p.train, p.test, bar)
	if err != nil {
		return r, nil, err
	}
	defer e.Release(res.held)
	m := res.model
	r.Kernel = m.Header.Kernel
	r.NTrain, r.NVal = m.Header.Train.NTrain, m.Header.Train.NVal
	r.NBasis = m.NBasis()
	r.TrainError, r.ValError, r.TestError = num(res.trainErr), num(res.valErr), num(res.testErr)
	r.TrainSeconds, r.PredictSeconds = res.trainSeconds, res.predictSeconds
	if r.ModelBytes, err = m.Size(); err != nil {
		return r, nil, err
	}
	if m.Header.Curve, err = m.LearningCurve(e, res.tr, res.val, res.test, 60, true); err != nil {
		return r, nil, err
	}
	plots, err := writePlots(e, m, o.out, p.name+"-"+a.name, fmt.Sprintf("%s on %s", a.name, p.name), p.train, nil)
	r.Plots = plots
	return r, plots, err
}

func printDemoTable(ev *env, e *engine.Engine, results []demoResult, out string, files []string) {
	w := ev.stdout
	fmt.Fprintf(w, "pursuit demo: backend %s (%s)\n\n", e.BackendName(), oneLine(e.Reason()))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "problem\talgorithm\ttrain/val/test\tγ\tC\ttest error\tbasis functions\ttrain time\tbackend\t")
	for _, r := range results {
		split := fmt.Sprintf("%d/%d/%d", r.NTrain, r.NVal, r.NTest)
		c := "-"
		if r.C != nil {
			c = learn.FormatLabel(*r.C)
		}
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%s\tfailed\t-\t-\t%s\t\n", r.Problem, r.Algorithm, split, r.Gamma, c, r.Backend)
			continue
		}
		te := "-"
		if r.TestError != nil {
			te = fmt.Sprintf("%.2f%%", 100**r.TestError)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%s\t%s\t%d\t%.3f s\t%s\t\n", r.Problem, r.Algorithm, split, r.Gamma, c, te, r.NBasis, r.TrainSeconds, r.Backend)
	}
	tw.Flush()
	for _, r := range results {
		if r.Error != "" {
			fmt.Fprintf(w, "\n%s %s failed: %s", r.Problem, r.Algorithm, r.Error)
		}
	}
	fmt.Fprintf(w, "\nAll use the RBF kernel exp(−γ‖x−z‖²). The KMP family stops early on the validation part (a quarter of\n")
	fmt.Fprintf(w, "the training data); %s train on all of it. Basis functions do not count the bias.\n", listAnd(fullDataAlgos()))
	fmt.Fprintf(w, "Plots and the generated data (LIBSVM format) are in %s:\n", out)
	for _, f := range files {
		fmt.Fprintf(w, "  %s\n", f)
	}
}

func writeDataset(path string, ds *data.Dataset) error {
	err := safefile.WriteFile(path, 0o666, func(w io.Writer) error { return data.WriteLibSVM(w, ds) })
	if err != nil {
		return fmt.Errorf("writing demo data: %w", err)
	}
	return nil
}

// fullDataAlgos are the demo's algorithms that train on all the training
// data (no early stopping on a validation part), from the algorithm table.
func fullDataAlgos() []string {
	var names []string
	for _, a := range algorithms() {
		if !a.usesBasis && !a.notInDemo {
			names = append(names, a.name)
		}
	}
	return names
}

// listAnd joins names as "a, b and c".
func listAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
		if err := writeDataset(path, f.ds); err != nil {
			return err
		}
		fmt.Fprintf(ev.stdout, "wrote %s: %d examples, %d features, %d non-zeros\n", path, f.ds.Len(), f.ds.Dim(), f.ds.X.NNZ())
	}
	return nil
}
