package slmc

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
)

// Progress is reported once per L-BFGS iteration of the direct method.
type Progress struct {
	Iter       int           // major (L-BFGS) iteration, from 1
	Evals      int           // evaluations of W(Z) so far
	W          float64       // marginal function W(Z) at the current Z
	GradNorm   float64       // Euclidean norm of ∇W(Z)
	TrainError float64       // training error of the classifier at Z
	Elapsed    time.Duration // since the start of the optimisation
}

// OptimOptions control the L-BFGS minimisation of W(Z).
type OptimOptions struct {
	// MaxIter bounds the L-BFGS iterations (the paper saw 20–200).
	// Default 200.
	MaxIter int
	// FuncTol stops when W has not improved by more than FuncTol·|W| over
	// FuncIters iterations. Default 1e-5 over 5 iterations.
	FuncTol   float64
	FuncIters int
	// GradTol stops when every |∂W/∂z_uv| is below GradTol. Default 1e-9.
	GradTol float64
	// Store is the L-BFGS memory. Default 15.
	Store int
	// Restarts bounds how often L-BFGS is restarted from the best point
	// after a failed line search. Default 10; negative: never.
	Restarts int
	// Progress, if not nil, is called after every iteration.
	Progress func(Progress)
}

func (o OptimOptions) withDefaults() OptimOptions {
	if o.MaxIter <= 0 {
		o.MaxIter = 200
	}
	if !(o.FuncTol > 0) {
		o.FuncTol = 1e-5
	}
	if o.FuncIters <= 0 {
		o.FuncIters = 5
	}
	if !(o.GradTol > 0) {
		o.GradTol = 1e-9
	}
	if o.Store <= 0 {
		o.Store = 15
	}
	if o.Restarts == 0 {
		o.Restarts = 10
	}
	return o
}

// StopReason says why the minimisation of W(Z) stopped; see the package
// documentation for what to do about each.
type StopReason string

const (
	// StopConverged: W changed by less than FuncTol (relative) over
	// FuncIters iterations.
	StopConverged StopReason = "converged"
	// StopGradient: every gradient component is below GradTol.
	StopGradient StopReason = "gradient small"
	// StopIterationCap: MaxIter L-BFGS iterations were used up.
	StopIterationCap StopReason = "iteration cap"
	// StopLineSearch: the line search failed to find a lower W, even after
	// the restarts; the best point seen is returned.
	StopLineSearch StopReason = "line search failed"
	// StopOther: any other gonum status.
	StopOther StopReason = "other"
)

func stopFromStatus(s optimize.Status) StopReason {
	switch s {
	case optimize.FunctionConvergence:
		return StopConverged
	case optimize.GradientThreshold:
		return StopGradient
	case optimize.IterationLimit:
		return StopIterationCap
	}
	return StopOther
}

// marginal is a marginal function W(Z) of the direct method: eval computes W
// and ∇W (grad, Nz×d row-major) at z and remembers what it needs for
// trainError.
type marginal interface {
	eval(z *mat.Dense, grad []float64) (float64, error)
	trainError() float64
}

// OptimStats describes one minimisation of W(Z).
type OptimStats struct {
	W0, W       float64 // W at the initial and at the final Z
	Iterations  int     // L-BFGS iterations
	Evaluations int     // evaluations of W(Z) and ∇W(Z)
	Status      string  // why L-BFGS stopped, in gonum's words
	Stop        StopReason
	Restarts    int     // L-BFGS restarts after a failed line search
	GradNorm    float64 // ‖∇W‖ at the final Z
	Runtime     time.Duration
	History     []Progress
}

