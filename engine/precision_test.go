package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// namedEngines returns an engine for every CPU backend that runs here.
func namedEngines(t *testing.T) map[string]*Engine {
	t.Helper()
	out := map[string]*Engine{}
	for _, name := range []string{BackendGo, BackendAVX2, BackendAVX2Only} {
		e, err := New(WithBackend(name), WithThreads(2), env(nil))
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		out[name] = e
	}
	return out
}

// TestAccurateRBF runs backendtest's accuracy case (unscaled and offset
// data, on which float32 distances cancel) on the engine over every CPU
// backend: the engine's kernel blocks and gathers are within a few ulps of
// the float64 reference, where the backends alone are off by 0.2.
func TestAccurateRBF(t *testing.T) {
	for name, e := range namedEngines(t) {
		t.Run(name, func(t *testing.T) {
			worst := backendtest.RunAccurate(t, e)
			t.Logf("largest error %.3g (allowed %.3g)", worst, backendtest.AccurateTol)
		})
	}
}

// TestAccurateRBFPrepared: the prepared operations, GatherBlock and
// KernelMatrix on the accuracy case give the float64 path's values, the
// same bits on every backend; and data the bound passes (scaled to
// [−1, 1], γ = 1/d) go to the backend unchanged, bit for bit.
func TestAccurateRBFPrepared(t *testing.T) {
	engines := namedEngines(t)
	for _, c := range backendtest.OffsetCases() {
		k := pursuit.NewRBF(c.Gamma)
		idx := []int{3, 0, c.A.Rows - 1, 7, 7}
		for name, e := range engines {
			p, err := e.Prepare(c.B)
			if err != nil {
				t.Fatal(err)
			}
			blk := pursuit.NewMatrix(c.A.Rows, c.B.Rows)
			if err := e.KernelBlockPrepared(blk, k, c.A, nil, p); err != nil {
				t.Fatal(err)
			}
			g := pursuit.NewMatrix(len(idx), c.B.Rows)
			if err := e.KernelGatherPrepared(g, k, c.A, nil, idx, p); err != nil {
				t.Fatal(err)
			}
			gb, err := e.GatherBlock(nil, k, c.A, nil, idx, p)
			if err != nil {
				t.Fatal(err)
			}
			rows := pursuit.NewMatrix(len(idx), c.B.Rows)
			if err := e.BlockRows(rows, gb, 0); err != nil {
				t.Fatal(err)
			}
			km, err := e.KernelMatrix(k, c.A, nil, c.B, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.A.Rows {
				for j := range c.B.Rows {
					want := float32(k.Eval(c.A.Row(i), c.B.Row(j)))
					if blk.At(i, j) != want || km.At(i, j) != want {
						t.Fatalf("%s %s: K[%d][%d] = %v prepared, %v KernelMatrix; float64 path %v", c.Name, name, i, j, blk.At(i, j), km.At(i, j), want)
					}
				}
			}
			for r, i := range idx {
				for j := range c.B.Rows {
					if want := blk.At(i, j); g.At(r, j) != want || rows.At(r, j) != want {
						t.Fatalf("%s %s: gathered K[%d][%d] = %v, GatherBlock %v, block %v", c.Name, name, i, j, g.At(r, j), rows.At(r, j), want)
					}
				}
			}
			_ = gb.Release()
			_ = p.Release()
		}
	}
	// Scaled data: the backend's own values.
	rng := rand.New(rand.NewPCG(3, 4))
	x := pursuit.NewMatrix(70, 33)
	for i := range x.Data {
		x.Data[i] = float32(2*rng.Float64() - 1)
	}
	k := pursuit.NewRBF(1.0 / 33)
	for name, e := range engines {
		got := pursuit.NewMatrix(x.Rows, x.Rows)
		if err := e.KernelBlock(got, k, x, nil, x, nil); err != nil {
			t.Fatal(err)
		}
		want := pursuit.NewMatrix(x.Rows, x.Rows)
		if err := e.Backend().KernelBlock(want, k, x, nil, x, nil); err != nil {
			t.Fatal(err)
		}
		for i, v := range got.Data {
			if v != want.Data[i] {
				t.Fatalf("%s: scaled data: value %d = %v, the backend gives %v", name, i, v, want.Data[i])
			}
		}
	}
}

// TestRBFCancellation checks the factor and the decision's edge.
func TestRBFCancellation(t *testing.T) {
	k := pursuit.NewRBF(0.5)
	if got := RBFCancellation(k, 10, 22); got != 16 {
		t.Errorf("κ = %v, want 16", got)
	}
	if got := RBFCancellation(pursuit.NewLinear(), 1e9, 1e9); got != 0 {
		t.Errorf("linear κ = %v, want 0", got)
	}
	a := pursuit.NewMatrix(1, 2)
	a.Set(0, 0, 4) // ‖a‖² = 16, κ = 0.5·32 = 16: float32 still
	if exactRBF(k, a, nil, a, nil) {
		t.Error("κ = 16 takes the float64 path")
	}
	a.Set(0, 1, 0.25)
	if !exactRBF(k, a, nil, a, nil) {
		t.Error("κ > 16 does not take the float64 path")
	}
	a.Set(0, 1, float32(math.NaN()))
	if !exactRBF(k, a, nil, a, nil) {
		t.Error("a NaN norm does not take the float64 path")
	}
}

// TestRBFPairwise: in a block where only some pairs exceed the limit (one
// row far from the origin), those pairs get the float64 path's values and
// the others the backend's, so a value does not depend on the rows beside
// it: every row alone gives the block's bits.
func TestRBFPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	x := pursuit.NewMatrix(40, 9)
	for i := range x.Data {
		x.Data[i] = float32(2*rng.Float64() - 1)
	}
	for j := range x.Cols {
		x.Set(7, j, 30+x.At(7, j)) // ‖x_7‖² ≈ 8100: κ ≫ 16 with every row
	}
	k := pursuit.NewRBF(1.0 / 9)
	for name, e := range namedEngines(t) {
		blk := pursuit.NewMatrix(x.Rows, x.Rows)
		if err := e.KernelBlock(blk, k, x, nil, x, nil); err != nil {
			t.Fatal(err)
		}
		for i := range x.Rows {
			one := pursuit.NewMatrix(1, x.Rows)
			if err := e.KernelGather(one, k, x, nil, []int{i}, x, nil); err != nil {
				t.Fatal(err)
			}
			ref := pursuit.NewMatrix(1, x.Rows)
			if err := e.Backend().KernelGather(ref, k, x, nil, []int{i}, x, nil); err != nil {
				t.Fatal(err)
			}
			for j := range x.Rows {
				want := ref.At(0, j)
				if i == 7 || j == 7 {
					want = float32(k.Eval(x.Row(i), x.Row(j)))
				}
				if one.At(0, j) != want {
					t.Fatalf("%s: K[%d][%d] = %v alone, want %v", name, i, j, one.At(0, j), want)
				}
				if i == 7 || j == 7 {
					if blk.At(i, j) != want {
						t.Fatalf("%s: K[%d][%d] = %v in the block, want %v", name, i, j, blk.At(i, j), want)
					}
				} else if math.Abs(float64(blk.At(i, j)-want)) > 1e-6 {
					t.Fatalf("%s: K[%d][%d] = %v in the block, %v alone", name, i, j, blk.At(i, j), want)
				}
			}
		}
	}
}
