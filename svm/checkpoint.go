package svm

import (
	"fmt"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/engine"
)

// Checkpoints (issue 33). A checkpoint of SMO holds the whole solver state
// between two iterations: α, the gradient G, G-bar, the variables'
// status, the active (unshrunk) set, the I_up/I_low signs, the next i
// found by the last gradient update, the shrinking counter and flag, and
// the iteration count. Only the kernel-row cache is left out: it holds
// values computed afresh on a miss, so resuming with an empty cache
// continues bit for bit on the same backend and thread count.
//
// Across ranks (shard.go) each rank holds that state for its own
// variables. The ranks decide together, without a collective of their
// own: each rank's working-set record of an iteration's first exchange
// carries its checkpoint flag (ckPoll: a stop asked of it, its deadline
// passed, or, on rank 0, which alone has a path to write, a checkpoint
// due), and every rank takes the largest, so at that iteration's boundary
// every rank acts alike. There every rank's state, in the one-process
// encoding packed into float64 values (checkpoint.PackBytes), goes to
// every rank in one Gatherv, rank 0 writes the file (the number of ranks,
// then each rank's state in rank order) and the ranks agree on the
// outcome of the write. The entries record the number of ranks and a
// digest of every rank's rows (checkpoint.DataAcross), so a resume on
// another number of ranks, or with the rows split otherwise, is refused;
// on resuming every rank reads the file and takes its own state.

// ckRun is the checkpointing of one solve, and the state to resume from.
type ckRun struct {
	run   *checkpoint.Run
	state *checkpoint.Reader
	// flag is what the ranks agreed at the last working-set exchange
	// (ckNone…ckDeadline, the largest of every rank's ckPoll).
	flag float64
}

// The checkpoint flags a rank sends with its working-set record; the
// largest wins.
const (
	ckNone     = 0 // nothing to do
	ckDue      = 1 // a checkpoint is due (rank 0)
	ckStop     = 2 // a stop was asked (Options.Stop)
	ckDeadline = 3 // the deadline passed
)

// startCheckpoint starts p.Checkpoint's run for training on x, y, or
// returns nil without one. A binary C-SVC or an ε-SVR, without
// probability estimates, is checkpointed, in one process or across the
// ranks of g (a collective there: every rank returns the same error, or
// none).
func startCheckpoint(p Params, x pursuit.Matrix, y []float64, g engine.Group) (*ckRun, error) {
	if p.Checkpoint == nil {
		return nil, nil
	}
	sharded := g.Sharded()
	refuse := func(err error) (*ckRun, error) {
		if sharded {
			err = checkpoint.EveryRank(err) // every rank refuses alike
		}
		return nil, err
	}
	switch {
	case p.Probability:
		return refuse(pursuit.Configf("svm: checkpoints do not cover probability estimates (several solves)"))
	case p.Exact:
		return refuse(pursuit.Configf("svm: checkpoints cover the engine's float32 kernel rows, not exact float64 ones (Params.Exact)"))
	case p.Solver == SolverBatched:
		return refuse(pursuit.Configf("svm: checkpoints record SMO's state; the batched solver has none yet (use the smo or auto solver)"))
	case p.Type == CSVC:
		labels, _ := groupClasses(y)
		if sharded {
			var err error
			if labels, err = g.Labels(y); err != nil {
				return nil, fmt.Errorf("svm: %w", err)
			}
		}
		if len(labels) != 2 {
			return refuse(pursuit.Configf("svm: checkpoints need a binary machine, not %d classes (one solve per pair)", len(labels)))
		}
	}
	o, err := p.options().withDefaults()
	if err != nil {
		return nil, err
	}
	e := []checkpoint.Entry{
		checkpoint.Setting("ranks", g.Size()),
		checkpoint.Setting("type", p.Type),
		checkpoint.Setting("kernel", p.Kernel.String()),
		checkpoint.Setting("C", p.C),
		checkpoint.Setting("epsilon", p.Epsilon),
	}
	ws := make([]float64, 0, len(p.Weights))
	for lab := range p.Weights {
		ws = append(ws, lab)
	}
	slices.Sort(ws)
	for _, lab := range ws {
		e = append(e, checkpoint.Setting(fmt.Sprintf("weight of class %v", lab), p.Weights[lab]))
	}
	e = append(e,
		checkpoint.Setting("tolerance", o.Tol),
		checkpoint.Setting("shrinking", !o.NoShrinking),
		checkpoint.Setting("iteration limit", o.MaxIter),
	)
	var ranks checkpoint.Ranks
	if sharded {
		ranks = g
	}
	data, err := checkpoint.DataAcross("training data", x, y, ranks)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	e = append(e, data)
	if p.InstanceWeights != nil {
		// Non-nil on every rank across ranks (the parameters' digest,
		// compared by every rank, says so).
		w, err := checkpoint.DataAcross("instance weights", pursuit.Matrix{}, p.InstanceWeights, ranks)
		if err != nil {
			return nil, fmt.Errorf("svm: %w", err)
		}
		e = append(e, w)
	}
	co := p.Checkpoint
	if sharded && g.Rank() != 0 {
		oo := *co
		oo.Path = "" // rank 0 writes
		co = &oo
	}
	run, st, err := checkpoint.Start(co, "svm", e)
	if sharded {
		// Every rank reads the file: one's refusal is every rank's.
		if err = agreed(g, err); err != nil {
			return nil, checkpoint.EveryRank(err)
		}
	} else if err != nil {
		return nil, err
	}
	return &ckRun{run: run, state: st}, nil
}

