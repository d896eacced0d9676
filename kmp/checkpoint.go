package kmp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
)

// Checkpoints (issue 33). A checkpoint of a squared-loss fit holds the
// atoms chosen so far, in order, the search's state (its refused atoms,
// its run of dependent atoms and the active-set sampler's generator and
// permutation) and the learning curve's times. Resuming replays the chosen
// atoms through the same update and record a step runs after its search
// (load, project, push, move the residual, record), which rebuilds the
// residual, the orthonormal basis, the triangular factor, the validation
// outputs and the early-stopping state with the same arithmetic in the
// same order, hence bit for bit on the same backend and thread count,
// without the searches, which are the cost of a step. The residual's norm
// recorded with the checkpoint checks the replay.
//
// Several outputs (one-vs-rest, in lock-step or one after another) are
// independent fits, and a checkpoint holds each output's state at one of
// its step boundaries, so that each resumes from its own step. When a
// checkpoint is due, every output still training records its state at its
// next boundary, and the last of them writes the file (a stop writes it at
// once, and again as each output stops); an output that had finished
// keeps the state it last recorded, and one that had stopped (patience, an
// exhausted dictionary) takes its last steps again and stops again.

// ckRun is a fit's checkpointing: the run, and the state to resume from
// (nil: a fresh start).
type ckRun struct {
	run   *checkpoint.Run
	state *checkpoint.Reader
	// Several outputs: the state each recorded last and its step (nil and
	// 0 before it recorded one), and each one's state to resume from.
	outputs int
	mu      sync.Mutex
	states  [][]byte
	steps   []int
	resumed []*checkpoint.Reader
	// A checkpoint is pending (due, not yet written): fresh marks the
	// outputs that recorded their state since; started those that reached
	// a step boundary, done those that finished (the round waits for the
	// outputs started and not done: one at a time when they train one
	// after another).
	pending              bool
	fresh, started, done []bool
	last                 checkpoint.Info // the last checkpoint written
}

// ckLearner names KMP's checkpoints.
const ckLearner = "kmp"

// startCheckpoint starts cfg.Checkpoint's run for training on x, y with
// outputs outputs (after resolve), or returns nil without one. Squared-loss
// back-fitting and pre-fitting checkpoint, in one process or across ranks
// (sh not nil): there every rank holds the same state (the chosen atoms,
// the search's, the global residual norm; each rank's block of the
// residual and the basis follows from replaying the atoms), so rank 0
// writes the file and every rank resumes from it; the file records the
// number of ranks and a digest of every rank's rows, and a resume on
// another number of ranks is refused.
func startCheckpoint(cfg *Config, x pursuit.Matrix, y []float64, outputs int, sh *shard) (*ckRun, error) {
	if cfg.Checkpoint == nil {
		return nil, nil
	}
	switch {
	case cfg.Loss != Squared:
		return nil, pursuit.Configf("kmp: checkpoints need the squared loss, not %s", cfg.Loss)
	case cfg.Variant != BackFit && cfg.Variant != PreFit:
		return nil, pursuit.Configf("kmp: checkpoints need back-fitting or pre-fitting, not %s", cfg.Variant)
	case cfg.Custom != nil:
		return nil, pursuit.Configf("kmp: checkpoints do not cover a custom kernel")
	}
	o := cfg.Checkpoint
	entries := ckEntries(cfg, x, y, sh)
	if sh.sharded() {
		if sh.c.Rank() != 0 {
			oo := *o
			oo.Path = "" // rank 0 writes
			o = &oo
		}
		if err := sh.failed(); err != nil {
			return nil, err
		}
	}
	if outputs > 1 {
		entries = append(entries, checkpoint.Setting("outputs", outputs))
	}
	run, st, err := checkpoint.Start(o, ckLearner, entries)
	if sh.sharded() {
		// Every rank learns of any rank's refusal, and returns it.
		if err = sh.agree(err); err != nil {
			return nil, checkpoint.EveryRank(err)
		}
	} else if err != nil {
		return nil, err
	}
	if sh.sharded() {
		run.Agree(func(stop bool) bool {
			v := []float64{0}
			if stop {
				v[0] = 1
			}
			sh.sum(v)
			return v[0] > 0
		})
	}
	if outputs == 1 {
		return &ckRun{run: run, state: st, outputs: 1}, nil
	}
	ck := &ckRun{run: run, outputs: outputs, states: make([][]byte, outputs), steps: make([]int, outputs), resumed: make([]*checkpoint.Reader, outputs),
		fresh: make([]bool, outputs), started: make([]bool, outputs), done: make([]bool, outputs)}
	if st != nil {
		// Every rank reads the same file: a refusal is every rank's.
		bad := func(err error) (*ckRun, error) {
			if sh.sharded() {
				err = together(checkpoint.EveryRank(err))
			}
			return nil, err
		}
		if n := st.Int(); n != outputs {
			return bad(pursuit.BadInputf("kmp: resuming: the checkpoint holds %d outputs, this run trains %d", n, outputs))
		}
		for o := range outputs {
			if b := st.Blob(); len(b) > 0 {
				// Kept as the output's latest until its next step.
				ck.states[o], ck.steps[o] = b, checkpoint.NewReader(b).Int()
				ck.resumed[o] = checkpoint.NewReader(b)
			}
		}
		if err := st.Err(true); err != nil {
			return bad(pursuit.BadInputf("kmp: resuming: %w", err))
		}
	}
	return ck, nil
}

