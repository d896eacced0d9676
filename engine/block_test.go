package engine

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// TestGatherBlockHost checks the engine's kernel block on a CPU backend,
// where it falls back to a host matrix: the gather, products, norms and
// rows equal the plain operations bit for bit, a block of another shape is
// replaced, and unusable arguments give errors.
func TestGatherBlockHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := pursuit.NewMatrix(200, 9)
	for i := range x.Data {
		x.Data[i] = float32(rng.Float64()*2 - 1)
	}
	e, err := New(WithBackend(BackendGo), WithThreads(2), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if e.ResidentBlocks() {
		t.Fatal("the go backend reports resident blocks")
	}
	p, err := e.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	k := pursuit.NewRBF(0.3)
	var blk *Block
	for _, idx := range [][]int{{5, 199, 0, 5}, {7, 8, 9}, {1, 2, 3}} {
		prev := blk
		if blk, err = e.GatherBlock(blk, k, x, p.Norms(), idx, p); err != nil {
			t.Fatal(err)
		}
		if blk.Resident() || blk.Rows() != len(idx) || blk.Cols() != x.Rows {
			t.Fatalf("block %d×%d (resident %v), want a host block of %d×%d", blk.Rows(), blk.Cols(), blk.Resident(), len(idx), x.Rows)
		}
		if prev != nil && prev.Rows() == len(idx) && prev != blk {
			t.Errorf("a block of the same shape was not reused")
		}
		want := pursuit.NewMatrix(len(idx), x.Rows)
		if err := e.KernelGatherPrepared(want, k, x, p.Norms(), idx, p); err != nil {
			t.Fatal(err)
		}
		got := pursuit.NewMatrix(len(idx), x.Rows)
		if err := e.BlockRows(got.Slice(1, len(idx), 0, x.Rows), blk, 1); err != nil {
			t.Fatal(err)
		}
		if err := e.BlockRows(got.Slice(0, 1, 0, x.Rows), blk, 0); err != nil {
			t.Fatal(err)
		}
		for i := range want.Data {
			if got.Data[i] != want.Data[i] {
				t.Fatalf("element %d: %v, want %v", i, got.Data[i], want.Data[i])
			}
		}
		vecs := pursuit.NewMatrix(3, x.Rows)
		for i := range vecs.Data {
			vecs.Data[i] = float32(rng.NormFloat64())
		}
		wp, gp := make([]float64, 3*len(idx)), make([]float64, 3*len(idx))
		if err := e.DictProducts(wp, want, vecs); err != nil {
			t.Fatal(err)
		}
		if err := e.BlockProducts(gp, blk, vecs); err != nil {
			t.Fatal(err)
		}
		wn, gn := make([]float32, len(idx)), make([]float32, len(idx))
		if err := e.be.SqNorms(wn, want); err != nil {
			t.Fatal(err)
		}
		if err := e.BlockSqNorms(gn, blk); err != nil {
			t.Fatal(err)
		}
		for i := range wp {
			if gp[i] != wp[i] {
				t.Fatalf("product %d: %v, want %v", i, gp[i], wp[i])
			}
		}
		for i := range wn {
			if gn[i] != wn[i] {
				t.Fatalf("norm %d: %v, want %v", i, gn[i], wn[i])
			}
		}
	}
	if err := e.BlockRows(pursuit.NewMatrix(2, x.Rows), blk, 2); !errors.Is(err, pursuit.ErrShape) {
		t.Errorf("BlockRows past the end: %v, want ErrShape", err)
	}
	if _, err := e.GatherBlock(nil, k, x, nil, []int{0}, nil); !errors.Is(err, backend.ErrPrepared) {
		t.Errorf("GatherBlock with a nil prepared operand: %v, want ErrPrepared", err)
	}
	if err := e.BlockProducts(nil, nil, x); !errors.Is(err, backend.ErrPrepared) {
		t.Errorf("BlockProducts of a nil block: %v, want ErrPrepared", err)
	}
	if _, err := e.GatherBlock(nil, k, x, nil, []int{0, 200}, p); !errors.Is(err, pursuit.ErrShape) {
		t.Errorf("GatherBlock with an index out of range: %v, want ErrShape", err)
	}
	if err := blk.Release(); err != nil {
		t.Fatal(err)
	}
	if err := blk.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
}
