// Package dot64 computes float64 inner products whose bits do not depend on
// how the rows are stored: a dense row (its zeros skipped) and the sparse
// storage of the same row give the same sums. Each sum runs over the
// row's non-zeros in the order given (feature order), every product
// rounded to float64 before it is added; AVX2 kernels do sixteen, eight or
// four sums of a row at once (eight and four for two and four rows that
// share their columns, which keeps the adds' latency hidden) with exactly
// those roundings, and the pure-Go loop is their reference.
package dot64

import "fmt"

// Dots writes into dots[u] the sum over q, in order, of val[q]·zt[idx[q]·ldz + u],
// for u < len(dots): the products of one row x (its non-zeros val at the
// columns idx) with the columns of zt, a row-major matrix with ldz ≥
// len(dots) values a row (the transpose of the vectors the row is
// multiplied with). Each product is rounded before it is added, and the
// sum starts at +0, so a zero x_j left in the list adds ±0 and changes no
// sum (a sum that starts at +0 never becomes −0): a dense row's list with
// its zeros and without them give the same bits, as does the sparse row.
// It panics when val is shorter than idx, ldz < len(dots), or an index
// reads past zt.
func Dots(dots, zt []float64, ldz int, idx []int32, val []float64) {
	val = val[:len(idx)]
	if ldz < len(dots) {
		panic(fmt.Sprintf("dot64: ldz %d shorter than the %d sums", ldz, len(dots)))
	}
	rows := [4][]float64{dots, dots, dots, dots}
	vals := [4][]float64{val, val, val, val}
	dotsRows(&rows, 1, zt, ldz, idx, &vals)
}

// Dots4 is Dots for four rows that share their columns idx: dots[r][u] is
// the sum over q, in order, of val[r][q]·zt[idx[q]·ldz + u], for u <
// len(dots[0]) (every dots[r] as long, every val[r] at least len(idx)).
// Each sum has exactly the bits Dots gives the row alone; four rows at
// once keep the narrower kernels (eight and four sums) as fast per sum
// as the sixteen-wide one.
func Dots4(dots *[4][]float64, zt []float64, ldz int, idx []int32, val *[4][]float64) {
	n := len(dots[0])
	if ldz < n {
		panic(fmt.Sprintf("dot64: ldz %d shorter than the %d sums", ldz, n))
	}
	var rows [4][]float64
	var vals [4][]float64
	for r := range 4 {
		rows[r] = dots[r][:n]
		vals[r] = val[r][:len(idx)]
	}
	dotsRows(&rows, 4, zt, ldz, idx, &vals)
}

// dotsRows computes the sums of Dots for the first m rows of dots and val
// (m is 1 or 4; with m = 1 every entry is the same row), their lengths
// checked by the caller.
func dotsRows(dots *[4][]float64, m int, zt []float64, ldz int, idx []int32, val *[4][]float64) {
	n := len(dots[0])
	c0 := 0
	if useAsm && len(idx) > 0 {
		// limit(w): the number of rows j of zt[c0:] whose w values from
		// j·ldz lie inside zt; every index must be below it.
		limit := func(w int) int {
			if rest := len(zt) - c0; rest >= w {
				return (rest-w)/ldz + 1
			}
			return 0
		}
		for ; c0+16 <= n; c0 += 16 {
			lim := limit(16)
			for r := range m {
				if !dots16(dots[r][c0:c0+16], zt[c0:], ldz, idx, val[r], lim) {
					panic(outOfRange(idx, zt, c0, ldz, 16))
				}
			}
		}
		if c0+8 <= n {
			lim := limit(8)
			for r := 0; r < m; r += 2 {
				r1 := min(r+1, m-1)
				if !dots8x2(dots[r][c0:c0+8], dots[r1][c0:c0+8], zt[c0:], ldz, idx, val[r], val[r1], lim) {
					panic(outOfRange(idx, zt, c0, ldz, 8))
				}
			}
			c0 += 8
		}
		if c0+4 <= n {
			if !dots4x4(dots, zt[c0:], c0, ldz, idx, val, limit(4)) {
				panic(outOfRange(idx, zt, c0, ldz, 4))
			}
			c0 += 4
		}
	}
	if c0 < n {
		for r := range m {
			dotsGo(dots[r][c0:], zt, c0, ldz, idx, val[r])
		}
	}
}

// outOfRange describes the first index of idx that reads past zt.
func outOfRange(idx []int32, zt []float64, c0, ldz, w int) string {
	for _, j := range idx {
		if j < 0 || int(j)*ldz+c0+w > len(zt) {
			return fmt.Sprintf("dot64: column index %d out of range (%d values, %d a row)", j, len(zt), ldz)
		}
	}
	return "dot64: column index out of range"
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
