//go:build amd64 && !purego

package asm

import (
	"math"

	"github.com/pursuit-ml/pursuit/backend"
)

// asmBuilt reports whether this build contains the assembly kernels.
const asmBuilt = true

// asmKernels returns the assembly kernels; avx512 selects the AVX-512F
// kernels where they exist (GEMM 12×32 tiles instead of 6×16, RBF and exp,
// 4- and 8-vector dot products).
func asmKernels(avx512 bool) kernels {
	k := kernels{SqNorm: sqNormAsm, DotRows: dotRowsAsm, MaxGroup: 4, RowsPerCall: rowsPerCall,
		Axpys: axpysAsm, Axpy4: axpy4Asm,
		Gemm: gemm6x16Asm, MR: 6, NR: 16, KC: kcBlock, MC: mcBlock, NC: ncBlock,
		RBF: rbfAsm, Poly: polyAsm, ArgMax: argmaxAsm, Pack8: pack8Asm,
		SMOGradient: smoGradientAsm, SMOSelect: smoSelectAsm, SMOAddScaled: smoAddScaledAsm}
	k.SparseDot, k.SparseRows = sparseDotAsm, sparseRows
	k.SparseChains, k.SparseScatter = sparseChains, sparseScatterAsm
	if avx512 {
		k.Gemm, k.MR, k.NR = gemm12x32Asm, 12, 32
		k.RBF = rbf512Asm
		k.DotRows, k.MaxGroup, k.RowsPerCall, k.RowsPerCallMany = dotRows512Asm, 8, rowsPerCall512, rowsPerCallMany512
		k.DotSets = dotSets512
	}
	return k
}

// Cache blocking of the kernel-block GEMM (BLIS order): a kc×nr panel of B
// (16 or 32 KiB) stays in L1 while mc×kc of A (144 KiB) streams from L2,
// and the packed kc×nc block of B (1 MiB) lives in L2. mcBlock is a
// multiple of both tile heights (6, 12) and ncBlock of both widths (16, 32).
const (
	kcBlock = 256
	mcBlock = 144
	ncBlock = 1024
)

// rowsPerCall is how many dictionary rows one dotRowsAsm call streams for a
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

// sqNormAsm returns ‖x‖² with float64 partial sums.
func sqNormAsm(x []float32) float64 {
	n := len(x)
	n8 := n &^ 7
	var acc [4]float64
	if n8 > 0 {
		dot1AVX(&x[0], &x[0], n8, &acc[0])
	}
	s := (acc[0] + acc[1]) + (acc[2] + acc[3])
	for _, v := range x[n8:] {
		s += float64(v) * float64(v)
	}
	return s
}

func dotRowsAsm(acc []float64, x []float32, xs, rows, n int, v []float32, vs, k int) {
	if n == 0 || rows == 0 {
		return
	}
	_ = x[(rows-1)*xs+n-1] // bounds checks once for the assembly
	_ = v[(k-1)*vs+n-1]
	_ = acc[4*rows*k-1]
	switch {
	case rows == 4 && k == 1:
		dot4AVX(&v[0], &x[0], xs, n, &acc[0]) // roles swapped: 4 rows, 1 vector
	case rows == 4 && k == 2:
		dot4r2AVX(&x[0], xs, &v[0], vs, n, &acc[0])
	case rows == 2 && k == 4:
		dot2r4AVX(&x[0], xs, &v[0], vs, n, &acc[0])
	default:
		for r := 0; r < rows; r++ {
			xr, a := &x[r*xs], &acc[4*r*k]
			switch k {
			case 1:
				dot1AVX(xr, &v[0], n, a)
			case 2:
				dot1AVX(xr, &v[0], n, a)
				dot1AVX(xr, &v[vs], n, &acc[4*r*k+4])
			case 4:
				dot4AVX(xr, &v[0], vs, n, a)
			default:
				panic("asm: dotRows called with unsupported k") // internal invariant
			}
		}
	}
}

