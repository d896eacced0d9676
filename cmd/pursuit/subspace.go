package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

type subspaceOptions struct {
	dataFlags
	sub      learn.SubspaceSettings
	model    modelFlags
	dataY    string
	testY    string
	out      string
	plotDir  string
	logScale bool
}

func newSubspaceFlags() (*flag.FlagSet, *subspaceOptions) {
	o := &subspaceOptions{}
	fs := flag.NewFlagSet("subspace", flag.ContinueOnError)
	fs.StringVar(&o.data, "data", "", "training data `FILE` (labels are ignored)")
	fs.StringVar(&o.test, "test", "", "test data `FILE`: its residual is reported at every k")
	fs.StringVar(&o.Format, "format", "auto", "data file format: auto, libsvm or csv")
	fs.StringVar(&o.Scale, "scale", "standard", "feature scaling fitted on the training data: standard, minmax or none")
	fs.StringVar(&o.sub.Method, "method", "skpca", "subspace method: skpca (sparse kernel PCA, Algorithm 2) or skcca (sparse kernel CCA, Algorithm 3: views from --data and --data-y)")
	fs.StringVar(&o.dataY, "data-y", "", "skcca: the second view's training data `FILE`, row i paired with row i of --data")
	fs.StringVar(&o.testY, "test-y", "", "skcca: the second view's test data `FILE`, paired with --test")
	fs.Float64Var(&o.sub.Alpha, "alpha", 0, "skcca: Theorem 9's bound on P(|f_x − f_y| > `ALPHA`) for the first direction")
	fs.IntVar(&o.sub.K, "k", 50, "number of training points to choose (the largest k of the curve)")
	fs.Float64Var(&o.sub.Delta, "delta", 0.05, "the bounds hold with probability at least 1 − `DELTA`")
	fs.StringVar(&o.out, "out", "", "write the k projected features of every training point (and --test point) as CSV to `FILE`")
	fs.StringVar(&o.plotDir, "plot", "", "draw the residuals and bounds against k (Hussain et al.'s Figures 2–5) as a PNG into `DIR`")
	fs.BoolVar(&o.logScale, "log", false, "--plot: log10 of the values (Figures 4 and 5, where Theorem 8 is far above the rest)")
	fs.BoolVar(&o.model.jsonOutput, "json", false, "print one JSON object")
	fs.StringVar(&o.sub.Kernel.Kernel, "kernel", "rbf", "kernel; the bounds need κ(x,x) ≤ 1 for every x: rbf")
	fs.Float64Var(&o.sub.Kernel.Gamma, "gamma", 0, "RBF γ (default 1/number of features)")
	fs.Float64Var(&o.sub.Kernel.Sigma, "sigma", 0, "RBF width σ in exp(−‖x−z‖²/σ²); same as --gamma 1/σ²")
	fs.StringVar(&o.model.backend, "backend", "", backendUsage)
	fs.IntVar(&o.model.threads, "threads", 0, "CPU threads for the CPU backends (default GOMAXPROCS)")
	fs.StringVar(&o.model.memBudget, "mem-budget", "", "memory budget for large allocations, e.g. 512MiB")
	return fs, o
}

func subspaceCommand() *command {
	return withFlags(&command{
		name:    "subspace",
		summary: "sparse kernel PCA (residuals and bounds against k) or sparse kernel CCA (Hussain et al.)",
		usage: `pursuit subspace --data FILE [--test FILE] [--method skpca|skcca --data-y FILE [--test-y FILE] [--alpha A]] [--k K] [--gamma G | --sigma S]
                         [--scale standard|minmax|none] [--delta D] [--out FEATURES.csv] [--plot DIR [--log]] [--json]`,
		examples: `# Boston housing, the paper's Figure 2: Corollary 1 against Theorems 7 and 8 for k ≤ 150
pursuit subspace --data boston.gz --k 150 --gamma 0.2 --plot plots --log
# sparse kernel CCA on two views of the same rows, Theorem 9 for the first direction:
pursuit subspace --method skcca --data left.train --data-y right.train --test left.test --test-y right.test --k 100 --alpha 0.5`,
	}, false, newSubspaceFlags, runSubspace)
}

