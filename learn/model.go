package learn

import (
	"io"
	"math"
	"strconv"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Model is one trained model: a binary classifier (decision > 0 means the
// positive class, +1), a regressor, or, when it also implements Multi, one
// output per class of a one-vs-rest task. Every learner's Fit returns one,
// and Load reads one back.
type Model interface {
	// Kind is the algorithm that built the model, the name Load and the
	// model file know it by ("kmp", "svm", "slmc", ...).
	Kind() string
	// Decision returns the real-valued output for each row of x (its
	// features scaled as at training); for a Multi model with several
	// outputs, the first output's.
	Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error)
	// NBasis is the number of basis functions (support or expansion
	// vectors) the prediction uses.
	NBasis() int
	// Basis returns the basis vectors in the scaled feature space; a 0-row
	// matrix when the model has none to show. Expander gives their
	// coefficients where the model is one kernel expansion.
	Basis() pursuit.Matrix
	// Save writes the algorithm's own model format, which Load reads.
	Save(w io.Writer) error
}

// Multi is a model with one output per class, trained at once for
// one-vs-rest (the KMP family shares one dictionary between the classes).
type Multi interface {
	Model
	// Outputs is the number of outputs (classes).
	Outputs() int
	// DecisionAll returns out[k][i], output k on row i of x.
	DecisionAll(e *engine.Engine, x pursuit.Matrix) ([][]float64, error)
}

// IsMulti reports whether m has more than one output.
func IsMulti(m Model) bool {
	mf, ok := m.(Multi)
	return ok && mf.Outputs() > 1
}

// Outputs is the number of outputs of the models ms together.
func Outputs(ms []Model) int {
	n := 0
	for _, m := range ms {
		if mf, ok := m.(Multi); ok {
			n += mf.Outputs()
		} else {
			n++
		}
	}
	return n
}

// Prefixer is implemented by models built one step at a time (the KMP
// family): they can predict as if training had stopped after fewer steps,
// which gives learning curves and lets cross-validation try every basis
// size of a grid with one fit.
type Prefixer interface {
	// CanPrefix says whether PrefixDecisions works for this model (not,
	// for instance, for a model read from a file).
	CanPrefix() bool
	// PrefixLen is the number of steps training ran.
	PrefixLen() int
	// PrefixDecisions returns, for each n of ns, every output as if
	// training had stopped after n steps (d[i][k][row] for n = ns[i],
	// output k).
	PrefixDecisions(e *engine.Engine, x pursuit.Matrix, ns []int) ([][][]float64, error)
	// PrefixSizes returns the number of basis functions after each n of
	// ns steps.
	PrefixSizes(ns []int) ([]int, error)
}

// Describer is implemented by models with something to say about how they
// were trained (the KMP family: how the dictionary was held).
type Describer interface {
	Describe() string
}

// Curver is implemented by models that record their own learning curve
// (training and validation error per step) while training.
type Curver interface {
	Curve() []CurvePoint
}

// Methoder is implemented by models built by one of several methods of an
// algorithm (slmc: slmc, rs, mrs, rsvm, mrsvm, skfd).
type Methoder interface {
	Method() string
}

// Stopper is implemented by models whose training is an iterative
// minimisation that can stop for several reasons (SLMC, SKFD).
type Stopper interface {
	StopReason() string
}

// Expander is implemented by models that are one kernel expansion
// f(x) = Σ_i Coef[i]·K(v_i, x) + Bias.
type Expander interface {
	// Expansion returns the kernel, vectors, coefficients and bias, or an
	// error saying why the model is not one such expansion.
	Expansion() (kernel pursuit.Kernel, vectors pursuit.Matrix, coef []float64, bias float64, err error)
}

// Learner is one algorithm with its settings: a plain configuration struct
// whose Fit trains a binary classifier (y in {−1, +1}) or a regressor on
// the rows of x. xVal and yVal are the validation set (0 rows when there is
// none); learners that do not early-stop ignore it.
type Learner interface {
	Fit(e *engine.Engine, x pursuit.Matrix, y []float64, xVal pursuit.Matrix, yVal []float64) (Model, error)
}

// OneVsRestLearner is a learner with its own multi-class training (shared
// kernel rows or dictionary between the classes). FitOneVsRest trains on
// the class labels y; the outputs of the models it returns, in order,
// follow classes (the distinct labels in increasing order): one Multi model
// or one binary model per class. Train uses it for one-vs-rest tasks, and
// trains one binary model per class with Fit for learners without it.
type OneVsRestLearner interface {
	Learner
	FitOneVsRest(e *engine.Engine, x pursuit.Matrix, y, classes []float64, xVal pursuit.Matrix, yVal []float64) ([]Model, error)
}

// Progress is one report of a learner's progress: step Step of about
// Total, with the algorithm's own figure of merit (Metric = Value) and the
// validation error (NaN without one); Note is a remark to show once.
type Progress struct {
	Step, Total int
	Metric      string
	Value       float64
	ValErr      float64
	Note        string
}

// CurvePoint is one point of a learning curve: the errors with the first
// N basis functions (or after N steps). Missing errors are NaN in memory
// and null in JSON.
type CurvePoint struct {
	N     int     `json:"n"`
	Train JSONNum `json:"train"`
	Val   JSONNum `json:"val"`
	Test  JSONNum `json:"test"`
}

// JSONNum is a float64 that writes NaN as null (and reads null as NaN).
type JSONNum float64

// MarshalJSON writes NaN as null and other values as the shortest decimal.
func (v JSONNum) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if f != f {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads null as NaN.
func (v *JSONNum) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = JSONNum(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*v = JSONNum(f)
	return nil
}
