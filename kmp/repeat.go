package kmp

import (
	"hash/maphash"
	"math"
	"slices"
)

// repeats is basic matching pursuit's check for repeated atoms (squared
// loss). Basic MP keeps no orthonormal basis: its step R ← R − (⟨d, R⟩/‖d‖²)·d
// is well defined along any atom, dependent on the expansion or not, and
// lowers ‖R‖² by ⟨d, R⟩²/‖d‖² all the same, so dependence does not harm the
// fit; and an atom of the expansion chosen again adds to its coefficient, so
// the model never has more functions than steps. What must not happen is a
// second copy of a function in the model: an atom whose centre has the same
// coordinates as the centre of an atom of the same kernel already in the
// expansion is the same vector at every point, for every kernel (copies of
// a training point), and is refused like a dependent atom in the other
// variants. The check costs O(d) per atom and keeps the chosen centres'
// coordinates (the model's own size), never anything of the training
// points' length.
//
// An atom dependent on the expansion without being a copy (a numerically
// low-rank kernel matrix, the constant and a kernel function of identical
// rows) may join it; the squared loss then stops when the best atom is
// orthogonal to the residual (StopOrthogonal), as before.
type repeats struct {
	seed maphash.Seed
	// by hash of (kernel, centre coordinates): the chosen atoms' kernels and
	// coordinates
	set map[uint64][]repeatKey
	buf []byte
}

type repeatKey struct {
	kernel int
	x      []float32
}

func newRepeats() *repeats {
	return &repeats{seed: maphash.MakeSeed(), set: map[uint64][]repeatKey{}}
}

// hash hashes the kernel and the coordinates, with −0 taken as +0 (they
// compare equal).
func (r *repeats) hash(kernel int, x []float32) uint64 {
	b := r.buf[:0]
	b = append(b, byte(kernel), byte(kernel>>8), byte(kernel>>16), byte(kernel>>24))
	for _, v := range x {
		u := math.Float32bits(v + 0) // −0 + 0 = +0
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	r.buf = b
	return maphash.Bytes(r.seed, b)
}

// has reports whether an atom of the kernel centred at x is in the set.
func (r *repeats) has(kernel int, x []float32) bool {
	for _, k := range r.set[r.hash(kernel, x)] {
		if k.kernel == kernel && slices.Equal(k.x, x) {
			return true
		}
	}
	return false
}

// add puts an atom of the kernel centred at x into the set (x is copied).
func (r *repeats) add(kernel int, x []float32) {
	h := r.hash(kernel, x)
	r.set[h] = append(r.set[h], repeatKey{kernel: kernel, x: slices.Clone(x)})
}

// centre returns the coordinates of atom k's centre (nil for the constant):
// a training row, or in a sharded run the point fetched for this step's
// active set (valid after the scan that searched k).
func (dc *dictionary) centre(k int) []float32 {
	a := dc.atoms[k]
	if a.kernel == biasKernel {
		return nil
	}
	if cs := dc.cs; cs != nil {
		return cs.pts.x.Row(cs.at[a.center])
	}
	return dc.tr.x.Row(a.center)
}

// repeated reports whether atom k is a copy of an atom in the set.
func (r *repeats) repeated(dc *dictionary, k int) bool {
	x := dc.centre(k)
	return x != nil && r.has(dc.atoms[k].kernel, x)
}

// keep adds atom k, which joins the expansion, to the set.
func (r *repeats) keep(dc *dictionary, k int) {
	if x := dc.centre(k); x != nil {
		r.add(dc.atoms[k].kernel, x)
	}
}