// shardedData is the data entry of every rank's rows together
// (checkpoint.DataAcross, a collective); on one process it is
// checkpoint.Data's. A failed collective is kept by the shard (failed),
// as sum keeps it.
func shardedData(name string, x pursuit.Matrix, y []float64, sh *shard) checkpoint.Entry {
	if !sh.sharded() {
		return checkpoint.Data(name, x, y)
	}
	e, _ := checkpoint.DataAcross(name, x, y, shardSum{sh})
	return e
}

// shardSum is the shard as checkpoint.Ranks: its sum keeps a failure.
type shardSum struct{ sh *shard }

func (s shardSum) Rank() int { return s.sh.c.Rank() }
func (s shardSum) Size() int { return s.sh.c.Size() }
func (s shardSum) AllreduceSum(buf []float64) error {
	s.sh.sum(buf)
	return s.sh.failed()
}

// ckEntries identifies a run: the settings that shape the model and the
// data.
func ckEntries(cfg *Config, x pursuit.Matrix, y []float64, sh *shard) []checkpoint.Entry {
	ranks := 1
	if sh.sharded() {
		ranks = sh.c.Size()
	}
	e := []checkpoint.Entry{
		checkpoint.Setting("ranks", ranks),
		checkpoint.Setting("variant", cfg.Variant),
		checkpoint.Setting("loss", cfg.Loss),
		checkpoint.Setting("task", cfg.Task),
	}
	for i, k := range cfg.Kernels {
		e = append(e, checkpoint.Setting(fmt.Sprintf("kernel %d", i), k.String()))
	}
	e = append(e,
		checkpoint.Setting("bias", cfg.Bias),
		checkpoint.Setting("candidates", cfg.Candidates),
		checkpoint.Setting("steps N", cfg.N),
		checkpoint.Setting("validation fraction", cfg.ValFrac),
		checkpoint.Setting("patience", cfg.Patience),
		checkpoint.Setting("early-stopping criterion", cfg.Select),
		checkpoint.Setting("scaling", cfg.Scale),
		checkpoint.Setting("tolerance", cfg.Tol),
		checkpoint.Setting("deflation", cfg.Deflation),
		checkpoint.Setting("seed", cfg.Seed),
	)
	if sc := cfg.Stochastic; sc != nil {
		e = append(e, checkpoint.Setting("stochastic search", fmt.Sprintf("active set %d, eps %v, q %v", sc.ActiveSet, sc.Eps, sc.Q)))
	} else {
		e = append(e, checkpoint.Setting("stochastic search", "off"))
	}
	e = append(e, shardedData("training data", x, y, sh))
	if cfg.ValX.Rows > 0 || sh.sharded() {
		// Across ranks a rank may hold no validation rows (a collective:
		// every rank takes part).
		e = append(e, shardedData("validation data", cfg.ValX, cfg.ValY, sh))
	}
	return e
}

// ckSupported refuses the fits whose state lives outside what a replay of
// the chosen atoms and the running products of full-search pre-fitting
// rebuild: basic MP and explicit deflation.
func (s *sqFit) ckSupported() error {
	switch {
	case s.basic:
		return pursuit.Configf("kmp: checkpoints need back-fitting or pre-fitting, not basic matching pursuit")
	case s.explicit:
		return pursuit.Configf("kmp: checkpoints of pre-fitting do not cover explicit deflation (its deflated copy of the dictionary)")
	}
	return nil
}

