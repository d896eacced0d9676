package backend

import (
	"math"

	"github.com/pursuit-ml/pursuit/internal/f32"
)

// DotSet is one group of vectors of a CPUKernels.DotSets call: its
// products go to Acc as DotRows lays them out, its k vectors are
// V[j·VS : j·VS+n].
type DotSet struct {
	Acc []float64
	V   []float32
	VS  int
}

// CPUKernels is the table of inner loops the CPU driver runs: GoKernels
// returns the pure-Go set, package asm the assembly one. The blocking,
// packing layout and threading around them are the driver's.
type CPUKernels struct {
	// SqNorm returns ‖x‖² with float64 partial sums.
	SqNorm func(x []float32) float64
	// MaxGroup is the most vectors DotRows takes at once (4 or 8), and
	// RowsPerCall(k) how many rows its multi-row kernel for k vectors takes.
	MaxGroup    int
	RowsPerCall func(k int) int
	// RowsPerCallMany, if not nil, is RowsPerCall for a pass over several
	// groups of vectors (DictProductsSets), whose calls compute from
	// cache and gain from more rows at once where a lone group's pass,
	// streaming from memory, does not; DotRows takes up to the larger.
	RowsPerCallMany func(k int) int
	// DotSets, if not nil, is DotRows over the same rows for several groups
	// of k vectors each (group i: acc sets[i].Acc[accOff:], vectors
	// sets[i].V[vOff:] with stride sets[i].VS), with the same sums bit for
	// bit, taking several groups in one call where it has a kernel for that
	// (each row then read once for all of them). A pass over several sets
	// of vectors (one-vs-rest pre-fitting) uses it for consecutive groups
	// of equal size.
	DotSets func(sets []DotSet, accOff, vOff int, x []float32, xs, rows, n, k int)
	// DotRows adds <x_r, v_j> (r < rows ≤ RowsPerCall(k) or RowsPerCallMany(k), j < k) into
	// acc[4(r·k+j) : +4] (as up to 4 lane partial sums) for rows
	// x_r = x[r·xs : r·xs+n]; n is a multiple of 8. Partial sums are
	// float32 runs of at most 32 products added into float64.
	DotRows func(acc []float64, x []float32, xs, rows, n int, v []float32, vs, k int)
	// Axpys adds Σ_t c[t]·v[t·vs:t·vs+len(d)] to d, for t < len(c).
	Axpys func(d, c, v []float32, vs int)
	// Axpy4 does the same for four rows d_r = d[r·ds : r·ds+n] at once,
	// with coefficients c[4t+r].
	Axpy4 func(d []float32, ds, n int, c, v []float32, vs int)
	// Gemm computes the MR×NR tile c (row stride ldc) = ap·bpᵀ, or adds it
	// to c when accumulate is set; ap is kc×MR and bp kc×NR, packed by p.
	Gemm   func(kc int, ap, bp, c []float32, ldc int, accumulate bool)
	MR, NR int // the tile shape of Gemm
	// KC, MC and NC are the cache blocking (BLIS order): a KC×NR panel of
	// B stays in L1 while MC×KC of A streams from L2, and the packed KC×NC
	// block of B lives in L2 (or L3). MC is a multiple of MR, NC of NR.
	KC, MC, NC int
	// RBF replaces each value t of the rows×cols tile c (stride ldc; cols
	// NR or a multiple of 16) by exp(negGamma·max(an[i]+bn[j]−2t, 0)).
	RBF func(c []float32, ldc, rows, cols int, an, bn []float32, negGamma float32)
	// Poly replaces each value t of the rows×cols tile c (stride ldc; cols
	// as for RBF) by (gamma·t + coef0)^degree.
	Poly func(c []float32, ldc, rows, cols int, gamma, coef0 float32, degree int)
	// ArgMax is ScoredArgMax for len(s) == len(n) and skip nil or of the
	// same length.
	ArgMax func(s, n []float64, skip []bool) (int, float64)
	// Pack8 sets dst[p·ds+r] = src[r·ss+p] for r < 8, p < kc (a transposing
	// copy for packing GEMM panels).
	Pack8 func(dst []float32, ds int, src []float32, ss, kc int)
	// SMOGradient, SMOSelect and SMOAddScaled are the SMO scans
	// (SMOScanner), bit for bit the references'.
	SMOGradient  func(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64)
	SMOSelect    func(low, g, qd []float64, qi []float32, gmax, qdi float64, obj []float64) (int, float64, float64)
	SMOAddScaled func(dst, y []float64, row []float32, w float64)
	// SparseDot sets acc[t] = Σ_p val[p]·blk[pos[idx[p]]·SparseRows + t]
	// for t < SparseRows: the products of one sparse row (columns idx,
	// values val) with SparseRows rows scattered column-interleaved into
	// blk, pos mapping a column to its block row (0: a row of zeros). The
	// float32 sum of lane t may be split into partial sums, but its order
	// must depend on len(idx) only, never on the other lanes, so that a
	// product has the same bits in every batch (see the driver's sparse
	// path, sparse.go).
	SparseDot  func(acc, blk []float32, pos, idx []int32, val []float32)
	SparseRows int
	// SparseChains is the number of partial sums SparseDot splits a lane
	// into, 1 or 2 (0 counts as 1): non-zero p of the streamed row goes to
	// partial sum p mod SparseChains (each summed in increasing p,
	// starting from +0), and the lane is their sum.
	SparseChains int
	// SparseScatter sets acc[ent[e]] += val[e]·x for e < len(ent), in
	// increasing e, with SparseDot's multiply-add (fused where SparseDot's
	// is): one value x of a row against one column of a sparse operand
	// (the driver's column index, sparseColumns), whose entries name the
	// partial sum of their row that SparseDot would add them to. Summed
	// column by column in increasing column order, the partial sums are
	// SparseDot's, bit for bit. nil: the driver has no column path.
	SparseScatter func(acc []float32, ent []uint32, val []float32, x float32)
}

