package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// trainParams are the algorithm settings from the train/cv/demo flags, after
// validation. Zero values mean "the algorithm's default".
type trainParams struct {
	kernel     pursuit.Kernel
	basis      int     // number of basis functions (KMP family, cap under early stopping)
	earlyStop  bool    // stop on the validation set (KMP family)
	patience   int     // early-stopping patience in steps
	c          float64 // SVM / SLMC regularisation
	svrEps     float64 // ε-SVR tube width
	epsilon    float64 // bpdn: ℓ1 weight = tube half-width
	regression bool    // real-valued targets
	activeSet  int     // stochastic KMP: candidates searched per step
	eps, q     float64 // stochastic KMP: s = ⌈log ε / log q⌉ when activeSet is 0
	fit        string  // stochastic KMP: backfit, prefit or basic ("" = skmpDefaultFit)
	nz         int     // SLMC / reduced-set expansion size
	nzFrac     float64 // Nz as a fraction of an SVM's support-vector count
	method     string  // --algo slmc: slmc, rs, mrs, rsvm, mrsvm or skfd
	seed       int64
	progress   func(progressUpdate)
	// nTrain is the number of training examples of every rank together
	// when training across ranks (each rank passes its own rows); 0 in one
	// process, where it is the rows passed.
	nTrain int
}

// fitted is one trained binary classifier (decision > 0 means the positive
// class) or regressor, as the CLI sees it. Each algorithm package's model is
// wrapped in an adapter implementing it.
type fitted interface {
	// Decision returns the real-valued output for each row of x (features
	// already scaled as at training).
	Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error)
	// NBasis is the number of basis functions (support or expansion
	// vectors) the prediction uses.
	NBasis() int
	// Basis returns the basis vectors in the scaled feature space, for the
	// decision-surface plot; a 0-row matrix when the model has none to show.
	Basis() pursuit.Matrix
	// Save writes the algorithm's own model format.
	Save(w io.Writer) error
}

// prefixDecider is implemented by models built one step at a time (the
// KMP family): PrefixDecisions returns, for each n of ns, every output as
// if training had stopped after n steps (d[i][k][row] for n = ns[i], output
// k). It gives the learning curves.
type prefixDecider interface {
	// CanPrefix says whether PrefixDecisions works for this model (not,
	// for instance, for a model read from a file).
	CanPrefix() bool
	// PrefixLen is the number of steps training ran.
	PrefixLen() int
	PrefixDecisions(e *engine.Engine, x pursuit.Matrix, ns []int) ([][][]float64, error)
	// PrefixSizes returns the number of basis functions after each n of
	// ns steps.
	PrefixSizes(ns []int) ([]int, error)
}

// multiFitted is a model with one output per class, trained at once for
// one-vs-rest (the KMP family shares one dictionary between the classes).
type multiFitted interface {
	fitted
	// Outputs is the number of outputs (classes).
	Outputs() int
	// DecisionAll returns out[k][i], output k on row i of x.
	DecisionAll(e *engine.Engine, x pursuit.Matrix) ([][]float64, error)
}

// isMulti reports whether f has more than one output.
func isMulti(f fitted) bool {
	mf, ok := f.(multiFitted)
	return ok && mf.Outputs() > 1
}

// describer is implemented by models with something to say about how
// they were trained (the KMP family: how the dictionary was held).
type describer interface {
	Describe() string
}

// curver is implemented by models that record their own learning curve
// (training and validation error per step) while training.
type curver interface {
	Curve() []curvePoint
}

// trainOVRFunc trains a one-vs-rest model on the labels y with the
// algorithm package's own multi-class training; the outputs of the models
// it returns, in order, must follow classes (the distinct labels in
// increasing order): one multi-output model (the KMP family) or one binary
// model per class.
type trainOVRFunc func(e *engine.Engine, p *trainParams, x pursuit.Matrix, y, classes []float64, xVal pursuit.Matrix, yVal []float64) ([]fitted, error)

