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
// the index of the earliest row equal to row i (i itself if none).
func forEachRow(x pursuit.Matrix, f func(i, first int)) {
	seed := maphash.MakeSeed()
	seen := make(map[uint64][]int, x.Rows)
	var buf [4]byte
	for i := range x.Rows {
		row := x.Row(i)
		var h maphash.Hash
		h.SetSeed(seed)
		for _, v := range row {
			if v == 0 {
				v = 0 // fold -0 into +0
			}
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
			h.Write(buf[:])
		}
		key := h.Sum64()
		first := i
		for _, j := range seen[key] {
			if equalRows(row, x.Row(j)) {
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

func equalRows(a, b []float32) bool {
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
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
