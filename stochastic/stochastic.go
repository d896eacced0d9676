// Package stochastic is the configuration of stochastic matching pursuit
// (Popovici, Bengio & Thiran, "Kernel matching pursuit for large
// datasets", Pattern Recognition 38, 2005): every step searches only an
// active set of s candidates sampled at random without replacement. kmp
// (stochastic KMP, where it is kmp.Stochastic) and greedy (random
// candidate subsets of sparse KPCA and MP-KFDA) take it; it is a leaf, so
// that greedy configures it without importing kmp.
package stochastic

import (
	"errors"
	"fmt"
	"math"
)

// Config sizes the active set. Give either ActiveSet (s directly) or Eps
// and Q (each defaulting to the paper's first setting, ε = 0.05 and
// q = 0.95, when zero), from which s = ⌈log ε / log q⌉: with probability
// 1 − ε the best sampled function is within the top (1 − q) fraction of
// the dictionary (ε = 0.05, q = 0.95 → 59; ε = 0.01, q = 0.98 → 228).
//
// In kmp (kmp.Stochastic) a step costs O(l·s·d) and the dictionary needs
// O(l + s·chunk) memory (kernel values are computed on the fly in
// cache-sized blocks, never l×l) whatever the number of candidates;
// back-fitting and pre-fitting draw only among atoms not yet in the basis.
// The samples come from the learner's seed (math/rand/v2 PCG, one stream
// per output), so a run is reproducible. An active set as large as the
// dictionary searches everything and chooses what deterministic KMP
// chooses (up to the last-bit rounding of kernel blocks of other shapes,
// which can only matter for near ties).
type Config struct {
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
// probability at least 1 − ε (the paper's Proposition 2). Its errors keep
// the "kmp:" prefix they had when the rule lived in package kmp.
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
func (sc Config) Size() (int, error) {
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
