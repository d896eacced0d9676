package svm

import (
	"errors"
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
)

// Type is the SVM formulation.
type Type int

// The formulations.
const (
	CSVC       Type = iota // C-support vector classification (LIBSVM -s 0)
	EpsilonSVR             // ε-support vector regression (LIBSVM -s 3)
)

func (t Type) String() string {
	switch t {
	case CSVC:
		return "c_svc"
	case EpsilonSVR:
		return "epsilon_svr"
	}
	return fmt.Sprintf("svm.Type(%d)", int(t))
}

// Params are the training parameters, with LIBSVM's meanings.
type Params struct {
	Type   Type           // CSVC (the zero value) or EpsilonSVR
	Kernel pursuit.Kernel // required; see pursuit.NewRBF, pursuit.NewLinear, …
	C      float64        // cost, > 0 (LIBSVM's -c; LIBSVM's default is 1)
	// Epsilon is the ε-SVR tube half-width, ≥ 0 (LIBSVM's -p, whose
	// default 0.1 is NOT applied here: zero means zero).
	Epsilon float64
	// Weights multiply C per class label (LIBSVM's -wi); every key must be a
	// label present in the training data.
	Weights map[float64]float64
	// InstanceWeights, when not nil, multiply C per training example
	// (LIBSVM's "weighted instances" extension): example i's bound is
	// C·Weights[y_i]·InstanceWeights[i] (C·InstanceWeights[i] for ε-SVR,
	// both α_i and α*_i). An example with integer weight m trains exactly
	// as m copies of it would. One entry per row, each positive and finite.
	InstanceWeights []float64
	// Probability fits Platt sigmoids on 5-fold cross-validated decision
	// values (LIBSVM's -b 1), C-SVC only.
	Probability bool
	// Seed drives the cross-validation folds of Probability.
	Seed uint64

	// Solver options (LIBSVM's -e, -m, -h 0; iteration limit; row batch).
	Tol         float64 // default 1e-3
	CacheMB     float64 // default 100
	NoShrinking bool
	MaxIter     int
	Batch       int // kernel rows computed together on a cache miss; default one tile of the backend's (Options.Batch)
	// Solver chooses SMO or the batched working-set solver (Options.Solver;
	// the zero value SolverAuto is SMO for now), in one process or across
	// ranks; a checkpoint refuses the batched solver (it records SMO's
	// state).
	Solver SolverKind
	// Exact computes the kernel rows in float64 (NewExactRows) instead of
	// the engine's float32 blocks: the model then has the same bits
	// whether x is stored dense or sparse and on every backend, at several
	// times the cost of a kernel row. Binary and multi-class C-SVC
	// (one-vs-one) and ε-SVR in one process; one-vs-rest and training
	// across ranks refuse it.
	Exact bool
	// WorkingSet is the batched solver's q (Options.WorkingSet; 0: chosen
	// by size).
	WorkingSet int
	// HostRows keeps the batched solver's per-iteration work on the host
	// (Options.HostRows).
	HostRows bool

	// Checkpoint, if not nil, writes the solver's state between SMO
	// iterations, resumes from a checkpoint, and stops the solve on request
	// (package checkpoint): a binary C-SVC or an ε-SVR, in one process or
	// across ranks (rank 0 writes; every rank resumes on the same number
	// of ranks), without Probability (see checkpoint.go).
	Checkpoint *checkpoint.Options
	ck         *ckRun // Checkpoint's run (Train sets it)
}

func (p Params) options() Options {
	return Options{Tol: p.Tol, CacheMB: p.CacheMB, NoShrinking: p.NoShrinking, MaxIter: p.MaxIter, Batch: p.Batch, Solver: p.Solver, WorkingSet: p.WorkingSet, HostRows: p.HostRows, ck: p.ck}
}

// ErrBadInput is wrapped by the errors Train returns for invalid data or
// parameters.
var ErrBadInput = pursuit.Tag(errors.New("svm: bad input"), pursuit.ErrBadInput)

func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}