// where describes the fit's position for messages.
func (s *sqFit) where(step int) string {
	if s.cfg.N > 0 {
		return fmt.Sprintf("step %d of %d", step, s.cfg.N)
	}
	return fmt.Sprintf("step %d", step)
}

// checkpoint is called after step: it writes the fit's state when due,
// and returns a *checkpoint.StoppedError when the run is to stop.
func (s *sqFit) checkpoint(step int) error {
	ck := s.p.cfg.ck
	if ck == nil {
		return nil
	}
	if ck.outputs == 1 {
		return s.ckAgreed(ck.run.Boundary(func() string { return s.where(step) }, func(w *checkpoint.Writer) { s.encode(w, step) }))
	}
	ck.mu.Lock()
	defer ck.mu.Unlock()
	stop, deadline, due := ck.run.Poll()
	ck.pending = ck.pending || stop || due
	o := s.p.output
	ck.started[o] = true
	if !ck.pending || ck.fresh[o] && !stop {
		return nil
	}
	w := &checkpoint.Writer{}
	s.encode(w, step)
	ck.states[o], ck.steps[o], ck.fresh[o] = w.Bytes(), step, true
	if !stop && !ck.complete() {
		return nil
	}
	info, err := ck.save(s.cfg.N)
	if err != nil || !stop {
		return err
	}
	return s.ckAgreed(&checkpoint.StoppedError{Info: info, Deadline: deadline})
}

// complete reports whether every output training recorded its state
// since the pending checkpoint fell due.
func (ck *ckRun) complete() bool {
	for o, f := range ck.fresh {
		if !f && ck.started[o] && !ck.done[o] {
			return false
		}
	}
	return true
}

// save writes every output's last recorded state (with the mutex held)
// and starts a new round.
func (ck *ckRun) save(n int) (checkpoint.Info, error) {
	info, err := ck.run.Save(func() string { return ck.where(n) }, func(w *checkpoint.Writer) {
		w.Int(len(ck.states))
		for _, b := range ck.states {
			w.Blob(b)
		}
	})
	ck.pending = false
	clear(ck.fresh)
	if err == nil {
		ck.last = info
	}
	return info, err
}

// stopped returns err, or, when it is a stop of several outputs, the stop
// at the last checkpoint written (each output stopped at its own next
// boundary and the last to stop wrote every output's state).
func (ck *ckRun) stopped(err error) error {
	var se *checkpoint.StoppedError
	if ck == nil || ck.outputs == 1 || !errors.As(err, &se) {
		return err
	}
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if ck.last.Path == "" {
		return err
	}
	var stop error = &checkpoint.StoppedError{Info: ck.last, Deadline: se.Deadline}
	if errors.As(err, new(agreedError)) {
		stop = together(checkpoint.EveryRank(stop)) // as err was
	}
	return stop
}

// finish records that output o stopped training; the pending checkpoint
// is written if o was the last output it waited for.
func (ck *ckRun) finish(o, n int) error {
	if ck == nil || ck.outputs == 1 {
		return nil
	}
	ck.mu.Lock()
	defer ck.mu.Unlock()
	ck.done[o] = true
	if ck.pending && ck.complete() {
		_, err := ck.save(n)
		return err
	}
	return nil
}

// ckAgreed marks a stop of a run split across ranks as every rank's (the
// ranks agreed on it at this boundary: Run.Agree), so that none aborts the
// job.
func (s *sqFit) ckAgreed(err error) error {
	if s.p.sh.sharded() && errors.Is(err, checkpoint.ErrStopped) {
		return together(checkpoint.EveryRank(err))
	}
	return err
}

// where describes the position of several outputs (the steps of the
// first and of the last).
func (ck *ckRun) where(n int) string {
	lo, hi := slices.Min(ck.steps), slices.Max(ck.steps)
	at := fmt.Sprintf("step %d", lo)
	if hi != lo {
		at = fmt.Sprintf("steps %d to %d", lo, hi)
	}
	if n > 0 {
		at += fmt.Sprintf(" of %d", n)
	}
	return fmt.Sprintf("%s of the %d one-vs-rest outputs", at, len(ck.steps))
}

