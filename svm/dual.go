package svm

import (
	"errors"
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit/engine"
)

// Options control the SMO solver.
type Options struct {
	// Tol is the stopping tolerance on the maximal KKT violation
	// max_{I_up} −y_a G_a − min_{I_low} −y_a G_a (LIBSVM's -e); default 1e-3.
	// Float64 row sources (NewGram64, NewLinear64) reach 1e-9 and below.
	Tol float64
	// CacheMB is the kernel-row cache budget in MiB (LIBSVM's -m); default 100.
	CacheMB float64
	// NoShrinking turns the shrinking heuristic off (LIBSVM's -h 0).
	NoShrinking bool
	// MaxIter bounds the SMO iterations; 0 means LIBSVM's max(10⁷, 100·n).
	// Reaching it is not an error: Solution.Converged is false.
	MaxIter int
	// Batch is how many kernel rows are computed together when a row is
	// missing from the cache: the missing row plus the uncached rows most
	// likely needed next (for i, the largest I_up violations; for j, the
	// runners-up of its second-order selection). Default (0): one tile of
	// the engine's kernel rows against the data (engine.Engine.TileRowsOf:
	// 2 in pure Go, 6 with AVX2, 12 with AVX-512 for dense rows), since a
	// smaller batch costs a whole tile and a larger one computes more rows
	// that are never used; 1 for sparse rows on the CPU backends, whose
	// rows each cost their own columns, so that only the rows asked for
	// are computed and cached, as LIBSVM does (on mushrooms, 695 rows
	// instead of 1,416 at the same speed); 12 where the backend does not
	// say (CUDA) and on row sources other than EngineRows; the ranks of a
	// problem split across ranks take the largest of their tiles. 1
	// computes rows one at a time. The model does not depend on it.
	Batch int

	ck *ckRun // the checkpointing of this solve (Params.Checkpoint)
	// Solver chooses SMO or the batched working-set solver (SolverAuto:
	// SMO for now). The batched solver does not shrink (it keeps every
	// gradient exact) and takes its kernel rows in one gathered block per
	// outer iteration instead of through the cache, whose budget bounds
	// its working set instead.
	Solver SolverKind
	// WorkingSet is the batched solver's q, the variables per outer
	// iteration; 0: a power of two near 4√n within [64, 1024], no more
	// kernel rows than CacheMB holds.
	WorkingSet int
	// HostRows keeps the batched solver's kernel rows, subproblem and
	// gradient update on the host even where the engine could keep them on
	// the device (engine.NewSVMPool: the cuda backend); the model is the
	// same bit for bit. For comparisons.
	HostRows bool
}

// defaultBatch is Options.Batch where the backend has no tile height.
const defaultBatch = 12

// batchFor is the default Options.Batch for a backend whose kernel rows
// come in tiles of tile rows (engine.Engine.TileRows; 0: it does not say).
func batchFor(tile int) int {
	if tile > 0 {
		return tile
	}
	return defaultBatch
}

func (o Options) withDefaults() (Options, error) {
	if o.Tol == 0 {
		o.Tol = 1e-3
	}
	if !(o.Tol > 0) || math.IsInf(o.Tol, 0) {
		return o, fmt.Errorf("svm: tolerance must be positive and finite, got %v", o.Tol)
	}
	if o.CacheMB == 0 {
		o.CacheMB = 100
	}
	if !(o.CacheMB > 0) || math.IsInf(o.CacheMB, 0) {
		return o, fmt.Errorf("svm: cache size must be positive, got %v MB", o.CacheMB)
	}
	if o.MaxIter < 0 {
		return o, fmt.Errorf("svm: MaxIter must be ≥ 0, got %d", o.MaxIter)
	}
	if o.Batch < 0 {
		return o, fmt.Errorf("svm: Batch must be ≥ 0, got %d", o.Batch)
	}
	if o.Solver < SolverAuto || o.Solver > SolverBatched {
		return o, fmt.Errorf("svm: unknown solver %d", int(o.Solver))
	}
	if o.WorkingSet < 0 || o.WorkingSet == 1 {
		return o, fmt.Errorf("svm: WorkingSet must be 0 or ≥ 2, got %d", o.WorkingSet)
	}
	return o, nil
}

// Problem is the general dual min ½αᵀQα + pᵀα subject to yᵀα = 0 and
// 0 ≤ α_a ≤ C_a, with Q_ab = y_a y_b K(Index_a, Index_b), over n variables.
type Problem struct {
	Y     []float64 // ±1, length n
	P     []float64 // linear term, length n
	C     []float64 // upper bounds (> 0), length n
	Index []int     // variable → kernel point; nil means the identity (n = l)
	// Alpha0 is an optional feasible starting point (warm start): values are
	// clipped to [0, C_a]; yᵀα0 must be 0 (to 1e-9 relative).
	Alpha0 []float64
}

