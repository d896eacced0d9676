package learn

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// Defaults of the settings that an algorithm completes itself.
const (
	// DefaultPatience is Settings.Patience's default: steps without
	// validation improvement before early stopping.
	DefaultPatience = 20
	// DefaultBPDNEpsilon is bpdn's ε when it is not given: LIBSVM's
	// default -p.
	DefaultBPDNEpsilon = 0.1
	// DefaultSVREpsilon is ε-SVR's tube width when Settings.SVREpsilon is
	// 0: LIBSVM's default -p.
	DefaultSVREpsilon = 0.1
)

// DefaultSKMPFit is how stochastic KMP fits its expansion unless
// Settings.Fit says otherwise. Measured with 50 basis functions and s = 59
// on generated 50k-row two-class sets (issue 16; test error, training time
// in one run of a loaded machine): 20-D ringnorm, basic 50.0% (one class),
// backfit 7.4% (0.9 s), prefit 6.8% (1.7 s); 2-D two moons, basic 14.1%,
// backfit 3.9% (3.2 s), prefit 4.6% (1.6 s). Back-fitting and pre-fitting
// are about as accurate; back-fitting needs half the memory (peak RSS
// 58 MB against 94 MB on ringnorm; 224 against 471 MB at 200 basis
// functions) and its step does not grow with l·s·n, which is what large
// data sets, skmp's use, need.
const DefaultSKMPFit = kmp.BackFit

// Settings are the model settings of every algorithm of Algorithms in one
// plain struct; each has a name, given in its field's comment (the name
// of the pursuit command's flag that sets it), by which errors and tables
// refer to it. Validate checks them and completes the defaults
// that depend on the algorithm; Learner maps them to the algorithm's
// learner. DefaultSettings gives the values used when a setting is not
// given.
type Settings struct {
	Algo       string  // "algo": one of Algorithms
	Kernel     string  // "kernel": rbf (or gaussian), linear, poly (polynomial) or sigmoid (tanh)
	Gamma      float64 // "gamma": kernel γ; 0 is 1/features
	Sigma      float64 // "sigma": RBF width, γ = 1/σ² when positive
	Degree     int     // "degree": poly degree
	Coef0      float64 // "coef0": poly and sigmoid constant
	Basis      int     // "basis": kernel basis functions (KMP family, mpkfda); 0 is the learner's default
	Patience   int     // "patience": steps without validation improvement (KMP family)
	C          float64 // "c": SVM / SLMC / bpdn regularisation
	SVREpsilon float64 // "svr-epsilon": ε-SVR tube width (svm); positive means regression
	Solver     string  // "solver": svm's dual solver (svm.ParseSolver)
	HostRows   bool    // "host-rows": svm's batched solver keeps its per-iteration work on the host (svm.Params.HostRows)
	Epsilon    float64 // "epsilon": bpdn's ℓ1 weight
	ActiveSet  int     // "active-set": stochastic KMP's candidates per step
	Eps, Q     float64 // "eps", "q": stochastic KMP's active-set rule
	Fit        string  // "fit": stochastic KMP's fit (backfit, prefit or basic)
	Nz         int     // "nz": SLMC's expansion vectors
	NzFrac     float64 // "nz-frac": SLMC's expansion size as a fraction of an SVM's vectors
	Method     string  // "method": one of SLMCMethods
	Seed       int64   // "seed": random seed
}

// DefaultSettings are the settings used where none is given.
func DefaultSettings() Settings {
	return Settings{Algo: "kmp", Kernel: "rbf", Degree: 3, Patience: DefaultPatience, C: 1,
		Solver: "auto", Fit: DefaultSKMPFit.String(), Method: "slmc", Seed: 1}
}

// SettingError is a refusal of a setting. Its text names settings by
// their names (as in Settings); Text names them as a caller prefers, e.g.
// as the flags that set them. It wraps pursuit.ErrConfig.
type SettingError struct {
	// Setting is the name of the setting refused.
	Setting string
	format  string // with {name} where a setting is named
	args    []any  // *SettingError arguments are rendered with the same names
}

