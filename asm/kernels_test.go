package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/cpuid/v2"

	"github.com/pursuit-ml/pursuit/backend"
)

// Tests of the individual kernels (assembly and Go twin) against float64
// references, on lengths that cover every unrolled loop and its tails.

// kernelSets returns the kernel implementations to test: always the Go
// twins, plus the assembly when it can run here.
func kernelSets(t testing.TB) map[string]kernels {
	sets := map[string]kernels{"go": goKernels()}
	if ok, why := Available(); ok {
		sets["asm"] = asmKernels(false)
		if cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL) {
			sets["asm512"] = asmKernels(true)
		}
	} else {
		t.Logf("assembly not tested: %s", why)
	}
	return sets
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.Float64()*4 - 2)
	}
	return s
}

// testLengths covers 0…80 (every tail of the 8-, 16-, 32- and 64-wide
// loops) and lengths around the 256-element flush chunk.
func testLengths() []int {
	var ns []int
	for n := 0; n <= 80; n++ {
		ns = append(ns, n)
	}
	return append(ns, 255, 256, 257, 263, 511, 512, 1000, 1031, 4099)
}

func TestSqNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for name, ks := range kernelSets(t) {
		for _, n := range testLengths() {
			off := rng.IntN(7)
			x := randSlice(rng, off+n)[off:]
			var want float64
			for _, v := range x {
				want += float64(v) * float64(v)
			}
			// float32 runs of ≤ 32 products, then float64.
			if got, tol := ks.SqNorm(x), 40*0x1p-24*want+1e-30; math.Abs(got-want) > tol {
				t.Errorf("%s SqNorm n=%d: got %v want %v (tol %.3g)", name, n, got, want, tol)
			}
		}
	}
}

func TestAxpys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, ks := range kernelSets(t) {
		for _, k := range []int{1, 2, 3, 5, 8, 11} {
			for _, n := range testLengths() {
				off := rng.IntN(7)
				vs := n + rng.IntN(5)
				buf := randSlice(rng, off+n+8)
				d := buf[off : off+n]
				guard := append([]float32(nil), buf[off+n:]...)
				d0 := append([]float32(nil), d...)
				c := randSlice(rng, k)
				v := randSlice(rng, off+(k-1)*vs+n)[off:]
				ks.Axpys(d, c, v, vs)
				for i := 0; i < n; i++ {
					want, s := float64(d0[i]), math.Abs(float64(d0[i]))
					for t := 0; t < k; t++ {
						p := float64(c[t]) * float64(v[t*vs+i])
						want += p
						s += math.Abs(p)
					}
					if tol := float64(2*k+4) * 0x1p-24 * s; math.Abs(float64(d[i])-want) > tol {
						t.Errorf("%s axpys k=%d n=%d i=%d: got %v want %v", name, k, n, i, d[i], want)
						break
					}
				}
				for i, g := range buf[off+n:] {
					if g != guard[i] {
						t.Fatalf("%s axpys k=%d n=%d wrote past the end", name, k, n)
					}
				}
			}
		}
	}
}

func TestGemmTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	for name, ks := range kernelSets(t) {
		mr, nr := ks.MR, ks.NR
		for _, kc := range []int{1, 2, 3, 4, 5, 7, 8, 9, 33, 256} {
			for _, acc := range []bool{false, true} {
				ldc := nr + rng.IntN(5)
				ap := randSlice(rng, kc*mr)
				bp := randSlice(rng, kc*nr)
				c := randSlice(rng, mr*ldc)
				c0 := append([]float32(nil), c...)
				ks.Gemm(kc, ap, bp, c, ldc, acc)
				for i := 0; i < mr; i++ {
					for j := 0; j < ldc; j++ {
						at := i*ldc + j
						if j >= nr {
							if c[at] != c0[at] {
								t.Fatalf("%s gemm kc=%d wrote outside the tile at (%d,%d)", name, kc, i, j)
							}
							continue
						}
						var want, s float64
						if acc {
							want, s = float64(c0[at]), math.Abs(float64(c0[at]))
						}
						for p := 0; p < kc; p++ {
							x := float64(ap[p*mr+i]) * float64(bp[p*nr+j])
							want += x
							s += math.Abs(x)
						}
						if tol := float64(2*kc+4) * 0x1p-24 * s; math.Abs(float64(c[at])-want) > tol {
							t.Fatalf("%s gemm kc=%d acc=%v (%d,%d): got %v want %v", name, kc, acc, i, j, c[at], want)
						}
					}
				}
			}
		}
	}
}

func TestRBFTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	for name, ks := range kernelSets(t) {
		mr, nr := ks.MR, ks.NR
		for rows := 0; rows <= mr; rows++ {
			ldc := nr + 3
			c := make([]float32, max(rows*ldc, 1))
			an := make([]float32, mr)
			bn := make([]float32, nr)
			for i := range an {
				an[i] = float32(rng.Float64() * 50)
			}
			for j := range bn {
				bn[j] = float32(rng.Float64() * 50)
			}
			for i := range c {
				c[i] = float32(rng.Float64()*60 - 20)
			}
			c0 := append([]float32(nil), c...)
			const gamma = 0.7
			ks.RBF(c, ldc, rows, nr, an, bn, -gamma)
			for i := 0; i < rows; i++ {
				for j := 0; j < ldc; j++ {
					got, at := c[i*ldc+j], i*ldc+j
					if j >= nr {
						if got != c0[at] {
							t.Fatalf("%s rbf wrote outside the tile", name)
						}
						continue
					}
					dist := float64(an[i]) + float64(bn[j]) - 2*float64(c0[at])
					want := math.Exp(-gamma * math.Max(dist, 0))
					// float32 evaluation of the distance (3 roundings of
					// terms up to an+bn+2|t|), the argument and exp, plus
					// the flush to 0 below 2⁻¹²⁶.
					scale := float64(an[i]) + float64(bn[j]) + 2*math.Abs(float64(c0[at]))
					tol := want*(4*0x1p-24+gamma*4*0x1p-24*scale) + 0x1p-126
					if math.Abs(float64(got)-want) > tol {
						t.Errorf("%s rbf (%d,%d) dist %v: got %v want %v", name, i, j, dist, got, want)
					}
				}
			}
		}
	}
}

// expUnderflow is the input below which the vectorised exp returns exactly
// 0 (e^x is then below the smallest normal float32): −126·ln2 rounded.
const expUnderflow = -87.3365478515625

// expMaxRelErr is the maximum relative error the vectorised exp is allowed
// (and, per TestExpAccuracy, achieves with margin) over [−87.3365, 0].
const expMaxRelErr = 2 * 0x1p-24

// expThroughRBF sets dst[i] = exp(src[i]) with the table's RBF transform,
// the one place the kernels compute exp: with zero norms and negGamma = −1
// a tile value t = x/2 (exact) becomes exp(−1·max(0 + 0 − 2t, 0)) = e^x for
// x ≤ 0, and NaN stays NaN. len(src) is a multiple of 32.
func expThroughRBF(k kernels, dst, src []float32) {
	copy(dst, src)
	for i := range dst[:len(src)] {
		dst[i] /= 2
	}
	rows := len(src) / 32
	k.RBF(dst, 32, rows, 32, make([]float32, rows), make([]float32, 32), -1)
}

