package svm

import (
	"fmt"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
)

// Checkpoints (issue 33). A checkpoint of SMO holds the whole solver state
// between two iterations: α, the gradient G, G-bar, the variables'
// status, the active (unshrunk) set, the I_up/I_low signs, the next i
// found by the last gradient update, the shrinking counter and flag, and
// the iteration count. Only the kernel-row cache is left out: it holds
// values computed afresh on a miss, so resuming with an empty cache
// continues bit for bit on the same backend and thread count.

// ckRun is the checkpointing of one solve, and the state to resume from.
type ckRun struct {
	run   *checkpoint.Run
	state *checkpoint.Reader
}

// startCheckpoint starts p.Checkpoint's run for training on x, y, or
// returns nil without one. One solve in one process is checkpointed: a
// binary C-SVC or an ε-SVR, without probability estimates.
func startCheckpoint(p Params, x pursuit.Matrix, y []float64, sharded bool) (*ckRun, error) {
	if p.Checkpoint == nil {
		return nil, nil
	}
	switch {
	case sharded:
		return nil, pursuit.Configf("svm: checkpoints are not available across ranks yet")
	case p.Probability:
		return nil, pursuit.Configf("svm: checkpoints do not cover probability estimates (several solves)")
	case p.Solver == SolverBatched:
		return nil, pursuit.Configf("svm: checkpoints record SMO's state; the batched solver has none yet (use the smo or auto solver)")
	case p.Type == CSVC:
		if labels, _ := groupClasses(y); len(labels) != 2 {
			return nil, pursuit.Configf("svm: checkpoints need a binary machine, not %d classes (one solve per pair)", len(labels))
		}
	}
	o, err := p.options().withDefaults()
	if err != nil {
		return nil, err
	}
	e := []checkpoint.Entry{
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
		checkpoint.Data("training data", x, y),
	)
	if p.InstanceWeights != nil {
		e = append(e, checkpoint.Data("instance weights", pursuit.Matrix{}, p.InstanceWeights))
	}
	run, st, err := checkpoint.Start(p.Checkpoint, "svm", e)
	if err != nil {
		return nil, err
	}
	return &ckRun{run: run, state: st}, nil
}

// ckBoundary is called after each iteration.
func (s *smo[T]) ckBoundary(counter int) error {
	return s.ck.run.Boundary(func() string { return fmt.Sprintf("SMO iteration %d (gap %.4g, tolerance %g)", s.iter, s.gap, s.eps) },
		func(w *checkpoint.Writer) { s.encode(w, counter) })
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