var settingToken = regexp.MustCompile(`\{([a-z0-9-]+)\}`)

// settingErr is a SettingError about setting: format names settings as
// {name}.
func settingErr(setting, format string, args ...any) *SettingError {
	return &SettingError{Setting: setting, format: format, args: args}
}

// Error is the text with the settings' own names.
func (e *SettingError) Error() string { return e.Text(nil) }

// Unwrap returns pursuit.ErrConfig.
func (e *SettingError) Unwrap() error { return pursuit.ErrConfig }

// Text is the error's text with every setting named by name(setting)
// (nil: by the setting's name).
func (e *SettingError) Text(name func(setting string) string) string {
	if name == nil {
		name = func(s string) string { return s }
	}
	format := settingToken.ReplaceAllStringFunc(e.format, func(t string) string {
		return strings.ReplaceAll(name(t[1:len(t)-1]), "%", "%%")
	})
	args := slices.Clone(e.args)
	for i, a := range args {
		if se, ok := a.(*SettingError); ok {
			args[i] = se.Text(name)
		}
	}
	return fmt.Sprintf(format, args...)
}

// Named returns err with the settings of its SettingError named by name
// (say, as the flags that set them): its Error is Text(name), and it
// unwraps to the SettingError. Other errors, and any error with a nil
// name, are returned as they are.
func Named(err error, name func(setting string) string) error {
	if se, ok := err.(*SettingError); ok && name != nil {
		return namedError{se, name}
	}
	return err
}

// namedError is a SettingError with its settings named by name.
type namedError struct {
	*SettingError
	name func(setting string) string
}

func (e namedError) Error() string { return e.Text(e.name) }
func (e namedError) Unwrap() error { return e.SettingError }

// Algorithm describes one learner of the module, as offered by name.
type Algorithm struct {
	Name       string
	Summary    string
	Package    string   // the package that provides it
	Regression bool     // can fit real-valued targets
	Kernels    []string // the kernels it takes
	UsesBasis  bool     // built step by step: Basis, Patience and early stopping apply
	NotInDemo  bool     // left out of the default demo
	// Sparse: checked to train and predict on sparse rows (the same
	// models as on dense rows); the others need their data dense.
	Sparse bool
	// Checkpoint: its training checkpoints and resumes (Run.Checkpoint),
	// in one process; CheckpointRanks: across ranks too.
	Checkpoint, CheckpointRanks bool
	// learner maps the settings to the learner.
	learner func(s *Settings, r Run) (Learner, error)
}

var allKernels = []string{"rbf", "linear", "poly", "sigmoid"}

