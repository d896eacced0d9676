//go:build cuda

// These tests need an NVIDIA GPU: a -tags cuda test binary exits at start-up
// on a machine without one (gorgonia.org/cu initialises the driver in its
// package init). CI only compiles them (go test -tags cuda -c);
// scripts/gpu-check.sh builds and runs them on a GPU machine.

package cuda

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

func open(t testing.TB) *Backend {
	t.Helper()
	ok, why := Available()
	if !ok {
		t.Fatalf("no usable CUDA device: %s", why)
	}
	be, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := be.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	t.Logf("device: %s", be.Device())
	return be
}

func TestConformance(t *testing.T) {
	backendtest.Run(t, open(t))
}

func randMatrix(rng *rand.Rand, rows, cols int) pursuit.Matrix {
	m := pursuit.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(2*rng.Float64() - 1)
	}
	return m
}

// closeTo compares float32 results with a tolerance scaled like the
// conformance suite's (relative to the magnitude, plus a small absolute
// part for values near zero).
func closeTo(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*(1+math.Abs(want))
}

// TestLargerShapes runs shapes the conformance suite does not reach: several
// 128×128 tiles per dimension, a long dictionary split into many chunks, and
// more than 8 vectors (several passes), against the pure-Go backend.
func TestLargerShapes(t *testing.T) {
	be := open(t)
	ref := backend.NewGo(0)
	rng := rand.New(rand.NewPCG(7, 7))

	a, b := randMatrix(rng, 300, 301), randMatrix(rng, 517, 301)
	for _, k := range []pursuit.Kernel{
		{Kind: pursuit.Linear},
		{Kind: pursuit.RBF, Gamma: 1.0 / 301},
		{Kind: pursuit.Polynomial, Gamma: 1.0 / 301, Coef0: 1, Degree: 3},
		{Kind: pursuit.Sigmoid, Gamma: 1.0 / 301, Coef0: -0.2},
	} {
		got, want := pursuit.NewMatrix(a.Rows, b.Rows), pursuit.NewMatrix(a.Rows, b.Rows)
		if err := be.KernelBlock(got, k, a, nil, b, nil); err != nil {
			t.Fatal(err)
		}
		if err := ref.KernelBlock(want, k, a, nil, b, nil); err != nil {
			t.Fatal(err)
		}
		for i := range got.Data {
			if !closeTo(float64(got.Data[i]), float64(want.Data[i]), 1e-4) {
				t.Fatalf("KernelBlock %s element %d: cuda %v, go %v", k, i, got.Data[i], want.Data[i])
			}
		}
	}

	dict, vecs := randMatrix(rng, 37, 100003), randMatrix(rng, 11, 100003)
	got := make([]float64, 37*11)
	if err := be.DictProducts(got, dict, vecs); err != nil {
		t.Fatal(err)
	}
	const u = 1.0 / (1 << 24)
	for j := range vecs.Rows {
		for i := range dict.Rows {
			// float64 reference and the conformance suite's bound for
			// float32 runs folded into float64: (64u + n·2⁻⁵²)·Σ|d·v|.
			var want, scale float64
			for e, dv := range dict.Row(i) {
				p := float64(dv) * float64(vecs.At(j, e))
				want += p
				scale += math.Abs(p)
			}
			tol := (64*u + float64(dict.Cols)*0x1p-52) * scale
			if g := got[j*dict.Rows+i]; math.Abs(g-want) > tol {
				t.Fatalf("DictProducts (%d, %d): got %v, want %v ± %.3g", j, i, g, want, tol)
			}
		}
	}
}

