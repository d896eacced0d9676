package kmp

import (
	"errors"
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/activeset"
)

// Stochastic configures stochastic kernel matching pursuit (Popovici,
// Bengio & Thiran, "Kernel matching pursuit for large datasets", Pattern
// Recognition 38, 2005): every step searches only an active set of s
// dictionary functions sampled at random without replacement, so a step
// costs O(l·s·d) and the dictionary needs O(l + s·chunk) memory (kernel
// values are computed on the fly in cache-sized blocks, never l×l)
// whatever the number of candidates. Back-fitting and pre-fitting draw
// only among atoms not yet in the basis.
//
// Give either ActiveSet (s directly) or Eps and Q (each defaulting to the
// paper's first setting, ε = 0.05 and q = 0.95, when zero), from which
// s = ⌈log ε / log q⌉: with probability 1 − ε the best sampled function is
// within the top (1 − q) fraction of the dictionary (ε = 0.05, q = 0.95 →
// 59; ε = 0.01, q = 0.98 → 228). The samples come from Config.Seed
// (math/rand/v2 PCG, one stream per output), so a run is reproducible. An
// active set as large as the dictionary searches everything and chooses
// what deterministic KMP chooses (up to the last-bit rounding of kernel
// blocks of other shapes, which can only matter for near ties).
type Stochastic struct {
	ActiveSet int
	Eps, Q    float64
}

// Default active-set parameters of the paper's experiments.
const (
	DefaultEps = 0.05
	DefaultQ   = 0.95
)

// ActiveSetSize returns s = ⌈log ε / log q⌉, the number of random
// candidates whose maximum lies in the top (1 − q) quantile with
// probability at least 1 − ε (the paper's Proposition 2).
func ActiveSetSize(eps, q float64) (int, error) {
	if !(eps > 0 && eps < 1) {
		return 0, fmt.Errorf("kmp: stochastic eps must be in (0, 1), got %v", eps)
	}
	if !(q > 0 && q < 1) {
		return 0, fmt.Errorf("kmp: stochastic quantile q must be in (0, 1), got %v", q)
	}
	// The 1e-12 keeps exact ratios (ε = q²) from rounding up one too far.
	s := math.Ceil(math.Log(eps)/math.Log(q) - 1e-12)
	if s > math.MaxInt32 {
		return 0, fmt.Errorf("kmp: eps %v and q %v give an active set of %g candidates", eps, q, s)
	}
	return max(int(s), 1), nil
}

// Size returns the active-set size s the configuration asks for.
func (sc Stochastic) Size() (int, error) {
	switch {
	case sc.ActiveSet < 0:
		return 0, fmt.Errorf("kmp: stochastic active set must be ≥ 1, got %d", sc.ActiveSet)
	case sc.ActiveSet > 0:
		if sc.Eps != 0 || sc.Q != 0 {
			return 0, errors.New("kmp: give the stochastic active set either directly or through eps and q, not both")
		}
		return sc.ActiveSet, nil
	}
	eps, q := sc.Eps, sc.Q
	if eps == 0 {
		eps = DefaultEps
	}
	if q == 0 {
		q = DefaultQ
	}
	return ActiveSetSize(eps, q)
}

// TrainStochastic is Train with stochastic search: cfg.Stochastic is set to
// sc. It returns the same kind of Model, which predicts, saves and loads
// like any other.
//
// Across several ranks it works as Train does: every rank draws the same
// active sets, the sampled atoms' centres are gathered from the ranks that
// hold them, and one collective sums the ranks' partial products.
func TrainStochastic(e *engine.Engine, x pursuit.Matrix, y []float64, cfg Config, sc Stochastic) (*Model, error) {
	cfg.Stochastic = &sc
	return Train(e, x, y, cfg)
}

// sampler draws active sets (internal/activeset, shared with the greedy
// methods); next and remove keep the names the searcher uses.
type sampler struct{ *activeset.Sampler }

// samplerStream mixes the output index into the PCG stream so that the
// outputs of one-vs-rest draw independent active sets.
const samplerStream = 0x736b6d702d616374 // "skmp-act"

func newSampler(m int, seed uint64, output int) *sampler {
	return &sampler{activeset.New(m, seed, samplerStream^uint64(output))}
}

func (sp *sampler) next(s int) []int { return sp.Next(s) }
func (sp *sampler) remove(k int)     { sp.Remove(k) }
