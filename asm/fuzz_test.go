package asm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Differential fuzz tests: the assembly backend (or, where it cannot run,
// the masked pure-Go path) against the pure-Go backend of package backend
// and a float64 reference, on random shapes, strides, offsets and data,
// including lengths that are not multiples of the vector width. Run one
// with, e.g.:
//
//	go test -run '^$' -fuzz FuzzKernelBlock -fuzztime 30s ./asm

// fuzzPair returns the backend under test (with the AVX-512 GEMM masked
// when noAVX512) and the pure-Go reference backend.
func fuzzPair(threads int, noAVX512 bool) (*Backend, backend.Backend) {
	return newBackend(WithThreads(threads), WithAVX512(!noAVX512)), backend.NewGo(threads)
}

func fuzzThreads(sel uint8) int { return 1 + int(sel%2) }

func FuzzDictProducts(f *testing.F) {
	f.Add(uint64(1), uint16(17), uint16(33), uint8(3), uint8(0))
	f.Add(uint64(2), uint16(64), uint16(1031), uint8(8), uint8(1))
	f.Add(uint64(3), uint16(5), uint16(7), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, seed uint64, rows, cols uint16, k, sel uint8) {
		rows, cols, k = rows%300, cols%2100, k%12
		rng := rand.New(rand.NewPCG(seed, 1))
		dict, _ := randView(rng, int(rows), int(cols))
		vecs, _ := randView(rng, int(k), int(cols))
		be, ref := fuzzPair(fuzzThreads(sel), sel&2 != 0)
		got := make([]float64, int(rows)*int(k))
		want := make([]float64, len(got))
		if err := be.DictProducts(got, dict, vecs); err != nil {
			t.Fatal(err)
		}
		if err := ref.DictProducts(want, dict, vecs); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < int(k); j++ {
			for i := 0; i < int(rows); i++ {
				exact, s := dot64(dict.Row(i), vecs.Row(j))
				g, w := got[j*int(rows)+i], want[j*int(rows)+i]
				tol := 40*u32*s + 1e-300
				if !(math.Abs(g-exact) <= tol) || !(math.Abs(g-w) <= 2*tol) {
					t.Fatalf("%d×%d k=%d (%d,%d): avx2 %v, go %v, exact %v", rows, cols, k, i, j, g, w, exact)
				}
			}
		}
	})
}

func FuzzRankUpdate(f *testing.F) {
	f.Add(uint64(1), uint16(9), uint16(70), uint8(1), uint8(0))
	f.Add(uint64(2), uint16(33), uint16(257), uint8(9), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, rows, cols uint16, k, sel uint8) {
		rows, cols, k = rows%200, cols%700, k%12
		rng := rand.New(rand.NewPCG(seed, 2))
		d, dbuf := randView(rng, int(rows), int(cols))
		d2, _ := randView(rand.New(rand.NewPCG(seed, 2)), int(rows), int(cols)) // same values
		uu, _ := randView(rng, int(k), int(rows))
		vv, _ := randView(rng, int(k), int(cols))
		before := append([]float32(nil), d.Data...)
		be, ref := fuzzPair(fuzzThreads(sel), sel&2 != 0)
		alpha := float32(rng.Float64()*4 - 2)
		if err := be.RankUpdate(d, alpha, uu, vv); err != nil {
			t.Fatal(err)
		}
		if err := ref.RankUpdate(d2, alpha, uu, vv); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(rows); i++ {
			for j := 0; j < int(cols); j++ {
				x0 := float64(before[i*d.Stride+j])
				want, s := x0, math.Abs(x0)
				for tt := 0; tt < int(k); tt++ {
					p := float64(alpha) * float64(uu.At(tt, i)) * float64(vv.At(tt, j))
					want += p
					s += math.Abs(p)
				}
				tol := float64(2*int(k)+4) * u32 * s
				g, w := float64(d.At(i, j)), float64(d2.At(i, j))
				if !(math.Abs(g-want) <= tol) || !(math.Abs(g-w) <= 2*tol) {
					t.Fatalf("%d×%d k=%d (%d,%d): avx2 %v, go %v, exact %v", rows, cols, k, i, j, g, w, want)
				}
			}
		}
		checkOutside(t, "RankUpdate", d, dbuf)
	})
}

// fuzzKernel picks a kernel for feature dimension d.
func fuzzKernel(sel uint8, d int) pursuit.Kernel {
	ks := testKernels(d)
	return ks[int(sel/2)%len(ks)]
}

