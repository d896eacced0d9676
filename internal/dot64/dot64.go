// Package dot64 computes float64 inner products whose bits do not depend on
// how the rows are stored: a dense row (its zeros skipped) and the sparse
// storage of the same row give the same sums. Each sum runs over the
// row's non-zeros in the order given (feature order), every product
// rounded to float64 before it is added; an AVX2 kernel does sixteen sums
// at once with exactly those roundings, and the pure-Go loop is its
// reference.
package dot64

// Dots writes into dots[u] the sum over q, in order, of val[q]·zt[idx[q]·ldz + u],
// for u < len(dots): the products of one row x (its non-zeros val at the
// columns idx) with the columns of zt, a row-major matrix with ldz ≥
// len(dots) values a row (the transpose of the vectors the row is
// multiplied with). Each product is rounded before it is added, and the
// sum starts at +0, so a zero x_j left in the list adds ±0 and changes no
// sum (a sum that starts at +0 never becomes −0): a dense row's list with
// its zeros and without them give the same bits, as does the sparse row.
func Dots(dots, zt []float64, ldz int, idx []int32, val []float64) {
	val = val[:len(idx)]
	n := len(dots)
	if len(idx) > 0 && n > 0 {
		// Bounds: the last column read is idx·ldz + n − 1 for the largest
		// idx; checked once here for the kernel.
		hi := 0
		for _, j := range idx {
			if j < 0 {
				panic("dot64: negative column index")
			}
			hi = max(hi, int(j))
		}
		_ = zt[hi*ldz+n-1]
		if ldz < n {
			panic("dot64: ldz shorter than dots")
		}
	}
	c0 := 0
	if useAsm {
		for ; c0+16 <= n; c0 += 16 {
			dots16(dots[c0:c0+16], zt[c0:], ldz, idx, val)
		}
	}
	dotsGo(dots[c0:], zt, c0, ldz, idx, val)
}

// dotsGo is Dots for the columns c0, c0+1, … of zt (len(dots) of them).
func dotsGo(dots, zt []float64, c0, ldz int, idx []int32, val []float64) {
	clear(dots)
	if len(dots) == 0 {
		return
	}
	for q, j := range idx {
		off := int(j)*ldz + c0
		row := zt[off : off+len(dots)]
		v := val[q]
		for u, z := range row {
			dots[u] += float64(z * v) // the conversion keeps the product rounded (no fusion)
		}
	}
}
