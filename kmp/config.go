package kmp

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/data"
)

// Variant selects how the expansion's coefficients are fitted and how the
// next basis function is chosen (Vincent & Bengio, Section 2).
type Variant uint8

// The matching pursuit variants.
const (
	// Auto is PreFit for the squared loss and BackFit for the others.
	Auto Variant = iota
	// Basic is matching pursuit of Figure 1: choose the atom most collinear
	// with the residual, fit only its coefficient. Atoms of the expansion
	// may be chosen again, but a copy of one (the same kernel on a point
	// with the same coordinates) never joins it; with a non-squared loss,
	// as in every variant, neither does an atom numerically dependent on
	// the expansion (see Config.Tol). Training stops when the best eligible
	// atom is orthogonal to the residual.
	Basic
	// BackFit chooses as Basic, then refits all coefficients (orthogonal
	// matching pursuit). With a non-squared loss it is Figure 4: a line
	// search for the new coefficient and a refit of all coefficients every
	// RefitEvery steps (by Newton's method; the paper uses conjugate
	// gradients, which reach the same optimum more slowly).
	BackFit
	// PreFit chooses the atom that, together with all coefficients refitted,
	// minimises the squared residual (orthogonal least squares, the paper's
	// main algorithm). Squared loss only.
	PreFit
)

func (v Variant) String() string {
	switch v {
	case Auto:
		return "auto"
	case Basic:
		return "basic"
	case BackFit:
		return "backfit"
	case PreFit:
		return "prefit"
	}
	return fmt.Sprintf("Variant(%d)", uint8(v))
}

// ParseVariant parses "auto", "basic", "backfit" (or "back-fitting", "omp"),
// "prefit" (or "pre-fitting", "ols").
func ParseVariant(s string) (Variant, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "basic", "mp":
		return Basic, nil
	case "backfit", "back-fit", "back-fitting", "backfitting", "omp":
		return BackFit, nil
	case "prefit", "pre-fit", "pre-fitting", "prefitting", "ols":
		return PreFit, nil
	}
	return 0, pursuit.Configf("unknown KMP variant %q (want basic, backfit, prefit or auto)", s)
}

// Loss is the training loss L(y, f).
type Loss uint8

// The losses.
const (
	// Squared is ½(f − y)², KMP-MSE. The only loss for regression.
	Squared Loss = iota
	// Tanh is (tanh f − 0.65 y)², KMP-tanh (classification, y = ±1).
	Tanh
	// Logistic is log(1 + e^{−y f}) (classification).
	Logistic
	// Exponential is e^{−y f}, AdaBoost's loss (classification).
	Exponential
)

// TanhTarget is the target magnitude of the tanh loss (LeCun et al.'s 0.65).
const TanhTarget = 0.65

func (l Loss) String() string {
	switch l {
	case Squared:
		return "squared"
	case Tanh:
		return "tanh"
	case Logistic:
		return "logistic"
	case Exponential:
		return "exponential"
	}
	return fmt.Sprintf("Loss(%d)", uint8(l))
}

// ParseLoss parses "squared" (or "mse"), "tanh", "logistic" (or "logit"),
// "exponential" (or "exp").
func ParseLoss(s string) (Loss, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "squared", "mse", "square", "ls":
		return Squared, nil
	case "tanh":
		return Tanh, nil
	case "logistic", "logit", "log":
		return Logistic, nil
	case "exponential", "exp":
		return Exponential, nil
	}
	return 0, pursuit.Configf("unknown KMP loss %q (want squared, tanh, logistic or exponential)", s)
}

// Task says what the targets mean.
type Task uint8

// The tasks.
const (
	// Classification: two distinct labels give one binary machine (the
	// larger label is the positive class), more give one-vs-rest.
	Classification Task = iota
	// Regression: real-valued targets, squared loss.
	Regression
)

func (t Task) String() string {
	switch t {
	case Classification:
		return "classification"
	case Regression:
		return "regression"
	}
	return fmt.Sprintf("Task(%d)", uint8(t))
}

// Deflation selects how pre-fitting keeps the dictionary orthogonal to the
// basis.
type Deflation uint8

