package asm

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// testBackends returns every path the package can take on this machine:
// the assembly (1 and 2 threads, and with the AVX-512 kernels masked where
// the CPU has them) when available, and the pure-Go kernels forced by
// masking AVX2 or FMA. Under the race detector it returns the parallel
// assembly paths only: one thread has no races to find, and the masked
// backends run the driver with the pure-Go kernels, which package
// backend's race tests cover (backend.NewGo is that driver).
func testBackends(t testing.TB) map[string]*Backend {
	bs := map[string]*Backend{
		"noavx2-2t": newBackend(WithAVX2(false), WithThreads(2)),
		"nofma-1t":  newBackend(WithFMA(false), WithThreads(1)),
	}
	for name, b := range bs {
		if b.UsesAssembly() {
			t.Fatalf("%s: masked backend still uses assembly", name)
		}
	}
	if ok, why := Available(); ok {
		for _, th := range []int{1, 2} {
			be, err := New(WithThreads(th))
			if err != nil {
				t.Fatal(err)
			}
			b := be.(*Backend)
			if !b.UsesAssembly() || b.Threads() != th || b.Name() != "avx2" {
				t.Fatalf("New(WithThreads(%d)) = %v", th, b)
			}
			bs[fmt.Sprintf("asm-%dt", th)] = b
		}
		if b := newBackend(WithAVX512(false), WithThreads(2)); b.UsesAVX512() || !b.UsesAssembly() {
			t.Fatalf("WithAVX512(false) gave %v", b)
		} else if bs["asm-2t"].UsesAVX512() {
			bs["asm-noavx512-2t"] = b // without AVX-512 it is asm-2t again
		}
		if raceEnabled {
			maps.DeleteFunc(bs, func(_ string, b *Backend) bool { return b.Threads() == 1 || !b.UsesAssembly() })
		}
	} else {
		t.Logf("assembly paths not tested: %s", why)
	}
	return bs
}

// randView returns a rows×cols view with a random extra stride and offset
// inside a buffer whose other elements are NaN, so reads outside the view
// poison results and writes outside it are detectable.
func randView(rng *rand.Rand, rows, cols int) (pursuit.Matrix, []float32) {
	stride := cols + rng.IntN(4)
	off := rng.IntN(5)
	n := off + 7
	if rows > 0 {
		n += (rows-1)*stride + cols
	}
	buf := make([]float32, n)
	for i := range buf {
		buf[i] = float32(math.NaN())
	}
	m := pursuit.Matrix{Rows: rows, Cols: cols, Stride: stride}
	if rows > 0 && cols > 0 {
		m.Data = buf[off : off+(rows-1)*stride+cols]
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			m.Set(i, j, float32(rng.Float64()*2-1))
		}
	}
	return m, buf
}

// checkOutside fails when a NaN guard of buf outside view m was overwritten.
func checkOutside(t testing.TB, what string, m pursuit.Matrix, buf []float32) {
	t.Helper()
	if m.Rows == 0 || m.Cols == 0 {
		for i, v := range buf {
			if !math.IsNaN(float64(v)) {
				t.Fatalf("%s: wrote buffer element %d of an empty view", what, i)
			}
		}
		return
	}
	base := 0
	for ; base < len(buf) && &buf[base] != &m.Data[0]; base++ {
	}
	for p, v := range buf {
		q := p - base
		in := q >= 0 && q/m.Stride < m.Rows && q%m.Stride < m.Cols
		if !in && !math.IsNaN(float64(v)) {
			t.Fatalf("%s: wrote outside the view at buffer element %d", what, p)
		}
	}
}

func dot64(a, b []float32) (dot, abs float64) {
	for i := range a {
		p := float64(a[i]) * float64(b[i])
		dot += p
		abs += math.Abs(p)
	}
	return dot, abs
}

const u32 = 0x1p-24

func TestSqNormsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	for name, b := range testBackends(t) {
		for _, sh := range [][2]int{{0, 5}, {1, 0}, {1, 1}, {3, 7}, {17, 33}, {64, 257}, {300, 100}} {
			x, _ := randView(rng, sh[0], sh[1])
			dst := make([]float32, sh[0]+1)
			dst[sh[0]] = -1
			if err := b.SqNorms(dst, x); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < x.Rows; i++ {
				want, _ := dot64(x.Row(i), x.Row(i))
				if math.Abs(float64(dst[i])-want) > 4*u32*want {
					t.Errorf("%s SqNorms %v row %d: got %v want %v", name, sh, i, dst[i], want)
				}
			}
			if dst[sh[0]] != -1 {
				t.Errorf("%s SqNorms wrote past x.Rows", name)
			}
		}
	}
}

func TestDictProductsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for name, b := range testBackends(t) {
		for _, rows := range []int{0, 1, 5, 33, 200} {
			for _, cols := range []int{0, 1, 7, 8, 31, 257, 1000} {
				for _, k := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 13} {
					dict, _ := randView(rng, rows, cols)
					vecs, _ := randView(rng, k, cols)
					dst := make([]float64, rows*k+1)
					dst[rows*k] = -7
					if err := b.DictProducts(dst, dict, vecs); err != nil {
						t.Fatal(err)
					}
					for j := 0; j < k; j++ {
						for i := 0; i < rows; i++ {
							want, s := dot64(dict.Row(i), vecs.Row(j))
							if got := dst[j*rows+i]; math.Abs(got-want) > 40*u32*s+1e-300 {
								t.Fatalf("%s DictProducts %d×%d k=%d (i=%d,j=%d): got %v want %v", name, rows, cols, k, i, j, got, want)
							}
						}
					}
					if dst[rows*k] != -7 {
						t.Fatalf("%s DictProducts wrote past the end", name)
					}
				}
			}
		}
	}
}

// TestDictProductsFloat64 checks that long products keep float64 accuracy:
// a float32 accumulation of 100000 × 0.1 would be off by ~1e-3 relative.
func TestDictProductsFloat64(t *testing.T) {
	const n = 100000
	dict := pursuit.NewMatrix(1, n)
	vecs := pursuit.NewMatrix(8, n)
	for i := range dict.Data {
		dict.Data[i] = 1
	}
	for i := range vecs.Data {
		vecs.Data[i] = 0.1
	}
	want := float64(n) * float64(float32(0.1))
	for name, b := range testBackends(t) {
		for _, k := range []int{1, 2, 4, 8} {
			dst := make([]float64, k)
			if err := b.DictProducts(dst, dict, vecs.Slice(0, k, 0, n)); err != nil {
				t.Fatal(err)
			}
			for j, got := range dst {
				if math.Abs(got-want) > 40*u32*want { // float32 runs of ≤ 32 products
					t.Errorf("%s k=%d j=%d: got %.12g want %.12g", name, k, j, got, want)
				}
			}
		}
	}
}

func TestRankUpdateRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for name, b := range testBackends(t) {
		for _, sh := range [][2]int{{0, 3}, {3, 0}, {1, 1}, {7, 9}, {33, 70}, {100, 257}, {513, 300}} {
			for _, k := range []int{0, 1, 2, 3, 8, 9} {
				d, dbuf := randView(rng, sh[0], sh[1])
				uu, _ := randView(rng, k, sh[0])
				vv, _ := randView(rng, k, sh[1])
				d0 := make([]float32, len(d.Data))
				copy(d0, d.Data)
				before := pursuit.Matrix{Rows: d.Rows, Cols: d.Cols, Stride: d.Stride, Data: d0}
				const alpha = -0.75
				if err := b.RankUpdate(d, alpha, uu, vv); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < d.Rows; i++ {
					for j := 0; j < d.Cols; j++ {
						want, s := float64(before.At(i, j)), math.Abs(float64(before.At(i, j)))
						for tt := 0; tt < k; tt++ {
							p := alpha * float64(uu.At(tt, i)) * float64(vv.At(tt, j))
							want += p
							s += math.Abs(p)
						}
						if got := d.At(i, j); math.Abs(float64(got)-want) > float64(2*k+4)*u32*s {
							t.Fatalf("%s RankUpdate %v k=%d (%d,%d): got %v want %v", name, sh, k, i, j, got, want)
						}
					}
				}
				checkOutside(t, name+" RankUpdate", d, dbuf)
			}
		}
	}
}

