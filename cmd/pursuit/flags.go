package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
	"github.com/pursuit-ml/pursuit/learn"
)

// dataFlags name the input files, with the data settings
// (learn.DataSettings, one flag each, named as the setting).
type dataFlags struct {
	learn.DataSettings
	data, test string
	// sparseOK says the command's algorithm takes sparse rows
	// (learn.Algorithm.Sparse); without it the data are held dense.
	sparseOK    bool
	storageAlgo string // the algorithm, for the messages about storage
}

// modelFlags are the model settings (learn.Settings, one flag each, named
// as the setting) and the run settings shared by train, cv and demo.
type modelFlags struct {
	learn.Settings
	backend    string
	threads    int
	memBudget  string
	quiet      bool
	progress   string
	jsonOutput bool
}

func addDataFlags(fs *flag.FlagSet, d *dataFlags, withTest bool) {
	fs.StringVar(&d.data, "data", "", "training data `FILE` (LIBSVM/svmlight or .csv; .gz and .bz2 are decompressed)")
	if withTest {
		fs.StringVar(&d.test, "test", "", "test data `FILE`, scaled like the training data; its error is reported")
	}
	fs.StringVar(&d.Format, "format", "auto", "data file format: auto (from the name: .csv is CSV), libsvm or csv")
	fs.IntVar(&d.LabelColumn, "label-column", 0, labelColumnUsage)
	fs.BoolVar(&d.Header, "header", false, "CSV only: the first line is a header")
	fs.StringVar(&d.Positive, "positive", "", "train `LABEL` vs the rest: examples labelled LABEL become +1, all others −1")
	fs.BoolVar(&d.OneVsRest, "one-vs-rest", false, "multi-class data: train one classifier per class, predict the largest output")
	fs.BoolVar(&d.Regression, "regression", false, "real-valued targets (implied by --svr-epsilon); errors are mean squared errors")
	fs.StringVar(&d.Scale, "scale", "auto", scaleUsage)
	fs.StringVar(&d.Storage, "storage", "auto", storageUsage)
	fs.Float64Var(&d.ValFrac, "val-frac", 0, "hold out this `FRACTION` of the training data for validation (KMP: early stopping on it); 0, the default, holds out nothing")
}

// Usage texts shared by several commands.
const (
	scaleUsage       = "feature scaling fitted on the training data and kept in the model: auto (the default: maxabs for sparse data, density below 0.25, as it keeps their zeros; minmax otherwise, whatever the storage), minmax ([-1,1]), maxabs (x/max|x|, onto [-1,1], zeros stay zero), standard or none; sparse data take only maxabs or none"
	storageUsage     = "how LIBSVM data are held in memory: auto (sparse rows below the density where they give faster kernel rows, 0 up to 120 features rising to 0.18 from 282, or where dense rows would take over 4 times the memory or exceed the memory limit; else dense), dense or sparse; CSV is always dense. Algorithms that do not take sparse rows yet hold the data dense"
	labelColumnUsage = "CSV only: 0-based column holding the label (default 0, the first column; negative counts from the end, -1 is the last)"
	threadsUsage     = "CPU threads for the CPU backends; 0 (the default) means GOMAXPROCS"
)

// checkThreads refuses a negative --threads (0 means GOMAXPROCS).
func checkThreads(n int) error {
	if n < 0 {
		return fmt.Errorf("--threads %d: must be 0 (GOMAXPROCS) or more", n)
	}
	return nil
}