// trainFunc trains one binary classifier (y in {−1, +1}) or regressor on x;
// xVal/yVal is the validation set (0 rows when there is none).
type trainFunc func(e *engine.Engine, p *trainParams, x pursuit.Matrix, y []float64, xVal pursuit.Matrix, yVal []float64) (fitted, error)

// algorithm describes one learner the CLI offers.
type algorithm struct {
	name       string
	summary    string
	pkg        string                                            // the package that provides it, for messages
	train      trainFunc                                         // binary or regression; nil when this build does not have it yet
	trainOVR   trainOVRFunc                                      // one-vs-rest; nil when the algorithm has none
	load       func(r io.Reader, maxBytes int64) (fitted, error) // maxBytes bounds the dense vectors a reader allocates beyond the file's own size
	regression bool                                              // can fit real-valued targets
	kernels    []string
	usesBasis  bool // --basis / --val-frac early stopping apply
	notInDemo  bool // left out of the default demo (see its note)
}

// algorithms lists every algorithm the CLI knows, available or not, in the
// order the demo and info show them.
func algorithms() []*algorithm {
	all := []*algorithm{
		{name: "kmp", pkg: "kmp", summary: "kernel matching pursuit with pre-fitting (OLS), squared loss", usesBasis: true, regression: true},
		{name: "kmp-backfit", pkg: "kmp", summary: "kernel matching pursuit with back-fitting (orthogonal MP)", usesBasis: true, regression: true},
		{name: "kmp-basic", pkg: "kmp", summary: "basic kernel matching pursuit (newest coefficient only)", usesBasis: true, regression: true},
		{name: "kmp-tanh", pkg: "kmp", summary: "kernel matching pursuit with tanh output, targets ±0.65", usesBasis: true},
		{name: "skmp", pkg: "kmp", summary: "stochastic KMP: searches a random active set per step (--fit backfit, prefit or basic)", usesBasis: true, regression: true},
		{name: "svm", pkg: "svm", summary: "support vector machine (C-SVC, or ε-SVR with --svr-epsilon), SMO", regression: true},
		{name: "bpdn", pkg: "bpdn", summary: "Girosi's sparse approximation in the RKHS = ε-SVR (C = ∞ or a box), solved without SMO", regression: true, notInDemo: true},
		{name: "mpkfda", pkg: "greedy", summary: "matching-pursuit kernel Fisher discriminant: Fisher-quotient basis, Fisher direction", regression: false},
		{name: "slmc", pkg: "slmc", summary: "sparse large margin classifier: Nz learned expansion vectors", kernels: []string{"rbf"}},
	}
	for _, a := range all {
		if a.kernels == nil {
			a.kernels = []string{"rbf", "linear", "poly", "sigmoid"}
		}
	}
	registerAlgorithms(all)
	return all
}

// findAlgorithm returns the named algorithm or an error listing the known
// ones.
func findAlgorithm(name string) (*algorithm, error) {
	var names []string
	for _, a := range algorithms() {
		if a.name == name {
			if a.train == nil {
				return nil, fmt.Errorf("algorithm %q is not part of this build yet (package %s has not landed); available: %s", name, a.pkg, availableNames())
			}
			return a, nil
		}
		names = append(names, a.name)
	}
	return nil, fmt.Errorf("unknown algorithm %q (want one of %s)", name, strings.Join(names, ", "))
}

// lookupLoader finds the loader of a model file's algorithm, which must be
// in this build.
func lookupLoader(name string) (*algorithm, error) {
	for _, a := range algorithms() {
		if a.name == name {
			if a.load == nil {
				return nil, fmt.Errorf("the model was trained with %q, which this build of pursuit cannot load (package %s missing)", name, a.pkg)
			}
			return a, nil
		}
	}
	return nil, fmt.Errorf("the model names an unknown algorithm %q (written by a newer pursuit?)", name)
}

func availableNames() string {
	var names []string
	for _, a := range algorithms() {
		if a.train != nil {
			names = append(names, a.name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