// Solution is the solver's result.
type Solution struct {
	Alpha     []float64 // optimal α, length n, 0 ≤ α_a ≤ C_a
	Grad      []float64 // gradient Qα + p at Alpha
	Rho       float64   // ρ; the decision function is Σ coef K − ρ
	Bias      float64   // b = −ρ
	Obj       float64   // ½αᵀQα + pᵀα (LIBSVM's "obj"); C-SVC's W(α) = −Obj
	Iter      int       // SMO iterations (the batched solver: its inner pair steps)
	OuterIter int       // the batched solver's outer iterations (0 for SMO)
	// DeviceSubproblems counts the batched solver's subproblems solved on
	// the device (engine.SMOSubproblem); 0 on the host.
	DeviceSubproblems int
	// DeviceRows counts the kernel rows the batched solver kept on the
	// device (engine.NewSVMPool); 0 when they came to the host.
	DeviceRows int
	Gap        float64 // final maximal violation
	Converged  bool    // Gap < Tol (false when MaxIter stopped it)
	NumSV      int     // variables with α > 0
	NumBSV     int     // variables at their upper bound
	// Kernel-row cache statistics: lookups that hit, that missed, and rows
	// computed (a miss computes a batch).
	CacheHits, CacheMisses, RowsComputed int
}

// Solve solves the general dual problem over the kernel rows of src, which
// must implement KernelRows or KernelRows64.
func Solve(src RowSource, prob Problem, o Options) (*Solution, error) {
	alpha, diag, o, maxIter, err := prepare(src, prob, o)
	if err != nil {
		return nil, err
	}
	l := src.Len()
	budget := int64(o.CacheMB * (1 << 20))
	if s64, ok := src.(KernelRows64); ok {
		c := newRowCache(l, budget, 8, fill64(s64))
		defer c.release()
		return runSolver(c, scannerOf(src), nil, prob, diag, alpha, o, maxIter)
	}
	if s32, ok := src.(KernelRows); ok {
		c := newRowCache(l, budget, 4, fill32(s32))
		defer c.release()
		er, _ := src.(*EngineRows)
		return runSolver(c, scannerOf(src), er, prob, diag, alpha, o, maxIter)
	}
	return nil, fmt.Errorf("svm: kernel row source %T implements neither KernelRows nor KernelRows64", src)
}

// prepare validates a problem and returns the starting point, the kernel
// diagonal, the completed options and the iteration limit.
func prepare(src RowSource, prob Problem, o Options) ([]float64, []float64, Options, int, error) {
	fail := func(err error) ([]float64, []float64, Options, int, error) { return nil, nil, o, 0, err }
	if src == nil {
		return fail(errors.New("svm: nil kernel row source"))
	}
	o, err := o.withDefaults()
	if err != nil {
		return fail(err)
	}
	if o.Batch == 0 {
		tile := 0
		if r, ok := src.(*EngineRows); ok {
			tile = r.e.TileRowsOf(r.xp)
		}
		o.Batch = batchFor(tile)
	}
	n := len(prob.Y)
	l := src.Len()
	if n == 0 || l == 0 {
		return fail(errors.New("svm: empty problem (no variables)"))
	}
	if len(prob.P) != n || len(prob.C) != n {
		return fail(fmt.Errorf("svm: problem has %d labels, %d linear terms and %d bounds", n, len(prob.P), len(prob.C)))
	}
	if prob.Index == nil && n != l {
		return fail(fmt.Errorf("svm: %d variables over %d kernel points need an Index", n, l))
	}
	if prob.Index != nil && len(prob.Index) != n {
		return fail(fmt.Errorf("svm: Index has %d entries for %d variables", len(prob.Index), n))
	}
	diag := src.Diag()
	if len(diag) != l {
		return fail(fmt.Errorf("svm: kernel source diagonal has %d entries for %d points", len(diag), l))
	}
	for a := range n {
		if prob.Y[a] != 1 && prob.Y[a] != -1 {
			return fail(fmt.Errorf("svm: variable %d: y must be ±1, got %v", a, prob.Y[a]))
		}
		if !(prob.C[a] > 0) || math.IsInf(prob.C[a], 0) {
			return fail(fmt.Errorf("svm: variable %d: bound C must be positive and finite, got %v", a, prob.C[a]))
		}
		if math.IsNaN(prob.P[a]) || math.IsInf(prob.P[a], 0) {
			return fail(fmt.Errorf("svm: variable %d: linear term %v is not finite", a, prob.P[a]))
		}
		if prob.Index != nil && (prob.Index[a] < 0 || prob.Index[a] >= l) {
			return fail(fmt.Errorf("svm: variable %d: index %d out of range [0, %d)", a, prob.Index[a], l))
		}
	}
	alpha := make([]float64, n)
	if prob.Alpha0 != nil {
		if len(prob.Alpha0) != n {
			return fail(fmt.Errorf("svm: warm start has %d values for %d variables", len(prob.Alpha0), n))
		}
		var sum, scale float64
		for a, v := range prob.Alpha0 {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fail(fmt.Errorf("svm: warm start: α_%d = %v", a, v))
			}
			alpha[a] = math.Min(math.Max(v, 0), prob.C[a])
			sum += prob.Y[a] * alpha[a]
			scale += alpha[a]
		}
		if math.Abs(sum) > 1e-9*math.Max(scale, 1) {
			return fail(fmt.Errorf("svm: warm start is infeasible: yᵀα = %g ≠ 0", sum))
		}
	}
	maxIter := o.MaxIter
	if maxIter == 0 {
		maxIter = max(10000000, 100*n)
	}
	_, is64 := src.(KernelRows64)
	_, is32 := src.(KernelRows)
	if !is64 && !is32 {
		return fail(fmt.Errorf("svm: kernel row source %T implements neither KernelRows nor KernelRows64", src))
	}
	return alpha, diag, o, maxIter, nil
}

