package slmc

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
)

// Checkpoints (issue 33). The direct method's state lives mostly inside
// gonum's L-BFGS (its memory of steps and gradient changes, its line
// search, its convergence test), which gonum does not export. That state
// is a deterministic function of the values W and ∇W the evaluations
// returned, in order, so a checkpoint holds those instead: every
// evaluation's W, ∇W and a hash of its Z, the progress records of the
// iterations so far, and the inner SVM's α at the last evaluation (the
// warm start of the next one, for SLMC). Resuming runs L-BFGS again from
// the same initial Z and answers its evaluations from the record, checking
// that each asks for the Z recorded, until the record is used up; then
// the warm start is restored and the evaluations are computed again. The
// replay repeats gonum's arithmetic on the same numbers, so the run goes on
// bit for bit on the same backend and thread count, at the cost of
// L-BFGS's own work only (no W evaluation is repeated). A checkpoint grows
// by one gradient (Nz × d numbers) per evaluation.

// ckEval is one recorded evaluation of W(Z).
type ckEval struct {
	zsum uint64    // hash of Z's bits
	f    float64   // W(Z)
	g    []float64 // ∇W(Z)
}

// ckState is the checkpointing of one minimisation of W(Z).
type ckState struct {
	run  *checkpoint.Run
	log  []ckEval   // every evaluation so far
	hist []Progress // the progress records so far
	// The state to resume from: evaluations still to replay (replay[next:]),
	// progress records to reuse, and the warm start after the last.
	replay []ckEval
	next   int
	saved  []Progress
	warm   []float64
	// stopped is the *checkpoint.StoppedError (or write error) Boundary
	// returned; minimizeW returns it.
	stopped error
}

// warmStarter is a marginal function that keeps state between
// evaluations (SLMC's inner SVM α).
type warmStarter interface {
	warmStart() []float64
	restoreWarm([]float64)
}

func (s *slmcW) warmStart() []float64 {
	if s.last == nil {
		return nil
	}
	return s.last.alpha
}

// restoreWarm makes alpha the warm start of the next evaluation (and of
// the final fit); trainError is NaN until the next evaluation.
func (s *slmcW) restoreWarm(alpha []float64) {
	if alpha == nil {
		s.last = nil
		return
	}
	s.last = &fixedFit{alpha: alpha}
}

// zHash hashes the bits of z.
func zHash(z []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range z {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
}

// startCheckpoint starts cfg.Checkpoint's run of method (SLMC or SKFD)
// on x, y, or returns nil without one.
func startCheckpoint(cfg *Config, method string, x pursuit.Matrix, y []float64, extra ...checkpoint.Entry) (*ckState, error) {
	if cfg.Checkpoint == nil {
		return nil, nil
	}
	o := cfg.Optim.withDefaults()
	so := cfg.Solver.withDefaults()
	e := []checkpoint.Entry{
		checkpoint.Setting("kernel", cfg.Kernel.String()),
		checkpoint.Setting("C", cfg.C),
		checkpoint.Setting("expansion vectors", cfg.NumXV),
		checkpoint.Setting("initialisation", cfg.Init),
		checkpoint.Setting("seed", cfg.Seed),
		checkpoint.Setting("k-means iterations", cfg.KMeansIter),
		checkpoint.Setting("keep duplicates", cfg.KeepDuplicates),
		checkpoint.Setting("float64 kernels", cfg.Float64Kernels),
		checkpoint.Setting("solver tolerance", so.Tol),
		checkpoint.Setting("optimiser", fmt.Sprintf("%d iterations, function tolerance %v over %d, gradient tolerance %v, memory %d, %d restarts",
			o.MaxIter, o.FuncTol, o.FuncIters, o.GradTol, o.Store, o.Restarts)),
	}
	e = append(e, extra...)
	e = append(e, checkpoint.Data("training data", x, y))
	if cfg.Init == InitGiven {
		e = append(e, checkpoint.Data("initial expansion vectors", cfg.InitXV, nil))
	}
	run, rd, err := checkpoint.Start(cfg.Checkpoint, method, e)
	if err != nil {
		return nil, err
	}
	ck := &ckState{run: run}
	if rd == nil {
		return ck, nil
	}
	bad := func(err error) (*ckState, error) {
		return nil, pursuit.BadInputf("slmc: %s: resuming: %w", method, err)
	}
	n := rd.Int()
	if n < 0 || n > 1<<30 {
		return bad(fmt.Errorf("the checkpoint's evaluation count %d is not valid", n))
	}
	for range n {
		ev := ckEval{zsum: rd.Uint64(), f: rd.Float(), g: rd.Floats()}
		if rd.Err(false) != nil {
			break
		}
		ck.replay = append(ck.replay, ev)
	}
	h := rd.Int()
	if h < 0 || h > 1<<30 {
		return bad(fmt.Errorf("the checkpoint's iteration count %d is not valid", h))
	}
	for range h {
		p := Progress{Iter: rd.Int(), Evals: rd.Int(), W: rd.Float(), GradNorm: rd.Float(), TrainError: rd.Float(), Elapsed: time.Duration(rd.Int())}
		if rd.Err(false) != nil {
			break
		}
		ck.saved = append(ck.saved, p)
	}
	if rd.Bool() {
		ck.warm = rd.Floats()
	}
	if err := rd.Err(true); err != nil {
		return bad(err)
	}
	return ck, nil
}

// encode writes the state.
func (c *ckState) encode(w *checkpoint.Writer, warm []float64) {
	w.Int(len(c.log))
	for _, ev := range c.log {
		w.Uint64(ev.zsum)
		w.Float(ev.f)
		w.Floats(ev.g)
	}
	w.Int(len(c.hist))
	for _, p := range c.hist {
		w.Int(p.Iter)
		w.Int(p.Evals)
		w.Float(p.W)
		w.Float(p.GradNorm)
		w.Float(p.TrainError)
		w.Int(int(p.Elapsed))
	}
	w.Bool(warm != nil)
	if warm != nil {
		w.Floats(warm)
	}
}

// replaying reports whether evaluations are still answered from the
// checkpoint.
func (c *ckState) replaying() bool { return c != nil && c.next < len(c.replay) }

// answer returns the recorded evaluation at z (g receives ∇W), or an error
// when the replay asks for another Z than the one recorded.
func (c *ckState) answer(z, g []float64) (float64, error) {
	ev := c.replay[c.next]
	if zHash(z) != ev.zsum || len(ev.g) != len(g) {
		return 0, pursuit.BadInputf("resuming: evaluation %d of the checkpoint was at other expansion vectors than this run's (other data, settings or backend)", c.next+1)
	}
	c.next++
	copy(g, ev.g)
	return ev.f, nil
}

// where describes the position after iteration iter.
func ckWhere(iter, max int) string { return fmt.Sprintf("iteration %d of at most %d", iter, max) }
