package slmc

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Init chooses the initial expansion vectors.
type Init int

const (
	// InitRandom draws Nz distinct training points at random (the paper's
	// Table 1).
	InitRandom Init = iota
	// InitKMeans uses the centers of k-means (k-means++ seeding) on the
	// training points (the paper's Table 2).
	InitKMeans
	// InitGiven starts from Config.InitXV, e.g. a random subset of an
	// existing SVM's support vectors (see SVsAsInit).
	InitGiven
)

func (i Init) String() string {
	switch i {
	case InitRandom:
		return "random"
	case InitKMeans:
		return "kmeans"
	case InitGiven:
		return "given"
	}
	return fmt.Sprintf("Init(%d)", int(i))
}

// ParseInit parses "random", "kmeans" or "given".
func ParseInit(s string) (Init, error) {
	switch s {
	case "random", "":
		return InitRandom, nil
	case "kmeans", "k-means":
		return InitKMeans, nil
	case "given", "svs":
		return InitGiven, nil
	}
	return 0, fmt.Errorf("slmc: unknown initialisation %q (want random, kmeans or given)", s)
}

// Config configures Train (SLMC) and TrainSKFD.
type Config struct {
	Kernel pursuit.Kernel // must be RBF
	C      float64        // SVM cost (SLMC, and the final fit of SKFD)
	NumXV  int            // Nz, the number of expansion vectors
	Init   Init
	InitXV pursuit.Matrix // the initial XVs for InitGiven (NumXV rows)
	Seed   uint64         // for InitRandom and InitKMeans
	// KMeansIter bounds the Lloyd iterations of InitKMeans. Default 100.
	KMeansIter int
	// KeepDuplicates trains on the rows as given. By default SLMC and SKFD
	// merge each group of identical rows with the same label into one
	// point whose count multiplies its C in the inner SVM and its weight
	// in SKFD's class means and scatter (the same problem, smaller and
	// better conditioned; rows with equal features and different labels
	// stay separate points). Initial XVs are drawn from distinct rows
	// either way (one drawn twice makes Kz singular).
	KeepDuplicates bool
	// Float64Kernels runs without an engine: K(Z, X) is computed in
	// float64 either way (the same values; see the package documentation),
	// and with this set it runs on one thread and nothing is held against
	// an engine's memory budget.
	Float64Kernels bool
	Solver         SolverOptions
	Optim          OptimOptions
	// Checkpoint, if not nil, writes the state of the minimisation of
	// W(Z) at iteration boundaries, resumes from a checkpoint, and stops
	// the run on request (package checkpoint; Train and TrainSKFD only,
	// see checkpoint.go for how the L-BFGS state is kept).
	Checkpoint *checkpoint.Options
}

// Result is the outcome of Train.
type Result struct {
	Model *Model
	OptimStats
	// TrainError is the training error of Model on the training rows.
	TrainError float64
	// Duplicates is the number of training rows merged into an earlier
	// identical row with the same label.
	Duplicates int
	// NumSV is the number of training points with α > 0 in the final
	// inner SVM.
	NumSV int
}

// validate checks the parts of the configuration common to SLMC and SKFD.
func (c *Config) validate(method string, x pursuit.Matrix) error {
	if err := checkRBF(method, c.Kernel); err != nil {
		return err
	}
	if !(c.C > 0) || math.IsInf(c.C, 0) {
		return fmt.Errorf("slmc: %s: C must be positive and finite, got %v", method, c.C)
	}
	if c.NumXV < 1 {
		return fmt.Errorf("slmc: %s: the number of expansion vectors must be ≥ 1, got %d", method, c.NumXV)
	}
	if c.NumXV > x.Rows {
		return fmt.Errorf("slmc: %s: %d expansion vectors for only %d training points", method, c.NumXV, x.Rows)
	}
	switch c.Init {
	case InitRandom, InitKMeans:
	case InitGiven:
		if err := c.InitXV.Validate(); err != nil {
			return fmt.Errorf("slmc: %s: initial expansion vectors: %w", method, err)
		}
		if c.InitXV.Rows != c.NumXV || c.InitXV.Cols != x.Cols {
			return fmt.Errorf("slmc: %s: initial expansion vectors are %d×%d, want %d×%d",
				method, c.InitXV.Rows, c.InitXV.Cols, c.NumXV, x.Cols)
		}
	default:
		return fmt.Errorf("slmc: %s: unknown initialisation %v", method, c.Init)
	}
	return nil
}