// encode writes the fit's state after step.
func (s *sqFit) encode(w *checkpoint.Writer, step int) {
	w.Int(step)
	w.Ints(s.atoms)
	el := make([]int, len(s.tr.curve))
	for i, st := range s.tr.curve {
		el[i] = int(st.Elapsed)
	}
	w.Ints(el)
	w.Float(s.rnorm)
	sr := s.search
	var skip []int
	for k, v := range sr.skip {
		if v {
			skip = append(skip, k)
		}
	}
	w.Ints(skip)
	w.Int(sr.dependentRun)
	w.Bool(sr.smp != nil)
	if sr.smp != nil {
		rng, perm, avail := sr.smp.State()
		w.Blob(rng)
		w.Ints(perm)
		w.Int(avail)
	}
	// Full-search pre-fitting's running products.
	w.Bool(s.incremental)
	if s.incremental {
		w.Floats(s.rdot)
		w.Floats(s.nperp)
		w.Int(s.sinceRDot)
	}
}

// resume replays the checkpoint's steps and restores the search's state;
// it returns the next step.
func (s *sqFit) resume() (int, error) {
	ck := s.p.cfg.ck
	if ck == nil {
		return 1, nil
	}
	// Outputs fitted side by side (lock-step one-vs-rest) each take only
	// their own slot: ck.state is a single output's alone.
	var rd *checkpoint.Reader
	if ck.outputs > 1 {
		rd = ck.resumed[s.p.output]
		ck.resumed[s.p.output] = nil
	} else {
		rd = ck.state
		ck.state = nil
	}
	if rd == nil {
		return 1, nil
	}
	m := s.dc.atoms.len()
	step := rd.Int()
	atoms := rd.Ints()
	elapsed := rd.Ints()
	rnorm := rd.Float()
	skip := rd.Ints()
	depRun := rd.Int()
	var rng []byte
	var perm []int
	avail := 0
	hasSmp := rd.Bool()
	if hasSmp {
		rng, perm, avail = rd.Blob(), rd.Ints(), rd.Int()
	}
	var rdot, nperp []float64
	sinceRDot := 0
	hasRunning := rd.Bool()
	if hasRunning {
		rdot, nperp, sinceRDot = rd.Floats(), rd.Floats(), rd.Int()
	}
	if err := rd.Err(true); err != nil {
		return 0, pursuit.BadInputf("kmp: resuming: %w", err)
	}
	bad := func(what string) (int, error) {
		return 0, pursuit.BadInputf("kmp: resuming: the checkpoint's %s does not fit this run", what)
	}
	if step != len(atoms) || len(elapsed) != step || step > s.limit {
		return bad("step count")
	}
	if hasSmp != (s.search.smp != nil) || hasRunning != s.incremental || hasRunning && (len(rdot) != m || len(nperp) != m) {
		return bad("search")
	}
	for _, k := range append(append([]int(nil), atoms...), skip...) {
		if k < 0 || k >= m {
			return bad("atoms")
		}
	}
	if cs := s.dc.cs; cs != nil && len(atoms) > 0 {
		// Across ranks with a random active set, the replayed atoms'
		// centres are gathered from their owners at once (a collective:
		// every rank replays the same atoms).
		if err := cs.fetch(s.dc.atoms, atoms); err != nil {
			return 0, err
		}
	}
	for i, g := range atoms {
		if err := s.load(g); err != nil {
			return 0, err
		}
		if _, err := s.project(); err != nil {
			return 0, err
		}
		s.search.accepted(g)
		if err := s.updateOrtho(i+1, g); err != nil {
			return 0, err
		}
		if _, err := s.record(i+1, g); err != nil {
			return 0, err
		}
	}
	if !(math.Abs(s.rnorm-rnorm) <= 1e-6*math.Max(rnorm, 1e-300)) {
		return 0, pursuit.BadInputf("kmp: resuming: the checkpoint's %d steps replay to a residual of norm %v, not the %v recorded (other data, or a backend that computes differently)", step, s.rnorm, rnorm)
	}
	for i := range s.tr.curve {
		s.tr.curve[i].Elapsed = time.Duration(elapsed[i])
	}
	if step > 0 {
		s.tr.start = time.Now().Add(-time.Duration(elapsed[step-1]))
	}
	clear(s.search.skip)
	for _, k := range skip {
		s.search.skip[k] = true
	}
	s.search.dependentRun = depRun
	if hasRunning {
		copy(s.rdot, rdot)
		copy(s.nperp, nperp)
		s.sinceRDot = sinceRDot
	}
	if hasSmp {
		if err := s.search.smp.Restore(rng, perm, avail); err != nil {
			return 0, pursuit.BadInputf("kmp: resuming: %w", err)
		}
	}
	return step + 1, nil
}