// Algorithms lists every algorithm by name, in a fixed order (the order
// of the demo and of the pursuit command's listings).
func Algorithms() []Algorithm {
	return []Algorithm{
		{Name: "kmp", Checkpoint: true, CheckpointRanks: true, Package: "kmp", Sparse: true, Summary: "kernel matching pursuit with pre-fitting (OLS), squared loss", UsesBasis: true, Regression: true, Kernels: allKernels,
			learner: kmpLearner("kmp", kmp.PreFit, kmp.Squared, false)},
		{Name: "kmp-backfit", Checkpoint: true, CheckpointRanks: true, Package: "kmp", Sparse: true, Summary: "kernel matching pursuit with back-fitting (orthogonal MP)", UsesBasis: true, Regression: true, Kernels: allKernels,
			learner: kmpLearner("kmp-backfit", kmp.BackFit, kmp.Squared, false)},
		{Name: "kmp-basic", Package: "kmp", Sparse: true, Summary: "basic kernel matching pursuit (newest coefficient only)", UsesBasis: true, Regression: true, Kernels: allKernels,
			learner: kmpLearner("kmp-basic", kmp.Basic, kmp.Squared, false)},
		{Name: "kmp-tanh", Package: "kmp", Sparse: true, Summary: "kernel matching pursuit with tanh output, targets ±0.65", UsesBasis: true, Kernels: allKernels,
			learner: kmpLearner("kmp-tanh", kmp.BackFit, kmp.Tanh, false)},
		// Popovici et al.: a random active set searched per step, with the
		// fit Settings.Fit names (the variant given here is unused).
		{Name: "skmp", Checkpoint: true, CheckpointRanks: true, Package: "kmp", Sparse: true, Summary: "stochastic KMP: searches a random active set per step (--fit backfit, prefit or basic)", UsesBasis: true, Regression: true, Kernels: allKernels,
			learner: kmpLearner("skmp", kmp.Auto, kmp.Squared, true)},
		{Name: "svm", Checkpoint: true, CheckpointRanks: true, Package: "svm", Sparse: true, Summary: "support vector machine (C-SVC, or ε-SVR with --svr-epsilon), SMO", Regression: true, Kernels: allKernels,
			learner: func(s *Settings, r Run) (Learner, error) {
				return SVM{Params: s.svmParams(r), Progress: r.Progress}, nil
			}},
		{Name: "bpdn", Package: "bpdn", Sparse: true, Summary: "Girosi's sparse approximation in the RKHS = ε-SVR (C = ∞ or a box), solved without SMO", Regression: true, NotInDemo: true, Kernels: allKernels,
			learner: func(s *Settings, r Run) (Learner, error) {
				return BPDN{Kernel: r.Kernel, Params: bpdn.Params{Epsilon: s.Epsilon, C: s.C}, Progress: r.Progress}, nil
			}},
		{Name: "mpkfda", Package: "greedy", Sparse: true, Summary: "matching-pursuit kernel Fisher discriminant: Fisher-quotient basis, Fisher direction", Kernels: allKernels,
			learner: func(s *Settings, r Run) (Learner, error) {
				if r.Regression {
					return nil, settingErr("algo", "{algo} mpkfda is a classifier; it cannot fit real-valued targets")
				}
				return MPKFDA{Config: greedy.KFDAConfig{Kernel: r.Kernel, Steps: s.Basis, Seed: uint64(s.Seed)}, Progress: r.Progress}, nil
			}},
		{Name: "slmc", Checkpoint: true, Package: "slmc", Sparse: true, Summary: "sparse large margin classifier: Nz learned expansion vectors", Kernels: []string{"rbf"},
			learner: func(s *Settings, r Run) (Learner, error) {
				cfg := slmc.Config{Kernel: r.Kernel, C: s.C, NumXV: s.Nz, Init: slmc.InitKMeans, Seed: uint64(s.Seed), Checkpoint: r.Checkpoint}
				return SLMC{Method: s.Method, Config: cfg, NzFrac: s.NzFrac, Progress: r.Progress}, nil
			}},
	}
}