// GoKernels returns the pure-Go kernel table: a 2×4 register-tiled GEMM
// micro-kernel (accumulators in local variables, unrolled four times along
// the features, no bounds checks in its loop) on 64×256×256 blocks, the
// 8×1- and 2×4-row dot kernels (float32 runs of 32 products added into
// float64), axpys over up to four vectors per pass, and a float64 exp
// accurate to 1e-8 relative for the RBF transform.
func GoKernels() CPUKernels {
	return CPUKernels{
		SqNorm: f32.SqNorm, MaxGroup: 4, RowsPerCall: rowsPerCallGo, DotRows: dotRowsGo,
		Axpys: axpysGo, Axpy4: axpy4Go,
		Gemm: gemm2x4Go, MR: gemmMR, NR: gemmNR, KC: 256, MC: 64, NC: 256,
		RBF: rbfGo, Poly: polyGo, ArgMax: ScoredArgMaxRef, Pack8: pack8Go,
		SMOGradient: SMOGradientRef, SMOSelect: SMOSelectRef, SMOAddScaled: SMOAddScaledRef,
		SparseDot: sparseDotGo, SparseRows: 8, SparseChains: 1, SparseScatter: sparseScatterGo,
	}
}

// dictRun is the length of the float32 runs the dot kernels sum before
// adding them into float64: a float32 sum of at most 32 products has a
// relative error below 32·2⁻²⁴ ≈ 2e-6 of Σ|products|, and folding into
// float64 every 32 elements keeps that bound independent of the length.
const dictRun = 32

const (
	gemmMR = 2 // rows of A per micro-kernel
	gemmNR = 4 // rows of B per micro-kernel
)

func rowsPerCallGo(k int) int {
	switch k {
	case 1:
		return 8
	case 2:
		return 4
	case 4:
		return 2
	}
	return 1
}

func dotRowsGo(acc []float64, x []float32, xs, rows, n int, v []float32, vs, k int) {
	if n == 0 {
		return
	}
	xr := func(r int) []float32 { return x[r*xs : r*xs+n] }
	vr := func(j int) []float32 { return v[j*vs : j*vs+n] }
	var s [8]float64
	switch {
	case k == 1 && rows == 8:
		dot8x1(xr(0), xr(1), xr(2), xr(3), xr(4), xr(5), xr(6), xr(7), vr(0), &s)
		for q := range 8 {
			acc[4*q] += s[q]
		}
		return
	case k == 2 && rows == 4:
		// four rows against two vectors is dot2x4 with the roles swapped:
		// s[j*4+r] = <x_r, v_j>
		dot2x4(vr(0), vr(1), xr(0), xr(1), xr(2), xr(3), &s)
		for q := range 4 {
			acc[4*(q*2)] += s[q]
			acc[4*(q*2+1)] += s[4+q]
		}
		return
	case k == 4 && rows == 2:
		dot2x4(xr(0), xr(1), vr(0), vr(1), vr(2), vr(3), &s)
		for q := range 8 {
			acc[4*q] += s[q]
		}
		return
	}
	for r := range rows { // the other shapes (block tails): row by row
		for j := range k {
			acc[4*(r*k+j)] += dot1(xr(r), vr(j))
		}
	}
}