func testKernels(d int) []pursuit.Kernel {
	g := 1 / float64(max(d, 1))
	return []pursuit.Kernel{
		{Kind: pursuit.Linear},
		{Kind: pursuit.Polynomial, Gamma: g, Coef0: 0.5, Degree: 3},
		{Kind: pursuit.RBF, Gamma: 0.5 * g},
		{Kind: pursuit.RBF, Gamma: 20 * g},
		{Kind: pursuit.Sigmoid, Gamma: g, Coef0: -0.3},
	}
}

// kernelTol is the error allowed on k(a, b): the float32 inner product
// (≤ (d+4)·u·S), propagated through the transform, plus a few ulps.
func kernelTol(k pursuit.Kernel, a, b []float32, val float64) float64 {
	_, s := dot64(a, b)
	na, _ := dot64(a, a)
	nb, _ := dot64(b, b)
	d := float64(len(a))
	eDot := 2 * (d + 4) * u32 * s
	switch k.Kind {
	case pursuit.Linear:
		return eDot + 1e-30
	case pursuit.RBF:
		eArg := k.Gamma * (4*(d+4)*u32*(na+nb) + 4*u32*(na+nb))
		return eArg*math.Max(val, 1e-38)*2 + 4*u32*val + 0x1p-126
	case pursuit.Polynomial:
		t := k.Gamma*math.Abs(eDot) + 4*u32*(k.Gamma*s+math.Abs(k.Coef0))
		arg := k.Gamma*s + math.Abs(k.Coef0)
		return float64(k.Degree)*math.Pow(arg+t, float64(k.Degree-1))*t + 12*u32*math.Abs(val) + 1e-30
	default:
		return k.Gamma*eDot + 4*u32*(k.Gamma*s+math.Abs(k.Coef0)) + 8*u32 + 1e-30
	}
}

func checkKernelBlock(t *testing.T, name string, b *Backend, rng *rand.Rand, n, m, d int, gather bool) {
	t.Helper()
	a, _ := randView(rng, n, d)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	if gather {
		a, _ = randView(rng, n+3, d)
		for i := range rows {
			rows[i] = rng.IntN(n + 3)
		}
	}
	bm, _ := randView(rng, m, d)
	for _, k := range testKernels(d) {
		for _, norms := range []bool{false, true} {
			dst, dbuf := randView(rng, n, m)
			var an, bn []float32
			if norms {
				an = make([]float32, a.Rows)
				bn = make([]float32, m)
				_ = b.SqNorms(an, a)
				_ = b.SqNorms(bn, bm)
			}
			var err error
			if gather {
				err = b.KernelGather(dst, k, a, an, rows, bm, bn)
			} else {
				err = b.KernelBlock(dst, k, a, an, bm, bn)
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < m; j++ {
					ar, br := a.Row(rows[i]), bm.Row(j)
					want := k.Eval(ar, br)
					got := float64(dst.At(i, j))
					if tol := kernelTol(k, ar, br, want); !(math.Abs(got-want) <= tol) {
						t.Fatalf("%s gather=%v %v n=%d m=%d d=%d norms=%v (%d,%d): got %v want %v (tol %.3g)",
							name, gather, k, n, m, d, norms, i, j, got, want, tol)
					}
				}
			}
			checkOutside(t, name+" kernel block", dst, dbuf)
		}
	}
}

func TestKernelBlockRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 4))
	shapes := [][3]int{{0, 3, 4}, {3, 0, 4}, {1, 1, 0}, {2, 3, 0}, {1, 1, 1}, {5, 17, 3}, {6, 16, 8},
		{13, 31, 33}, {7, 40, 257}, {150, 37, 20}, {12, 2100, 5}, {30, 20, 600}}
	for name, b := range testBackends(t) {
		for _, sh := range shapes {
			checkKernelBlock(t, name, b, rng, sh[0], sh[1], sh[2], false)
			checkKernelBlock(t, name, b, rng, sh[0], sh[1], sh[2], true)
		}
	}
}

// TestIdenticalRowsRBF: k(x, x) must be 1 to float32 accuracy (the distance
// is clamped at 0 before exp).
func TestIdenticalRowsRBF(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 5))
	x, _ := randView(rng, 20, 100)
	for name, b := range testBackends(t) {
		dst := pursuit.NewMatrix(20, 20)
		if err := b.KernelBlock(dst, pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.01}, x, nil, x, nil); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if v := dst.At(i, i); math.Abs(float64(v)-1) > 1e-5 || v > 1 {
				t.Errorf("%s: k(x%d, x%d) = %v", name, i, i, v)
			}
		}
	}
}

