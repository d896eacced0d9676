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
	// rows holds the centres of the keys that name a row (a training row,
	// which stays where it is while training runs): their coordinates are
	// read from it, not copied
	rows pursuit.Matrix
	// the other keys' coordinates, each key's at [lo, hi): in two arrays
	// grown by appending rather than as two small slices per atom, which
	// would be scattered among the steps' short-lived allocations
	idx []int32
	val []float32
	buf []byte
	cur repeatKey // the key last made (key): its coordinates at the end of idx and val
	// a named row's coordinates, read for a comparison
	rowIdx []int32
	rowVal []float32
}

// repeatKey is an atom's kernel and its centre's non-zero coordinates
// (columns and values): the row of repeats' rows that holds them, or
// repeats' idx and val from lo to hi. Dense and sparse rows of the same
// point give the same key, and a sparse row's costs O(its non-zeros).
type repeatKey struct {
	kernel int
	lo, hi int
	row    int32 // −1: the coordinates are in idx and val
	next   int32 // the previous key with the same hash (−1: none)
}

func newRepeats() *repeats {
	return &repeats{seed: maphash.MakeSeed(), set: map[uint64]int32{}}
}

// nonZeros appends the non-zero coordinates of row i of x (zeros, −0 among
// them, left out: they compare equal) to idx and val, and their bytes to b.
func nonZeros(x pursuit.Matrix, i int, idx []int32, val []float32, b []byte) ([]int32, []float32, []byte) {
	x.ForEachNonZero(i, func(j int, v float32) {
		idx = append(idx, int32(j))
		val = append(val, v)
		if b != nil {
			u := math.Float32bits(v)
			b = append(b, byte(j), byte(j>>8), byte(j>>16), byte(j>>24), byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
		}
	})
	return idx, val, b
}

// key makes r.cur the key of an atom of the kernel centred at row i of x,
// its coordinates appended to r.idx and r.val (add keeps them or names the
// row, the next key drops them), and returns its hash.
func (r *repeats) key(kernel int, x pursuit.Matrix, i int) uint64 {
	lo := 0 // after the kept keys: the last key made, not kept, is dropped
	if len(r.keys) > 0 {
		lo = r.keys[len(r.keys)-1].hi
	}
	b := append(r.buf[:0], byte(kernel), byte(kernel>>8), byte(kernel>>16), byte(kernel>>24))
	r.idx, r.val, b = nonZeros(x, i, r.idx[:lo], r.val[:lo], b)
	r.buf, r.cur = b, repeatKey{kernel: kernel, lo: lo, hi: len(r.idx), row: -1, next: -1}
	return maphash.Bytes(r.seed, b)
}

// coords returns key c's coordinates.
func (r *repeats) coords(c repeatKey) ([]int32, []float32) {
	if c.row < 0 {
		return r.idx[c.lo:c.hi], r.val[c.lo:c.hi]
	}
	r.rowIdx, r.rowVal, _ = nonZeros(r.rows, int(c.row), r.rowIdx[:0], r.rowVal[:0], nil)
	return r.rowIdx, r.rowVal
}

// has reports whether an atom of the kernel centred at row i of x is in
// the set.
func (r *repeats) has(kernel int, x pursuit.Matrix, i int) bool {
	h := r.key(kernel, x, i)
	k, ok := r.set[h]
	for ok && k >= 0 {
		c := r.keys[k]
		if c.kernel == kernel {
			idx, val := r.coords(c)
			if slices.Equal(idx, r.idx[r.cur.lo:r.cur.hi]) && slices.Equal(val, r.val[r.cur.lo:r.cur.hi]) {
				return true
			}
		}
		k = c.next
	}
	return false
}

// add puts an atom of the kernel centred at row i of x into the set. With
// stays, x is the matrix of every such key (the training rows, which stay
// unchanged while the set is used): the key names the row; else its
// coordinates are copied.
func (r *repeats) add(kernel int, x pursuit.Matrix, i int, stays bool) {
	h := r.key(kernel, x, i)
	k := r.cur
	if stays {
		r.rows = x
		k.row, k.hi = int32(i), k.lo
	}
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
	a := dc.atoms.at(k)
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
	return ok && r.has(int(dc.atoms.at(k).kernel), x, i)
}

// keep adds atom k, which joins the expansion, to the set: by its row
// when its centre is a training row (not a point fetched for a sharded
// run's step).
func (r *repeats) keep(dc *dictionary, k int) {
	if x, i, ok := dc.centre(k); ok {
		r.add(int(dc.atoms.at(k).kernel), x, i, dc.cs == nil)
	}
}
