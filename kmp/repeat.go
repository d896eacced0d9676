package kmp

import (
	"hash/maphash"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
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
	// by hash of (kernel, centre coordinates): the newest of the chosen
	// atoms' keys with that hash, the others chained through next
	set  map[uint64]int32
	keys []repeatKey
	// the keys' coordinates, each key's at [lo, hi): in two arrays grown by
	// appending rather than as two small slices per atom, which would be
	// scattered among the steps' short-lived allocations
	idx []int32
	val []float32
	buf []byte
	cur repeatKey // the key last made (key): its coordinates at the end of idx and val
}

// repeatKey is an atom's kernel and its centre's non-zero coordinates
// (columns and values, repeats' idx and val from lo to hi): dense and
// sparse rows of the same point give the same key, and a sparse row's costs
// O(its non-zeros).
type repeatKey struct {
	kernel int
	lo, hi int
	next   int32 // the previous key with the same hash (−1: none)
}

func newRepeats() *repeats {
	return &repeats{seed: maphash.MakeSeed(), set: map[uint64]int32{}}
}

// key makes r.cur the key of an atom of the kernel centred at row i of x
// (zeros, −0 among them, are left out: they compare equal), its
// coordinates appended to r.idx and r.val (add keeps them, the next key
// drops them), and returns its hash.
func (r *repeats) key(kernel int, x pursuit.Matrix, i int) uint64 {
	lo := 0 // after the kept keys: the last key made, not kept, is dropped
	if len(r.keys) > 0 {
		lo = r.keys[len(r.keys)-1].hi
	}
	r.idx, r.val = r.idx[:lo], r.val[:lo]
	b := r.buf[:0]
	b = append(b, byte(kernel), byte(kernel>>8), byte(kernel>>16), byte(kernel>>24))
	x.ForEachNonZero(i, func(j int, v float32) {
		r.idx = append(r.idx, int32(j))
		r.val = append(r.val, v)
		u := math.Float32bits(v)
		b = append(b, byte(j), byte(j>>8), byte(j>>16), byte(j>>24), byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	})
	r.buf, r.cur = b, repeatKey{kernel: kernel, lo: lo, hi: len(r.idx), next: -1}
	return maphash.Bytes(r.seed, b)
}

// has reports whether an atom of the kernel centred at row i of x is in
// the set.
func (r *repeats) has(kernel int, x pursuit.Matrix, i int) bool {
	h := r.key(kernel, x, i)
	k, ok := r.set[h]
	for ok && k >= 0 {
		c := r.keys[k]
		if c.kernel == kernel && slices.Equal(r.idx[c.lo:c.hi], r.idx[r.cur.lo:r.cur.hi]) && slices.Equal(r.val[c.lo:c.hi], r.val[r.cur.lo:r.cur.hi]) {
			return true
		}
		k = c.next
	}
	return false
}

// add puts an atom of the kernel centred at row i of x into the set (its
// coordinates copied).
func (r *repeats) add(kernel int, x pursuit.Matrix, i int) {
	h := r.key(kernel, x, i)
	k := r.cur
	if prev, ok := r.set[h]; ok {
		k.next = prev
	}
	r.set[h] = int32(len(r.keys))
	r.keys = append(r.keys, k)
}

// centre returns the row of atom k's centre (ok false for the constant):
// a training row, or in a sharded run the point fetched for this step's
// active set (valid after the scan that searched k).
func (dc *dictionary) centre(k int) (x pursuit.Matrix, i int, ok bool) {
	a := dc.atoms[k]
	if a.kernel == biasKernel {
		return pursuit.Matrix{}, 0, false
	}
	if cs := dc.cs; cs != nil {
		return cs.pts.x, cs.at[int(a.center)], true
	}
	return dc.tr.x, int(a.center), true
}

// repeated reports whether atom k is a copy of an atom in the set.
func (r *repeats) repeated(dc *dictionary, k int) bool {
	x, i, ok := dc.centre(k)
	return ok && r.has(int(dc.atoms[k].kernel), x, i)
}

// keep adds atom k, which joins the expansion, to the set.
func (r *repeats) keep(dc *dictionary, k int) {
	if x, i, ok := dc.centre(k); ok {
		r.add(int(dc.atoms[k].kernel), x, i)
	}
}