// FindAlgorithm returns the named algorithm, or an error listing them.
func FindAlgorithm(name string) (Algorithm, error) {
	var names []string
	for _, a := range Algorithms() {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return Algorithm{}, pursuit.Configf("unknown algorithm %q (want one of %s)", name, strings.Join(names, ", "))
}

// AlgorithmNames names every algorithm, in Algorithms' order.
func AlgorithmNames() []string {
	return algorithmNames(func(Algorithm) bool { return true })
}

// SparseAlgorithms names the algorithms that take sparse rows, in
// Algorithms' order.
func SparseAlgorithms() []string {
	return algorithmNames(func(a Algorithm) bool { return a.Sparse })
}

// TakesSparse reports whether the named algorithm (a model file's
// Header.Algorithm) takes sparse rows; false for a name it does not know.
func TakesSparse(name string) bool {
	a, err := FindAlgorithm(name)
	return err == nil && a.Sparse
}

// CheckpointAlgorithms names the algorithms whose training checkpoints,
// in one process or, with acrossRanks, across ranks.
func CheckpointAlgorithms(acrossRanks bool) []string {
	return algorithmNames(func(a Algorithm) bool { return a.Checkpoint && (a.CheckpointRanks || !acrossRanks) })
}

// algorithmNames names the algorithms for which keep is true.
func algorithmNames(keep func(Algorithm) bool) []string {
	var out []string
	for _, a := range Algorithms() {
		if keep(a) {
			out = append(out, a.Name)
		}
	}
	return out
}

// SettingAlgorithms is the table of the settings that apply to some
// algorithms only: setting name → the algorithms it applies to. The
// settings not in the table apply to every algorithm. Beside Settings'
// own, it holds those of CVSettings (the grids of basis, C and ε),
// BoundSettings and CheckpointSettings.
func SettingAlgorithms() map[string][]string {
	var kmpFamily []string // built step by step
	for _, a := range Algorithms() {
		if a.UsesBasis {
			kmpFamily = append(kmpFamily, a.Name)
		}
	}
	return map[string][]string{
		"basis":       append(slices.Clone(kmpFamily), "mpkfda"),
		"patience":    kmpFamily,
		"c":           {"svm", "slmc", "bpdn"},
		"epsilon":     {"bpdn"},
		"svr-epsilon": {"svm"},
		"solver":      {"svm"},
		"host-rows":   {"svm"},
		"active-set":  {"skmp"},
		"eps":         {"skmp"},
		"q":           {"skmp"},
		"method":      {"slmc"},
		"fit":         {"skmp"}, // deterministic KMP names its fit in the algorithm: kmp, kmp-backfit, kmp-basic
		"nz":          {"slmc"},
		"nz-frac":     {"slmc"},
		// CVSettings
		"grid-basis":   append(slices.Clone(kmpFamily), "mpkfda"),
		"grid-c":       {"svm", "slmc"},
		"grid-epsilon": {"bpdn", "svm"}, // svm with svr-epsilon
		// BoundSettings
		"bound": BoundAlgorithms(),
		"delta": BoundAlgorithms(),
		"alpha": BoundAlgorithms(),
		// CheckpointSettings
		"checkpoint":       CheckpointAlgorithms(false),
		"checkpoint-every": CheckpointAlgorithms(false),
		"resume":           CheckpointAlgorithms(false),
		"time-limit":       CheckpointAlgorithms(false),
	}
}

// CheckApplies refuses the first given setting (in name order) that does
// not apply to algo by SettingAlgorithms and, for a caller's own options
// that apply to some algorithms only, by extra (name → algorithms).
func CheckApplies(algo string, given map[string]bool, extra map[string][]string) error {
	table := SettingAlgorithms()
	for k, v := range extra {
		table[k] = v
	}
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if algos := table[name]; given[name] && !slices.Contains(algos, algo) {
			return settingErr(name, "{"+name+"} does not apply to {algo} %s (it is for %s)", algo, strings.Join(algos, ", "))
		}
	}
	return nil
}

// kernelNames maps the kernels' other names to the ones Algorithms use.
var kernelNames = map[string]string{"gaussian": "rbf", "polynomial": "poly", "tanh": "sigmoid"}

// Validate checks the settings that do not depend on the data, and
// completes bpdn's: C is +Inf (the hard ε-tube) unless given, and Epsilon
// DefaultBPDNEpsilon unless given. given names the settings set
// explicitly (by the names of Settings' fields' comments; the others keep
// their defaults), and "val-frac" when a validation part is held out
// (Patience needs one). Last, a setting given that does not apply to the
// algorithm is refused, and so is a caller's own option in given that
// extra (name → algorithms) restricts (CheckApplies).
func (s *Settings) Validate(given map[string]bool, extra map[string][]string) error {
	if err := s.validate(given); err != nil {
		return err
	}
	return CheckApplies(s.Algo, given, extra)
}