// The deflation forms. Both choose the same atoms.
const (
	// Implicit reads the unmodified dictionary once per step, computing
	// Dᵀ[R, q] together and updating ‖d_k⊥‖² −= ⟨q, d_k⟩².
	Implicit Deflation = iota
	// Explicit keeps a deflated copy D ← D − (Dq)qᵀ (Hussain et al.); it
	// doubles the dictionary memory and is meant for checks.
	Explicit
)

// Select says which validation step early stopping keeps.
type Select uint8

// The early-stopping criteria.
const (
	// SelectError keeps the step with the lowest validation error rate
	// (regression: MSE), the earliest among ties.
	SelectError Select = iota
	// SelectErrorLoss breaks ties in the error rate by the validation loss.
	SelectErrorLoss
	// SelectLoss keeps the step with the lowest mean validation loss.
	SelectLoss
)

func (s Select) String() string {
	switch s {
	case SelectError:
		return "error"
	case SelectErrorLoss:
		return "error+loss"
	case SelectLoss:
		return "loss"
	}
	return fmt.Sprintf("Select(%d)", uint8(s))
}

// ParseSelect parses "error", "error+loss" or "loss".
func ParseSelect(s string) (Select, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "error", "err":
		return SelectError, nil
	case "error+loss", "error-loss", "errorloss":
		return SelectErrorLoss, nil
	case "loss":
		return SelectLoss, nil
	}
	return 0, pursuit.Configf("unknown early-stopping criterion %q (want error, error+loss or loss)", s)
}

// KernelFunc is a user-supplied kernel: the dictionary function centred on
// c evaluated at x is K(x, c). It need be neither symmetric nor positive
// definite.
type KernelFunc func(x, c []float32) float64

// CustomKernel names a user-supplied kernel function. Models that use one
// can be saved, but loading them needs the same function again (LoadOptions).
type CustomKernel struct {
	Name string
	Func KernelFunc
}

// Step is one point of the learning curve, recorded after every step.
type Step struct {
	Step      int           `json:"step"`       // 1-based step number
	Basis     int           `json:"basis"`      // distinct dictionary functions in the expansion (the constant included)
	Atom      int           `json:"atom"`       // dictionary index chosen at this step
	Support   int           `json:"support"`    // training row of its centre; -1 for the constant
	Kernel    int           `json:"kernel"`     // kernel of the chosen atom (index into Kernels; CustomKernelIndex; -1 for the constant)
	Output    int           `json:"output"`     // output (class) being trained, 0 for binary and regression
	Residual  float64       `json:"residual"`   // ‖R‖: residual (squared loss) or negative-gradient norm
	TrainLoss float64       `json:"train_loss"` // mean training loss
	TrainErr  float64       `json:"train_err"`  // training error rate (classification) or MSE (regression)
	ValLoss   float64       `json:"val_loss"`   // mean validation loss; NaN without validation
	ValErr    float64       `json:"val_err"`    // validation error rate or MSE; NaN without validation
	Elapsed   time.Duration `json:"elapsed"`    // since training of this output started (outputs in lock-step share the clock)
}

// StopReason says why the training of an output ended before its step
// limit N (Output.Stop).
type StopReason string

// The reasons training stops early. The empty reason means training ran
// its N steps (or, under early stopping with N = 0, through the
// dictionary).
const (
	// StopPatience: Patience steps without a validation improvement.
	StopPatience StopReason = "patience"
	// StopFitted: the targets are fitted exactly (squared loss), or the
	// loss gradient is zero.
	StopFitted StopReason = "fitted"
	// StopExhausted: no eligible atom is left, every dictionary function
	// being in the expansion or numerically dependent on it (its part
	// orthogonal to the expansion has squared norm ≤ Tol·‖d_k‖²), as with
	// repeated training points or a numerically low-rank kernel matrix. The
	// stochastic search gives up after 10·max(s, 59) sampled atoms in a row
	// turn out dependent: then, with probability ≥ 95%, at least 99.5% of
	// the atoms left are dependent too.
	StopExhausted StopReason = "exhausted"
	// StopOrthogonal: basic matching pursuit's best eligible atom is
	// numerically orthogonal to the residual (⟨d_k, R⟩² ≤ Tol·‖d_k‖²·‖R‖²),
	// so further steps would change nothing.
	StopOrthogonal StopReason = "orthogonal"
)