func addModelFlags(fs *flag.FlagSet, m *modelFlags) {
	fs.StringVar(&m.Algo, "algo", "kmp", "algorithm: "+strings.Join(learn.AlgorithmNames(), " | "))
	fs.StringVar(&m.Kernel, "kernel", "rbf", "kernel: rbf (exp(−γ‖x−z‖²)), linear, poly ((γ x·z + coef0)^degree) or sigmoid (tanh(γ x·z + coef0))")
	fs.Float64Var(&m.Gamma, "gamma", 0, "kernel γ (default 1/number of features)")
	fs.Float64Var(&m.Sigma, "sigma", 0, "RBF width σ in exp(−‖x−z‖²/σ²), the KMP papers' form; same as --gamma 1/σ²")
	fs.IntVar(&m.Degree, "degree", 3, "poly kernel degree")
	fs.Float64Var(&m.Coef0, "coef0", 0, "poly and sigmoid kernel constant c0")
	fs.IntVar(&m.Basis, "basis", 0, "`N` kernel basis functions for the KMP family, the bias not counted (default 100; with --val-frac at most N, default 1000, stopping early on the validation part). kmp-basic and skmp may choose a function again, so they can end with fewer")
	fs.IntVar(&m.Patience, "patience", learn.DefaultPatience, "with --val-frac: stop after this many steps without validation improvement; 0 runs every step and keeps the best")
	fs.Float64Var(&m.C, "c", 1, "SVM / SLMC regularisation C")
	fs.Float64Var(&m.SVREpsilon, "svr-epsilon", 0, "ε-SVR: width of the insensitive tube; implies --regression")
	fs.StringVar(&m.Solver, "solver", "auto", "SVM dual solver: smo (LIBSVM's), batched (working sets of 64-1024 variables, kernel rows in blocks) or auto (smo for now)")
	fs.BoolVar(&m.HostRows, "host-rows", false, "SVM, --solver batched on a GPU: keep the kernel rows, the subproblem and the gradient update on the host instead of the device (the same model, bit for bit; for comparisons)")
	fs.Float64Var(&m.Epsilon, "epsilon", 0, "bpdn: ε, the ℓ1 weight of Girosi's problem = the ε-SVR tube half-width (LIBSVM -p); implies --regression")
	fs.IntVar(&m.ActiveSet, "active-set", 0, "stochastic KMP: candidates searched per step, at least 1 (default from --eps and --q)")
	fs.Float64Var(&m.Eps, "eps", 0, "stochastic KMP: active set s = ⌈log ε / log q⌉ (default ε 0.05)")
	fs.Float64Var(&m.Q, "q", 0, "stochastic KMP: quantile q of the active-set rule (default 0.95)")
	fs.StringVar(&m.Fit, "fit", learn.DefaultSKMPFit.String(), skmpFitHelp)
	fs.IntVar(&m.Nz, "nz", 0, "SLMC: number of expansion vectors Nz, at least 1 (default: --nz-frac 0.1)")
	fs.Float64Var(&m.NzFrac, "nz-frac", 0, "SLMC: Nz as this fraction of the support-vector count of an SVM trained with the same kernel and C")
	fs.StringVar(&m.Method, "method", "slmc", "SLMC: the method, "+strings.Join(learn.SLMCMethods, " | ")+" (the paper's sparse large margin classifier, or its comparisons: reduced set, modified RS, reduced SVM, modified RSVM, sparse kernel Fisher discriminant)")
	fs.Int64Var(&m.Seed, "seed", 1, "random seed (splits, candidate sampling, initialisation)")
	fs.StringVar(&m.backend, "backend", "", backendUsage)
	fs.IntVar(&m.threads, "threads", 0, threadsUsage)
	fs.StringVar(&m.memBudget, "mem-budget", "", "memory budget, e.g. 512MiB or 8GiB (default 4GiB): the loaded data, its working copies and the algorithm's large allocations must fit in it, else the command stops with an error naming this flag; the process stays within it plus about 64 MiB")
	fs.BoolVar(&m.quiet, "quiet", false, "no progress report (same as --progress off)")
	fs.StringVar(&m.progress, "progress", progressAuto, "progress on stderr: auto (a bar on a terminal, lines otherwise), bar, lines (one line every 5 s or 10%) or off")
	fs.BoolVar(&m.jsonOutput, "json", false, "print one JSON object with the results")
}

// backendUsage is --backend's help, the same for every command.
const backendUsage = "backend: go (portable), avx2 (AVX2/FMA assembly, with AVX-512 kernels where the CPU has them), avx2-only (the same without AVX-512), cuda or auto (default auto, or $" + engine.EnvBackend + ")"

// memBudgetReadUsage is --mem-budget's help for the commands that read a
// model and data (predict, plot, bound).
const memBudgetReadUsage = "memory budget, e.g. 512MiB or 8GiB (default 4GiB): the model file, its vectors and the data must fit in it, else the command stops with an error naming the file and the size"

// parseBytes parses --mem-budget (engine.ParseBytes).
func parseBytes(s string) (int64, error) {
	b, err := engine.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("--mem-budget %w", err)
	}
	return b, nil
}

// checkKernelWidth checks --gamma and --sigma wherever a command has them
// (train, cv, equiv, subspace: one check for all): given, each must be
// positive and finite, and not both. Left out, they take their default.
func checkKernelWidth(fs *flag.FlagSet, set map[string]bool) error {
	if set["gamma"] && set["sigma"] {
		return fmt.Errorf("give --gamma or --sigma, not both (--sigma S means --gamma 1/S²)")
	}
	for _, name := range []string{"gamma", "sigma"} {
		f := fs.Lookup(name)
		if f == nil || !set[name] {
			continue
		}
		v, err := strconv.ParseFloat(f.Value.String(), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("--%s %s: must be positive and finite", name, f.Value.String())
		}
	}
	return nil
}