// validate is Validate without the applicability table.
func (s *Settings) validate(given map[string]bool) error {
	algo, err := FindAlgorithm(s.Algo)
	if err != nil {
		return err
	}
	switch s.Kernel {
	case "rbf", "gaussian", "linear", "poly", "polynomial", "sigmoid", "tanh":
	default:
		return settingErr("kernel", "unknown kernel %q (want rbf, linear, poly or sigmoid)", s.Kernel)
	}
	kname := kernelNames[s.Kernel]
	if kname == "" {
		kname = s.Kernel
	}
	if !slices.Contains(algo.Kernels, kname) {
		return settingErr("kernel", "{algo} %s supports the %s kernel only, not %s", s.Algo, strings.Join(algo.Kernels, ", "), s.Kernel)
	}
	if given["sigma"] && kname != "rbf" {
		return settingErr("sigma", "{sigma} applies to the rbf kernel only (use {gamma} for %s)", s.Kernel)
	}
	if given["degree"] && kname != "poly" {
		return settingErr("degree", "{degree} applies to the poly kernel only, not %s", s.Kernel)
	}
	if given["degree"] && s.Degree < 1 {
		return settingErr("degree", "{degree} %d: must be at least 1", s.Degree)
	}
	if given["coef0"] && kname != "poly" && kname != "sigmoid" {
		return settingErr("coef0", "{coef0} applies to the poly and sigmoid kernels only, not %s", s.Kernel)
	}
	if math.IsNaN(s.Coef0) || math.IsInf(s.Coef0, 0) {
		return settingErr("coef0", "{coef0} %v: must be finite", s.Coef0)
	}
	if given["basis"] && s.Basis < 1 {
		return settingErr("basis", "{basis} %d: must be at least 1", s.Basis)
	}
	if s.Patience < 0 {
		return settingErr("patience", "{patience} %d: must be 0 (no limit) or more", s.Patience)
	}
	if given["patience"] && !given["val-frac"] {
		return settingErr("patience", "{patience} applies to early stopping, which needs {val-frac} F")
	}
	if err := s.completeBPDN(given); err != nil {
		return err
	}
	if !(s.C > 0) || (math.IsInf(s.C, 0) && s.Algo != "bpdn") {
		return settingErr("c", "{c} %v: must be positive and finite", s.C)
	}
	if s.SVREpsilon < 0 || math.IsNaN(s.SVREpsilon) || math.IsInf(s.SVREpsilon, 0) {
		return settingErr("svr-epsilon", "{svr-epsilon} %v: must be a non-negative finite number", s.SVREpsilon)
	}
	if _, err := svm.ParseSolver(s.Solver); err != nil {
		return settingErr("solver", "{solver} %s: want smo, batched or auto", s.Solver)
	}
	if given["active-set"] && s.ActiveSet < 1 {
		return settingErr("active-set", "{active-set} %d: must be at least 1", s.ActiveSet)
	}
	if given["active-set"] && (given["eps"] || given["q"]) {
		return settingErr("active-set", "give {active-set} S or {eps} E {q} Q, not both")
	}
	if given["eps"] && !(s.Eps > 0 && s.Eps < 1) {
		return settingErr("eps", "{eps} %v: must be in (0, 1)", s.Eps)
	}
	if given["q"] && !(s.Q > 0 && s.Q < 1) {
		return settingErr("q", "{q} %v: must be in (0, 1)", s.Q)
	}
	if given["fit"] && s.Algo == "skmp" { // other algorithms: refused by the table
		if _, err := parseSKMPFit(s.Fit); err != nil {
			return err
		}
	}
	if given["nz"] && given["nz-frac"] {
		return settingErr("nz", "give {nz} N or {nz-frac} F, not both")
	}
	if given["nz"] && s.Nz < 1 {
		return settingErr("nz", "{nz} %d: must be at least 1", s.Nz)
	}
	if given["nz-frac"] && !(s.NzFrac > 0 && s.NzFrac <= 1) {
		return settingErr("nz-frac", "{nz-frac} %v: must be in (0, 1]", s.NzFrac)
	}
	if given["method"] && !slices.Contains(SLMCMethods, s.Method) {
		return settingErr("method", "{method} %q: want one of %s", s.Method, strings.Join(SLMCMethods, ", "))
	}
	return nil
}

