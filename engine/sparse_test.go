package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// noSparse is a CPU driver that rejects sparse operands as the CUDA
// backend does (backend.ErrSparse), for the engine's routing to the host.
type noSparse struct{ *backend.CPU }

func reject(ms ...pursuit.Matrix) error {
	for _, m := range ms {
		if m.IsSparse() {
			return fmt.Errorf("noSparse: %w: %w", pursuit.ErrShape, backend.ErrSparse)
		}
	}
	return nil
}

func (b noSparse) Name() string { return "nosparse" }
func (b noSparse) SqNorms(dst []float32, x pursuit.Matrix) error {
	if err := reject(x); err != nil {
		return err
	}
	return b.CPU.SqNorms(dst, x)
}
func (b noSparse) KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, an []float32, bm pursuit.Matrix, bn []float32) error {
	if err := reject(a, bm); err != nil {
		return err
	}
	return b.CPU.KernelBlock(dst, k, a, an, bm, bn)
}
func (b noSparse) KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, an []float32, idx []int, bm pursuit.Matrix, bn []float32) error {
	if err := reject(a, bm); err != nil {
		return err
	}
	return b.CPU.KernelGather(dst, k, a, an, idx, bm, bn)
}
func (b noSparse) Prepare(m pursuit.Matrix) (backend.Prepared, error) {
	if err := reject(m); err != nil {
		return nil, err
	}
	return b.CPU.Prepare(m)
}
func (b noSparse) KernelBlockPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, an []float32, h backend.Prepared) error {
	if err := reject(a); err != nil {
		return err
	}
	return b.CPU.KernelBlockPrepared(dst, k, a, an, h)
}
func (b noSparse) KernelGatherPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, an []float32, idx []int, h backend.Prepared) error {
	if err := reject(a); err != nil {
		return err
	}
	return b.CPU.KernelGatherPrepared(dst, k, a, an, idx, h)
}

// randSparse returns a rows×cols sparse matrix of about nnz non-zeros a
// row and its dense copy.
func randSparse(rng *rand.Rand, rows, cols, nnz int) (pursuit.Matrix, pursuit.Matrix) {
	dense := pursuit.NewMatrix(rows, cols)
	offsets := []int64{0}
	var idx []int32
	var val []float32
	for i := range rows {
		for c := range cols {
			if rng.IntN(cols) < nnz {
				v := float32(rng.Float64()*2 - 1)
				idx, val = append(idx, int32(c)), append(val, v)
				dense.Set(i, c, v)
			}
		}
		offsets = append(offsets, int64(len(idx)))
	}
	m, err := pursuit.SparseFrom(rows, cols, offsets, idx, val)
	if err != nil {
		panic(err)
	}
	return m, dense
}

func closeTo(t *testing.T, name string, got, want pursuit.Matrix) {
	t.Helper()
	for i := range want.Rows {
		for j := range want.Cols {
			if g, w := got.At(i, j), want.At(i, j); math.Abs(float64(g-w)) > 1e-5*(1+math.Abs(float64(w))) {
				t.Fatalf("%s: [%d][%d] = %v, dense %v", name, i, j, g, w)
			}
		}
	}
}