// ckRefuseOneVsRest is TrainOneVsRest's refusal of checkpoints, every
// rank's alike across ranks (it needs no collective).
func ckRefuseOneVsRest(e *engine.Engine) error {
	err := pursuit.Configf("svm: checkpoints need one binary machine; one-vs-rest trains one per class")
	if isSharded(e) {
		err = checkpoint.EveryRank(err)
	}
	return err
}

// ckBoundary is called after each iteration.
func (s *smo[T]) ckBoundary(counter int) error {
	if s.sh != nil {
		return s.ckBoundarySharded(counter)
	}
	return s.ck.run.Boundary(s.ckWhere, func(w *checkpoint.Writer) { s.encode(w, counter) })
}

// ckWhere describes the solver's position.
func (s *smo[T]) ckWhere() string {
	return fmt.Sprintf("SMO iteration %d (gap %.4g, tolerance %g)", s.iter, s.gap, s.eps)
}

// ckPoll is this rank's checkpoint flag for its working-set record
// (ckNone without checkpoints).
func (s *smo[T]) ckPoll() float64 {
	if s.ck == nil {
		return ckNone
	}
	stop, deadline, due := s.ck.run.Poll()
	switch {
	case stop && deadline:
		return ckDeadline
	case stop:
		return ckStop
	case due:
		return ckDue
	}
	return ckNone
}

// ckBoundarySharded is the boundary across ranks: it acts on the flag the
// ranks agreed at this iteration's working-set exchange, alike on every
// rank (see the comment at the top of this file).
func (s *smo[T]) ckBoundarySharded(counter int) error {
	flag := s.ck.flag
	if flag == ckNone {
		return nil
	}
	s.ck.flag = ckNone
	c := s.sh.c
	w := &checkpoint.Writer{}
	s.encode(w, counter)
	all, err := c.Gatherv(checkpoint.PackBytes(nil, w.Bytes()))
	if err != nil {
		return fmt.Errorf("svm: gathering the ranks' solver states: %w", err)
	}
	info := checkpoint.Info{Where: s.ckWhere()}
	var werr error
	if c.Rank() == 0 {
		states := make([][]byte, c.Size())
		for r := range states {
			var ok bool
			if states[r], all, ok = checkpoint.UnpackBytes(all); !ok {
				werr = fmt.Errorf("svm: rank %d's solver state arrived malformed", r)
				break
			}
		}
		if werr == nil {
			info, werr = s.ck.run.Save(s.ckWhere, func(w *checkpoint.Writer) {
				w.Int(len(states))
				for _, b := range states {
					w.Blob(b)
				}
			})
		}
	}
	if err := agreed(c, werr); err != nil {
		return checkpoint.EveryRank(err)
	}
	if flag >= ckStop {
		return checkpoint.EveryRank(&checkpoint.StoppedError{Info: info, Deadline: flag == ckDeadline})
	}
	return nil
}