// completeBPDN completes and checks bpdn's settings.
func (s *Settings) completeBPDN(given map[string]bool) error {
	if s.Algo != "bpdn" {
		return nil
	}
	if !given["epsilon"] {
		s.Epsilon = DefaultBPDNEpsilon
	}
	if !(s.Epsilon >= 0) || math.IsInf(s.Epsilon, 0) {
		return settingErr("epsilon", "{epsilon} %v: must be a non-negative finite number", s.Epsilon)
	}
	if !given["c"] {
		s.C = math.Inf(1)
	}
	if !(s.C > 0) || math.IsInf(s.C, -1) {
		return settingErr("c", "{c} %v: must be positive (or inf, the default for bpdn: the hard ε-tube)", s.C)
	}
	return nil
}

// parseSKMPFit maps Settings.Fit to the kmp variant.
func parseSKMPFit(s string) (kmp.Variant, error) {
	v, err := kmp.ParseVariant(s)
	if err != nil || v == kmp.Auto {
		return 0, settingErr("fit", "{fit} %q: want backfit, prefit or basic", s)
	}
	return v, nil
}

// KernelFor is the kernel of the settings for data with dim features
// (Sigma, when positive, sets γ = 1/σ²).
func (s *Settings) KernelFor(dim int) (pursuit.Kernel, error) {
	gamma := s.Gamma
	if s.Sigma > 0 {
		gamma = 1 / (s.Sigma * s.Sigma)
	}
	k, err := pursuit.ParseKernel(s.Kernel, gamma, s.Coef0, s.Degree, dim)
	if err != nil {
		return pursuit.Kernel{}, fmt.Errorf("kernel: %w", err)
	}
	return k, nil
}

// Run is what a training run adds to Settings to make its learner.
type Run struct {
	Kernel     pursuit.Kernel // KernelFor's
	Regression bool           // real-valued targets
	Progress   func(Progress) // may be nil
	// Checkpoint, if not nil, checkpoints the training (the algorithms
	// that can: kmp, kmp-backfit, skmp, svm, slmc).
	Checkpoint *checkpoint.Options
	// Rows is the number of training rows of every rank together when
	// training across ranks; 0 in one process.
	Rows int
}

// Learner maps validated settings to the learner of their algorithm for
// plan, refusing real-valued targets for a classifier.
func (s *Settings) Learner(plan LabelPlan, r Run) (Learner, error) {
	algo, err := FindAlgorithm(s.Algo)
	if err != nil {
		return nil, err
	}
	if plan.Task == TaskRegression && !algo.Regression {
		return nil, settingErr("algo", "{algo} %s does not fit real-valued targets (use one of the classifiers' data, or kmp / svm for regression)", algo.Name)
	}
	return algo.learner(s, r)
}

// svmParams are package svm's parameters of the settings: C-SVC, or
// ε-SVR for real-valued targets.
func (s *Settings) svmParams(r Run) svm.Params {
	sp := svm.Params{Type: svm.CSVC, Kernel: r.Kernel, C: s.C, Seed: uint64(s.Seed), Checkpoint: r.Checkpoint}
	sp.Solver, _ = svm.ParseSolver(s.Solver) // validated
	sp.HostRows = s.HostRows
	if r.Regression {
		sp.Type = svm.EpsilonSVR
		sp.Epsilon = s.SVREpsilon
		if sp.Epsilon == 0 {
			sp.Epsilon = DefaultSVREpsilon
		}
	}
	return sp
}