// dot8x1 sets s[r] = <d_r, v> for eight rows: float32 sums over runs of
// dictRun elements added into float64.
func dot8x1(d0, d1, d2, d3, d4, d5, d6, d7, v []float32, s *[8]float64) {
	n := len(v)
	d0, d1, d2, d3, d4, d5, d6, d7 = d0[:n], d1[:n], d2[:n], d3[:n], d4[:n], d5[:n], d6[:n], d7[:n]
	*s = [8]float64{}
	for p0 := 0; p0 < n; p0 += dictRun {
		p1 := p0 + dictRun
		if p1 > n {
			p1 = n
		}
		var a0, a1, a2, a3, a4, a5, a6, a7 float32
		for i := p0; i < p1; i++ {
			y := v[i]
			a0 += d0[i] * y
			a1 += d1[i] * y
			a2 += d2[i] * y
			a3 += d3[i] * y
			a4 += d4[i] * y
			a5 += d5[i] * y
			a6 += d6[i] * y
			a7 += d7[i] * y
		}
		s[0] += float64(a0)
		s[1] += float64(a1)
		s[2] += float64(a2)
		s[3] += float64(a3)
		s[4] += float64(a4)
		s[5] += float64(a5)
		s[6] += float64(a6)
		s[7] += float64(a7)
	}
}

// dot2x4 sets s[r*4+j] = <d_r, v_j> for two rows and four vectors.
func dot2x4(d0, d1, v0, v1, v2, v3 []float32, s *[8]float64) {
	n := len(d0)
	d1, v0, v1, v2, v3 = d1[:n], v0[:n], v1[:n], v2[:n], v3[:n]
	*s = [8]float64{}
	for p0 := 0; p0 < n; p0 += dictRun {
		p1 := p0 + dictRun
		if p1 > n {
			p1 = n
		}
		var a00, a01, a02, a03, a10, a11, a12, a13 float32
		xs0, xs1 := d0[p0:p1], d1[p0:p1]
		ys0, ys1, ys2, ys3 := v0[p0:p1], v1[p0:p1], v2[p0:p1], v3[p0:p1]
		for i, x0 := range xs0 {
			x1 := xs1[i]
			y := ys0[i]
			a00 += x0 * y
			a10 += x1 * y
			y = ys1[i]
			a01 += x0 * y
			a11 += x1 * y
			y = ys2[i]
			a02 += x0 * y
			a12 += x1 * y
			y = ys3[i]
			a03 += x0 * y
			a13 += x1 * y
		}
		// The float64 sums live in *s, not in registers, which the float32
		// loop above needs all of.
		s[0] += float64(a00)
		s[1] += float64(a01)
		s[2] += float64(a02)
		s[3] += float64(a03)
		s[4] += float64(a10)
		s[5] += float64(a11)
		s[6] += float64(a12)
		s[7] += float64(a13)
	}
}

// dot1 is the single-row inner product, with the same accumulation scheme.
func dot1(d, v []float32) float64 {
	n := len(v)
	d = d[:n]
	var s float64
	for p0 := 0; p0 < n; p0 += dictRun {
		p1 := p0 + dictRun
		if p1 > n {
			p1 = n
		}
		var a, b float32
		i := p0
		for ; i+1 < p1; i += 2 {
			a += d[i] * v[i]
			b += d[i+1] * v[i+1]
		}
		if i < p1 {
			a += d[i] * v[i]
		}
		s += float64(a) + float64(b)
	}
	return s
}

// kern2x4 computes the 2×4 block c[r*4+j] = Σ_p a[p*2+r]·b[p*4+j] of two
// packed micro-panels whose length is a multiple of 4 steps (unrolled: 30%
// faster than one step per iteration in the pure-Go KernelBlock). The
// accumulators are locals so that the compiler keeps them in registers; the
// loop condition proves every index in bounds.
func kern2x4(a, b []float32, c *[gemmMR * gemmNR]float32) {
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	for len(a) >= 8 && len(b) >= 16 {
		a0, a1 := a[0], a[1]
		b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a0, a1 = a[2], a[3]
		b0, b1, b2, b3 = b[4], b[5], b[6], b[7]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a0, a1 = a[4], a[5]
		b0, b1, b2, b3 = b[8], b[9], b[10], b[11]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a0, a1 = a[6], a[7]
		b0, b1, b2, b3 = b[12], b[13], b[14], b[15]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a = a[8:]
		b = b[16:]
	}
	c[0], c[1], c[2], c[3] = c00, c01, c02, c03
	c[4], c[5], c[6], c[7] = c10, c11, c12, c13
}