// rowsPerCall512 is rowsPerCall for dotRows512Asm.
func rowsPerCall512(k int) int {
	switch k {
	case 1, 2, 4:
		return 4
	case 8:
		return 2
	}
	return 1
}

// rowsPerCallMany512 is rowsPerCall512 in a pass over several groups: 8
// rows for 2 vectors (dot8r2AVX512), which computes from cache faster than
// two 4-row calls but streams 8 rows from memory about 5% slower.
func rowsPerCallMany512(k int) int {
	if k == 2 {
		return 8
	}
	return rowsPerCall512(k)
}

// dotRows512Asm runs the AVX-512 kernels for 4 rows × 4 vectors and 2 rows
// × 8 vectors (a last 8 elements, when n is not a multiple of 16, with the
// AVX2 kernels) and dotRowsAsm for the other shapes.
func dotRows512Asm(acc []float64, x []float32, xs, rows, n int, v []float32, vs, k int) {
	if n == 0 || rows == 0 {
		return
	}
	if k == 2 {
		dotPairs512(acc, x, xs, rows, n, v, vs)
		return
	}
	if k != 8 && !(rows == 4 && k == 4) {
		dotRowsAsm(acc, x, xs, rows, n, v, vs, k)
		return
	}
	_ = x[(rows-1)*xs+n-1] // bounds checks once for the assembly
	_ = v[(k-1)*vs+n-1]
	_ = acc[4*rows*k-1]
	if k == 8 && rows != 2 {
		// Single rows against 8 vectors: two AVX2 4-vector passes.
		for r := 0; r < rows; r++ {
			dot4AVX(&x[r*xs], &v[0], vs, n, &acc[4*8*r])
			dot4AVX(&x[r*xs], &v[4*vs], vs, n, &acc[4*(8*r+4)])
		}
		return
	}
	n16 := n &^ 15
	if k == 4 {
		if n16 > 0 {
			dot4r4AVX512(&x[0], xs, &v[0], vs, n16, &acc[0])
		}
		if n > n16 {
			dot2r4AVX(&x[n16], xs, &v[n16], vs, n-n16, &acc[0])
			dot2r4AVX(&x[2*xs+n16], xs, &v[n16], vs, n-n16, &acc[4*2*4])
		}
		return
	}
	if n16 > 0 {
		dot2r8AVX512(&x[0], xs, &v[0], vs, n16, &acc[0])
	}
	if n > n16 {
		for r := 0; r < 2; r++ {
			dot4AVX(&x[r*xs+n16], &v[n16], vs, n-n16, &acc[4*8*r])
			dot4AVX(&x[r*xs+n16], &v[4*vs+n16], vs, n-n16, &acc[4*(8*r+4)])
		}
	}
}

// dotPairs512 is dotRows512Asm for 2 vectors and up to 8 rows: 8 rows at
// once with dot8r2AVX512, else the AVX2 kernels' 4-row groups and single
// rows as dotRowsAsm takes them; dot8r2AVX512 sums as dot4r2AVX does, so
// every product is the one the AVX2 table computes.
func dotPairs512(acc []float64, x []float32, xs, rows, n int, v []float32, vs int) {
	if n == 0 || rows == 0 {
		return
	}
	if rows == 8 {
		_ = x[7*xs+n-1] // bounds checks once for the assembly
		_ = v[vs+n-1]
		_ = acc[4*8*2-1]
		dot8r2AVX512(&x[0], xs, &v[0], vs, n, &acc[0])
		return
	}
	r := 0
	for ; r+4 <= rows; r += 4 {
		dotRowsAsm(acc[4*2*r:], x[r*xs:], xs, 4, n, v, vs, 2)
	}
	if r < rows {
		dotRowsAsm(acc[4*2*r:], x[r*xs:], xs, rows-r, n, v, vs, 2)
	}
}