// kmpLearner maps the settings to KMP for one variant; stochastic
// searches a random active set per step (skmp), with the variant Fit
// names.
func kmpLearner(name string, variant kmp.Variant, loss kmp.Loss, stochastic bool) func(*Settings, Run) (Learner, error) {
	return func(s *Settings, r Run) (Learner, error) {
		cfg := kmp.Config{
			Variant:    variant,
			Loss:       loss,
			Task:       kmp.Classification,
			Kernels:    []pursuit.Kernel{r.Kernel},
			Bias:       true,
			Seed:       uint64(s.Seed),
			Patience:   s.Patience, // with a validation set; 0: no limit, run every step and keep the best
			Checkpoint: r.Checkpoint,
		}
		if r.Regression {
			cfg.Task = kmp.Regression
		}
		if stochastic {
			cfg.Variant = DefaultSKMPFit
			if s.Fit != "" {
				v, err := parseSKMPFit(s.Fit)
				if err != nil {
					return nil, err
				}
				cfg.Variant = v
			}
			cfg.Stochastic = &kmp.Stochastic{ActiveSet: s.ActiveSet, Eps: s.Eps, Q: s.Q}
		}
		return KMP{Name: name, Config: cfg, Basis: s.Basis, Rows: r.Rows, Progress: r.Progress}, nil
	}
}

// numericSettings are the settings SetNumber and ParseGrid take, with
// whether each holds an integer.
var numericSettings = map[string]bool{
	"gamma": false, "sigma": false, "degree": true, "coef0": false, "basis": true, "patience": true,
	"c": false, "svr-epsilon": false, "epsilon": false, "active-set": true, "eps": false, "q": false,
	"nz": true, "nz-frac": false,
}

// SetNumber sets the numeric setting name to v (an integer setting needs
// an integral v).
func (s *Settings) SetNumber(name string, v float64) error {
	integer, ok := numericSettings[name]
	if !ok {
		return settingErr(name, "%s is not a numeric setting", name)
	}
	if integer && v != math.Trunc(v) {
		return settingErr(name, "%q is not a value of {%s}", strconv.FormatFloat(v, 'g', -1, 64), name)
	}
	switch name {
	case "gamma":
		s.Gamma = v
	case "sigma":
		s.Sigma = v
	case "degree":
		s.Degree = int(v)
	case "coef0":
		s.Coef0 = v
	case "basis":
		s.Basis = int(v)
	case "patience":
		s.Patience = int(v)
	case "c":
		s.C = v
	case "svr-epsilon":
		s.SVREpsilon = v
	case "epsilon":
		s.Epsilon = v
	case "active-set":
		s.ActiveSet = int(v)
	case "eps":
		s.Eps = v
	case "q":
		s.Q = v
	case "nz":
		s.Nz = int(v)
	case "nz-frac":
		s.NzFrac = v
	}
	return nil
}

// GridDedicated are the settings a CVGrid holds lists for (Gamma, C,
// Basis, Epsilon): ParseGrid refers them there, by the name given here.
var GridDedicated = map[string]string{"gamma": "grid-gamma", "c": "grid-c", "basis": "grid-basis", "epsilon": "grid-epsilon"}