func fuzzKernelBlock(t *testing.T, seed uint64, n, m, d uint16, sel uint8, gather bool) {
	n, m, d = n%100, m%300, d%600
	rng := rand.New(rand.NewPCG(seed, 3))
	aRows := int(n)
	if gather {
		aRows = int(n) + rng.IntN(5) + 1
	}
	a, _ := randView(rng, aRows, int(d))
	b, _ := randView(rng, int(m), int(d))
	idx := make([]int, n)
	for r := range idx {
		idx[r] = r
		if gather {
			idx[r] = rng.IntN(aRows)
		}
	}
	k := fuzzKernel(sel, int(d))
	var an, bn []float32
	if sel&1 == 1 && k.Kind == pursuit.RBF {
		an, bn = make([]float32, aRows), make([]float32, m)
		_ = backend.NewGo(1).SqNorms(an, a)
		_ = backend.NewGo(1).SqNorms(bn, b)
	}
	be, ref := fuzzPair(fuzzThreads(sel>>4), sel&0x80 != 0)
	got, gbuf := randView(rng, int(n), int(m))
	want := pursuit.NewMatrix(int(n), int(m))
	var err1, err2 error
	if gather {
		err1 = be.KernelGather(got, k, a, an, idx, b, bn)
		err2 = ref.KernelGather(want, k, a, an, idx, b, bn)
	} else {
		err1 = be.KernelBlock(got, k, a, an, b, bn)
		err2 = ref.KernelBlock(want, k, a, an, b, bn)
	}
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for i := 0; i < int(n); i++ {
		for j := 0; j < int(m); j++ {
			ar, br := a.Row(idx[i]), b.Row(j)
			exact := k.Eval(ar, br)
			tol := kernelTol(k, ar, br, exact)
			g, w := float64(got.At(i, j)), float64(want.At(i, j))
			if !(math.Abs(g-exact) <= tol) || !(math.Abs(g-w) <= 2*tol) {
				t.Fatalf("%v %d×%d×%d gather=%v (%d,%d): avx2 %v, go %v, exact %v (tol %.3g)", k, n, m, d, gather, i, j, g, w, exact, tol)
			}
		}
	}
	checkOutside(t, "kernel block", got, gbuf)
}

func FuzzKernelBlock(f *testing.F) {
	f.Add(uint64(1), uint16(13), uint16(37), uint16(33), uint8(5))
	f.Add(uint64(2), uint16(7), uint16(16), uint16(257), uint8(4))
	f.Add(uint64(4), uint16(40), uint16(70), uint16(300), uint8(0x95))
	f.Add(uint64(3), uint16(1), uint16(200), uint16(300), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, n, m, d uint16, sel uint8) {
		fuzzKernelBlock(t, seed, n, m, d, sel, false)
	})
}

func FuzzKernelGather(f *testing.F) {
	f.Add(uint64(1), uint16(3), uint16(37), uint16(33), uint8(5))
	f.Add(uint64(2), uint16(9), uint16(250), uint16(17), uint8(7))
	f.Fuzz(func(t *testing.T, seed uint64, n, m, d uint16, sel uint8) {
		fuzzKernelBlock(t, seed, n, m, d, sel, true)
	})
}

func FuzzSqNorms(f *testing.F) {
	f.Add(uint64(1), uint16(17), uint16(33))
	f.Fuzz(func(t *testing.T, seed uint64, rows, cols uint16) {
		rows, cols = rows%300, cols%3000
		rng := rand.New(rand.NewPCG(seed, 4))
		x, _ := randView(rng, int(rows), int(cols))
		be, ref := fuzzPair(2, false)
		got, want := make([]float32, rows), make([]float32, rows)
		if err := be.SqNorms(got, x); err != nil {
			t.Fatal(err)
		}
		if err := ref.SqNorms(want, x); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			exact, _ := dot64(x.Row(i), x.Row(i))
			tol := 4 * u32 * exact
			if !(math.Abs(float64(got[i])-exact) <= tol) || !(math.Abs(float64(got[i]-want[i])) <= 2*tol) {
				t.Fatalf("row %d of %d×%d: avx2 %v, go %v, exact %v", i, rows, cols, got[i], want[i], exact)
			}
		}
	})
}

func FuzzScoredArgMax(f *testing.F) {
	f.Add(uint64(1), uint16(100), uint16(50), uint8(0))
	f.Add(uint64(2), uint16(7), uint16(7), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, m, ls uint16, sel uint8) {
		rng := rand.New(rand.NewPCG(seed, 5))
		s, n, skip := randScores(rng, int(m%3000))
		skip = skip[:min(int(ls), len(skip))]
		if sel&1 == 1 {
			skip = nil
		}
		be, ref := fuzzPair(1, false)
		gk, gs := be.ScoredArgMax(s, n, skip)
		wk, ws := ref.ScoredArgMax(s, n, skip)
		if gk != wk || gs != ws {
			t.Fatalf("m=%d len(skip)=%d: avx2 (%d, %v), go (%d, %v)", len(s), len(skip), gk, gs, wk, ws)
		}
	})
}