func TestShapeErrors(t *testing.T) {
	for name, b := range testBackends(t) {
		a := pursuit.NewMatrix(3, 4)
		c := pursuit.NewMatrix(3, 5)
		rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1}
		errs := []error{
			b.SqNorms(make([]float32, 2), a),
			b.KernelBlock(pursuit.NewMatrix(3, 3), rbf, a, nil, c, nil),
			b.KernelGather(pursuit.NewMatrix(1, 3), rbf, a, nil, []int{3}, a, nil),
			b.DictProducts(make([]float64, 9), a, c),
			b.RankUpdate(a, 1, pursuit.NewMatrix(1, 2), pursuit.NewMatrix(1, 4)),
			b.DictProducts(make([]float64, 9), pursuit.Matrix{Rows: 2, Cols: 4, Stride: 4, Data: make([]float32, 5)}, a),
		}
		for i, err := range errs {
			if !errors.Is(err, pursuit.ErrShape) {
				t.Errorf("%s case %d: got %v, want an error wrapping pursuit.ErrShape", name, i, err)
			}
		}
		if err := b.KernelBlock(pursuit.NewMatrix(3, 3), pursuit.Kernel{Kind: pursuit.RBF}, a, nil, a, nil); err == nil {
			t.Errorf("%s: RBF with gamma 0 accepted", name)
		}
	}
}

func TestNewAvailability(t *testing.T) {
	ok, why := Available()
	if why == "" {
		t.Error("Available gave no reason")
	}
	be, err := New()
	switch {
	case ok && err != nil:
		t.Errorf("Available but New failed: %v", err)
	case !ok && (err == nil || !errors.Is(err, ErrUnavailable)):
		t.Errorf("unavailable (%s) but New gave %v, %v", why, be, err)
	}
	t.Logf("Available: %v (%s)", ok, why)
}

func TestScoredArgMaxSmall(t *testing.T) {
	b := newBackend()
	s := []float64{1, -4, 2, math.NaN(), 3}
	n := []float64{1, 4, 0, 1, 1}
	if k, sc := b.ScoredArgMax(s, n, []bool{false, false, false, false, true}); k != 1 || sc != 2 {
		t.Errorf("got %d, %v; want 1, 2", k, sc)
	}
}

// randScores returns scores with NaN, ±0, negative and zero norms, ±Inf
// and exact ties mixed in.
func randScores(rng *rand.Rand, m int) (s, n []float64, skip []bool) {
	s, n, skip = make([]float64, m), make([]float64, m), make([]bool, m)
	for k := range s {
		s[k] = rng.NormFloat64()
		n[k] = rng.Float64() * 3
		skip[k] = rng.IntN(4) == 0
		switch rng.IntN(14) {
		case 0:
			s[k] = math.NaN()
		case 1:
			n[k] = 0
		case 2:
			n[k] = -1
		case 3:
			s[k], n[k] = 2, 1 // a tie with other case-3 entries
		case 4:
			s[k] = math.Copysign(0, -1)
		case 5:
			n[k] = math.NaN()
		case 6:
			s[k] = math.Inf(1 - 2*rng.IntN(2))
		case 7:
			n[k] = math.Inf(1)
		}
	}
	return s, n, skip
}

func TestScoredArgMaxRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 6))
	for name, b := range testBackends(t) {
		for _, m := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 100, 1001} {
			for rep := 0; rep < 20; rep++ {
				s, n, skip := randScores(rng, m)
				if rep%5 == 4 { // no inf: finite winners
					for k := range s {
						if math.IsInf(s[k], 0) {
							s[k] = 0.5
						}
					}
				}
				for _, sk := range [][]bool{nil, skip, skip[:m/2]} {
					for _, nn := range [][]float64{n, n[:m-m/3]} {
						wk, ws := backend.ScoredArgMaxRef(s, nn, sk)
						gk, gs := b.ScoredArgMax(s, nn, sk)
						if gk != wk || !(gs == ws) && !(math.IsNaN(gs) && math.IsNaN(ws)) {
							t.Fatalf("%s m=%d len(n)=%d len(skip)=%d: got (%d, %v), want (%d, %v)", name, m, len(nn), len(sk), gk, gs, wk, ws)
						}
					}
				}
			}
		}
	}
}
