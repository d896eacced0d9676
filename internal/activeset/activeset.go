// Package activeset draws the random active sets of stochastic matching
// pursuit (Popovici, Bengio & Thiran 2005): s distinct items out of those
// still available, uniformly, reproducibly from a seed. kmp (stochastic
// KMP) and greedy (random candidate subsets of sparse KPCA and MP-KFDA)
// share it.
package activeset

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Sampler draws active sets: s distinct items out of the available ones,
// uniformly, by a partial Fisher–Yates shuffle of a permutation kept across
// steps (any starting permutation gives a uniform subset), returned in
// increasing order so that kernel blocks group and ties break like a full
// search. Items that can no longer be chosen are removed, so the active set
// never wastes its places on them.
type Sampler struct {
	src   *rand.PCG
	rng   *rand.Rand
	perm  []int32 // perm[:avail] are the available items
	avail int
	out   []int
}

// New returns a sampler over items 0..m−1 drawing from the PCG generator
// seeded with (seed, stream). Only the permutation is held, as int32
// (4·m bytes: 0.2 MB over 50,000 atoms); m must be below 2³¹.
func New(m int, seed, stream uint64) *Sampler {
	if m < 0 || m > math.MaxInt32 {
		panic(fmt.Sprintf("activeset: %d items, at most 2³¹−1", m))
	}
	src := rand.NewPCG(seed, stream)
	sp := &Sampler{src: src, rng: rand.New(src), perm: make([]int32, m), avail: m}
	for i := range sp.perm {
		sp.perm[i] = int32(i)
	}
	return sp
}

func (sp *Sampler) swap(i, j int) {
	sp.perm[i], sp.perm[j] = sp.perm[j], sp.perm[i]
}

// Next returns min(s, Avail()) distinct available items in increasing
// order. The slice is reused by the next call.
func (sp *Sampler) Next(s int) []int {
	if s >= sp.avail {
		sp.out = appendInts(sp.out[:0], sp.perm[:sp.avail])
		slices.Sort(sp.out)
		return sp.out
	}
	for i := range s {
		sp.swap(i, i+sp.rng.IntN(sp.avail-i))
	}
	sp.out = appendInts(sp.out[:0], sp.perm[:s])
	slices.Sort(sp.out)
	return sp.out
}

// Remove makes item k unavailable (no effect if it already is). It finds
// k by a scan of the available items, O(m) like the kernel row of the step
// that removes it (a chosen or refused atom), rather than keep every
// item's position.
func (sp *Sampler) Remove(k int) {
	if i := slices.Index(sp.perm[:sp.avail], int32(k)); i >= 0 {
		sp.avail--
		sp.swap(i, sp.avail)
	}
}

// Avail returns the number of items still available.
func (sp *Sampler) Avail() int { return sp.avail }

// State returns what Restore needs to continue the draws exactly: the
// generator's state, the permutation and the number of items available.
func (sp *Sampler) State() (rng []byte, perm []int, avail int) {
	b, _ := sp.src.MarshalBinary() // never fails
	return b, appendInts(nil, sp.perm), sp.avail
}

// Restore puts back a state State returned from a sampler over as many
// items.
func (sp *Sampler) Restore(rng []byte, perm []int, avail int) error {
	if len(perm) != len(sp.perm) || avail < 0 || avail > len(perm) {
		return errors.New("activeset: the saved state is of another sampler")
	}
	seen := make([]bool, len(perm))
	for _, k := range perm {
		if k < 0 || k >= len(perm) || seen[k] {
			return errors.New("activeset: the saved permutation is not one")
		}
		seen[k] = true
	}
	if err := sp.src.UnmarshalBinary(rng); err != nil {
		return fmt.Errorf("activeset: %w", err)
	}
	for i, k := range perm {
		sp.perm[i] = int32(k)
	}
	sp.avail = avail
	return nil
}

// appendInts appends the items of v to dst as ints.
func appendInts(dst []int, v []int32) []int {
	dst = slices.Grow(dst, len(v))
	for _, k := range v {
		dst = append(dst, int(k))
	}
	return dst
}