// TestExpAccuracy sweeps every 61st float32 in [−88, 0] (about 17 million
// inputs, each exponent range densely) through each table's RBF transform
// and checks the relative error of its exp against math.Exp, zeros below
// the underflow bound (exact zeros for the assembly; the pure-Go exp, which
// is float64, rounds to float32 subnormals there), and no NaN. Set
// PURSUIT_EXP_EXHAUSTIVE=1 to test every float32 instead.
func TestExpAccuracy(t *testing.T) {
	ks := kernelSets(t)
	step := uint32(61)
	if testing.Short() {
		step = 997
	}
	if envSet("PURSUIT_EXP_EXHAUSTIVE") {
		step = 1
	}
	for name, k := range ks {
		if name == "go" && step < 997 {
			continue // math.Exp twin: checked only in -short mode
		}
		const batch = 1 << 14
		src := make([]float32, 0, batch)
		dst := make([]float32, batch)
		var worst float64
		var worstX float32
		check := func() {
			for len(src)%32 != 0 {
				src = append(src, 0)
			}
			expThroughRBF(k, dst, src)
			for i, x := range src {
				got := float64(dst[i])
				switch {
				case math.IsNaN(got):
					t.Fatalf("%s exp(%v) = NaN", name, x)
				case float64(x) < expUnderflow:
					if got != 0 && (name != "go" || got >= 0x1p-126) {
						t.Fatalf("%s exp(%v) = %v, want 0 below the underflow bound", name, x, got)
					}
				default:
					want := math.Exp(float64(x))
					if e := math.Abs(got-want) / want; e > worst {
						worst, worstX = e, x
					}
				}
			}
			src = src[:0]
		}
		// −0 … −88: float32 bit patterns 0x80000000 … 0xc2b00000.
		for bits := uint32(0x80000000); bits <= 0xc2b00000; bits += step {
			src = append(src, math.Float32frombits(bits))
			if len(src) == batch {
				check()
			}
		}
		src = append(src, 0, float32(math.Inf(-1)), -1e30, -87.33, expUnderflow, -88, -100)
		check()
		t.Logf("%s exp: max relative error %.3g (%.2f ulp of 2⁻²⁴) at x = %v", name, worst, worst/0x1p-24, worstX)
		if worst > expMaxRelErr {
			t.Errorf("%s exp: max relative error %.3g at x = %v exceeds %.3g", name, worst, worstX, expMaxRelErr)
		}
		// NaN propagates.
		nan := make([]float32, 32)
		nan[5] = float32(math.NaN())
		out := make([]float32, 32)
		expThroughRBF(k, out, nan)
		if !math.IsNaN(float64(out[5])) || out[4] != 1 {
			t.Errorf("%s exp(NaN) = %v, exp(0) = %v, want NaN and 1", name, out[5], out[4])
		}
	}
}

// TestDotRows checks every dotRows shape of every kernel set (including the
// AVX-512 4×4, 2×8 and 8×2 kernels and their 8-element tails).
func TestDotRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	for name, ks := range kernelSets(t) {
		for _, k := range []int{1, 2, 4, 8} {
			if k > ks.MaxGroup {
				continue
			}
			most := ks.RowsPerCall(k)
			if ks.RowsPerCallMany != nil {
				most = max(most, ks.RowsPerCallMany(k))
			}
			for rows := 1; rows <= most; rows++ {
				for n := 0; n <= 600; n += 8 {
					if n > 80 && n%256 != 8 && n%256 != 0 {
						continue
					}
					xs, vs := n+rng.IntN(4), n+rng.IntN(4)
					x := randSlice(rng, rows*xs+n)
					v := randSlice(rng, k*vs+n)
					acc := make([]float64, 4*rows*k)
					ks.DotRows(acc, x, xs, rows, n, v, vs, k)
					for r := 0; r < rows; r++ {
						for j := 0; j < k; j++ {
							var want, s float64
							for i := 0; i < n; i++ {
								p := float64(x[r*xs+i]) * float64(v[j*vs+i])
								want += p
								s += math.Abs(p)
							}
							a := acc[4*(r*k+j):]
							got := a[0] + a[1] + a[2] + a[3]
							if math.Abs(got-want) > 40*0x1p-24*s+1e-30 {
								t.Fatalf("%s dotRows rows=%d k=%d n=%d (%d,%d): got %v want %v", name, rows, k, n, r, j, got, want)
							}
						}
					}
				}
			}
		}
	}
}

