package data

import (
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/pursuit-ml/pursuit"
)

// DuplicateRows returns, in increasing order, the indices of the rows of x
// equal to an earlier row (element by element as float32 values, so -0
// equals +0 and a row holding NaN equals nothing).
func DuplicateRows(x pursuit.Matrix) []int {
	var dups []int
	forEachRow(x, func(i, first int) {
		if first != i {
			dups = append(dups, i)
		}
	})
	return dups
}

// forEachRow calls f(i, first) for each row i of x in order, where first is
// the index of the earliest row equal to row i (i itself if none). Rows are
// dense or sparse (a sparse row's stored zeros count as absent).
func forEachRow(x pursuit.Matrix, f func(i, first int)) {
	seed := maphash.MakeSeed()
	seen := make(map[uint64][]int, x.Rows)
	var buf [8]byte
	for i := range x.Rows {
		var h maphash.Hash
		h.SetSeed(seed)
		// Hash the non-zeros as (column, value) pairs: the same for a
		// row held dense or sparse.
		visitNonZeros(x, i, func(j int, v float32) {
			binary.LittleEndian.PutUint32(buf[:4], uint32(j))
			binary.LittleEndian.PutUint32(buf[4:], math.Float32bits(v))
			h.Write(buf[:])
		})
		key := h.Sum64()
		first := i
		for _, j := range seen[key] {
			if equalRows(x, i, j) {
				first = j
				break
			}
		}
		if first == i {
			seen[key] = append(seen[key], i)
		}
		f(i, first)
	}
}

// visitNonZeros calls f(j, v) for each non-zero v of row i of x in
// increasing column j (-0 counts as zero).
func visitNonZeros(x pursuit.Matrix, i int, f func(j int, v float32)) {
	if x.IsSparse() {
		idx, val := x.SparseRow(i)
		for k, v := range val {
			if v != 0 {
				f(int(idx[k]), v)
			}
		}
		return
	}
	for j, v := range x.Row(i) {
		if v != 0 {
			f(j, v)
		}
	}
}

// equalRows reports whether rows a and b of x are equal element by element
// (NaN equals nothing).
func equalRows(x pursuit.Matrix, a, b int) bool {
	if !x.IsSparse() {
		ra, rb := x.Row(a), x.Row(b)
		for k := range ra {
			if ra[k] != rb[k] {
				return false
			}
		}
		return true
	}
	ia, va := x.SparseRow(a)
	ib, vb := x.SparseRow(b)
	p, q := 0, 0
	for {
		for p < len(va) && va[p] == 0 {
			p++
		}
		for q < len(vb) && vb[q] == 0 {
			q++
		}
		if p == len(va) || q == len(vb) {
			return p == len(va) && q == len(vb)
		}
		if ia[p] != ib[q] || va[p] != vb[q] {
			return false
		}
		p++
		q++
	}
}

// Dedup returns a copy of d without the rows whose features equal an earlier
// row's, and the original indices of the rows kept, in increasing order. The
// first occurrence is kept with its label: when identical features carry
// conflicting labels, the later labels are dropped silently (LabelConflicts
// lists those rows if the caller wants to report them).
func Dedup(d *Dataset) (*Dataset, []int) {
	var kept []int
	forEachRow(d.X, func(i, first int) {
		if first == i {
			kept = append(kept, i)
		}
	})
	return d.Subset(kept), kept
}

// LabelConflicts returns, in increasing order, the indices of the rows of d
// whose features equal an earlier row's while their label differs from that
// row's.
func LabelConflicts(d *Dataset) []int {
	var out []int
	forEachRow(d.X, func(i, first int) {
		if first != i && d.Y[i] != d.Y[first] {
			out = append(out, i)
		}
	})
	return out
}

// MergeDuplicates returns a copy of d with each group of rows that have
// equal features and the same label merged into one row, and the number of
// rows each merged row stands for (its weight). Rows with equal features
// but different labels stay separate, one per (features, label) pair. The
// merged rows are in the order of their first occurrence. Trained with these
// counts as per-example weights on C, a soft-margin SVM has the same
// decision function as on d.
func MergeDuplicates(d *Dataset) (*Dataset, []float64) {
	type key struct {
		first int
		label float64
	}
	pos := map[key]int{}
	var kept []int
	var counts []float64
	forEachRow(d.X, func(i, first int) {
		k := key{first, d.Y[i]}
		if r, ok := pos[k]; ok {
			counts[r]++
			return
		}
		pos[k] = len(kept)
		kept = append(kept, i)
		counts = append(counts, 1)
	})
	return d.Subset(kept), counts
}
