package asm

import (
	"math"

	"github.com/pursuit-ml/pursuit/backend"
)

// kernels is the set of inner loops the backend runs; asmKernels and
// goKernels return the assembly and the pure-Go implementations. The Go code
// around them (blocking, packing, threading) is shared by both.
type kernels struct {
	// dots sets out[j] = Σ_i x[i]·v[j·vs+i] for j < k, k ∈ {1, 2, 4},
	// i < len(x), with float64 partial sums.
	dots func(out []float64, x, v []float32, vs, k int)
	// maxGroup is the most vectors dotRows takes at once (4 or 8), and
	// rowsPerCall(k) how many rows its multi-row kernel for k vectors takes.
	maxGroup    int
	rowsPerCall func(k int) int
	// dotRows adds <x_r, v_j> (r < rows, j < k) into acc[4(r·k+j) : +4]
	// (as up to 4 lane partial sums) for rows x_r = x[r·xs : r·xs+n]; n is
	// a multiple of 8. The AVX2 assembly streams 4 rows at once for k ≤ 2
	// and 2 rows for k = 4; the AVX-512 one 4 rows for k = 4 and 2 for k = 8.
	dotRows func(acc []float64, x []float32, xs, rows, n int, v []float32, vs, k int)
	// axpys adds Σ_t c[t]·v[t·vs:t·vs+len(d)] to d, for t < len(c).
	axpys func(d, c, v []float32, vs int)
	// axpy4 does the same for four rows d_r = d[r·ds : r·ds+n] at once,
	// with coefficients c[4t+r].
	axpy4 func(d []float32, ds, n int, c, v []float32, vs int)
	// gemm computes the mr×nr tile c (row stride ldc) = ap·bpᵀ, or adds it
	// to c when accumulate is set; ap is kc×mr and bp kc×nr, packed by p.
	gemm   func(kc int, ap, bp, c []float32, ldc int, accumulate bool)
	mr, nr int // the tile shape of gemm; nr is a multiple of 16
	// rbf replaces each value t of the rows×cols tile c (stride ldc; cols a
	// multiple of 16) by exp(negGamma·max(an[i]+bn[j]−2t, 0)).
	rbf func(c []float32, ldc, rows, cols int, an, bn []float32, negGamma float32)
	// poly replaces each value t of the rows×cols tile c (stride ldc; cols
	// a multiple of 16) by (gamma·t + coef0)^degree.
	poly func(c []float32, ldc, rows, cols int, gamma, coef0 float32, degree int)
	// argmax is ScoredArgMax for len(s) == len(n) and skip nil or of the
	// same length.
	argmax func(s, n []float64, skip []bool) (int, float64)
	// pack8 sets dst[p·ds+r] = src[r·ss+p] for r < 8, p < kc (a transposing
	// copy for packing GEMM panels).
	pack8 func(dst []float32, ds int, src []float32, ss, kc int)
	// exp sets dst[i] = exp(src[i]) for i < len(src).
	exp func(dst, src []float32)
}

func goKernels() kernels {
	return kernels{dots: dotsGo, dotRows: dotRowsGo, maxGroup: 4, rowsPerCall: rowsPerCall,
		axpys: axpysGo, axpy4: axpy4Go,
		gemm: gemmGo(6, 16), mr: 6, nr: 16, rbf: rbfGo, poly: polyGo, exp: expGo,
		argmax: backend.ScoredArgMaxRef, pack8: pack8Go}
}

func dotsGo(out []float64, x, v []float32, vs, k int) {
	for j := 0; j < k; j++ {
		vj := v[j*vs : j*vs+len(x)]
		var s0, s1 float64
		i := 0
		for ; i+1 < len(x); i += 2 {
			s0 += float64(x[i]) * float64(vj[i])
			s1 += float64(x[i+1]) * float64(vj[i+1])
		}
		if i < len(x) {
			s0 += float64(x[i]) * float64(vj[i])
		}
		out[j] = s0 + s1
	}
}

func dotRowsGo(acc []float64, x []float32, xs, rows, n int, v []float32, vs, k int) {
	var out [8]float64
	for r := 0; r < rows; r++ {
		dotsGo(out[:k], x[r*xs:r*xs+n], v, vs, k)
		for j := 0; j < k; j++ {
			acc[4*(r*k+j)] += out[j]
		}
	}
}

// rowsPerCall is how many dictionary rows one dotRows call streams for a
// group of k vectors (the shapes the AVX2 assembly has multi-row kernels
// for).
func rowsPerCall(k int) int {
	switch k {
	case 1, 2:
		return 4
	case 4:
		return 2
	}
	return 1
}

func axpysGo(d, c, v []float32, vs int) {
	for t, ct := range c {
		vt := v[t*vs : t*vs+len(d)]
		for i := range d {
			d[i] += ct * vt[i]
		}
	}
}

// gemmGo returns the pure-Go micro-kernel for mr×nr tiles.
func axpy4Go(d []float32, ds, n int, c, v []float32, vs int) {
	k := len(c) / 4
	for r := 0; r < 4; r++ {
		row := d[r*ds : r*ds+n]
		for t := 0; t < k; t++ {
			ct, vt := c[4*t+r], v[t*vs:t*vs+n]
			for i := range row {
				row[i] += ct * vt[i]
			}
		}
	}
}

func gemmGo(mr, nr int) func(kc int, ap, bp, c []float32, ldc int, accumulate bool) {
	return func(kc int, ap, bp, c []float32, ldc int, accumulate bool) {
		var buf [12 * 32]float32 // the largest tile; no allocation per call
		acc := buf[:mr*nr]
		ap, bp = ap[:kc*mr], bp[:kc*nr]
		for p := 0; p < kc; p++ {
			a := ap[p*mr : p*mr+mr]
			b := bp[p*nr : p*nr+nr]
			for i, ai := range a {
				row := acc[i*nr : i*nr+nr]
				for j, bj := range b {
					row[j] += ai * bj
				}
			}
		}
		for i := 0; i < mr; i++ {
			row := c[i*ldc : i*ldc+nr]
			for j, v := range acc[i*nr : i*nr+nr] {
				if accumulate {
					row[j] += v
				} else {
					row[j] = v
				}
			}
		}
	}
}

func rbfGo(c []float32, ldc, rows, cols int, an, bn []float32, negGamma float32) {
	for i := 0; i < rows; i++ {
		row := c[i*ldc : i*ldc+cols]
		for j := range row {
			dist := math.Max(float64(an[i])+float64(bn[j])-2*float64(row[j]), 0)
			row[j] = float32(math.Exp(float64(negGamma) * dist))
		}
	}
}

func polyGo(c []float32, ldc, rows, cols int, gamma, coef0 float32, degree int) {
	for i := 0; i < rows; i++ {
		row := c[i*ldc : i*ldc+cols]
		for j, t := range row {
			row[j] = float32(ipow(float64(gamma)*float64(t)+float64(coef0), degree))
		}
	}
}

func pack8Go(dst []float32, ds int, src []float32, ss, kc int) {
	for r := 0; r < 8; r++ {
		row := src[r*ss : r*ss+kc]
		for p, v := range row {
			dst[p*ds+r] = v
		}
	}
}

func expGo(dst, src []float32) {
	for i, x := range src {
		if x < expUnderflowBound {
			dst[i] = 0 // like the assembly: no float32 denormals below the bound
			continue
		}
		dst[i] = float32(math.Exp(float64(x)))
	}
}

// expUnderflowBound is the input below which every exp kernel returns
// exactly 0 (e^x is then below the smallest normal float32).
const expUnderflowBound = -87.3365478515625