func TestAxpy4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	for name, ks := range kernelSets(t) {
		for _, k := range []int{1, 2, 3, 8} {
			for _, n := range testLengths() {
				ds := n + 1 + rng.IntN(5)
				buf := randSlice(rng, 3*ds+n+8)
				d0 := append([]float32(nil), buf...)
				c := randSlice(rng, 4*k)
				vs := n + rng.IntN(3)
				v := randSlice(rng, (k-1)*vs+n+1)
				ks.Axpy4(buf, ds, n, c, v, vs)
				for p := range buf {
					r, i := p/ds, p%ds
					want, s := float64(d0[p]), math.Abs(float64(d0[p]))
					if r < 4 && i < n {
						for tt := 0; tt < k; tt++ {
							x := float64(c[4*tt+r]) * float64(v[tt*vs+i])
							want += x
							s += math.Abs(x)
						}
					}
					if math.Abs(float64(buf[p])-want) > float64(2*k+4)*0x1p-24*s {
						t.Fatalf("%s axpy4 k=%d n=%d element %d (row %d, col %d): got %v want %v", name, k, n, p, r, i, buf[p], want)
					}
				}
			}
		}
	}
}

func TestPolyTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 6))
	for name, ks := range kernelSets(t) {
		for _, deg := range []int{1, 2, 3, 4, 7} {
			for rows := 0; rows <= 3; rows++ {
				cols, ldc := 32, 35
				c := randSlice(rng, max(rows*ldc, 1))
				c0 := append([]float32(nil), c...)
				const gamma, coef0 = 0.75, 0.5
				ks.Poly(c, ldc, rows, cols, gamma, coef0, deg)
				for p := range c {
					i, j := p/ldc, p%ldc
					if i >= rows || j >= cols {
						if c[p] != c0[p] {
							t.Fatalf("%s poly wrote outside the tile", name)
						}
						continue
					}
					y := gamma*float64(c0[p]) + coef0
					want := math.Pow(y, float64(deg))
					tol := float64(2*deg+2)*0x1p-24*math.Pow(math.Abs(y), float64(deg)) + 1e-30
					if math.Abs(float64(c[p])-want) > tol {
						t.Fatalf("%s poly deg %d (%d,%d): got %v want %v", name, deg, i, j, c[p], want)
					}
				}
			}
		}
	}
}

func TestPack8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 8))
	for name, ks := range kernelSets(t) {
		for _, kc := range []int{0, 1, 7, 8, 9, 16, 33, 256} {
			ss, ds := kc+rng.IntN(4), 8+rng.IntN(20)
			src := randSlice(rng, 7*ss+kc+1)
			dst := randSlice(rng, max(kc, 1)*ds)
			dst0 := append([]float32(nil), dst...)
			ks.Pack8(dst, ds, src, ss, kc)
			for q := range dst {
				p, r := q/ds, q%ds
				want := dst0[q]
				if r < 8 && p < kc {
					want = src[r*ss+p]
				}
				if dst[q] != want {
					t.Fatalf("%s pack8 kc=%d: dst[%d] (p=%d, r=%d) = %v, want %v", name, kc, q, p, r, dst[q], want)
				}
			}
		}
	}
}