// validate checks the flag values that do not depend on the data
// (learn.Settings.Validate, with the table of the flags for some
// algorithms only).
func (m *modelFlags) validate(set map[string]bool) error {
	if _, err := learn.ParseProgressMode(m.progress, false, false); err != nil {
		return flagErr(err)
	}
	return flagErr(m.Settings.Validate(set, cliAlgoFlags()))
}

// flagName is the flag that sets a library setting: --name.
func flagName(setting string) string { return "--" + setting }

// flagErr names the settings of a learn.SettingError as the flags that set
// them (learn.Named); other errors are returned as they are.
func flagErr(err error) error { return learn.Named(err, flagName) }

// cliAlgoFlags are the command's own flags that apply to some algorithms
// only, beside the library's settings' table (learn.SettingAlgorithms):
// train and cv refuse such a flag with any other --algo (a silently
// ignored flag usually means the wrong --algo). A new algorithm-specific
// flag is entered here or, for a library setting, in the library's table.
func cliAlgoFlags() map[string][]string {
	return map[string][]string{
		"curve": learn.SettingAlgorithms()["patience"], // train: only the KMP family records a learning curve
	}
}

// algoFlags is the whole table of the flags for some algorithms only:
// flag name → the algorithms it applies to.
func algoFlags() map[string][]string {
	table := learn.SettingAlgorithms()
	for name, algos := range cliAlgoFlags() {
		table[name] = algos
	}
	return table
}

// algoFlagsHelp describes the table for --help: the flags grouped by the
// algorithms they apply to.
func algoFlagsHelp(fs *flag.FlagSet) string {
	groups := map[string][]string{}
	var order []string
	fs.VisitAll(func(f *flag.Flag) {
		algos, ok := algoFlags()[f.Name]
		if !ok {
			return
		}
		key := strings.Join(algos, ", ")
		if groups[key] == nil {
			order = append(order, key)
		}
		groups[key] = append(groups[key], "--"+f.Name)
	})
	var b strings.Builder
	for _, key := range order {
		fmt.Fprintf(&b, "%-34s %s\n", strings.Join(groups[key], ", "), key)
	}
	return b.String()
}

// validate checks the data flags (learn.DataSettings.Validate); with
// needData, --data must be given.
func (d *dataFlags) validate(set map[string]bool, needData bool) error {
	if needData && d.data == "" {
		return fmt.Errorf("missing --data FILE (the training data, LIBSVM or CSV)")
	}
	return flagErr(d.DataSettings.Validate(set))
}

// implyRegression sets --regression when --svr-epsilon is given, refusing
// the classification flags with it.
func (d *dataFlags) implyRegression(m *modelFlags) error {
	if m.Algo == "bpdn" {
		if d.Positive != "" || d.OneVsRest {
			return fmt.Errorf("--algo bpdn fits real-valued targets (ε-SVR); --positive and --one-vs-rest are for classification")
		}
		d.Regression = true
		return nil
	}
	if m.SVREpsilon > 0 {
		if d.Positive != "" || d.OneVsRest {
			return fmt.Errorf("--svr-epsilon fits real-valued targets (ε-SVR); --positive and --one-vs-rest are for classification")
		}
		d.Regression = true
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// newEngine opens the engine the flags ask for, on a single process.
func (m *modelFlags) newEngine() (*engine.Engine, error) {
	return m.newEngineOn(nil)
}

// newEngineOn opens the engine the flags ask for, training across the
// ranks of c (nil: a single process).
func (m *modelFlags) newEngineOn(c comm.Comm) (*engine.Engine, error) {
	var opts []engine.Option
	if c != nil {
		opts = append(opts, engine.WithComm(c))
	}
	if m.backend != "" {
		opts = append(opts, engine.WithBackend(m.backend))
	}
	if m.threads > 0 {
		opts = append(opts, engine.WithThreads(m.threads))
	}
	if m.memBudget != "" {
		b, err := parseBytes(m.memBudget)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engine.WithMemoryBudget(b))
	}
	e, err := engine.New(append(opts, engineNames())...)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// params are the flags with what training on data with dim features
// adds (learn.Settings.RunFor).
func (m *modelFlags) params(dim int, d *dataFlags) (*trainParams, error) {
	r, err := m.RunFor(dim, &d.DataSettings)
	if err != nil {
		return nil, err
	}
	return &trainParams{modelFlags: m, run: r}, nil
}

// engineNames makes the engine's messages name the flags that set its
// options.
func engineNames() engine.Option { return engine.WithSettingNames("--backend", "--mem-budget") }
