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
	"strings"
	"testing"

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

func randMatrix(rng *rand.Rand, rows, cols int) backend.Matrix {
	m := backend.NewMatrix(rows, cols)
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
	for _, k := range []backend.Kernel{
		{Kind: backend.Linear},
		{Kind: backend.RBF, Gamma: 1.0 / 301},
		{Kind: backend.Polynomial, Gamma: 1.0 / 301, Coef0: 1, Degree: 3},
		{Kind: backend.Sigmoid, Gamma: 1.0 / 301, Coef0: -0.2},
	} {
		got, want := backend.NewMatrix(a.Rows, b.Rows), backend.NewMatrix(a.Rows, b.Rows)
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

// TestResident checks every *On operation against the host-slice methods of
// the pure-Go backend, and the buffer bookkeeping.
func TestResident(t *testing.T) {
	be := open(t)
	ref := backend.NewGo(0)
	rng := rand.New(rand.NewPCG(8, 8))
	const l, d, s = 1000, 37, 59
	x := randMatrix(rng, l, d)
	xd, err := be.Upload(x)
	if err != nil {
		t.Fatal(err)
	}
	back := backend.NewMatrix(l, d)
	if err := be.Read(back, xd); err != nil {
		t.Fatal(err)
	}
	for i := range back.Data {
		if back.Data[i] != x.Data[i] {
			t.Fatalf("Upload/Read round trip differs at %d", i)
		}
	}

	// SqNormsOn.
	xn, err := be.Alloc(1, l)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.SqNormsOn(xn, xd); err != nil {
		t.Fatal(err)
	}
	gotN, wantN := backend.NewMatrix(1, l), make([]float32, l)
	if err := be.Read(gotN, xn); err != nil {
		t.Fatal(err)
	}
	if err := ref.SqNorms(wantN, x); err != nil {
		t.Fatal(err)
	}
	for i := range wantN {
		if !closeTo(float64(gotN.Data[i]), float64(wantN[i]), 1e-5) {
			t.Fatalf("SqNormsOn row %d: %v, want %v", i, gotN.Data[i], wantN[i])
		}
	}

	// KernelGatherOn, with and without norms.
	idx := make([]int, s)
	for i := range idx {
		idx[i] = rng.IntN(l)
	}
	k := backend.Kernel{Kind: backend.RBF, Gamma: 1.0 / d}
	dict, err := be.Alloc(s, l)
	if err != nil {
		t.Fatal(err)
	}
	want := backend.NewMatrix(s, l)
	if err := ref.KernelGather(want, k, x, nil, idx, x, nil); err != nil {
		t.Fatal(err)
	}
	for _, norms := range []Buffer{nil, xn} {
		if err := be.KernelGatherOn(dict, k, xd, norms, idx, xd, norms); err != nil {
			t.Fatal(err)
		}
		got := backend.NewMatrix(s, l)
		if err := be.Read(got, dict); err != nil {
			t.Fatal(err)
		}
		for i := range got.Data {
			if !closeTo(float64(got.Data[i]), float64(want.Data[i]), 1e-5) {
				t.Fatalf("KernelGatherOn (norms given: %v) element %d: %v, want %v", norms != nil, i, got.Data[i], want.Data[i])
			}
		}
	}

	// KernelBlockOn.
	z := randMatrix(rng, 77, d)
	zd, err := be.Upload(z)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := be.Alloc(l, 77)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.KernelBlockOn(blk, k, xd, nil, zd, nil); err != nil {
		t.Fatal(err)
	}
	gotB, wantB := backend.NewMatrix(l, 77), backend.NewMatrix(l, 77)
	if err := be.Read(gotB, blk); err != nil {
		t.Fatal(err)
	}
	if err := ref.KernelBlock(wantB, k, x, nil, z, nil); err != nil {
		t.Fatal(err)
	}
	for i := range gotB.Data {
		if !closeTo(float64(gotB.Data[i]), float64(wantB.Data[i]), 1e-5) {
			t.Fatalf("KernelBlockOn element %d: %v, want %v", i, gotB.Data[i], wantB.Data[i])
		}
	}

	// DictProductsOn with 10 vectors (two passes) and ScoredArgMaxOn.
	vecs := randMatrix(rng, 10, l)
	vd, err := be.Upload(vecs)
	if err != nil {
		t.Fatal(err)
	}
	prod, err := be.AllocF64(10 * s)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.DictProductsOn(prod, dict, vd); err != nil {
		t.Fatal(err)
	}
	gotP, wantP := make([]float64, 10*s), make([]float64, 10*s)
	if err := be.ReadF64(gotP, prod); err != nil {
		t.Fatal(err)
	}
	if err := ref.DictProducts(wantP, want, vecs); err != nil {
		t.Fatal(err)
	}
	for i := range gotP {
		if math.Abs(gotP[i]-wantP[i]) > 1e-5*float64(l) {
			t.Fatalf("DictProductsOn element %d: %v, want %v", i, gotP[i], wantP[i])
		}
	}
	n := make([]float64, s)
	skip := make([]bool, s)
	for i := range n {
		n[i] = 0.5 + rng.Float64()
		skip[i] = i%4 == 0
	}
	n[3] = 0
	nd, err := be.AllocF64(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.WriteF64(nd, n); err != nil {
		t.Fatal(err)
	}
	for _, sk := range [][]bool{nil, skip, skip[:10]} {
		gi, gs, err := be.ScoredArgMaxOn(prod, nd, sk)
		if err != nil {
			t.Fatal(err)
		}
		wi, ws := backend.ScoredArgMaxRef(gotP[:s], n, sk)
		if gi != wi || math.Abs(gs-ws) > 1e-12*math.Abs(ws) {
			t.Fatalf("ScoredArgMaxOn (skip %d): (%d, %v), want (%d, %v)", len(sk), gi, gs, wi, ws)
		}
	}

	// RankUpdateOn: dict ← dict − u vᵀ with u of length s, v of length l.
	u, v := randMatrix(rng, 2, s), randMatrix(rng, 2, l)
	ud, _ := be.Upload(u)
	vd2, _ := be.Upload(v)
	if err := be.RankUpdateOn(dict, -1, ud, vd2); err != nil {
		t.Fatal(err)
	}
	if err := ref.RankUpdate(want, -1, u, v); err != nil {
		t.Fatal(err)
	}
	got := backend.NewMatrix(s, l)
	if err := be.Read(got, dict); err != nil {
		t.Fatal(err)
	}
	for i := range got.Data {
		if !closeTo(float64(got.Data[i]), float64(want.Data[i]), 1e-5) {
			t.Fatalf("RankUpdateOn element %d: %v, want %v", i, got.Data[i], want.Data[i])
		}
	}

	// Errors, not panics.
	if err := be.RankUpdateOn(dict, 1, vd2, ud); !errors.Is(err, backend.ErrShape) {
		t.Errorf("RankUpdateOn with swapped u, v: got %v, want ErrShape", err)
	}
	if err := be.DictProductsOn(prod, dict, zd); !errors.Is(err, backend.ErrShape) {
		t.Errorf("DictProductsOn with mismatched lengths: got %v, want ErrShape", err)
	}
	if err := be.DictProductsOn(dict, dict, vd); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("DictProductsOn into a float32 buffer: got %v", err)
	}
	if err := be.KernelGatherOn(dict, k, xd, nil, []int{0, l}, xd, nil); !errors.Is(err, backend.ErrShape) {
		t.Errorf("KernelGatherOn with an index out of range: got %v, want ErrShape", err)
	}
	other := open(t)
	foreign, err := other.Alloc(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.SqNormsOn(foreign, xd); err == nil || !strings.Contains(err.Error(), "not a buffer of this backend") {
		t.Errorf("foreign buffer: got %v", err)
	}
	if err := zd.Free(); err != nil {
		t.Fatal(err)
	}
	if err := zd.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	if err := be.KernelBlockOn(blk, k, xd, nil, zd, nil); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("freed buffer: got %v", err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := other.SqNorms(make([]float32, 1), backend.NewMatrix(1, 1)); !errors.Is(err, errClosed) {
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