// TestDotPairs512MatchesAVX2: with 1 or 2 vectors the AVX-512 table's
// products (8 rows × 2 vectors at once in dot8r2AVX512, and several groups
// at once in DotSets: dot8r2x2AVX512, dot4r1x4AVX512, dot4r1x2AVX512) are,
// bit for bit, those of the AVX2 table (4-row groups in dot4r2AVX and
// dot4AVX, single rows in dot1AVX), so that a machine's results do not
// depend on which of the two runs them, nor on the groups beside them.
func TestDotPairs512MatchesAVX2(t *testing.T) {
	sets := kernelSets(t)
	k512, ok1 := sets["asm512"]
	k256, ok2 := sets["asm"]
	if !ok1 || !ok2 {
		t.Skip("needs AVX-512F and AVX2")
	}
	rng := rand.New(rand.NewPCG(3, 9))
	// avx2 is the AVX2 table's sums of rows x against the k vectors v.
	avx2 := func(x []float32, xs, rows, n int, v []float32, vs, k int) []float64 {
		want := make([]float64, 4*rows*k)
		for r := 0; r < rows; r += k256.RowsPerCall(k) {
			nr := min(k256.RowsPerCall(k), rows-r)
			k256.DotRows(want[4*k*r:], x[r*xs:], xs, nr, n, v, vs, k)
		}
		return want
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: lane sum %d is %v with AVX-512, %v with AVX2", what, i, got[i], want[i])
			}
		}
	}
	for _, k := range []int{1, 2} {
		for rows := 1; rows <= k512.RowsPerCallMany(k); rows++ {
			for _, n := range []int{8, 16, 24, 248, 256, 264, 512, 1024, 1032} {
				xs := n + rng.IntN(20)
				x := randSlice(rng, rows*xs+n)
				var ds []backend.DotSet
				var want [][]float64
				for range 7 {
					vs := n + rng.IntN(20)
					v := randSlice(rng, (k-1)*vs+n)
					ds = append(ds, backend.DotSet{Acc: make([]float64, 4*rows*k), V: v, VS: vs})
					want = append(want, avx2(x, xs, rows, n, v, vs, k))
				}
				got := make([]float64, 4*rows*k)
				k512.DotRows(got, x, xs, rows, n, ds[0].V, ds[0].VS, k)
				same(fmt.Sprintf("DotRows k=%d rows=%d n=%d", k, rows, n), got, want[0])
				for m := 1; m <= len(ds); m++ {
					for _, d := range ds[:m] {
						clear(d.Acc)
					}
					k512.DotSets(ds[:m], 0, 0, x, xs, rows, n, k)
					for i, d := range ds[:m] {
						same(fmt.Sprintf("DotSets k=%d rows=%d n=%d, group %d of %d", k, rows, n, i, m), d.Acc, want[i])
					}
				}
			}
		}
	}
}

// TestSparseDot checks the SparseDot kernels against a float64 reference
// on rows of every length up to 80 and beyond, with a map sending some
// columns to the zero block row, and that a lane's value does not depend
// on the other lanes (the same row against a block whose other lanes
// differ gives the same bits).
func TestSparseDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for name, ks := range kernelSets(t) {
		w := ks.SparseRows
		const d, rowsB = 300, 40
		pos := make([]int32, d)
		for c := range pos {
			if c%5 != 0 {
				pos[c] = int32(1 + rng.IntN(rowsB))
			}
		}
		blk := randSlice(rng, (rowsB+1)*w)
		clear(blk[:w])
		other := append([]float32(nil), blk...)
		for i := w; i < len(other); i += w {
			other[i+w-1] *= 3 // a different last lane
		}
		acc, acc2 := make([]float32, w), make([]float32, w)
		for _, n := range append(testLengths()[:81], 150, 299) {
			idx := make([]int32, 0, n)
			for _, c := range rng.Perm(d)[:n] {
				idx = append(idx, int32(c))
			}
			val := randSlice(rng, n)
			ks.SparseDot(acc, blk, pos, idx, val)
			for lane := 0; lane < w; lane++ {
				var want, abs float64
				for p, c := range idx {
					x := float64(val[p]) * float64(blk[int(pos[c])*w+lane])
					want += x
					abs += math.Abs(x)
				}
				if got := float64(acc[lane]); math.Abs(got-want) > 2*float64(n+4)*0x1p-24*abs {
					t.Fatalf("%s: n=%d lane %d: %v, want %v", name, n, lane, got, want)
				}
			}
			ks.SparseDot(acc2, other, pos, idx, val)
			for lane := 0; lane < w-1; lane++ {
				if math.Float32bits(acc[lane]) != math.Float32bits(acc2[lane]) {
					t.Fatalf("%s: n=%d lane %d: %v, %v with other values in lane %d", name, n, lane, acc[lane], acc2[lane], w-1)
				}
			}
		}
	}
}
