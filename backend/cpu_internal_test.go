package backend

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/pursuit-ml/pursuit"
)

func TestExpNeg(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 2_000_000; i++ {
		x := -110 * float64(i) / 2_000_000
		got, want := expNeg(x), math.Exp(x)
		if want < 0x1p-126 { // below the float32 normal range
			if math.Abs(got-want) > 0x1p-150 {
				t.Fatalf("expNeg(%v) = %v, want %v", x, got, want)
			}
			continue
		}
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 1e-8 {
		t.Errorf("worst relative error %.3g, want ≤ 1e-8", worst)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300} {
		if got := expNeg(x); got != 1 {
			t.Errorf("expNeg(%v) = %v, want 1", x, got)
		}
	}
	if got := float32(expNeg(math.Inf(-1))); got != 0 {
		t.Errorf("expNeg(-Inf) = %v, want 0", got)
	}
	if got := expNeg(math.NaN()); !math.IsNaN(got) {
		t.Errorf("expNeg(NaN) = %v, want NaN", got)
	}
	t.Logf("worst relative error on [-87, 0]: %.3g", worst)
}

func BenchmarkExpNeg(b *testing.B) {
	s := 0.0
	for i := 0; b.Loop(); i++ {
		s += expNeg(-float64(i&1023) * 0.01)
	}
	_ = s
}

func BenchmarkMathExp(b *testing.B) {
	s := 0.0
	for i := 0; b.Loop(); i++ {
		s += math.Exp(-float64(i&1023) * 0.01)
	}
	_ = s
}

func TestDictGroups(t *testing.T) {
	spans := func(k, mg int) string {
		var out []string
		for _, g := range appendDictGroups(nil, nil, pursuit.Matrix{Rows: k}, mg) {
			out = append(out, fmt.Sprint([2]int{g.off, g.size}))
		}
		return strings.Join(out, " ")
	}
	for _, mg := range []int{4, 8} {
		for k := 1; k <= 20; k++ {
			next := 0
			for _, g := range appendDictGroups(nil, nil, pursuit.Matrix{Rows: k}, mg) {
				if g.off != next || g.size > mg || g.size&(g.size-1) != 0 {
					t.Fatalf("k=%d: bad group %v", k, g)
				}
				next += g.size
			}
			if next != k {
				t.Fatalf("k=%d: groups %s cover %d", k, spans(k, mg), next)
			}
		}
	}
	if got := spans(15, 4); got != "[0 4] [4 4] [8 4] [12 2] [14 1]" {
		t.Errorf("groups of 15 by 4 = %v", got)
	}
	if got := spans(15, 8); got != "[0 8] [8 4] [12 2] [14 1]" {
		t.Errorf("groups of 15 by 8 = %v", got)
	}
}

func TestNewAlignedMatrix(t *testing.T) {
	for _, c := range [][2]int{{0, 5}, {3, 0}, {1, 1}, {5, 16}, {7, 7291}, {40, 33}} {
		m := pursuit.NewAlignedMatrix(c[0], c[1])
		if err := m.Validate(); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if m.Rows != c[0] || m.Cols != c[1] || m.Stride%16 != 0 || m.Stride < m.Cols || m.Stride >= m.Cols+16 {
			t.Fatalf("%v: %d×%d stride %d", c, m.Rows, m.Cols, m.Stride)
		}
		for i := range m.Rows {
			if r := m.Row(i); len(r) > 0 && uintptr(unsafe.Pointer(&r[0]))%64 != 0 {
				t.Fatalf("%v: row %d starts at %p, not on a 64-byte boundary", c, i, &r[0])
			}
		}
	}
}

// TestPreparedArena prepares a matrix large enough for a hugemem.Arena and
// checks that gathers against it equal the plain gathers bit for bit, that
// the packed copy lies in the arena where the platform has one, and that a
// released handle is refused.
func TestPreparedArena(t *testing.T) {
	b := NewCPU("go", 1, GoKernels())
	const rows, cols = 3001, 97 // 1.2 MB packed
	x := pursuit.NewMatrix(rows, cols)
	for i := range x.Data {
		x.Data[i] = float32(math.Sin(float64(i)*0.37)) / 4
	}
	h, err := b.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	p := h.(*cpuPrepared)
	if runtime.GOOS == "linux" && (p.arena == nil || !p.arena.Holds(unsafe.Pointer(unsafe.SliceData(p.packed)), 4*len(p.packed))) {
		t.Fatal("a 1.2 MB packed copy is not in a huge-page arena")
	}
	idx := []int{0, 17, 3000, 1500, 2, 999, 1000, 1001, 64, 7, 2999, 11}
	k := pursuit.NewRBF(0.5)
	got, want := pursuit.NewMatrix(len(idx), rows), pursuit.NewMatrix(len(idx), rows)
	if err := b.KernelGatherPrepared(got, k, x, h.Norms(), idx, h); err != nil {
		t.Fatal(err)
	}
	if err := b.KernelGather(want, k, x, h.Norms(), idx, x, h.Norms()); err != nil {
		t.Fatal(err)
	}
	for i := range got.Data {
		if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
			t.Fatalf("element %d: prepared %v, plain %v", i, got.Data[i], want.Data[i])
		}
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	if err := b.KernelGatherPrepared(got, k, x, h.Norms(), idx, h); !errors.Is(err, ErrPrepared) {
		t.Fatalf("gather on a released handle: %v, want an error wrapping ErrPrepared", err)
	}
}

// TestPackAPack8 checks packA with the transposing pack8 against the
// element-by-element packing it replaces: blocks, gathers of consecutive
// and scattered rows, panel heights with and without room for eight rows,
// partial last panels and a column offset, with a row stride above the
// width.
func TestPackAPack8(t *testing.T) {
	const rows, cols, stride = 61, 37, 41
	a := pursuit.Matrix{Rows: rows, Cols: cols, Stride: stride, Data: make([]float32, (rows-1)*stride+cols)}
	for i := range a.Data {
		a.Data[i] = float32(i%1009) + 0.25
	}
	scattered := make([]int, 40)
	for r := range scattered {
		scattered[r] = (r * 7) % rows
	}
	runs := append(make([]int, 0, 40), 3, 4, 5, 6, 7, 8, 9, 10, 30, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23)
	for _, idx := range [][]int{nil, scattered, runs} {
		for _, mr := range []int{2, 6, 8, 12, 16} {
			for _, c := range [][4]int{{0, 37, 0, 37}, {5, 29, 3, 20}, {1, 8, 36, 1}, {0, 3, 0, 37}} {
				i0, mcur, pc, kc := c[0], c[1], c[2], c[3]
				n := rows
				if idx != nil {
					n = len(idx)
				}
				if i0+mcur > n {
					continue
				}
				op := &kernelOp{a: a, idx: idx}
				size := (mcur + mr - 1) / mr * mr * kc
				got, want := make([]float32, size), make([]float32, size)
				for i := range got {
					got[i], want[i] = -1, -1
				}
				packA(got, mr, op, i0, mcur, pc, kc, pack8Go)
				for ip := 0; ip*mr < mcur; ip++ {
					for ii := range mr {
						for p := range kc {
							v := float32(0)
							if r := ip*mr + ii; r < mcur {
								v = a.At(op.row(i0+r), pc+p)
							}
							want[ip*kc*mr+p*mr+ii] = v
						}
					}
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("idx %v, mr %d, i0 %d mcur %d pc %d kc %d: packed[%d] = %v, want %v", idx != nil, mr, i0, mcur, pc, kc, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestWorkspaceSized checks that the packing buffers of a kernel block are
// sized to the block (its features, rows and columns up to the kernel's
// KC, MC and NC), not to the kernel's largest block: a block of few
// features takes a fraction of KC·NC floats. The result is checked against
// the same block from a backend whose buffers are at their largest.
func TestWorkspaceSized(t *testing.T) {
	// The pool keeps the block's buffers for the check below unless two
	// collections run in between.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	ks := GoKernels()
	for _, c := range []struct{ n, m, d int }{{5, 3, 2}, {40, 700, 54}, {130, 300, 300}, {7, 1, 1}} {
		b := NewCPU("go", 1, ks)
		x, z := pursuit.NewMatrix(c.n, c.d), pursuit.NewMatrix(c.m, c.d)
		for i := range x.Data {
			x.Data[i] = float32(math.Sin(float64(i)*0.31)) / 3
		}
		for i := range z.Data {
			z.Data[i] = float32(math.Cos(float64(i)*0.17)) / 3
		}
		xn, zn := make([]float32, c.n), make([]float32, c.m)
		_, _ = b.SqNorms(xn, x), b.SqNorms(zn, z)
		got := pursuit.NewMatrix(c.n, c.m)
		k := pursuit.NewRBF(0.7)
		if err := b.KernelBlock(got, k, x, xn, z, zn); err != nil {
			t.Fatal(err)
		}
		// Under the race detector sync.Pool drops a random share of its
		// Puts on purpose, so the block's buffers may not come back: the
		// sizes are checked without it, the results always.
		if !raceBuild {
			ws := b.workspace(0, 0, 0, true)
			mr, nr := ks.MR, ks.NR
			kc := min(c.d, ks.KC)
			mc := (min(c.n, ks.MC) + mr - 1) / mr * mr
			nc := (min(c.m, ks.NC) + nr - 1) / nr * nr
			if len(ws.ap) != mc*kc || len(ws.bp) != kc*nc || len(ws.an) != mc || len(ws.bn) != nc {
				t.Errorf("%d×%d block of %d features: buffers of %d, %d, %d, %d floats, want %d, %d, %d, %d",
					c.n, c.m, c.d, len(ws.ap), len(ws.bp), len(ws.an), len(ws.bn), mc*kc, kc*nc, mc, nc)
			}
		}
		// The same block with the largest buffers.
		big := NewCPU("go", 1, ks)
		big.gemmWS.put(big.workspace(ks.MC, ks.KC, ks.NC, true), big.keep())
		want := pursuit.NewMatrix(c.n, c.m)
		if err := big.KernelBlock(want, k, x, xn, z, zn); err != nil {
			t.Fatal(err)
		}
		for i := range got.Data {
			if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
				t.Fatalf("%d×%d block of %d features, element %d: %v with sized buffers, %v with the largest", c.n, c.m, c.d, i, got.Data[i], want.Data[i])
			}
		}
	}
}