// dotSets512 is dotRows512Asm for several groups of k vectors over the
// same rows, taking groups two or four at a time where a kernel reads each
// row once for all of them and sums every product as the one-group kernel
// does: 4 rows × 4 or 2 single vectors (dot4r1x4AVX512, dot4r1x2AVX512,
// as dot4AVX sums 4 rows × 1 vector) and 8 rows × two pairs of vectors
// (dot8r2x2AVX512, as dot8r2AVX512 and dot4r2AVX sum them).
func dotSets512(sets []backend.DotSet, accOff, vOff int, x []float32, xs, rows, n, k int) {
	if n == 0 || rows == 0 {
		return
	}
	_ = x[(rows-1)*xs+n-1] // bounds checks once for the assembly
	for _, s := range sets {
		_ = s.V[vOff+(k-1)*s.VS+n-1]
		_ = s.Acc[accOff+4*rows*k-1]
	}
	switch {
	case k == 1 && rows == 4:
		for ; len(sets) >= 4; sets = sets[4:] {
			a, b, c, d := &sets[0], &sets[1], &sets[2], &sets[3]
			dot4r1x4AVX512(&x[0], xs, &a.V[vOff], &b.V[vOff], &c.V[vOff], &d.V[vOff], n,
				&a.Acc[accOff], &b.Acc[accOff], &c.Acc[accOff], &d.Acc[accOff])
		}
		if len(sets) >= 2 {
			a, b := &sets[0], &sets[1]
			dot4r1x2AVX512(&x[0], xs, &a.V[vOff], &b.V[vOff], n, &a.Acc[accOff], &b.Acc[accOff])
			sets = sets[2:]
		}
	case k == 2 && rows == 8:
		for ; len(sets) >= 2; sets = sets[2:] {
			a, b := &sets[0], &sets[1]
			dot8r2x2AVX512(&x[0], xs, &a.V[vOff], a.VS, &b.V[vOff], b.VS, n, &a.Acc[accOff], &b.Acc[accOff])
		}
	}
	for _, s := range sets {
		dotRows512Asm(s.Acc[accOff:], x, xs, rows, n, s.V[vOff:], s.VS, k)
	}
}

func axpysAsm(d, c, v []float32, vs int) {
	n := len(d)
	n8 := n &^ 7
	k := len(c)
	if k == 0 || n == 0 {
		return
	}
	_ = v[(k-1)*vs+n-1]
	if n8 > 0 {
		axpyAVX(&d[0], n8, &c[0], k, &v[0], vs)
	}
	for t, ct := range c {
		vt := v[t*vs:]
		for i := n8; i < n; i++ {
			d[i] += ct * vt[i]
		}
	}
}

func axpy4Asm(d []float32, ds, n int, c, v []float32, vs int) {
	k := len(c) / 4
	if k == 0 || n == 0 {
		return
	}
	n8 := n &^ 7
	_ = d[3*ds+n-1]
	_ = v[(k-1)*vs+n-1]
	if n8 > 0 {
		axpy4AVX(&d[0], ds, n8, &c[0], k, &v[0], vs)
	}
	for r := 0; r < 4; r++ {
		row := d[r*ds : r*ds+n]
		for t := 0; t < k; t++ {
			ct, vt := c[4*t+r], v[t*vs:t*vs+n]
			for i := n8; i < n; i++ {
				row[i] += ct * vt[i]
			}
		}
	}
}

func gemm6x16Asm(kc int, ap, bp, c []float32, ldc int, accumulate bool) {
	_ = ap[kc*6-1]
	_ = bp[kc*16-1]
	_ = c[5*ldc+15]
	sgemm6x16AVX(kc, &ap[0], &bp[0], &c[0], ldc, accumulate)
}

func gemm12x32Asm(kc int, ap, bp, c []float32, ldc int, accumulate bool) {
	_ = ap[kc*12-1]
	_ = bp[kc*32-1]
	_ = c[11*ldc+31]
	sgemm12x32AVX512(kc, &ap[0], &bp[0], &c[0], ldc, accumulate)
}

func rbfAsm(c []float32, ldc, rows, cols int, an, bn []float32, negGamma float32) {
	rbfWidth(c, ldc, rows, cols, an, bn, negGamma, false)
}