// CustomKernelIndex is the kernel index of support vectors that use the
// Config's (Model's) custom kernel function.
const CustomKernelIndex = -2

// Config configures training. The zero value is not usable: set N or a
// validation set, and a kernel.
type Config struct {
	Variant Variant
	Loss    Loss
	Task    Task

	// Kernels: the dictionary holds, for each kernel, the functions
	// K(·, c) centred on every candidate c. Several kernels (e.g. several RBF
	// widths) are mixed in one dictionary.
	Kernels []pursuit.Kernel
	// Custom, if not nil, adds a user-supplied kernel to the dictionary.
	Custom *CustomKernel
	// Bias adds the constant function to the dictionary (the bias b). It is
	// chosen greedily like any atom, costs a step, but is no support vector.
	Bias bool

	// Candidates is the number M of training points the kernels are centred
	// on, drawn at random (Seed); 0 or ≥ l means all training points.
	Candidates int

	// N is the maximum number of steps (= basis functions, for the variants
	// that never choose an atom twice). With a validation set, 0 means run
	// until Patience or the dictionary is exhausted.
	N int

	// Validation data for early stopping, in the caller's (unscaled) feature
	// space; or ValFrac, a fraction of the training data held out (stratified
	// for classification). The model keeps the step with the lowest
	// validation error (ties: the earliest).
	ValX    pursuit.Matrix
	ValY    []float64
	ValFrac float64
	// Patience stops training after this many steps without a validation
	// improvement; 0 runs all N steps and still keeps the best step.
	Patience int
	// Select is the early-stopping criterion on the validation set.
	Select Select

	// RefitEvery re-optimises all coefficients (Newton's method) every
	// this many steps (non-squared losses with BackFit; default 1). The
	// squared-loss variants refit exactly and ignore it.
	RefitEvery int
	// RefitIterations bounds the Newton iterations of each refit (default
	// 100; a refit typically takes about 5).
	RefitIterations int

	// Scale is the feature scaling fitted on the training data and stored in
	// the model ("" = none).
	Scale data.ScaleMode

	// Tol: an atom whose part orthogonal to the atoms already in the
	// expansion has squared norm ≤ Tol·‖d_k‖² is numerically dependent on
	// them and never joins it, in every variant and loss but Basic, which
	// refuses exact copies only (copies of a training point
	// give one basis function, not several, either way); when no
	// eligible atom is left training stops (StopExhausted). Basic matching
	// pursuit also stops when ⟨d_k, R⟩² ≤ Tol·‖d_k‖²·‖R‖² for the best
	// eligible atom (StopOrthogonal). Default 1e-9.
	Tol float64
	// Deflation selects the implicit (default) or explicit form of
	// pre-fitting.
	Deflation Deflation

	Seed uint64

	// Stochastic, if not nil, searches a random active set of atoms per step
	// (Popovici et al.; see stochastic.go, issue 9).
	Stochastic *Stochastic

	// Progress, if not nil, is called after every step.
	Progress func(Step)

	// Checkpoint, if not nil, writes the training state at step
	// boundaries, resumes from a checkpoint, and stops the run on request
	// (package checkpoint; see checkpoint.go for what is covered).
	Checkpoint *checkpoint.Options
	// ck is the run of Checkpoint (train sets it).
	ck *ckRun

	// valRows is the number of validation rows of every rank together in a
	// sharded run (train sets it; 0: ValX.Rows).
	valRows int
}