// scannerOf returns the SMO scans for the rows of src: the engine's for
// EngineRows, else nil (the solver's Go loops).
func scannerOf(src RowSource) engine.SMOScanner {
	if r, ok := src.(*EngineRows); ok {
		return r.e
	}
	return nil
}

// runSolver runs the solver o.Solver chooses; er, when not nil, is the
// engine's float32 kernel rows behind c (the batched solver may keep them
// on the device: engine.NewSVMPool).
func runSolver[T real](c *rowCache[T], scan engine.SMOScanner, er *EngineRows, prob Problem, diag, alpha []float64, o Options, maxIter int) (*Solution, error) {
	if o.Solver.resolve() == SolverBatched {
		return runBatched(c, scan, er, prob, diag, alpha, o, maxIter)
	}
	return runSMO(c, scan, prob, diag, alpha, o, maxIter)
}

// runSMO runs the solver on the rows of c, with the scans of scan (nil:
// Go loops).
func runSMO[T real](c *rowCache[T], scan engine.SMOScanner, prob Problem, diag, alpha []float64, o Options, maxIter int) (*Solution, error) {
	s := newSMO(c, scan, prob, diag, alpha, o, maxIter)
	if err := s.run(); err != nil {
		return nil, fmt.Errorf("svm: SMO: %w", err)
	}
	return s.solution(), nil
}

// newSMO sets up the solver of runSMO.
func newSMO[T real](c *rowCache[T], scan engine.SMOScanner, prob Problem, diag, alpha []float64, o Options, maxIter int) *smo[T] {
	n := len(prob.Y)
	s := &smo[T]{
		n: n, kidx: prob.Index, y: prob.Y, p: prob.P, c: prob.C,
		qd: make([]float64, n), alpha: alpha, g: make([]float64, n), gbar: make([]float64, n),
		status: make([]uint8, n), upSign: make([]float64, n), lowSign: make([]float64, n),
		active: make([]int32, n), inAct: make([]bool, n),
		cache: c, scan: scan, batch: o.Batch, eps: o.Tol, shrinking: !o.NoShrinking, maxIter: maxIter, nAll: n,
		ck: o.ck,
	}
	for a := range n {
		s.qd[a] = diag[s.ki(a)]
		s.active[a] = int32(a)
		s.inAct[a] = true
		s.setStatus(a)
	}
	return s
}

// solution returns the solver's result.
func (s *smo[T]) solution() *Solution {
	c, n := s.cache, s.n
	sol := &Solution{
		Alpha: s.alpha, Grad: s.g, Iter: s.iter, Gap: s.gap, Converged: s.converged,
		Obj: s.objective(), CacheHits: c.hits, CacheMisses: c.misses, RowsComputed: c.computed,
	}
	sol.Rho = s.rho()
	sol.Bias = -sol.Rho
	for a := range n {
		if s.alpha[a] > 0 {
			sol.NumSV++
		}
		if s.status[a] == atUpper {
			sol.NumBSV++
		}
	}
	return sol
}

// SolveCSVC solves the C-SVC dual for labels y (±1) over the kernel rows of
// src: min ½αᵀQα − Σα, yᵀα = 0, 0 ≤ α_i ≤ cPos (y_i = +1) or cNeg
// (y_i = −1). alpha0 is an optional warm start (nil for α = 0). The
// decision function is f(x) = Σ y_i α_i K(x_i, x) + b with b = Solution.Bias.
func SolveCSVC(src RowSource, y []float64, cPos, cNeg float64, alpha0 []float64, o Options) (*Solution, error) {
	return SolveCSVCWeighted(src, y, cPos, cNeg, nil, alpha0, o)
}