// TestResidentBlock checks the prepared gathers and the resident kernel
// block against the pure-Go backend, the bytes they move, and the errors of
// unusable handles.
func TestResidentBlock(t *testing.T) {
	be := open(t)
	if free, total, err := be.MemoryInfo(); err != nil || free <= 0 || free > total {
		t.Errorf("MemoryInfo: %d bytes free of %d, %v", free, total, err)
	}
	ref := backend.NewGo(0)
	rng := rand.New(rand.NewPCG(8, 8))
	const l, d, s = 1000, 37, 59
	x := randMatrix(rng, l, d)
	k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1.0 / d}
	up0, down0 := be.Traffic()
	p, err := be.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	up, down := be.Traffic()
	t.Logf("Prepare %d×%d: %d bytes to the device, %d back (the norms)", l, d, up-up0, down-down0)
	if up-up0 != int64(l*d*4) || down-down0 != int64(l*4) {
		t.Errorf("Prepare moved %d bytes up and %d down, want %d and %d", up-up0, down-down0, l*d*4, l*4)
	}
	xn := make([]float32, l)
	if err := ref.SqNorms(xn, x); err != nil {
		t.Fatal(err)
	}
	idx := make([]int, s)
	for i := range idx {
		idx[i] = rng.IntN(l)
	}
	want := pursuit.NewMatrix(s, l)
	if err := ref.KernelGather(want, k, x, xn, idx, x, xn); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got pursuit.Matrix) {
		t.Helper()
		for i := range want.Data {
			if !closeTo(float64(got.Data[i]), float64(want.Data[i]), 1e-5) {
				t.Fatalf("%s element %d: %v, want %v", name, i, got.Data[i], want.Data[i])
			}
		}
	}

	// An SMO batch of kernel rows: only the indices go up and the rows come
	// back, with no norms or the prepared ones. Norms that differ from the
	// device's (the Go backend's, if they round differently) send the
	// gathered rows and their norms instead, still independent of l.
	sameNorms := slices.Equal(xn, p.Norms())
	for _, norms := range [][]float32{nil, p.Norms(), append([]float32(nil), p.Norms()...), xn} {
		got := pursuit.NewMatrix(s, l)
		up0, down0 = be.Traffic()
		if err := be.KernelGatherPrepared(got, k, x, norms, idx, p); err != nil {
			t.Fatal(err)
		}
		up, down = be.Traffic()
		check("KernelGatherPrepared", got)
		t.Logf("SMO kernel-row batch of %d rows at l = %d: %d bytes to the device, %d back (the rows are %d bytes)",
			s, l, up-up0, down-down0, s*l*4)
		wantUp := int64(8 * s)
		if len(norms) > 0 && &norms[0] == &xn[0] && !sameNorms {
			wantUp = int64(s*d*4 + s*4)
		}
		if up-up0 != wantUp || down-down0 != int64(4*s*l) {
			t.Errorf("KernelGatherPrepared moved %d bytes up and %d down, want %d and %d (rows)", up-up0, down-down0, wantUp, 4*s*l)
		}
	}
	// a other than the prepared matrix: the gathered rows go up.
	xc := pursuit.NewMatrix(l, d)
	copy(xc.Data, x.Data)
	got := pursuit.NewMatrix(s, l)
	up0, _ = be.Traffic()
	if err := be.KernelGatherPrepared(got, k, xc, xn, idx, p); err != nil {
		t.Fatal(err)
	}
	up, _ = be.Traffic()
	check("KernelGatherPrepared (a copy of x)", got)
	if up-up0 != int64(s*d*4+s*4) {
		t.Errorf("KernelGatherPrepared of a copy moved %d bytes up, want %d (the gathered rows and norms)", up-up0, s*d*4+s*4)
	}

	// The resident block: gathered, reduced and read on the device.
	blk, err := be.NewBlock(s, l)
	if err != nil {
		t.Fatal(err)
	}
	up0, down0 = be.Traffic()
	if err := be.KernelGatherBlock(blk, k, x, p.Norms(), idx, p); err != nil {
		t.Fatal(err)
	}
	up, down = be.Traffic()
	if up-up0 != int64(8*s) || down != down0 {
		t.Errorf("KernelGatherBlock moved %d bytes up and %d down, want %d and 0", up-up0, down-down0, 8*s)
	}
	got = pursuit.NewMatrix(s, l)
	if err := be.ReadBlock(got.Slice(0, s-1, 0, l), blk, 0); err != nil {
		t.Fatal(err)
	}
	if err := be.ReadBlock(got.Slice(s-1, s, 0, l), blk, s-1); err != nil {
		t.Fatal(err)
	}
	check("KernelGatherBlock + ReadBlock", got)
	vecs := randMatrix(rng, 10, l) // more than one pass of 8 vectors
	wantP := make([]float64, 10*s)
	if err := ref.DictProducts(wantP, want, vecs); err != nil {
		t.Fatal(err)
	}
	gotP := make([]float64, 10*s)
	if err := be.BlockProducts(gotP, blk, vecs); err != nil {
		t.Fatal(err)
	}
	for i := range wantP {
		if !closeTo(gotP[i], wantP[i], 1e-4) {
			t.Fatalf("BlockProducts %d: %v, want %v", i, gotP[i], wantP[i])
		}
	}
	// Several sets at once (one-vs-rest's outputs): each set's products
	// are those of its own BlockProducts call bit for bit, and the sets
	// take one upload of the vectors and one copy of the products back.
	sets := []pursuit.Matrix{vecs.Slice(0, 3, 0, l), randMatrix(rng, 7, l), vecs.Slice(3, 4, 0, l)}
	setDst := [][]float64{make([]float64, 3*s), make([]float64, 7*s), make([]float64, s)}
	up0, down0 = be.Traffic()
	if err := be.BlockProductsSets(setDst, blk, sets); err != nil {
		t.Fatal(err)
	}
	up, down = be.Traffic()
	if up-up0 != int64(11*l*4) || down-down0 != int64(11*s*8) {
		t.Errorf("BlockProductsSets moved %d bytes up and %d down, want %d and %d", up-up0, down-down0, 11*l*4, 11*s*8)
	}
	for i, v := range sets {
		alone := make([]float64, v.Rows*s)
		if err := be.BlockProducts(alone, blk, v); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(alone, setDst[i]) {
			t.Fatalf("BlockProductsSets: set %d differs from its own BlockProducts", i)
		}
	}
	wantN, gotN := make([]float32, s), make([]float32, s)
	if err := ref.SqNorms(wantN, want); err != nil {
		t.Fatal(err)
	}
	if err := be.BlockSqNorms(gotN, blk); err != nil {
		t.Fatal(err)
	}
	for i := range wantN {
		if !closeTo(float64(gotN[i]), float64(wantN[i]), 1e-5) {
			t.Fatalf("BlockSqNorms %d: %v, want %v", i, gotN[i], wantN[i])
		}
	}

	// Errors.
	for _, c := range []struct {
		name   string
		target error
		err    error
	}{
		{"KernelGatherBlock idx out of range", pursuit.ErrShape, be.KernelGatherBlock(blk, k, x, nil, append(idx[:s-1:s-1], l), p)},
		{"KernelGatherBlock wrong rows", pursuit.ErrShape, be.KernelGatherBlock(blk, k, x, nil, idx[:3], p)},
		{"KernelGatherBlock features", pursuit.ErrShape, be.KernelGatherBlock(blk, k, pursuit.NewMatrix(l, d+1), nil, idx, p)},
		{"BlockProducts lengths", pursuit.ErrShape, be.BlockProducts(gotP, blk, pursuit.NewMatrix(1, l+1))},
		{"BlockProducts dst", pursuit.ErrShape, be.BlockProducts(gotP[:5], blk, vecs)},
		{"BlockSqNorms dst", pursuit.ErrShape, be.BlockSqNorms(gotN[:5], blk)},
		{"ReadBlock rows", pursuit.ErrShape, be.ReadBlock(got, blk, 1)},
		{"BlockProducts foreign block", backend.ErrPrepared, be.BlockProducts(gotP, nil, vecs)},
		{"BlockProductsSets dst", pursuit.ErrShape, be.BlockProductsSets(setDst[:2], blk, sets)},
		{"BlockProductsSets set lengths", pursuit.ErrShape, be.BlockProductsSets(setDst[:1], blk, []pursuit.Matrix{pursuit.NewMatrix(1, l+1)})},
	} {
		if !errors.Is(c.err, c.target) {
			t.Errorf("%s: got %v, want an error wrapping %v", c.name, c.err, c.target)
		}
	}
	if err := blk.Release(); err != nil {
		t.Fatal(err)
	}
	if err := blk.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if err := be.BlockSqNorms(gotN, blk); !errors.Is(err, backend.ErrPrepared) {
		t.Errorf("released block: got %v, want ErrPrepared", err)
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	other := open(t)
	op, err := other.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.KernelGatherPrepared(got, k, x, nil, idx, op); !errors.Is(err, backend.ErrPrepared) {
		t.Errorf("handle of another backend: got %v, want ErrPrepared", err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := op.Release(); err != nil {
		t.Errorf("Release after Close: %v", err)
	}
	if err := other.SqNorms(make([]float32, 1), pursuit.NewMatrix(1, 1)); !errors.Is(err, errClosed) {
		t.Errorf("use after Close: got %v", err)
	}
}

// TestConformanceInSlabs runs the suite with a tiny device budget per
// operand, so that every host-slice call goes through the device in slabs
// of a few rows.
func TestConformanceInSlabs(t *testing.T) {
	be, err := New(WithChunkBytes(32 << 10))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	backendtest.Run(t, be)
	if _, err := New(WithChunkBytes(0)); err == nil {
		t.Errorf("WithChunkBytes(0) accepted")
	}
}

// TestSolveSubproblemOnDevice (issue 32): the smo_sub kernel solves the
// batched solver's subproblem to the bits of backend.SolveSubproblemRef
// (α, gradient and step count), for sizes from one variable to a working
// set of 1,024, bounds of two sizes, a starting α inside and at its
// bounds, and a step limit that stops it early.
func TestSolveSubproblemOnDevice(t *testing.T) {
	b := open(t)
	rng := rand.New(rand.NewPCG(32, 1))
	// ties: points on a coarse grid (repeated points, equal curvatures)
	// and α = 0 (every gradient −1), where the host's rule, the last
	// variable attaining the extreme, decides every choice.
	for _, tc := range []struct {
		m, limit int
		ties     bool
	}{{1, 100, false}, {2, 200, false}, {64, 6400, false}, {257, 25700, false}, {300, 7, false}, {1024, 102400, false}, {200, 20000, true}, {600, 60000, true}} {
		m := tc.m
		x := make([]float64, m*4)
		for i := range x {
			x[i] = rng.Float64()
			if tc.ties {
				x[i] = float64(rng.IntN(3)) / 2
			}
		}
		kb := make([]float64, m*m)
		for i := range m {
			for j := range m {
				var d float64
				for f := range 4 {
					d += (x[i*4+f] - x[j*4+f]) * (x[i*4+f] - x[j*4+f])
				}
				kb[i*m+j] = math.Exp(-1.5 * d)
			}
		}
		y, c, a, g := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
		for i := range m {
			y[i] = float64(1 - 2*rng.IntN(2))
			c[i] = []float64{1, 4}[i%2]
			if tc.ties {
				continue // α = 0
			}
			switch i % 3 {
			case 1:
				a[i] = c[i] * rng.Float64()
			case 2:
				a[i] = c[i]
			}
		}
		for i := range m {
			g[i] = -1
			for j := range m {
				g[i] += y[i] * y[j] * kb[i*m+j] * a[j]
			}
		}
		gh, ah := slices.Clone(g), slices.Clone(a)
		want := backend.SolveSubproblemRef(kb, y, c, gh, ah, 1e-3, tc.limit)
		got, err := b.SolveSubproblem(kb, y, c, g, a, 1e-3, tc.limit)
		if err != nil {
			t.Fatalf("m %d: %v", m, err)
		}
		if got != want {
			t.Errorf("m %d, limit %d: %d steps on the device, %d on the host", m, tc.limit, got, want)
		}
		for i := range m {
			if math.Float64bits(a[i]) != math.Float64bits(ah[i]) || math.Float64bits(g[i]) != math.Float64bits(gh[i]) {
				t.Fatalf("m %d: variable %d: α %v g %v on the device, α %v g %v on the host", m, i, a[i], g[i], ah[i], gh[i])
			}
		}
		if m > 1 && want == 0 {
			t.Errorf("m %d: the host took no step: the case tests nothing", m)
		}
		t.Logf("m %d: %d steps, same bits", m, got)
	}
	if _, err := b.SolveSubproblem(make([]float64, 3), make([]float64, 2), make([]float64, 2), make([]float64, 2), make([]float64, 2), 1e-3, 5); err == nil {
		t.Error("a 3-value block for 2 variables was accepted")
	}
}

// TestSVMPoolOnDevice (issue 32): the batched SVM solver's device pool
// (backend.SVMPool) against the host: the rows Fill computes are
// KernelGatherPrepared's (read back through Update with one unit weight),
// Solve equals SolveSubproblemRef on the block built from those rows as the
// host builds it, and Update equals SMOAddScaledRef row after row, with and
// without a map from variables to points (ε-SVR's two variables a point).
func TestSVMPoolOnDevice(t *testing.T) {
	b := open(t)
	rng := rand.New(rand.NewPCG(32, 2))
	const n, d, slots = 300, 7, 40
	x := pursuit.NewMatrix(n, d)
	for i := range x.Data {
		x.Data[i] = rng.Float32()
	}
	p, err := b.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	k := pursuit.NewRBF(0.7)
	for _, svr := range []bool{false, true} {
		nv := n
		var kidx []int
		if svr {
			nv = 2 * n
			kidx = make([]int, nv)
			for v := range kidx {
				kidx[v] = v % n
			}
		}
		y := make([]float64, nv)
		for v := range y {
			y[v] = float64(1 - 2*rng.IntN(2))
		}
		pool, err := b.NewSVMPool(p, k, slots, y, kidx)
		if err != nil {
			t.Fatal(err)
		}
		// Rows of 24 points into slots 3…14 (one run) and 20, 22, 30 …
		idx := rng.Perm(n)[:24]
		sl := []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 20, 22, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39}
		if err := pool.Fill(sl, idx); err != nil {
			t.Fatal(err)
		}
		want := pursuit.NewMatrix(len(idx), n)
		if err := b.KernelGatherPrepared(want, k, x, nil, idx, p); err != nil {
			t.Fatal(err)
		}
		ki := func(v int) int {
			if kidx == nil {
				return v
			}
			return kidx[v]
		}
		for r := range idx {
			g := make([]float64, nv)
			if err := pool.Update([]int{sl[r]}, []float64{1}, g); err != nil {
				t.Fatal(err)
			}
			for v := range nv {
				if w := y[v] * float64(want.At(r, ki(v))); g[v] != w {
					t.Fatalf("svr %v: slot %d, variable %d: %v through the pool, %v from KernelGatherPrepared", svr, sl[r], v, g[v], w)
				}
			}
		}
		// Update: the rows r = 0, 5, 17 with weights, in order.
		g := make([]float64, nv)
		for v := range g {
			g[v] = rng.Float64() - 0.5
		}
		gh := slices.Clone(g)
		rs, ws := []int{0, 5, 17}, []float64{0.3, -1.7, 2.5}
		var us []int
		for i, r := range rs {
			us = append(us, sl[r])
			for v := range nv {
				gh[v] += float64(ws[i]*y[v]) * float64(want.At(r, ki(v)))
			}
		}
		if err := pool.Update(us, ws, g); err != nil {
			t.Fatal(err)
		}
		for v := range nv {
			if g[v] != gh[v] {
				t.Fatalf("svr %v: Update: variable %d: %v on the device, %v on the host", svr, v, g[v], gh[v])
			}
		}
		// Solve: the working set of the 24 rows' points, their block as
		// the host builds it (upper triangle from the rows, mirrored).
		m := len(idx)
		kb := make([]float64, m*m)
		for i := range m {
			for j := i; j < m; j++ {
				v := float64(want.At(i, idx[j]))
				kb[i*m+j], kb[j*m+i] = v, v
			}
		}
		wy, wc, wg, wa := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
		for i := range m {
			wy[i] = float64(1 - 2*(i%2))
			wc[i] = 1 + float64(i%3)
			wg[i] = -1 + 0.1*rng.Float64()
		}
		hg, ha := slices.Clone(wg), slices.Clone(wa)
		steps := backend.SolveSubproblemRef(kb, wy, wc, hg, ha, 1e-3, 100*m)
		got, err := pool.Solve(sl, idx, wy, wc, wg, wa, 1e-3, 100*m)
		if err != nil {
			t.Fatal(err)
		}
		if got != steps || steps == 0 {
			t.Errorf("svr %v: Solve took %d steps, the host %d", svr, got, steps)
		}
		for i := range m {
			if wg[i] != hg[i] || wa[i] != ha[i] {
				t.Fatalf("svr %v: Solve: variable %d: g %v α %v on the device, g %v α %v on the host", svr, i, wg[i], wa[i], hg[i], ha[i])
			}
		}
		if err := pool.Fill([]int{slots}, []int{0}); err == nil {
			t.Error("a slot beyond the pool was accepted")
		}
		if err := pool.Release(); err != nil {
			t.Fatal(err)
		}
		if err := pool.Fill([]int{0}, []int{0}); err == nil {
			t.Error("a released pool was used")
		}
	}
}
