//go:build cuda

package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// randSparse returns a rows×cols CSR matrix with about density of its
// values non-zero (some rows empty) and its dense twin.
func randSparse(rng *rand.Rand, rows, cols int, density float64) (pursuit.Matrix, pursuit.Matrix) {
	dense := pursuit.NewMatrix(rows, cols)
	offsets := []int64{0}
	var indices []int32
	var values []float32
	for i := range rows {
		if i%7 != 3 {
			for c := range cols {
				if rng.Float64() < density {
					v := float32(2*rng.Float64() - 1)
					indices = append(indices, int32(c))
					values = append(values, v)
					dense.Set(i, c, v)
				}
			}
		}
		offsets = append(offsets, int64(len(indices)))
	}
	m, err := pursuit.SparseFrom(rows, cols, offsets, indices, values)
	if err != nil {
		panic(err)
	}
	return m, dense
}

func sameBitsMatrix(t *testing.T, name string, got, want pursuit.Matrix) {
	t.Helper()
	for i := range want.Rows {
		for j := range want.Cols {
			if g, w := got.At(i, j), want.At(i, j); math.Float32bits(g) != math.Float32bits(w) {
				t.Fatalf("%s: (%d, %d) = %v, want the same bits as %v", name, i, j, g, w)
			}
		}
	}
}

// TestSparseResident checks the sparse paths the conformance suite does
// not reach: the bytes a prepared sparse matrix and its own gathers move,
// resident gathered blocks with a sparse operand, and values that do not
// depend on the slabs and batches the chunk budget cuts (a backend with a
// budget of a few KiB gives the same bits).
func TestSparseResident(t *testing.T) {
	be := open(t)
	small, err := New(WithChunkBytes(4 << 10))
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	ref := backend.NewGo(0)
	rng := rand.New(rand.NewPCG(28, 28))
	const l, d = 300, 700
	x, xd := randSparse(rng, l, d, 0.03)
	k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.5}

	up0, down0 := be.Traffic()
	p, err := be.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	up, down := be.Traffic()
	nnz := x.NNZ()
	t.Logf("Prepare sparse %d×%d, %d non-zeros: %d bytes to the device, %d back", l, d, nnz, up-up0, down-down0)
	if want := 8*int64(l+1) + 8*nnz; up-up0 != want || down-down0 != 4*l {
		t.Errorf("Prepare moved %d bytes up and %d down, want %d and %d", up-up0, down-down0, want, 4*l)
	}
	idx := []int{5, 299, 0, 17, 17, 3, 250, 64, 65, 128, 31, 32, 33}
	want := pursuit.NewMatrix(len(idx), l)
	if err := ref.KernelGather(want, k, xd, nil, idx, xd, nil); err != nil {
		t.Fatal(err)
	}
	closeAll := func(name string, got pursuit.Matrix) {
		t.Helper()
		for i := range want.Data {
			if !closeTo(float64(got.Data[i]), float64(want.Data[i]), 1e-4) {
				t.Fatalf("%s: element %d = %v, want %v", name, i, got.Data[i], want.Data[i])
			}
		}
	}

	// The SMO pattern: only idx goes up, only the rows come back.
	got := pursuit.NewMatrix(len(idx), l)
	up0, down0 = be.Traffic()
	if err := be.KernelGatherPrepared(got, k, x, nil, idx, p); err != nil {
		t.Fatal(err)
	}
	up, down = be.Traffic()
	if up-up0 != 8*int64(len(idx)) || down-down0 != int64(4*len(idx)*l) {
		t.Errorf("own sparse gather moved %d bytes up and %d down, want %d and %d", up-up0, down-down0, 8*len(idx), 4*len(idx)*l)
	}
	closeAll("KernelGatherPrepared own sparse", got)

	// The same values by every other path, bit for bit; xc is a copy of x
	// (not the prepared matrix itself).
	xc, err := pursuit.SparseFrom(l, d, append([]int64(nil), x.Sparse.Offsets...),
		append([]int32(nil), x.Sparse.Indices...), append([]float32(nil), x.Sparse.Values...))
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func(dst pursuit.Matrix) error{
		"KernelGather":                  func(dst pursuit.Matrix) error { return be.KernelGather(dst, k, x, nil, idx, x, p.Norms()) },
		"KernelGather small chunks":     func(dst pursuit.Matrix) error { return small.KernelGather(dst, k, x, nil, idx, x, nil) },
		"KernelGatherPrepared not own":  func(dst pursuit.Matrix) error { return be.KernelGatherPrepared(dst, k, xc, nil, idx, p) },
		"KernelGatherPrepared with sel": func(dst pursuit.Matrix) error { return be.KernelGatherPrepared(dst, k, x, p.Norms(), idx, p) },
		"KernelGatherBlock own": func(dst pursuit.Matrix) error {
			blk, err := be.NewBlock(len(idx), l)
			if err != nil {
				return err
			}
			defer blk.Release()
			if err := be.KernelGatherBlock(blk, k, x, nil, idx, p); err != nil {
				return err
			}
			return be.ReadBlock(dst, blk, 0)
		},
	} {
		dst := pursuit.NewMatrix(len(idx), l)
		if err := call(dst); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameBitsMatrix(t, name, dst, got)
	}
	ps, err := small.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Release()
	dst := pursuit.NewMatrix(len(idx), l)
	if err := small.KernelGatherPrepared(dst, k, x, nil, idx, ps); err != nil {
		t.Fatal(err)
	}
	sameBitsMatrix(t, "KernelGatherPrepared small chunks", dst, got)

	// A dense prepared b with sparse rows a: resident block and host
	// gathers, in batches of the budget or whole.
	pd, err := be.Prepare(xd)
	if err != nil {
		t.Fatal(err)
	}
	defer pd.Release()
	blk, err := be.NewBlock(len(idx), l)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Release()
	if err := be.KernelGatherBlock(blk, k, x, nil, idx, pd); err != nil {
		t.Fatal(err)
	}
	fromBlock := pursuit.NewMatrix(len(idx), l)
	if err := be.ReadBlock(fromBlock, blk, 0); err != nil {
		t.Fatal(err)
	}
	closeAll("KernelGatherBlock sparse a, dense b", fromBlock)
	norms := make([]float32, len(idx))
	if err := be.BlockSqNorms(norms, blk); err != nil {
		t.Fatal(err)
	}
	if err := be.KernelGatherPrepared(dst, k, x, nil, idx, pd); err != nil {
		t.Fatal(err)
	}
	sameBitsMatrix(t, "KernelGatherPrepared sparse a, dense b", dst, fromBlock)
	if err := small.KernelGather(dst, k, x, nil, idx, xd, nil); err != nil {
		t.Fatal(err)
	}
	sameBitsMatrix(t, "KernelGather sparse a, dense b, small chunks", dst, fromBlock)

	// SqNorms of a sparse matrix in slabs equal the prepared norms.
	sq := make([]float32, l)
	if err := small.SqNorms(sq, x); err != nil {
		t.Fatal(err)
	}
	for i, v := range p.Norms() {
		if math.Float32bits(sq[i]) != math.Float32bits(v) {
			t.Fatalf("SqNorms in slabs: row %d = %v, prepared %v", i, sq[i], v)
		}
	}
}
