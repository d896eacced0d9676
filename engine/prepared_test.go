package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// TestPreparedGather checks the engine's prepared operand on every CPU
// backend, with the backend's packed copy and with the fallback (a memory
// budget too small for the copy): the gathered kernel rows equal the plain
// KernelGather's bit for bit and the float64 kernel to float32 accuracy.
func TestPreparedGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := pursuit.NewMatrix(300, 37)
	for i := range x.Data {
		x.Data[i] = float32(rng.Float64()*2 - 1)
	}
	idx := []int{299, 0, 17, 17, 150, 3, 8, 9, 10, 11, 12, 13}
	k := pursuit.NewRBF(1.0 / 37)
	for _, name := range []string{BackendGo, BackendAVX2} {
		for _, budget := range []int64{DefaultMemoryBudget, 1024} {
			e, err := New(WithBackend(name), WithThreads(2), WithMemoryBudget(budget), env(nil))
			if err != nil {
				t.Logf("%s: %v", name, err)
				continue
			}
			p, err := e.Prepare(x)
			if err != nil {
				t.Fatalf("%s: Prepare: %v", name, err)
			}
			if want := budget == DefaultMemoryBudget; p.Backed() != want {
				t.Errorf("%s, budget %d: Backed() = %v, want %v", name, budget, p.Backed(), want)
			}
			norms, _ := e.SqNorms(x)
			for i, v := range p.Norms() {
				if v != norms[i] {
					t.Fatalf("%s: norm %d = %v, SqNorms gives %v", name, i, v, norms[i])
				}
			}
			got, want := pursuit.NewMatrix(len(idx), x.Rows), pursuit.NewMatrix(len(idx), x.Rows)
			if err := e.KernelGatherPrepared(got, k, x, p.Norms(), idx, p); err != nil {
				t.Fatalf("%s: KernelGatherPrepared: %v", name, err)
			}
			if err := e.KernelGather(want, k, x, norms, idx, x, norms); err != nil {
				t.Fatal(err)
			}
			for r, i := range idx {
				for j := range x.Rows {
					g := got.At(r, j)
					if g != want.At(r, j) {
						t.Fatalf("%s, budget %d: K[%d][%d] = %v prepared, %v plain", name, budget, i, j, g, want.At(r, j))
					}
					if ref := k.Eval(x.Row(i), x.Row(j)); math.Abs(float64(g)-ref) > 1e-5 {
						t.Fatalf("%s: K[%d][%d] = %v, float64 kernel %v", name, i, j, g, ref)
					}
				}
			}
			block := pursuit.NewMatrix(x.Rows, x.Rows)
			if err := e.KernelBlockPrepared(block, k, x, nil, p); err != nil {
				t.Fatalf("%s: KernelBlockPrepared: %v", name, err)
			}
			if v := block.At(17, 17); v != 1 {
				t.Errorf("%s: K(x, x) = %v on the diagonal of the prepared block, want 1", name, v)
			}
			if err := p.Release(); err != nil {
				t.Fatal(err)
			}
			err = e.KernelGatherPrepared(got, k, x, nil, idx, p)
			if p.Backed() && !errors.Is(err, backend.ErrPrepared) {
				t.Errorf("%s: gather with a released handle: error %v, want one wrapping backend.ErrPrepared", name, err)
			}
			if err := e.KernelGatherPrepared(got, k, x, nil, idx, nil); !errors.Is(err, backend.ErrPrepared) {
				t.Errorf("%s: gather with a nil handle: error %v, want one wrapping backend.ErrPrepared", name, err)
			}
		}
	}
}

// TestPreparedForeign checks that a handle packed by one engine's backend
// is refused by another's, with an error rather than wrong values.
func TestPreparedForeign(t *testing.T) {
	a, err := New(WithBackend(BackendGo), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(WithBackend(BackendGo), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	x := pursuit.NewMatrix(20, 3)
	p, err := a.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	dst := pursuit.NewMatrix(2, 20)
	if err := b.KernelGatherPrepared(dst, pursuit.NewLinear(), x, nil, []int{0, 1}, p); !errors.Is(err, backend.ErrPrepared) {
		t.Errorf("another engine's handle: error %v, want one wrapping backend.ErrPrepared", err)
	}
	if _, err := a.Prepare(pursuit.Matrix{Rows: 2, Cols: 3, Stride: 3, Data: make([]float32, 4)}); !errors.Is(err, pursuit.ErrShape) {
		t.Errorf("Prepare of a short matrix: error %v, want one wrapping pursuit.ErrShape", err)
	}
}

// TestTileRows checks that the engine passes on the CPU driver's tile
// height (its micro-kernel's MR) and says 0 for a backend without one.
func TestTileRows(t *testing.T) {
	e, err := New(WithBackend("go"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cpu, ok := e.be.(*backend.CPU)
	if !ok {
		t.Fatalf("the go backend is %T, not the CPU driver", e.be)
	}
	if got, want := e.TileRows(), cpu.Kernels().MR; got != want || got <= 0 {
		t.Errorf("TileRows = %d, want the micro-kernel's %d rows", got, want)
	}
	if got := hidden(e).TileRows(); got != 0 {
		t.Errorf("a backend without RowTiler: TileRows = %d, want 0", got)
	}
}
