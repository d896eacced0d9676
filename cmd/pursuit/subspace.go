package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

type subspaceOptions struct {
	dataFlags
	model    modelFlags
	dataY    string
	testY    string
	alpha    float64
	method   string
	k        int
	delta    float64
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
	fs.StringVar(&o.method, "method", "skpca", "subspace method: skpca (sparse kernel PCA, Algorithm 2) or skcca (sparse kernel CCA, Algorithm 3: views from --data and --data-y)")
	fs.StringVar(&o.dataY, "data-y", "", "skcca: the second view's training data `FILE`, row i paired with row i of --data")
	fs.StringVar(&o.testY, "test-y", "", "skcca: the second view's test data `FILE`, paired with --test")
	fs.Float64Var(&o.alpha, "alpha", 0, "skcca: Theorem 9's bound on P(|f_x − f_y| > `ALPHA`) for the first direction")
	fs.IntVar(&o.k, "k", 50, "number of training points to choose (the largest k of the curve)")
	fs.Float64Var(&o.delta, "delta", 0.05, "the bounds hold with probability at least 1 − `DELTA`")
	fs.StringVar(&o.out, "out", "", "write the k projected features of every training point (and --test point) as CSV to `FILE`")
	fs.StringVar(&o.plotDir, "plot", "", "draw the residuals and bounds against k (Hussain et al.'s Figures 2–5) as a PNG into `DIR`")
	fs.BoolVar(&o.logScale, "log", false, "--plot: log10 of the values (Figures 4 and 5, where Theorem 8 is far above the rest)")
	fs.BoolVar(&o.model.jsonOutput, "json", false, "print one JSON object")
	fs.StringVar(&o.model.Kernel, "kernel", "rbf", "kernel; the bounds need κ(x,x) ≤ 1 for every x: rbf")
	fs.Float64Var(&o.model.Gamma, "gamma", 0, "RBF γ (default 1/number of features)")
	fs.Float64Var(&o.model.Sigma, "sigma", 0, "RBF width σ in exp(−‖x−z‖²/σ²); same as --gamma 1/σ²")
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
	inputs := []fileArg{{"--data", o.data}, {"--test", o.test}, {"--data-y", o.dataY}, {"--test-y", o.testY}}
	if err := checkOutputs(inputs, fileArg{"--out", o.out}); err != nil {
		return err
	}
	switch o.method {
	case "skpca":
		for _, f := range []string{"data-y", "test-y", "alpha"} {
			if set[f] {
				return fmt.Errorf("--%s applies to --method skcca", f)
			}
		}
	case "skcca":
		if o.dataY == "" {
			return fmt.Errorf("--method skcca needs --data-y FILE, the second view of the --data rows")
		}
		if (o.test == "") != (o.testY == "") {
			return fmt.Errorf("--method skcca: give --test and --test-y together (the two views of the test pairs)")
		}
		if set["alpha"] && (!(o.alpha > 0) || math.IsInf(o.alpha, 0)) {
			return fmt.Errorf("--alpha %v: must be a finite number > 0", o.alpha)
		}
		for _, f := range []string{"plot", "log"} {
			if set[f] {
				return fmt.Errorf("--%s applies to --method skpca", f)
			}
		}
	default:
		return fmt.Errorf("--method %q: want skpca or skcca", o.method)
	}
	if o.k < 1 {
		return fmt.Errorf("--k %d: must be at least 1", o.k)
	}
	if !(o.delta > 0 && o.delta < 1) {
		return fmt.Errorf("--delta %v: must be in (0, 1)", o.delta)
	}
	if o.model.Kernel != "rbf" {
		return fmt.Errorf("--kernel %s: subspace offers rbf (sparse KPCA's bounds need κ(x,x) ≤ R for every x, which rbf guarantees with R = 1)", o.model.Kernel)
	}
	if set["log"] && o.plotDir == "" {
		return fmt.Errorf("--log applies to --plot")
	}
	if err := o.dataFlags.validate(set, true); err != nil {
		return err
	}
	if o.method == "skcca" {
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
	if o.k >= tr.Len() {
		return fmt.Errorf("--k %d: must be less than the %d training examples", o.k, tr.Len())
	}
	if err := scaleData(o.Scale, tr, te); err != nil {
		return err
	}
	kern, err := o.model.KernelFor(tr.Dim())
	if err != nil {
		return err
	}
	e, err := o.model.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	var teX pursuit.Matrix
	if te != nil {
		teX = te.X
	}
	kc, err := learn.SparseKPCA(e, kern, tr.X, teX, o.k, o.delta)
	if err != nil {
		return err
	}
	nTest := 0
	if te != nil {
		nTest = te.Len()
	}
	out := kc.Report(kern, e.BackendName(), tr.Len(), nTest, o.delta)
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
		if err := checkOutputs(inputs, fileArg{"--plot", path}); err != nil {
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

// loadViews reads the x and y views of paired data (same rows) and checks
// their row counts agree.
func loadViews(o *subspaceOptions, xPath, yPath string, dimX, dimY int, flagY string) (*data.Dataset, *data.Dataset, error) {
	x, err := loadData(xPath, o.loadOptions(dimX))
	if err != nil {
		return nil, nil, err
	}
	y, err := loadData(yPath, o.loadOptions(dimY))
	if err != nil {
		return nil, nil, err
	}
	if x.Len() != y.Len() {
		return nil, nil, fmt.Errorf("%s %s has %d rows but %s has %d: the two views must hold the same pairs, row by row", flagY, yPath, y.Len(), xPath, x.Len())
	}
	return x, y, nil
}

// runSKCCA is subspace --method skcca: views from --data and --data-y
// (and --test / --test-y), sparse KCCA at --k (learn.SparseKCCA).
func runSKCCA(ev *env, o *subspaceOptions, e *engine.Engine) error {
	tx, ty, err := loadViews(o, o.data, o.dataY, 0, 0, "--data-y")
	if err != nil {
		return err
	}
	if o.k >= tx.Len() {
		return fmt.Errorf("--k %d: must be less than the %d training pairs", o.k, tx.Len())
	}
	var ex, ey *data.Dataset
	if o.test != "" {
		if ex, ey, err = loadViews(o, o.test, o.testY, tx.Dim(), ty.Dim(), "--test-y"); err != nil {
			return err
		}
	}
	if err := scaleData(o.Scale, tx, ex); err != nil {
		return err
	}
	if err := scaleData(o.Scale, ty, ey); err != nil {
		return err
	}
	kx, err := o.model.KernelFor(tx.Dim())
	if err != nil {
		return err
	}
	ky, err := o.model.KernelFor(ty.Dim())
	if err != nil {
		return err
	}
	var qx, qy *pursuit.Matrix
	if ex != nil {
		qx, qy = &ex.X, &ey.X
	}
	out, err := learn.SparseKCCA(e, kx, ky, tx.X, ty.X, qx, qy, o.k, o.alpha, o.delta, o.out != "")
	var ae *learn.AlphaError
	if errors.As(err, &ae) {
		return fmt.Errorf("--alpha: %w", ae.Err)
	}
	if err != nil {
		return err
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
