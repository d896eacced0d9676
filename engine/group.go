package engine

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/engine/comm"
)

// Group is the ranks a run trains across, as the learners see them: the
// engine's communicator (package engine/comm) behind the collectives the
// learners use, so that learners reach it only through the engine. Every
// method is a collective (every rank calls it, in the same order); on one
// rank each returns its input without a call. The zero Group is one rank.
type Group struct{ c comm.Comm }

// Setting is one named part of a run's configuration that every rank must
// share, reduced to a digest (Group.CheckConfig compares them).
type Setting = comm.Entry

// NewSetting is the setting of a flag or any other short value.
func NewSetting(name, value string) Setting { return comm.Setting(name, value) }

// FileSetting is the setting of a file: the SHA-256 of its contents.
func FileSetting(name, path string) Setting { return comm.File(name, path) }

// Errors of runs across ranks, wrapped by the collectives and the learners.
var (
	// ErrConfigMismatch: ranks were started with different configurations.
	ErrConfigMismatch = comm.ErrConfig
	// ErrNotDistributed: the method does not split its training rows
	// across ranks, so it cannot run with more than one.
	ErrNotDistributed = comm.ErrNotDistributed
)

// Group returns the ranks the engine trains across (one rank unless
// WithComm gave a communicator of several).
func (e *Engine) Group() Group { return Group{c: e.comm} }

// GroupOf returns the Group of a communicator, for a command that holds
// one before it has an engine.
func GroupOf(c comm.Comm) Group { return Group{c: c} }

func (g Group) one() bool { return g.c == nil || g.c.Size() == 1 }

// Rank is this process's rank, 0 ≤ Rank < Size.
func (g Group) Rank() int {
	if g.c == nil {
		return 0
	}
	return g.c.Rank()
}

// Size is the number of ranks.
func (g Group) Size() int {
	if g.c == nil {
		return 1
	}
	return g.c.Size()
}

// Sharded reports whether the run has more than one rank.
func (g Group) Sharded() bool { return !g.one() }

// Describe says what the communicator is, for progress output.
func (g Group) Describe() string {
	if g.c == nil {
		return "single process"
	}
	return g.c.Describe()
}

// AllreduceSum replaces buf by the element-wise sum of every rank's buf.
func (g Group) AllreduceSum(buf []float64) error {
	if g.one() {
		return nil
	}
	return g.c.AllreduceSum(buf)
}

// AllreduceMaxLoc returns the largest value passed by any rank and the
// index passed with it; among equal values the lowest index wins, and NaN
// counts as −Inf.
func (g Group) AllreduceMaxLoc(value float64, index int) (float64, int, error) {
	if g.one() {
		return value, index, nil
	}
	return g.c.AllreduceMaxLoc(value, index)
}

// BcastFloat32 copies root's buf into every rank's buf (same length).
func (g Group) BcastFloat32(buf []float32, root int) error {
	if g.one() {
		return nil
	}
	return g.c.BcastFloat32(buf, root)
}

// BcastFloat64 copies root's buf into every rank's buf (same length).
func (g Group) BcastFloat64(buf []float64, root int) error {
	if g.one() {
		return nil
	}
	return g.c.BcastFloat64(buf, root)
}

// Allgatherv concatenates every rank's send, in rank order, into recv;
// counts[r] is rank r's send length, the same counts on every rank.
func (g Group) Allgatherv(send []float64, counts []int, recv []float64) error {
	if g.one() {
		if len(counts) != 1 || counts[0] != len(send) || len(recv) != len(send) {
			return fmt.Errorf("engine: Allgatherv of %d values with counts %v into %d: %w", len(send), counts, len(recv), comm.ErrArgument)
		}
		copy(recv, send)
		return nil
	}
	return g.c.Allgatherv(send, counts, recv)
}

// Allgather returns every rank's send (the same length on every rank), in
// rank order.
func (g Group) Allgather(send []float64) ([]float64, error) {
	if g.one() {
		return append([]float64(nil), send...), nil
	}
	return comm.Allgather(g.c, send)
}

// Gatherv returns every rank's send, of any length, concatenated in rank
// order.
func (g Group) Gatherv(send []float64) ([]float64, error) {
	if g.one() {
		return append([]float64(nil), send...), nil
	}
	n, err := comm.Allgather(g.c, []float64{float64(len(send))})
	if err != nil {
		return nil, err
	}
	counts := make([]int, len(n))
	total := 0
	for r, v := range n {
		counts[r] = int(v)
		total += counts[r]
	}
	all := make([]float64, total)
	return all, g.c.Allgatherv(send, counts, all)
}

// Labels returns the distinct values of every rank's y, in order of first
// appearance with the ranks in order: the class labels of a training set
// split across ranks, the same on every rank.
func (g Group) Labels(y []float64) ([]float64, error) {
	mine := firstAppearance(y)
	if g.one() {
		return mine, nil
	}
	all, err := g.Gatherv(mine)
	if err != nil {
		return nil, fmt.Errorf("gathering the class labels: %w", err)
	}
	return firstAppearance(all), nil
}

// firstAppearance returns the distinct values of v in order of first
// appearance.
func firstAppearance(v []float64) []float64 {
	var out []float64
	seen := map[float64]bool{}
	for _, x := range v {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Sum returns n summed over the ranks.
func (g Group) Sum(n int) (int, error) {
	buf := []float64{float64(n)}
	if err := g.AllreduceSum(buf); err != nil {
		return 0, err
	}
	return int(buf[0]), nil
}

// CheckConfig makes sure every rank was started with the same settings, in
// the same order: every rank returns nil, or every rank an error wrapping
// ErrConfigMismatch that names the ranks and the settings that differ.
func (g Group) CheckConfig(settings ...Setting) error {
	if g.one() {
		return nil
	}
	return comm.CheckConfig(g.c, settings)
}

// Agree makes one rank's failure every rank's (see the package function
// Agree); on one rank it returns err.
func (g Group) Agree(err error) (agreed, collective error) {
	if g.one() {
		return err, nil
	}
	return Agree(g.c, err)
}

// Outcomes is RankOutcomes over the group.
func (g Group) Outcomes(err error) (Outcomes, error) { return RankOutcomes(g.c, err) }

// Abort brings the whole group down with err, for an error of this rank
// alone that would leave the others waiting in a collective (see
// comm.Comm.Abort). On one rank it does nothing.
func (g Group) Abort(err error) {
	if !g.one() {
		g.c.Abort(err)
	}
}