// setup merges (merge) or removes duplicate training rows, and builds the
// problem and the initial Z.
func (c *Config) setup(method string, e *engine.Engine, x pursuit.Matrix, y []float64, merge bool) (*problem, *mat.Dense, int, error) {
	if err := x.Validate(); err != nil {
		return nil, nil, 0, fmt.Errorf("slmc: %s: training matrix: %w", method, err)
	}
	if err := c.validate(method, x); err != nil {
		return nil, nil, 0, err
	}
	if len(y) != x.Rows {
		return nil, nil, 0, fmt.Errorf("slmc: %s: %d labels for %d training rows", method, len(y), x.Rows)
	}
	dups := 0
	var weights []float64
	if !c.KeepDuplicates {
		if !x.IsSparse() && x.Stride != x.Cols {
			x = copyMatrix(x)
		}
		ds := &data.Dataset{X: x, Y: y, Name: "training set"}
		var dd *data.Dataset
		if merge {
			dd, weights = data.MergeDuplicates(ds)
			if len(weights) == x.Rows {
				weights = nil // no duplicates: the unweighted problem
			}
		} else {
			dd, _ = data.Dedup(ds)
		}
		dups = x.Rows - dd.Len()
		x, y = dd.X, dd.Y
	}
	// The initial XVs are drawn from rows with distinct features (merged
	// points with equal features and different labels count once).
	distinct := distinctRows(x)
	if c.Init == InitRandom && c.NumXV > len(distinct) {
		return nil, nil, 0, fmt.Errorf("slmc: %s: %d expansion vectors for only %d distinct training points", method, c.NumXV, len(distinct))
	}
	eng := e
	if c.Float64Kernels {
		eng = nil
	} else if e == nil {
		return nil, nil, 0, fmt.Errorf("slmc: %s: an engine is required (or set Float64Kernels)", method)
	}
	p, err := newProblem(eng, c.Kernel, x, y)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("slmc: %s: %w", method, err)
	}
	p.w = weights
	var z *mat.Dense
	switch c.Init {
	case InitRandom:
		pick := randomRows(newRand(c.Seed), len(distinct), c.NumXV)
		for t, r := range pick {
			pick[t] = distinct[r]
		}
		z = p.rowsOf(pick)
	case InitKMeans:
		xf := p.xf
		if xf == nil {
			// k-means runs on dense float64 rows: sparse rows are densified
			// for it, held against the engine's budget while it runs.
			if eng != nil {
				if err := eng.Reserve(fmt.Sprintf("a dense float64 copy of the %d×%d sparse training rows for k-means", x.Rows, x.Cols), int64(x.Rows)*int64(x.Cols)*8); err != nil {
					return nil, nil, 0, fmt.Errorf("slmc: %s: %w (k-means initialisation densifies sparse rows; use random initialisation)", method, err)
				}
			}
			xf = toDense(x)
		}
		km, err := KMeans(xf, c.NumXV, c.KMeansIter, c.Seed)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("slmc: %s: %w", method, err)
		}
		z = km.Centers
	case InitGiven:
		z = toDense(c.InitXV)
	}
	if err := finiteDense(z); err != nil {
		return nil, nil, 0, fmt.Errorf("slmc: %s: initial expansion vectors: %w", method, err)
	}
	return p, z, dups, nil
}

// distinctRows returns the indices of the rows of x not equal to an earlier
// row.
func distinctRows(x pursuit.Matrix) []int {
	dup := data.DuplicateRows(x)
	out := make([]int, 0, x.Rows-len(dup))
	for i, d := 0, 0; i < x.Rows; i++ {
		if d < len(dup) && dup[d] == i {
			d++
			continue
		}
		out = append(out, i)
	}
	return out
}

func finiteDense(z *mat.Dense) error {
	r, _ := z.Dims()
	for i := range r {
		for j, v := range z.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("vector %d, feature %d is %v", i+1, j+1, v)
			}
		}
	}
	return nil
}

func copyMatrix(x pursuit.Matrix) pursuit.Matrix {
	out := pursuit.NewMatrix(x.Rows, x.Cols)
	for i := range x.Rows {
		copy(out.Row(i), x.Row(i))
	}
	return out
}

// slmcW is SLMC's marginal function: W(Z) is the optimum of the exact SVM
// on φ_z, warm-started from the previous evaluation's α (the dual feasible
// set does not depend on Z, so any earlier α is a valid start).
type slmcW struct {
	p    *problem
	c    float64
	so   SolverOptions
	last *fixedFit
	grad *mat.Dense
}

func (s *slmcW) eval(z *mat.Dense, grad []float64) (float64, error) {
	var warm []float64
	if s.last != nil {
		warm = s.last.alpha
	}
	f, err := s.p.fit(z, s.c, warm, s.so)
	if err != nil {
		return 0, err
	}
	s.last = f
	nz, d := z.Dims()
	g := mat.NewDense(nz, d, grad)
	negA := make([]float64, len(f.a))
	for i, v := range f.a {
		negA[i] = -v
	}
	s.p.rbfGrad(g, f.b, f.beta, negA, 1)
	return f.w, nil
}

func (s *slmcW) trainError() float64 {
	if s.last == nil || s.last.b == nil {
		return math.NaN()
	}
	return s.p.errorRate(s.last.b.decision(s.last.beta, s.last.bias))
}

// Train builds a sparse large margin classifier with cfg.NumXV expansion
// vectors on the rows of x with labels y (±1): it minimises the SVM optimum
// W(Z) over the expansion vectors Z with L-BFGS, each evaluation training
// the exact SVM on the whitened map φ_z, and returns the classifier with
// β = Kz⁻¹ΨYα (eq. 45) and the SVM's bias at the final Z.
func Train(e *engine.Engine, x pursuit.Matrix, y []float64, cfg Config) (*Result, error) {
	if err := e.RequireOneRank("slmc.Train"); err != nil {
		return nil, err
	}
	const method = "SLMC"
	p, z0, dups, err := cfg.setup(method, e, x, y, true)
	if err != nil {
		return nil, err
	}
	ck, err := startCheckpoint(&cfg, "slmc", x, y)
	if err != nil {
		return nil, err
	}
	m := &slmcW{p: p, c: cfg.C, so: cfg.Solver.withDefaults()}
	z, st, err := minimizeW(m, z0, cfg.Optim, ck)
	if errors.Is(err, checkpoint.ErrStopped) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("slmc: %s: %w", method, err)
	}
	f, err := p.fit(z, cfg.C, m.last.alpha, m.so)
	if err != nil {
		return nil, fmt.Errorf("slmc: %s: final fit: %w", method, err)
	}
	res := &Result{
		Model:      newModel("slmc", cfg.Kernel, z, f.beta, f.bias),
		OptimStats: *st,
		TrainError: p.errorRate(f.b.decision(f.beta, f.bias)),
		Duplicates: dups,
		NumSV:      f.sol.NumSV,
	}
	res.W = f.w
	return res, nil
}