func rbf512Asm(c []float32, ldc, rows, cols int, an, bn []float32, negGamma float32) {
	rbfWidth(c, ldc, rows, cols, an, bn, negGamma, true)
}

// rbfWidth runs the AVX-512 RBF kernel on 32-column pieces when avx512 is
// set, and the AVX2 one on the (remaining) 16-column pieces.
func rbfWidth(c []float32, ldc, rows, cols int, an, bn []float32, negGamma float32, avx512 bool) {
	if rows == 0 {
		return
	}
	_ = c[(rows-1)*ldc+cols-1]
	_ = an[rows-1]
	_ = bn[cols-1]
	j := 0
	for ; avx512 && j+32 <= cols; j += 32 {
		rbfAVX512(&c[j], ldc, rows, &an[0], &bn[j], negGamma)
	}
	for ; j < cols; j += 16 {
		rbfAVX(&c[j], ldc, rows, &an[0], &bn[j], negGamma)
	}
}

func polyAsm(c []float32, ldc, rows, cols int, gamma, coef0 float32, degree int) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = c[(rows-1)*ldc+cols-1]
	polyAVX(&c[0], ldc, rows, cols, gamma, coef0, degree)
}

func argmaxAsm(s, n []float64, skip []bool) (int, float64) {
	m := len(s)
	m4 := m &^ 3
	bestK, bestScore := -1, 0.0
	if m4 > 0 {
		_ = n[m-1]
		var sp *bool
		if skip != nil {
			_ = skip[m-1]
			sp = &skip[0]
		}
		var best [4]float64
		var idx [4]int64
		scoredArgMaxAVX(&s[0], &n[0], sp, m4, &best[0], &idx[0])
		for l := range best {
			k := int(idx[l])
			if best[l] < 0 {
				continue
			}
			if bestK < 0 || best[l] > bestScore || (best[l] == bestScore && k < bestK) {
				bestK, bestScore = k, best[l]
			}
		}
	}
	if m4 < m {
		var sk []bool
		if skip != nil {
			sk = skip[m4:m]
		}
		if k, sc := backend.ScoredArgMaxRef(s[m4:m], n[m4:m], sk); k >= 0 && (bestK < 0 || sc > bestScore) {
			bestK, bestScore = m4+k, sc
		}
	}
	return bestK, bestScore
}

func pack8Asm(dst []float32, ds int, src []float32, ss, kc int) {
	if kc == 0 {
		return
	}
	_ = src[7*ss+kc-1]
	_ = dst[(kc-1)*ds+7]
	k8 := kc &^ 7
	if k8 > 0 {
		pack8AVX(&dst[0], ds, &src[0], ss, k8)
	}
	for r := 0; r < 8; r++ {
		for p := k8; p < kc; p++ {
			dst[p*ds+r] = src[r*ss+p]
		}
	}
}

// smoGradientAsm is backend.SMOGradientRef: the assembly over the first
// multiple of 8 variables, the reference over the rest, the lanes reduced
// to the last index attaining the maximum.
func smoGradientAsm(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64) {
	n := len(g)
	n8 := n &^ 7
	best, bestV := -1, math.Inf(-1)
	if n8 > 0 {
		_, _, _, _ = y[n-1], up[n-1], qi[n-1], qj[n-1]
		var v [8]float64
		var idx [8]int64
		smoGradientAVX(&g[0], &y[0], &up[0], &qi[0], &qj[0], n8, wi, wj, &v[0], &idx[0])
		best, bestV = lastBest(v[:], idx[:], func(a, b float64) bool { return a > b })
	}
	if n8 < n {
		if k, v := backend.SMOGradientRef(g[n8:], y[n8:], up[n8:], qi[n8:], qj[n8:], wi, wj); k >= 0 && v >= bestV {
			best, bestV = n8+k, v
		}
	}
	return best, bestV
}

