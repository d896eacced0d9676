package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// sumTolerance is how far fractions may sum above 1 (rounding in, say,
// three thirds) and how close below 1 counts as 1.
const sumTolerance = 1e-9

// newRand returns the package's deterministic generator for seed: PCG from
// math/rand/v2, seeded from seed (the second word is a fixed odd constant so
// that seed 0 is as good as any other).
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// CheckSplit reports whether Split(n, fractions, seed, labels) is well posed:
// n ≥ 0, every fraction finite and ≥ 0, their sum at most 1, and labels
// either nil or of length n.
func CheckSplit(n int, fractions []float64, labels []float64) error {
	if n < 0 {
		return fmt.Errorf("split: negative example count %d", n)
	}
	if len(fractions) == 0 {
		return fmt.Errorf("split: no fractions given")
	}
	sum := 0.0
	for i, f := range fractions {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return fmt.Errorf("split: fraction %d is %v; fractions must be finite and non-negative", i+1, f)
		}
		sum += f
	}
	if sum > 1+sumTolerance {
		return fmt.Errorf("split: fractions %v sum to %v, more than 1", fractions, sum)
	}
	if labels != nil && len(labels) != n {
		return fmt.Errorf("split: %d labels for %d examples", len(labels), n)
	}
	return nil
}

// Split partitions the indices 0..n-1 at random into len(fractions) disjoint
// sets of sizes about n·fractions[k] (each within one of it), reproducibly
// for a given seed. If the fractions sum to less than 1 the remaining indices
// are in no set. With labels non-nil the split is stratified: each label's
// examples are spread over the sets in the same proportions (each set's share
// of a class within about one example of the exact figure). Every set is
// returned in increasing order. Split panics if CheckSplit reports an error;
// check arguments that come from users first.
func Split(n int, fractions []float64, seed uint64, labels []float64) [][]int {
	if err := CheckSplit(n, fractions, labels); err != nil {
		panic("data: " + err.Error())
	}
	sum := 0.0
	for _, f := range fractions {
		sum += f
	}
	shares := slices.Clone(fractions)
	if rest := 1 - sum; rest > sumTolerance {
		shares = append(shares, rest) // the unassigned remainder
	}
	sets := assign(n, shares, newRand(seed), labels)
	return sets[:len(fractions)]
}

// KFold partitions the indices 0..n-1 at random into k folds of sizes within
// one of n/k, stratified by labels when labels is non-nil, reproducibly for
// a given seed. Every index is in exactly one fold; each fold is in
// increasing order. Folds are empty when k > n. KFold panics if k < 1, n < 0
// or labels is non-nil with a length other than n.
func KFold(n, k int, seed uint64, labels []float64) [][]int {
	if k < 1 {
		panic(fmt.Sprintf("data: KFold needs at least one fold, got k=%d", k))
	}
	if n < 0 {
		panic(fmt.Sprintf("data: KFold: negative example count %d", n))
	}
	if labels != nil && len(labels) != n {
		panic(fmt.Sprintf("data: KFold: %d labels for %d examples", len(labels), n))
	}
	shares := make([]float64, k)
	for i := range shares {
		shares[i] = 1 / float64(k)
	}
	return assign(n, shares, newRand(seed), labels)
}

// assign deals the indices 0..n-1 into len(shares) sets. The indices are put
// in a random order (grouped by label, in a random order of labels, when
// labels is non-nil) and dealt one by one to the set furthest below its share
// of the indices dealt so far. Over any run of consecutive indices, a label's
// group in particular, each set then receives its share within about one
// index, and over all n within one.
func assign(n int, shares []float64, rng *rand.Rand, labels []float64) [][]int {
	order := make([]int, 0, n)
	if labels == nil {
		order = append(order, rng.Perm(n)...)
	} else {
		groups := map[uint64][]int{}
		var keys []uint64
		for i, y := range labels {
			k := math.Float64bits(y)
			if y == 0 {
				k = 0 // -0 and +0 are the same label
			}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], i)
		}
		// keys is in order of first appearance: deterministic. Shuffle the
		// groups' order so that many small classes (or real-valued targets)
		// do not always start the dealing in the same phase.
		rng.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
		for _, k := range keys {
			g := groups[k]
			rng.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
			order = append(order, g...)
		}
	}
	sets := make([][]int, len(shares))
	for s := range sets {
		sets[s] = make([]int, 0, int(float64(n)*shares[s])+1)
	}
	for t, i := range order {
		best, bestDeficit := 0, math.Inf(-1)
		for s, f := range shares {
			if deficit := f*float64(t+1) - float64(len(sets[s])); deficit > bestDeficit {
				best, bestDeficit = s, deficit
			}
		}
		sets[best] = append(sets[best], i)
	}
	for _, s := range sets {
		slices.Sort(s)
	}
	return sets
}