// minimizeW minimises m over Z from z0 with L-BFGS and returns the best Z
// found (the final L-BFGS iterate, or the best evaluated point when the line
// search failed).
//
// ck, when not nil, records the evaluations for checkpoints, writes them at
// iteration boundaries and replays those of the checkpoint resumed from
// (see checkpoint.go).
func minimizeW(m marginal, z0 *mat.Dense, o OptimOptions, ck *ckState) (*mat.Dense, *OptimStats, error) {
	o = o.withDefaults()
	nz, d := z0.Dims()
	dim := nz * d
	start := time.Now()
	st := &OptimStats{}

	var (
		lastX    []float64
		lastF    float64
		lastG    = make([]float64, dim)
		evalErr  error
		bestX    []float64
		bestF    = math.Inf(1)
		bestG    = make([]float64, dim)
		zbuf     = mat.NewDense(nz, d, nil)
		evaluate = func(x []float64) {
			if lastX != nil && slices.Equal(x, lastX) {
				return
			}
			var (
				f   float64
				err error
			)
			if ck.replaying() {
				f, err = ck.answer(x, lastG)
				if err == nil && !ck.replaying() {
					// The last evaluation recorded: the next one is
					// computed, warm-started as the interrupted run's.
					if ws, ok := m.(warmStarter); ok {
						ws.restoreWarm(ck.warm)
					}
				}
			} else {
				copy(zbuf.RawMatrix().Data, x)
				f, err = m.eval(zbuf, lastG)
			}
			if ck != nil && err == nil {
				ck.log = append(ck.log, ckEval{zsum: zHash(x), f: f, g: slices.Clone(lastG)})
			}
			st.Evaluations++
			if err != nil {
				if evalErr == nil {
					evalErr = err
				}
				f = math.Inf(1)
			}
			lastX = append(lastX[:0], x...)
			lastF = f
			if f < bestF {
				bestF = f
				bestX = append(bestX[:0], x...)
				copy(bestG, lastG)
			}
		}
	)
	x0 := slices.Clone(z0.RawMatrix().Data)
	if r := z0.RawMatrix(); r.Stride != d {
		x0 = slices.Clone(mat.DenseCopyOf(z0).RawMatrix().Data)
	}
	evaluate(x0)
	if evalErr != nil {
		return nil, nil, fmt.Errorf("W(Z) at the initial expansion vectors: %w", evalErr)
	}
	st.W0 = lastF
	prob := optimize.Problem{
		Func: func(x []float64) float64 { evaluate(x); return lastF },
		Grad: func(g, x []float64) { evaluate(x); copy(g, lastG) },
		Status: func() (optimize.Status, error) {
			if evalErr != nil {
				return optimize.Failure, evalErr
			}
			return optimize.NotTerminated, nil
		},
	}
	iterBase := 0 // major iterations of the earlier L-BFGS runs
	rec := &recorder{fn: func(loc *optimize.Location, s *optimize.Stats) error {
		if h := len(st.History); ck != nil && h < len(ck.saved) {
			// An iteration the checkpoint recorded, replayed.
			p := ck.saved[h]
			st.History = append(st.History, p)
			ck.hist = append(ck.hist, p)
			if h == len(ck.saved)-1 {
				start = time.Now().Add(-p.Elapsed)
			}
			return nil
		}
		p := Progress{
			Iter: iterBase + s.MajorIterations, Evals: st.Evaluations, W: loc.F,
			GradNorm: floats.Norm(loc.Gradient, 2), TrainError: math.NaN(),
			Elapsed: time.Since(start),
		}
		if lastX != nil && slices.Equal(loc.X, lastX) {
			p.TrainError = m.trainError()
		}
		st.History = append(st.History, p)
		if o.Progress != nil {
			o.Progress(p)
		}
		if ck == nil {
			return nil
		}
		ck.hist = append(ck.hist, p)
		var warm []float64
		if ws, ok := m.(warmStarter); ok {
			warm = ws.warmStart()
		}
		err := ck.run.Boundary(func() string { return ckWhere(p.Iter, o.MaxIter) }, func(w *checkpoint.Writer) { ck.encode(w, warm) })
		if err != nil {
			ck.stopped = err
		}
		return err
	}}
	var (
		res    *optimize.Result
		err    error
		xStart = x0
		fStart = st.W0
		gStart = slices.Clone(lastG)
	)
	for {
		settings := &optimize.Settings{
			InitValues:        &optimize.Location{F: fStart, Gradient: gStart},
			GradientThreshold: o.GradTol,
			Converger:         &optimize.FunctionConverge{Relative: o.FuncTol, Iterations: o.FuncIters},
			MajorIterations:   o.MaxIter - iterBase,
			Recorder:          rec,
		}
		res, err = optimize.Minimize(prob, slices.Clone(xStart), settings, &optimize.LBFGS{Store: o.Store})
		if ck != nil && ck.stopped != nil {
			return nil, nil, ck.stopped
		}
		if evalErr != nil {
			return nil, nil, fmt.Errorf("W(Z) during L-BFGS: %w", evalErr)
		}
		if res != nil {
			iterBase += res.MajorIterations
		}
		// A failed line search (W(Z) has kinks where the inner SVM's
		// active set changes, and the inner solve is only so exact)
		// restarts L-BFGS from the best point seen, with a fresh memory,
		// as long as the previous run improved W by more than FuncTol.
		if err == nil || bestX == nil || st.Restarts >= o.Restarts || iterBase >= o.MaxIter ||
			!(bestF < fStart-o.FuncTol*math.Abs(fStart)) {
			break
		}
		st.Restarts++
		xStart, fStart, gStart = slices.Clone(bestX), bestF, slices.Clone(bestG)
	}
	if ck.replaying() {
		return nil, nil, pursuit.BadInputf("resuming: the checkpoint records %d evaluations of W, this run made %d (other data, settings or backend)", len(ck.replay), ck.next)
	}
	st.Runtime = time.Since(start)
	st.Iterations = iterBase
	var x []float64
	var g []float64
	switch {
	case err == nil && res != nil:
		x, st.W, g = res.X, res.F, res.Gradient
		st.Status = res.Status.String()
		st.Stop = stopFromStatus(res.Status)
	case bestX != nil:
		// A failed line search still leaves the best point seen.
		x, st.W, g = bestX, bestF, bestG
		st.Status = "stopped: " + err.Error()
		st.Stop = StopLineSearch
		if res != nil && res.Status != optimize.NotTerminated && res.Status != optimize.Failure {
			st.Stop = stopFromStatus(res.Status)
		}
	default:
		return nil, nil, fmt.Errorf("L-BFGS: %w", errors.Join(err))
	}
	if bestF < st.W { // never return a point worse than one seen
		x, st.W, g = bestX, bestF, bestG
	}
	st.GradNorm = floats.Norm(g, 2)
	return mat.NewDense(nz, d, slices.Clone(x)), st, nil
}

// recorder forwards major iterations to fn.
type recorder struct {
	fn func(*optimize.Location, *optimize.Stats) error
}

func (r *recorder) Init() error { return nil }

func (r *recorder) Record(loc *optimize.Location, op optimize.Operation, s *optimize.Stats) error {
	if op == optimize.MajorIteration {
		return r.fn(loc, s)
	}
	return nil
}