// smoSelectAsm is backend.SMOSelectRef, split as smoGradientAsm.
func smoSelectAsm(low, g, qd []float64, qi []float32, gmax, qdi float64, obj []float64) (int, float64, float64) {
	n := len(g)
	n8 := n &^ 7
	jmin, objMin, lowMax := -1, math.Inf(1), math.Inf(-1)
	var objTail []float64
	if obj != nil {
		objTail = obj[n8:n]
	}
	if n8 > 0 {
		_, _, _ = low[n-1], qd[n-1], qi[n-1]
		var op *float64
		if obj != nil {
			_ = obj[n-1]
			op = &obj[0]
		}
		var out [16]float64
		var idx [8]int64
		smoSelectAVX(&low[0], &g[0], &qd[0], &qi[0], op, n8, gmax, qdi, &out[0], &idx[0])
		jmin, objMin = lastBest(out[:8], idx[:], func(a, b float64) bool { return a < b })
		for _, v := range out[8:] {
			if v >= lowMax {
				lowMax = v
			}
		}
	}
	if n8 < n {
		k, o, lm := backend.SMOSelectRef(low[n8:], g[n8:], qd[n8:], qi[n8:], gmax, qdi, objTail)
		if k >= 0 && o <= objMin {
			jmin, objMin = n8+k, o
		}
		if lm >= lowMax {
			lowMax = lm
		}
	}
	return jmin, objMin, lowMax
}

// lastBest reduces per-lane bests (lanes without a candidate have index
// −1) to the best value under better and, among lanes equal to it, the
// largest index: the last index attaining the best, as a sequential scan
// keeping ties finds. It returns (−1, v[0]) when no lane has a candidate.
func lastBest(v []float64, idx []int64, better func(a, b float64) bool) (int, float64) {
	k, bv := -1, v[0]
	for l := range v {
		if idx[l] < 0 {
			continue
		}
		if k < 0 || better(v[l], bv) || (v[l] == bv && int(idx[l]) > k) {
			k, bv = int(idx[l]), v[l]
		}
	}
	return k, bv
}

// smoAddScaledAsm is backend.SMOAddScaledRef.
func smoAddScaledAsm(dst, y []float64, row []float32, w float64) {
	n := len(dst)
	n8 := n &^ 7
	if n8 > 0 {
		_, _ = y[n-1], row[n-1]
		smoAddScaledAVX(&dst[0], &y[0], &row[0], n8, w)
	}
	if n8 < n {
		backend.SMOAddScaledRef(dst[n8:], y[n8:], row[n8:], w)
	}
}

// sparseRows is the width of sparseDotAsm: 32 lanes, four YMM registers
// a block row (one 128-byte pair of cache lines), so that a batch of 32
// rows is multiplied with the streamed operand in one pass over it.
const sparseRows = 32

// sparseDotAsm is CPUKernels.SparseDot for 32 lanes (sparseDotAVX). The
// driver's invariants make the assembly's reads safe: every column of idx
// is below len(pos) and every pos value names a block row of blk.
func sparseDotAsm(acc, blk []float32, pos, idx []int32, val []float32) {
	_ = acc[sparseRows-1]
	_ = blk[sparseRows-1]
	n := len(idx)
	if n == 0 {
		clear(acc[:sparseRows])
		return
	}
	_ = val[n-1]
	sparseDotAVX(&acc[0], &blk[0], &pos[0], &idx[0], &val[0], n)
}

// sparseChains is the number of partial sums of a lane of sparseDotAVX:
// the products of even-numbered non-zeros go to one, of odd-numbered ones
// to the other, and the lane is their sum.
const sparseChains = 2

// sparseScatterAsm is CPUKernels.SparseScatter (sparseScatterAVX), whose
// fused multiply-add is sparseDotAVX's. The driver's invariants make the
// assembly's writes safe: every slot of ent is below len(acc).
func sparseScatterAsm(acc []float32, ent []uint32, val []float32, x float32) {
	n := len(ent)
	if n == 0 {
		return
	}
	_ = val[n-1]
	sparseScatterAVX(&acc[0], &ent[0], &val[0], n, x)
}