// axpysGo adds Σ_t c[t]·v_t to d, taking the vectors in groups of up to
// four so that d is read and written once per group.
func axpysGo(d, c, v []float32, vs int) {
	n := len(d)
	k := len(c)
	for t := 0; t < k; {
		switch k - t {
		case 1:
			c0, v0 := c[t], v[t*vs:][:n]
			for j, x := range v0 {
				d[j] += c0 * x
			}
			t++
		case 2, 3:
			c0, c1 := c[t], c[t+1]
			v0, v1 := v[t*vs:][:n], v[(t+1)*vs:][:n]
			for j, x := range v0 {
				d[j] += c0*x + c1*v1[j]
			}
			t += 2
		default:
			c0, c1, c2, c3 := c[t], c[t+1], c[t+2], c[t+3]
			v0, v1, v2, v3 := v[t*vs:][:n], v[(t+1)*vs:][:n], v[(t+2)*vs:][:n], v[(t+3)*vs:][:n]
			j := 0
			for ; j+2 <= n; j += 2 { // two elements a step: less loop overhead
				e, f := d[j:j+2:j+2], v0[j:j+2:j+2]
				g, h, q := v1[j:j+2:j+2], v2[j:j+2:j+2], v3[j:j+2:j+2]
				e[0] += (c0*f[0] + c1*g[0]) + (c2*h[0] + c3*q[0])
				e[1] += (c0*f[1] + c1*g[1]) + (c2*h[1] + c3*q[1])
			}
			for ; j < n; j++ {
				d[j] += (c0*v0[j] + c1*v1[j]) + (c2*v2[j] + c3*v3[j])
			}
			t += 4
		}
	}
}

func axpy4Go(d []float32, ds, n int, c, v []float32, vs int) {
	k := len(c) / 4
	var buf [16]float32
	for r := 0; r < 4; r++ {
		row := d[r*ds : r*ds+n]
		for t0 := 0; t0 < k; t0 += len(buf) {
			t1 := min(t0+len(buf), k)
			ct := buf[:t1-t0]
			for t := t0; t < t1; t++ {
				ct[t-t0] = c[4*t+r]
			}
			axpysGo(row, ct, v[t0*vs:], vs)
		}
	}
}

// gemm2x4Go is the Gemm kernel of GoKernels: kern2x4 over the features in
// steps of four, then the remaining ones.
func gemm2x4Go(kc int, ap, bp, c []float32, ldc int, accumulate bool) {
	var t [gemmMR * gemmNR]float32
	k4 := kc &^ 3
	kern2x4(ap[:k4*gemmMR], bp[:k4*gemmNR], &t)
	for p := k4; p < kc; p++ {
		a, b := ap[p*gemmMR:p*gemmMR+gemmMR], bp[p*gemmNR:p*gemmNR+gemmNR]
		for i, ai := range a {
			for j, bj := range b {
				t[i*gemmNR+j] += ai * bj
			}
		}
	}
	r0, r1 := c[:4:4], c[ldc:ldc+4:ldc+4]
	if accumulate {
		r0[0] += t[0]
		r0[1] += t[1]
		r0[2] += t[2]
		r0[3] += t[3]
		r1[0] += t[4]
		r1[1] += t[5]
		r1[2] += t[6]
		r1[3] += t[7]
		return
	}
	r0[0], r0[1], r0[2], r0[3] = t[0], t[1], t[2], t[3]
	r1[0], r1[1], r1[2], r1[3] = t[4], t[5], t[6], t[7]
}

func rbfGo(c []float32, ldc, rows, cols int, an, bn []float32, negGamma float32) {
	g := float64(negGamma)
	bn = bn[:cols]
	for i := 0; i < rows; i++ {
		ai := float64(an[i])
		row := c[i*ldc : i*ldc+cols]
		for j, v := range row {
			row[j] = float32(expNeg(g * max(ai+float64(bn[j])-2*float64(v), 0)))
		}
	}
}

func polyGo(c []float32, ldc, rows, cols int, gamma, coef0 float32, degree int) {
	for i := 0; i < rows; i++ {
		row := c[i*ldc : i*ldc+cols]
		for j, t := range row {
			row[j] = float32(f32.PowInt(float64(gamma)*float64(t)+float64(coef0), degree))
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

// expNeg returns e^x for x ≤ 0 with a relative error below 1e-8 (a fifth
// of a float32 ulp) down to e^-87 ≈ 1.6e-38, the float32 normal range; it
// returns below 1e-45 (float32 zero) for x < −104 and NaN for NaN.
// It reduces x = k·ln2 + r with |r| ≤ ln2/2 and evaluates the degree-7
// Taylor polynomial of e^r (truncation error |r|⁸/8! < 5.3e-9), then scales
// by 2^k through the exponent bits. It is about twice as fast as math.Exp,
// whose full float64 accuracy a float32 kernel value cannot use.
func expNeg(x float64) float64 {
	if x < -104 {
		x = -104 // e^-104 rounds to float32 zero; NaN passes through
	}
	const (
		log2e = 1.4426950408889634
		ln2   = 0.6931471805599453
		round = 0x1.8p52 // adding it rounds a small float64 to an integer
	)
	t := x*log2e + round
	k := t - round
	r := x - k*ln2
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52) // k ∈ [−150, 0]
}