// GridSettings lists the settings ParseGrid takes, in name order.
func GridSettings() []string {
	var out []string
	for name := range numericSettings {
		if _, d := GridDedicated[name]; !d {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// ParseGrid parses grid specifications "NAME=V1,V2,..." into one Param per
// setting, in the order given: NAME is one of GridSettings, not given
// explicitly itself (given) and not twice, and each value, set on a copy
// of s, passes Validate with the settings given. Its errors are
// SettingErrors about "grid".
func (s Settings) ParseGrid(specs []string, given map[string]bool) ([]Param, error) {
	var out []Param
	seen := map[string]bool{}
	for _, g := range specs {
		name, list, ok := strings.Cut(g, "=")
		name = strings.TrimPrefix(strings.TrimSpace(name), "--")
		if !ok || name == "" || strings.TrimSpace(list) == "" {
			return nil, settingErr("grid", "{grid} %q: want NAME=V1,V2,... such as {grid} nz=5,10,20", g)
		}
		if d, ok := GridDedicated[name]; ok {
			return nil, settingErr("grid", "{grid} %s: use {"+d+"} for %s", g, name)
		}
		if seen[name] {
			return nil, settingErr("grid", "{grid} %s: %s is given twice", g, name)
		}
		if given[name] {
			return nil, settingErr("grid", "{grid} %s: give {"+name+"} or a grid over it, not both", g)
		}
		seen[name] = true
		integer, ok := numericSettings[name]
		if !ok {
			return nil, settingErr("grid", "{grid} %s: %s is not a numeric training flag (try %s)", g, name, strings.Join(GridSettings(), ", "))
		}
		p := Param{Name: name}
		for _, v := range strings.Split(list, ",") {
			v = strings.TrimSpace(v)
			f, err := parseNumber(v, integer)
			c := s
			if err == nil {
				err = c.SetNumber(name, f)
			}
			if err != nil {
				return nil, settingErr("grid", "{grid} %s: %q is not a value of {"+name+"}", g, v)
			}
			cgiven := map[string]bool{name: true}
			for k := range given {
				cgiven[k] = true
			}
			if err := c.Validate(cgiven, nil); err != nil {
				if se, ok := err.(*SettingError); ok {
					return nil, settingErr("grid", "{grid} %s: %s", g, se)
				}
				return nil, settingErr("grid", "{grid} %s: %s", g, err.Error())
			}
			p.Values = append(p.Values, f)
		}
		out = append(out, p)
	}
	return out, nil
}

// parseNumber parses a setting's value as the flag package does: an
// integer in Go's syntax (0x.., 0o..) or a float.
func parseNumber(v string, integer bool) (float64, error) {
	if integer {
		n, err := strconv.ParseInt(v, 0, strconv.IntSize)
		return float64(n), err
	}
	return strconv.ParseFloat(v, 64)
}

// AtPoint returns the settings with the values of the grid point p (of
// CV.Search: γ replaces Sigma too, ε is bpdn's Epsilon or else
// SVREpsilon, NaN leaving it) and basis functions basis.
func (s Settings) AtPoint(p CVPoint, basis int) (Settings, error) {
	if p.Gamma != nil {
		s.Gamma, s.Sigma = *p.Gamma, 0
	}
	if p.C != nil {
		s.C = *p.C
	}
	if p.Epsilon != nil && !math.IsNaN(*p.Epsilon) {
		if s.Algo == "bpdn" {
			s.Epsilon = *p.Epsilon
		} else {
			s.SVREpsilon = *p.Epsilon
		}
	}
	s.Basis = basis
	for name, v := range p.Settings {
		if err := s.SetNumber(name, v); err != nil {
			return s, err
		}
	}
	return s, nil
}

// RunFor is the Run of the settings for data with dim features: the
// kernel (KernelFor), and real-valued targets when d asks for them or
// SVREpsilon is set.
func (s *Settings) RunFor(dim int, d *DataSettings) (Run, error) {
	k, err := s.KernelFor(dim)
	if err != nil {
		return Run{}, err
	}
	return Run{Kernel: k, Regression: d.Regression || s.SVREpsilon > 0}, nil
}

// FitSettings is one whole training run of validated settings s on
// unscaled data, in one process: d's preprocessing (DataSettings.Prep,
// drawn with s.Seed), s's learner for plan (Learner; progress may be nil)
// and Prep.Fit with the program's version (trained, if not nil, is called
// when training ends). The Prepared sets are charged to e's budget until
// their Release.
func FitSettings(e *engine.Engine, s *Settings, d *DataSettings, plan LabelPlan, tr, test *data.Dataset, progress func(Progress), version string, trained func()) (*Fitted, *Prepared, error) {
	prep, err := d.Prep(s.Seed)
	if err != nil {
		return nil, nil, err
	}
	r, err := s.RunFor(tr.Dim(), d)
	if err != nil {
		return nil, nil, err
	}
	r.Progress = progress
	l, err := s.Learner(plan, r)
	if err != nil {
		return nil, nil, err
	}
	return prep.Fit(e, s.Algo, r.Kernel, l, plan, tr, test, version, trained)
}