// resolve fills unset fields with their defaults and validates the rest.
func (c *Config) resolve() error {
	if c.Variant == Auto {
		if c.Loss == Squared {
			c.Variant = PreFit
		} else {
			c.Variant = BackFit
		}
	}
	switch c.Variant {
	case Basic, BackFit, PreFit:
	default:
		return pursuit.Configf("kmp: unknown variant %d", uint8(c.Variant))
	}
	switch c.Loss {
	case Squared, Tanh, Logistic, Exponential:
	default:
		return pursuit.Configf("kmp: unknown loss %d", uint8(c.Loss))
	}
	if c.Loss != Squared && c.Variant == PreFit {
		return pursuit.Configf("kmp: %s", "pre-fitting needs the squared loss (the paper's Section 3.1: it would need a full optimisation per candidate); use backfit or basic with the "+c.Loss.String()+" loss")
	}
	if c.Task == Regression && c.Loss != Squared {
		return pursuit.Configf("kmp: regression needs the squared loss, not %s", c.Loss)
	}
	if c.Task != Classification && c.Task != Regression {
		return pursuit.Configf("kmp: unknown task %d", uint8(c.Task))
	}
	if len(c.Kernels) == 0 && c.Custom == nil {
		return pursuit.Configf("kmp: no kernel: set Config.Kernels or Config.Custom")
	}
	for i, k := range c.Kernels {
		if err := k.Validate(); err != nil {
			return pursuit.Configf("kmp: kernel %d: %w", i, err)
		}
	}
	if c.Custom != nil && c.Custom.Func == nil {
		return pursuit.Configf("kmp: %s", "custom kernel "+c.Custom.Name+" has no function")
	}
	if c.Candidates < 0 {
		return pursuit.Configf("kmp: Candidates must be ≥ 0, got %d", c.Candidates)
	}
	if c.N < 0 {
		return pursuit.Configf("kmp: N must be ≥ 0, got %d", c.N)
	}
	if c.Patience < 0 {
		return pursuit.Configf("kmp: Patience must be ≥ 0, got %d", c.Patience)
	}
	if !(c.ValFrac >= 0 && c.ValFrac < 1) {
		return pursuit.Configf("kmp: ValFrac must be in [0, 1), got %v", c.ValFrac)
	}
	valRows := c.ValX.Rows
	if c.valRows > 0 {
		valRows = c.valRows // every rank's (sharded)
	}
	if c.ValFrac > 0 && valRows > 0 {
		return pursuit.Configf("kmp: give either a validation set or ValFrac, not both")
	}
	if c.ValX.Rows > 0 && len(c.ValY) != c.ValX.Rows {
		return pursuit.Configf("kmp: validation set has %d rows but %d targets", c.ValX.Rows, len(c.ValY))
	}
	hasVal := c.ValFrac > 0 || valRows > 0
	if c.N == 0 && !hasVal {
		return pursuit.Configf("kmp: set the number of basis functions N, or a validation set (ValX/ValY or ValFrac) for early stopping")
	}
	if c.N == 0 && c.Variant == Basic && c.Patience == 0 {
		return pursuit.Configf("kmp: basic matching pursuit can choose atoms forever: with early stopping and no N, set Patience")
	}
	if c.RefitEvery < 0 {
		return pursuit.Configf("kmp: RefitEvery must be ≥ 0, got %d", c.RefitEvery)
	}
	if c.RefitEvery == 0 && c.Variant == BackFit {
		c.RefitEvery = 1
	}
	if c.RefitIterations <= 0 {
		c.RefitIterations = 100
	}
	if c.Tol == 0 {
		c.Tol = 1e-9
	}
	if !(c.Tol > 0 && c.Tol < 1) || math.IsNaN(c.Tol) {
		return pursuit.Configf("kmp: Tol must be in (0, 1), got %v", c.Tol)
	}
	if c.Select > SelectLoss {
		return pursuit.Configf("kmp: unknown early-stopping criterion %d", uint8(c.Select))
	}
	if c.Deflation != Implicit && c.Deflation != Explicit {
		return pursuit.Configf("kmp: unknown deflation form %d", uint8(c.Deflation))
	}
	if c.Deflation == Explicit && c.Variant != PreFit {
		return pursuit.Configf("kmp: explicit deflation applies to pre-fitting only")
	}
	if c.Scale == "" {
		c.Scale = data.ScaleNone
	}
	if _, err := data.ParseScaleMode(string(c.Scale)); err != nil {
		return pursuit.Configf("kmp: %w", err)
	}
	return nil
}
