package kmp

import (
	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/activeset"
	"github.com/pursuit-ml/pursuit/stochastic"
)

// Stochastic configures stochastic kernel matching pursuit (Popovici,
// Bengio & Thiran, "Kernel matching pursuit for large datasets", Pattern
// Recognition 38, 2005): every step searches only an active set of s
// dictionary functions sampled at random without replacement. It is
// stochastic.Config, where its fields and size rule are described; the
// alias keeps kmp.Stochastic for Go users and the CLI, and lets greedy
// take the same configuration without importing kmp.
type Stochastic = stochastic.Config

// Default active-set parameters of the paper's experiments.
const (
	DefaultEps = stochastic.DefaultEps
	DefaultQ   = stochastic.DefaultQ
)

// ActiveSetSize returns s = ⌈log ε / log q⌉ (stochastic.ActiveSetSize).
func ActiveSetSize(eps, q float64) (int, error) { return stochastic.ActiveSetSize(eps, q) }

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