// TestSparseOperands runs the engine's kernel operations on a sparse X —
// norms, gathers, prepared gathers, gathered blocks and their products,
// KernelMatrix — against the same operations on its dense copy, on the Go
// backend, on one that rejects sparse operands (the engine then runs them
// on the host CPU driver) and, in a -tags cuda build, on the CUDA backend,
// and checks that dictionary products refuse a sparse matrix.
func TestSparseOperands(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 28))
	x, xd := randSparse(rng, 150, 70, 6)
	goEng, err := New(WithBackend(BackendGo), WithThreads(2), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	dense := goEng
	rejecting := &Engine{be: noSparse{backend.NewCPU("go", 2, backend.GoKernels())}, threads: 2, slots: make(chan struct{}, 1), budget: DefaultMemoryBudget}
	rejecting.scan = hostScans(rejecting.be)
	k := pursuit.NewRBF(0.2)
	idx := []int{3, 149, 0, 3, 77}
	want := pursuit.NewMatrix(len(idx), x.Rows)
	if err := dense.KernelGather(want, k, xd, nil, idx, xd, nil); err != nil {
		t.Fatal(err)
	}
	engines := map[string]*Engine{"go": goEng, "rejecting": rejecting}
	if cudaBuilt { // the CUDA backend's own sparse kernels (a GPU, or the stand-in driver)
		ce, err := New(WithBackend(BackendCUDA), env(nil))
		if err != nil {
			t.Fatal(err)
		}
		defer ce.Close()
		engines["cuda"] = ce
	}
	for name, e := range engines {
		if host := e.SparseOnHost(); host != (name == "rejecting") {
			t.Errorf("%s: SparseOnHost() = %v", name, host)
		}
		n, err := e.SqNorms(x)
		if err != nil {
			t.Fatalf("%s: SqNorms: %v", name, err)
		}
		nd, _ := dense.SqNorms(xd)
		for i := range n {
			if math.Abs(float64(n[i]-nd[i])) > 1e-5*float64(nd[i]) {
				t.Fatalf("%s: norm %d = %v, dense %v", name, i, n[i], nd[i])
			}
		}
		got := pursuit.NewMatrix(len(idx), x.Rows)
		if err := e.KernelGather(got, k, x, nil, idx, x, nil); err != nil {
			t.Fatalf("%s: KernelGather: %v", name, err)
		}
		closeTo(t, name+" KernelGather", got, want)
		p, err := e.Prepare(x)
		if err != nil {
			t.Fatalf("%s: Prepare: %v", name, err)
		}
		if !p.Backed() {
			t.Errorf("%s: the sparse X was not prepared", name)
		}
		clear(got.Data)
		if err := e.KernelGatherPrepared(got, k, x, p.Norms(), idx, p); err != nil {
			t.Fatalf("%s: KernelGatherPrepared: %v", name, err)
		}
		closeTo(t, name+" KernelGatherPrepared", got, want)
		blk, err := e.GatherBlock(nil, k, x, p.Norms(), idx, p)
		if err != nil {
			t.Fatalf("%s: GatherBlock: %v", name, err)
		}
		vec := pursuit.NewMatrix(1, x.Rows)
		for i := range vec.Data {
			vec.Data[i] = float32(i%7) - 3
		}
		prod := make([]float64, len(idx))
		if err := e.BlockProducts(prod, blk, vec); err != nil {
			t.Fatalf("%s: BlockProducts: %v", name, err)
		}
		for r := range idx {
			var s float64
			for j, v := range vec.Data {
				s += float64(v) * float64(want.At(r, j))
			}
			if math.Abs(prod[r]-s) > 1e-4*(1+math.Abs(s)) {
				t.Errorf("%s: block product %d = %v, want %v", name, r, prod[r], s)
			}
		}
		_ = blk.Release()
		// a dense prepared b with a sparse a
		pd, err := e.Prepare(xd)
		if err != nil {
			t.Fatal(err)
		}
		clear(got.Data)
		if err := e.KernelGatherPrepared(got, k, x, nil, idx, pd); err != nil {
			t.Fatalf("%s: KernelGatherPrepared sparse a, dense b: %v", name, err)
		}
		closeTo(t, name+" KernelGatherPrepared sparse a, dense b", got, want)
		km, err := e.KernelMatrix(k, x, nil, xd, nil)
		if err != nil {
			t.Fatalf("%s: KernelMatrix: %v", name, err)
		}
		for r, i := range idx {
			closeTo(t, name+" KernelMatrix", km.Slice(i, i+1, 0, x.Rows), want.Slice(r, r+1, 0, x.Rows))
		}
		_ = p.Release()
		_ = pd.Release()
		if err := e.DictProducts(make([]float64, 2*x.Rows), x, pursuit.NewMatrix(2, x.Cols)); !errors.Is(err, pursuit.ErrShape) {
			t.Errorf("%s: DictProducts of a sparse dictionary: %v, want an ErrShape error", name, err)
		}
	}
}

// TestSparsePrepareBudget checks that preparing a sparse matrix charges
// its storage, not Rows×Cols×4: a 2000×1000000 matrix (8 GB dense) with
// ten non-zeros a row is prepared within a 1 MiB budget.
func TestSparsePrepareBudget(t *testing.T) {
	const rows, cols = 2000, 1_000_000
	offsets := make([]int64, rows+1)
	idx := make([]int32, 0, rows*10)
	for i := range rows {
		for c := range 10 {
			idx = append(idx, int32(c*99_991+i))
		}
		offsets[i+1] = int64(len(idx))
	}
	val := make([]float32, len(idx))
	for i := range val {
		val[i] = 0.5
	}
	x, err := pursuit.SparseFrom(rows, cols, offsets, idx, val)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(WithBackend(BackendGo), WithThreads(2), WithMemoryBudget(1<<20), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if !p.Backed() {
		t.Errorf("a sparse matrix of %d bytes was not prepared within a 1 MiB budget", x.Bytes())
	}
	got := pursuit.NewMatrix(1, rows)
	if err := e.KernelGatherPrepared(got, pursuit.NewRBF(1), x, p.Norms(), []int{7}, p); err != nil {
		t.Fatal(err)
	}
	if got.At(0, 7) != 1 || math.Abs(float64(got.At(0, 8))-math.Exp(-5)) > 1e-7 {
		t.Errorf("K(x7, x7) = %v, K(x7, x8) = %v; want 1 and e^-5", got.At(0, 7), got.At(0, 8))
	}
}