// SolveCSVCWeighted is SolveCSVC with a weight per point: the bound of α_i
// is cPos·w_i or cNeg·w_i (w nil: all weights 1). A point of integer weight
// m gives the same decision function as m copies of it.
func SolveCSVCWeighted(src RowSource, y []float64, cPos, cNeg float64, w, alpha0 []float64, o Options) (*Solution, error) {
	if src == nil {
		return nil, errors.New("svm: nil kernel row source")
	}
	if len(y) != src.Len() {
		return nil, fmt.Errorf("svm: %d labels for %d points", len(y), src.Len())
	}
	if !(cPos > 0) || !(cNeg > 0) || math.IsInf(cPos, 0) || math.IsInf(cNeg, 0) {
		return nil, fmt.Errorf("svm: C must be positive and finite, got %v (positive class) and %v (negative class)", cPos, cNeg)
	}
	npos := 0
	for i, v := range y {
		switch v {
		case 1:
			npos++
		case -1:
		default:
			return nil, fmt.Errorf("svm: label %d is %v; C-SVC needs ±1", i, v)
		}
	}
	if npos == 0 || npos == len(y) {
		return nil, fmt.Errorf("svm: all %d labels are %v; C-SVC needs both classes", len(y), y[0])
	}
	if w != nil && len(w) != len(y) {
		return nil, fmt.Errorf("svm: %d weights for %d points", len(w), len(y))
	}
	for i := range w {
		if !(w[i] > 0) || math.IsInf(w[i], 0) {
			return nil, fmt.Errorf("svm: weight %d is %v; weights must be positive and finite", i, w[i])
		}
	}
	prob := csvcProblem(y, cPos, cNeg, w)
	prob.Alpha0 = alpha0
	return Solve(src, prob, o)
}

// csvcProblem is the C-SVC dual of labels y (±1): p = −1, bounds cPos or
// cNeg times the instance weight (w nil: 1).
func csvcProblem(y []float64, cPos, cNeg float64, w []float64) Problem {
	prob := Problem{Y: y, P: make([]float64, len(y)), C: make([]float64, len(y))}
	for i := range y {
		prob.P[i] = -1
		prob.C[i] = cNeg
		if y[i] > 0 {
			prob.C[i] = cPos
		}
		if w != nil {
			prob.C[i] *= w[i]
		}
	}
	return prob
}

// SolveSVR solves the ε-SVR dual for targets z over the kernel rows of src
// as LIBSVM does, with 2l variables (α, α*): the first l are α_i (y = +1,
// p = ε − z_i), the last l are α*_i (y = −1, p = ε + z_i). The regression
// function is f(x) = Σ (α_i − α*_i) K(x_i, x) + b; SVRCoef extracts the
// coefficients.
func SolveSVR(src RowSource, z []float64, c, eps float64, o Options) (*Solution, error) {
	return solveSVRWeighted(src, z, c, eps, nil, o)
}

// solveSVRWeighted is SolveSVR with the bounds of α_i and α*_i multiplied
// by w_i (w nil: all 1; w already validated).
func solveSVRWeighted(src RowSource, z []float64, c, eps float64, w []float64, o Options) (*Solution, error) {
	if src == nil {
		return nil, errors.New("svm: nil kernel row source")
	}
	l := src.Len()
	if len(z) != l {
		return nil, fmt.Errorf("svm: %d targets for %d points", len(z), l)
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("svm: C must be positive and finite, got %v", c)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("svm: ε must be ≥ 0 and finite, got %v", eps)
	}
	prob := Problem{Y: make([]float64, 2*l), P: make([]float64, 2*l), C: make([]float64, 2*l), Index: make([]int, 2*l)}
	for i := range l {
		if math.IsNaN(z[i]) || math.IsInf(z[i], 0) {
			return nil, fmt.Errorf("svm: target %d is %v", i, z[i])
		}
		prob.Y[i], prob.Y[i+l] = 1, -1
		prob.P[i], prob.P[i+l] = eps-z[i], eps+z[i]
		prob.C[i], prob.C[i+l] = c, c
		if w != nil {
			prob.C[i], prob.C[i+l] = c*w[i], c*w[i]
		}
		prob.Index[i], prob.Index[i+l] = i, i
	}
	return Solve(src, prob, o)
}

// SVRCoef returns α_i − α*_i from an ε-SVR solution (2l variables).
func SVRCoef(sol *Solution) []float64 {
	l := len(sol.Alpha) / 2
	out := make([]float64, l)
	for i := range l {
		out[i] = sol.Alpha[i] - sol.Alpha[i+l]
	}
	return out
}
