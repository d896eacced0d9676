package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/plot"
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
	fs.StringVar(&o.format, "format", "auto", "data file format: auto, libsvm or csv")
	fs.StringVar(&o.scale, "scale", "standard", "feature scaling fitted on the training data: standard, minmax or none")
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
	fs.StringVar(&o.model.kernel, "kernel", "rbf", "kernel; the bounds need κ(x,x) ≤ 1 for every x: rbf")
	fs.Float64Var(&o.model.gamma, "gamma", 0, "RBF γ (default 1/number of features)")
	fs.Float64Var(&o.model.sigma, "sigma", 0, "RBF width σ in exp(−‖x−z‖²/σ²); same as --gamma 1/σ²")
	fs.StringVar(&o.model.backend, "backend", "", backendUsage)
	fs.IntVar(&o.model.threads, "threads", 0, "CPU threads for the CPU backends (default GOMAXPROCS)")
	fs.StringVar(&o.model.memBudget, "mem-budget", "", "memory budget for large allocations, e.g. 512MiB")
	return fs, o
}

func subspaceCommand() *command {
	return &command{
		name:    "subspace",
		summary: "sparse kernel PCA (residuals and bounds against k) or sparse kernel CCA (Hussain et al.)",
		usage: `pursuit subspace --data FILE [--test FILE] [--method skpca|skcca --data-y FILE [--test-y FILE] [--alpha A]] [--k K] [--gamma G | --sigma S]
                         [--scale standard|minmax|none] [--delta D] [--out FEATURES.csv] [--plot DIR [--log]] [--json]`,
		examples: `# Boston housing, the paper's Figure 2: Corollary 1 against Theorems 7 and 8 for k ≤ 150
pursuit subspace --data boston.gz --k 150 --gamma 0.2 --plot plots --log
# sparse kernel CCA on two views of the same rows, Theorem 9 for the first direction:
pursuit subspace --method skcca --data left.train --data-y right.train --test left.test --test-y right.test --k 100 --alpha 0.5`,
		run: runSubspace,
	}
}

// subspacePoint is one k of the curve (learn.SubspacePoint).
type subspacePoint = learn.SubspacePoint

type subspaceJSON struct {
	Method   string          `json:"method"`
	Kernel   string          `json:"kernel"`
	Backend  string          `json:"backend"`
	M        int             `json:"m"`
	NTest    int             `json:"n_test"`
	Delta    float64         `json:"delta"`
	Chosen   []int           `json:"chosen"`
	MinK     int             `json:"corollary1_min_k"`
	MinValue float64         `json:"corollary1_min"`
	Curve    []subspacePoint `json:"curve"`
	Out      string          `json:"out,omitempty"`
	Plot     string          `json:"plot,omitempty"`
}