func runSubspace(ev *env, fs *flag.FlagSet, o *subspaceOptions) error {
	set := setFlags(fs)
	if o.data == "" {
		return fmt.Errorf("missing --data FILE (the training data)")
	}
	inputs := []fileArg{{Name: "--data", Path: o.data}, {Name: "--test", Path: o.test}, {Name: "--data-y", Path: o.dataY}, {Name: "--test-y", Path: o.testY}}
	if err := checkOutputs(inputs, fileArg{Name: "--out", Path: o.out}); err != nil {
		return err
	}
	if o.sub.Method == "skcca" && o.dataY == "" {
		return fmt.Errorf("--method skcca needs --data-y FILE, the second view of the --data rows")
	}
	if o.sub.Method == "skcca" && (o.test == "") != (o.testY == "") {
		return fmt.Errorf("--method skcca: give --test and --test-y together (the two views of the test pairs)")
	}
	if err := o.sub.Validate(set); err != nil {
		return flagErr(err)
	}
	if err := o.dataFlags.validate(set, true); err != nil {
		return err
	}
	o.sub.Scale = o.Scale
	if o.sub.Method == "skcca" {
		e, err := o.model.newEngine()
		if err != nil {
			return err
		}
		defer e.Close()
		return runSKCCA(ev, o, e)
	}
	tr, err := loadData(o.data, o.loadOptions(0))
	if err != nil {
		return err
	}
	var te *data.Dataset
	if o.test != "" {
		d, err := loadData(o.test, o.loadOptions(tr.Dim()))
		if err != nil {
			return fmt.Errorf("%w (the test data must have the training data's %d features)", err, tr.Dim())
		}
		te = d
	}
	kern, err := o.sub.Prepare(tr, te)
	if err != nil {
		return flagErr(err)
	}
	e, err := o.model.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	kc, out, err := o.sub.FitKPCA(e, kern, tr, te)
	if err != nil {
		return err
	}
	if o.out != "" {
		train, test := kc.Features()
		if err := writeFeatures(o.out, train, test); err != nil {
			return err
		}
		out.Out = o.out
	}
	if o.plotDir != "" {
		if err := os.MkdirAll(o.plotDir, 0o755); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
		path := filepath.Join(o.plotDir, trimExts(filepath.Base(o.data))+"-skpca.png")
		if err := checkOutputs(inputs, fileArg{Name: "--plot", Path: path}); err != nil {
			return err
		}
		if err := kc.Plot(path, "sparse kernel PCA on "+filepath.Base(o.data), o.logScale); err != nil {
			return err
		}
		out.Plot = path
	}
	if o.model.jsonOutput {
		return printJSON(ev, out)
	}
	out.WriteText(ev.stdout)
	return nil
}

// writeFeatures writes --out (learn.WriteFeatures).
func writeFeatures(path string, train, test [][]float64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := learn.WriteFeatures(f, train, test); err != nil {
		f.Close()
		return fmt.Errorf("--out: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// loadViews reads the x and y views of paired data (same rows), y's file
// named by the flag flagY (learn.CheckPairs).
func loadViews(o *subspaceOptions, xPath, yPath string, dimX, dimY int, flagY string) (*data.Dataset, *data.Dataset, error) {
	x, err := loadData(xPath, o.loadOptions(dimX))
	if err != nil {
		return nil, nil, err
	}
	y, err := loadData(yPath, o.loadOptions(dimY))
	if err != nil {
		return nil, nil, err
	}
	return x, y, flagErr(learn.CheckPairs(x, y, xPath, yPath, flagY))
}

// runSKCCA is subspace --method skcca: views from --data and --data-y
// (and --test / --test-y), sparse KCCA at --k (learn.SparseKCCA).
func runSKCCA(ev *env, o *subspaceOptions, e *engine.Engine) error {
	tx, ty, err := loadViews(o, o.data, o.dataY, 0, 0, "data-y")
	if err != nil {
		return err
	}
	var ex, ey *data.Dataset
	if o.test != "" {
		if ex, ey, err = loadViews(o, o.test, o.testY, tx.Dim(), ty.Dim(), "test-y"); err != nil {
			return err
		}
	}
	kx, ky, err := o.sub.PreparePairs(tx, ty, ex, ey)
	if err != nil {
		return flagErr(err)
	}
	out, err := o.sub.FitKCCA(e, kx, ky, tx, ty, ex, ey, o.out != "")
	if err != nil {
		return flagErr(err)
	}
	if o.out != "" {
		if err := writeFeatures(o.out, out.TrainFeatures, out.TestFeatures); err != nil {
			return err
		}
		out.Out = o.out
	}
	if o.model.jsonOutput {
		return printJSON(ev, out)
	}
	out.WriteText(ev.stdout)
	return nil
}