// validate checks the parameters and the training data.
func (p Params) validate(x pursuit.Matrix, y []float64) error {
	if err := p.validateParams(); err != nil {
		return err
	}
	return p.validateData(x, y, false)
}

// validateParams checks the parameters.
func (p Params) validateParams() error {
	if p.Type != CSVC && p.Type != EpsilonSVR {
		return badInput("unknown SVM type %d", int(p.Type))
	}
	if p.Kernel.Kind == 0 {
		return badInput("no kernel given (set Params.Kernel, e.g. pursuit.NewRBF(gamma))")
	}
	if err := p.Kernel.Validate(); err != nil {
		return badInput("%v", err)
	}
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return badInput("C must be positive and finite, got %v", p.C)
	}
	if p.Type == EpsilonSVR && (!(p.Epsilon >= 0) || math.IsInf(p.Epsilon, 0)) {
		return badInput("epsilon must be ≥ 0 and finite, got %v", p.Epsilon)
	}
	if p.Type == EpsilonSVR && p.Probability {
		return badInput("probability estimates are supported for C-SVC only")
	}
	if _, err := p.options().withDefaults(); err != nil {
		return badInput("%v", err)
	}
	for lab, w := range p.Weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return badInput("weight %v for class %v must be positive and finite", w, lab)
		}
	}
	return nil
}

// validateData checks the training data (and the instance weights, one per
// row). A rank's shard of a training set split across ranks may have no
// rows (shard set): it is then a 0×d matrix.
func (p Params) validateData(x pursuit.Matrix, y []float64, shard bool) error {
	if err := x.Validate(); err != nil {
		return badInput("data matrix: %v", err)
	}
	if p.InstanceWeights != nil {
		if len(p.InstanceWeights) != x.Rows {
			return badInput("%d instance weights for %d examples", len(p.InstanceWeights), x.Rows)
		}
		for i, w := range p.InstanceWeights {
			if !(w > 0) || math.IsInf(w, 0) {
				return badInput("example %d: instance weight %v must be positive and finite", i, w)
			}
		}
	}
	if x.Cols == 0 || (x.Rows == 0 && !shard) {
		return badInput("empty training data (%d×%d)", x.Rows, x.Cols)
	}
	if len(y) != x.Rows {
		return badInput("%d labels for %d examples", len(y), x.Rows)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return badInput("example %d: label %v is not finite", i, v)
		}
	}
	for i := range x.Rows {
		var cols []int32
		var row []float32
		if x.IsSparse() {
			cols, row = x.SparseRow(i)
		} else {
			row = x.Row(i)
		}
		if !allFinite(row) {
			for j, v := range row {
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					if cols != nil {
						j = int(cols[j])
					}
					return badInput("example %d, feature %d: value %v is not finite", i, j, v)
				}
			}
		}
	}
	return nil
}

// allFinite reports whether every value of row is finite, without a branch
// per value: v·0 is 0 for a finite v and NaN for ±Inf or NaN, and a sum of
// zeros stays 0 while one NaN makes it NaN.
func allFinite(row []float32) bool {
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(row); j += 4 {
		r := row[j : j+4 : j+4]
		s0 += r[0] * 0
		s1 += r[1] * 0
		s2 += r[2] * 0
		s3 += r[3] * 0
	}
	for ; j < len(row); j++ {
		s0 += row[j] * 0
	}
	return s0+s1+s2+s3 == 0
}

// digest describes every parameter that ranks training together must
// share (all but the per-row InstanceWeights, whose presence counts).
func (p Params) digest() string {
	return fmt.Sprintf("type %v, kernel %#v, C %v, epsilon %v, class weights %v, instance weights given %v, probability %v, seed %v, tolerance %v, cache %v MB, no shrinking %v, max iterations %v, batch %v, solver %v, working set %v",
		p.Type, p.Kernel, p.C, p.Epsilon, p.Weights, p.InstanceWeights != nil, p.Probability, p.Seed, p.Tol, p.CacheMB, p.NoShrinking, p.MaxIter, p.Batch, p.Solver, p.WorkingSet)
}