func runSubspace(ev *env, args []string) error {
	c := subspaceCommand()
	fs, o := newSubspaceFlags()
	if err := parseFlags(ev, c, fs, args); err != nil {
		return err
	}
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
	if o.model.kernel != "rbf" {
		return fmt.Errorf("--kernel %s: subspace offers rbf (sparse KPCA's bounds need κ(x,x) ≤ R for every x, which rbf guarantees with R = 1)", o.model.kernel)
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
	scaler, err := fitScaler(o.scale, tr)
	if err != nil {
		return err
	}
	if err := learn.ScaleInPlace(scaler, tr); err != nil {
		return err
	}
	if err := learn.ScaleInPlace(scaler, te); err != nil {
		return err
	}
	kern, err := o.model.kernelFor(tr.Dim())
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
	fit, m, k := kc.Fit, tr.Len(), len(kc.Fit.Index)
	out := subspaceJSON{Method: o.method, Kernel: kern.String(), Backend: e.BackendName(), M: m, Delta: o.delta, Chosen: fit.Index,
		Curve: kc.Curve, MinK: kc.MinK, MinValue: kc.MinValue}
	var tz, trz [][]float64
	if te != nil {
		out.NTest = te.Len()
		if o.out != "" {
			for i := range te.Len() {
				tz = append(tz, kc.TestFeatures.RawRowView(i))
			}
		}
	}
	if o.out != "" {
		for j := range m {
			trz = append(trz, fit.G.RawRowView(j))
		}
		if err := writeFeatures(o.out, trz, tz); err != nil {
			return err
		}
		out.Out = o.out
	}
	if o.plotDir != "" {
		if out.Plot, err = subspacePlot(o.plotDir, o.data, out.Curve, o.logScale, inputs); err != nil {
			return err
		}
	}
	if o.model.jsonOutput {
		return printJSON(ev, out)
	}
	w := ev.stdout
	fmt.Fprintf(w, "method     %s, kernel %s, backend %s, %d training points, δ = %g\n", o.method, out.Kernel, out.Backend, m, o.delta)
	fmt.Fprintf(w, "%5s %10s %10s %10s %10s %10s\n", "k", "train", "test", "Cor. 1", "Thm 7", "Thm 8")
	for _, p := range out.Curve {
		if p.K <= 10 || p.K%10 == 0 || p.K == out.MinK || p.K == k {
			fmt.Fprintf(w, "%5d %10.4f %10s %10.4f %10s %10s\n", p.K, p.TrainResidual, optNum(p.TestResidual), p.Corollary1, optNum(p.Theorem7), optNum(p.Theorem8))
		}
	}
	fmt.Fprintf(w, "Corollary 1 is smallest at k = %d: with probability ≥ %s%%, the expected residual is at most %.4f\n", out.MinK, trimFloat(100*(1-o.delta)), out.MinValue)
	if !kc.Spectrum {
		fmt.Fprintf(w, "Theorems 7 and 8 left out: %d training points is more than the %d whose spectrum the command computes\n", m, learn.MaxSpectrum)
	}
	if out.Out != "" {
		fmt.Fprintf(w, "features   %s\n", out.Out)
	}
	if out.Plot != "" {
		fmt.Fprintf(w, "plot       %s\n", out.Plot)
	}
	return nil
}

func optNum(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 4, 64)
}

// writeFeatures writes one CSV line per point: "train" or "test", then the
// k features.
func writeFeatures(path string, train, test [][]float64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, part := range []struct {
		name string
		rows [][]float64
	}{{"train", train}, {"test", test}} {
		for _, r := range part.rows {
			w.WriteString(part.name)
			for _, v := range r {
				w.WriteByte(',')
				w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
			w.WriteByte('\n')
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("--out: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// subspacePlot draws the curves against k.
func subspacePlot(dir, data string, curve []subspacePoint, logScale bool, inputs []fileArg) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("--plot: %w", err)
	}
	val := func(v float64) float64 {
		if logScale {
			return math.Log10(v)
		}
		return v
	}
	opt := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return val(*p)
	}
	names := []string{"training residual", "test residual", "Corollary 1 (compression)", "Theorem 7 (global Rademacher)", "Theorem 8 (local Rademacher, c = 80)"}
	series := make([]plot.Series, len(names))
	for i := range series {
		series[i].Name = names[i]
	}
	for _, p := range curve {
		ys := []float64{val(p.TrainResidual), opt(p.TestResidual), val(p.Corollary1), opt(p.Theorem7), opt(p.Theorem8)}
		for i := range series {
			series[i].X = append(series[i].X, float64(p.K))
			series[i].Y = append(series[i].Y, ys[i])
		}
	}
	bestK := curve[0].K
	best := curve[0].Corollary1
	for _, p := range curve {
		if p.Corollary1 < best {
			best, bestK = p.Corollary1, p.K
		}
	}
	yLabel := "expected squared residual"
	if logScale {
		yLabel = "log10 of the expected squared residual"
	}
	path := filepath.Join(dir, trimExts(filepath.Base(data))+"-skpca.png")
	if err := checkOutputs(inputs, fileArg{"--plot", path}); err != nil {
		return "", err
	}
	if err := plot.LearningCurve(path, "sparse kernel PCA on "+filepath.Base(data), "k (basis vectors)", yLabel, series, float64(bestK), "Corollary 1 smallest"); err != nil {
		return "", err
	}
	return path, nil
}