// encode writes the solver's state.
func (s *smo[T]) encode(w *checkpoint.Writer, counter int) {
	w.Int(s.n)
	w.Int(s.iter)
	w.Int(counter)
	w.Bool(s.unshrink)
	w.Float(s.gap)
	w.Floats(s.alpha)
	w.Floats(s.g)
	w.Floats(s.gbar)
	w.Bytes8(s.status)
	w.Floats(s.upSign)
	w.Floats(s.lowSign)
	act := make([]int, len(s.active))
	for i, a := range s.active {
		act[i] = int(a)
	}
	w.Ints(act)
	w.Bool(s.haveNext)
	w.Int(s.nextI)
	w.Float(s.nextGmax)
}

// ckResume restores the solver's state from the checkpoint, if there is
// one to resume from, and reports whether it did.
func (s *smo[T]) ckResume(counter *int) (bool, error) {
	if s.ck == nil || s.ck.state == nil {
		return false, nil
	}
	rd := s.ck.state
	s.ck.state = nil
	if s.sh != nil {
		// Every rank reads the same file: one's refusal is every rank's.
		ok, err := s.ckResumeRank(rd, counter)
		if err = agreed(s.sh.c, err); err != nil {
			return false, checkpoint.EveryRank(err)
		}
		return ok, nil
	}
	return s.decode(rd, counter)
}

// ckResumeRank takes this rank's state from a checkpoint written across
// ranks.
func (s *smo[T]) ckResumeRank(rd *checkpoint.Reader, counter *int) (bool, error) {
	n := rd.Int()
	if rd.Err(false) != nil || n != s.sh.lay.size {
		return false, pursuit.BadInputf("svm: resuming: the checkpoint holds no state of %d ranks", s.sh.lay.size)
	}
	var own []byte
	for r := range n {
		if b := rd.Blob(); r == s.sh.lay.rank {
			own = b
		}
	}
	if err := rd.Err(true); err != nil {
		return false, pursuit.BadInputf("svm: resuming: %w", err)
	}
	return s.decode(checkpoint.NewReader(own), counter)
}

// decode restores the solver's state (one process's, or one rank's) from
// rd.
func (s *smo[T]) decode(rd *checkpoint.Reader, counter *int) (bool, error) {
	n := rd.Int()
	iter, cnt, unshrink, gap := rd.Int(), rd.Int(), rd.Bool(), rd.Float()
	alpha, g, gbar := rd.Floats(), rd.Floats(), rd.Floats()
	status := rd.Bytes8()
	up, low := rd.Floats(), rd.Floats()
	act := rd.Ints()
	haveNext, nextI, nextGmax := rd.Bool(), rd.Int(), rd.Float()
	if err := rd.Err(true); err != nil {
		return false, pursuit.BadInputf("svm: resuming: %w", err)
	}
	if n != s.n || len(alpha) != n || len(g) != n || len(gbar) != n || len(status) != n || len(up) != n || len(low) != n ||
		len(act) > n || iter < 0 || cnt < 1 || nextI < -1 || nextI >= n {
		return false, pursuit.BadInputf("svm: resuming: the checkpoint's solver state does not fit this problem (%d variables)", s.n)
	}
	for a := range n {
		if status[a] > free || !(alpha[a] >= 0 && alpha[a] <= s.c[a]) || math.IsNaN(g[a]) {
			return false, pursuit.BadInputf("svm: resuming: the checkpoint's variable %d is out of its bounds", a)
		}
	}
	copy(s.alpha, alpha)
	copy(s.g, g)
	copy(s.gbar, gbar)
	copy(s.status, status)
	copy(s.upSign, up)
	copy(s.lowSign, low)
	clear(s.inAct)
	s.active = s.active[:0]
	for _, a := range act {
		if a < 0 || a >= n || s.inAct[a] {
			return false, pursuit.BadInputf("svm: resuming: the checkpoint's active set is malformed")
		}
		s.inAct[a] = true
		s.active = append(s.active, int32(a))
	}
	s.iter, s.unshrink, s.gap = iter, unshrink, gap
	s.haveNext, s.nextI, s.nextGmax = haveNext, nextI, nextGmax
	*counter = cnt
	return true, nil
}
