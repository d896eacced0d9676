package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Bench runs the standard benchmark set on be as sub-benchmarks of b:
//
//	KernelBlock/rbf/1024x1024x256, KernelBlock/rbf/4096x4096x256   GFLOP/s
//	KernelBlock/poly3/1024x1024x256                                GFLOP/s
//	KernelGather/rbf/rows=1/8192x256, rows=64                      GFLOP/s
//	KernelGather/rbf/sparse/rows=64/20000x47236/nnz=76 (rcv1-like) Gprod/s
//	KernelGather/rbf/rows=64/20000x1024 (dense comparison)         GFLOP/s
//	DictProducts/8192x8192/k=1, 2, 4, 8                            GB/s
//	RankUpdate/8192x8192/k=1, k=8                                  GB/s
//	SqNorms/8192x4096                                              GB/s
//	ScoredArgMax/M=1048576                                         GB/s
//
// See the package documentation for how to call it and the metrics.
func Bench(b *testing.B, be backend.Backend) {
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1.0 / 256}
	poly := pursuit.Kernel{Kind: pursuit.Polynomial, Gamma: 1.0 / 256, Coef0: 1, Degree: 3}
	for _, n := range []int{1024, 4096} {
		b.Run(fmt.Sprintf("KernelBlock/rbf/%dx%dx256", n, n), func(b *testing.B) { BenchKernelBlock(b, be, rbf, n, n, 256) })
	}
	b.Run("KernelBlock/poly3/1024x1024x256", func(b *testing.B) { BenchKernelBlock(b, be, poly, 1024, 1024, 256) })
	for _, r := range []int{1, 64} {
		b.Run(fmt.Sprintf("KernelGather/rbf/rows=%d/8192x256", r), func(b *testing.B) { BenchKernelGather(b, be, rbf, r, 8192, 256) })
	}
	b.Run("KernelGather/rbf/sparse/rows=64/20000x47236/nnz=76", func(b *testing.B) { BenchSparseGather(b, be, rbf, 64, 20000, 47236, 76) })
	b.Run("KernelGather/rbf/rows=64/20000x1024", func(b *testing.B) { BenchKernelGather(b, be, rbf, 64, 20000, 1024) })
	for _, k := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("DictProducts/8192x8192/k=%d", k), func(b *testing.B) { BenchDictProducts(b, be, 8192, 8192, k) })
	}
	if _, ok := be.(backend.SetProducts); ok {
		for _, k := range []int{1, 2} {
			b.Run(fmt.Sprintf("DictProductsSets/8192x8192/10x%d", k), func(b *testing.B) { BenchDictProductsSets(b, be, 8192, 8192, 10, k) })
		}
	}
	for _, k := range []int{1, 8} {
		b.Run(fmt.Sprintf("RankUpdate/8192x8192/k=%d", k), func(b *testing.B) { BenchRankUpdate(b, be, 8192, 8192, k) })
	}
	b.Run("SqNorms/8192x4096", func(b *testing.B) { BenchSqNorms(b, be, 8192, 4096) })
	b.Run("ScoredArgMax/M=1048576", func(b *testing.B) { BenchScoredArgMax(b, be, 1<<20) })
}

// randMatrix returns a rows×cols matrix of uniform values in [-1, 1).
func randMatrix(rng *rand.Rand, rows, cols int) pursuit.Matrix {
	m := pursuit.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(2*rng.Float64() - 1)
	}
	return m
}

func sqNorms(b *testing.B, be backend.Backend, m pursuit.Matrix) []float32 {
	out := make([]float32, m.Rows)
	if err := be.SqNorms(out, m); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchKernelBlock times KernelBlock of an n×d block against an m×d one
// (squared norms given, as an engine that caches them would call it) and
// reports GFLOP/s counting the product only: flops = 2·n·m·d per call.
func BenchKernelBlock(b *testing.B, be backend.Backend, k pursuit.Kernel, n, m, d int) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, z := randMatrix(rng, n, d), randMatrix(rng, m, d)
	xn, zn := sqNorms(b, be, x), sqNorms(b, be, z)
	dst := pursuit.NewMatrix(n, m)
	loop(b, 2*float64(n)*float64(m)*float64(d)/1e9, "GFLOP", func() error {
		return be.KernelBlock(dst, k, x, xn, z, zn)
	})
}

// BenchKernelGather times KernelGather of rows random rows of an l×d matrix X
// against all of X (the kernel rows an SMO step or a stochastic KMP step
// needs) and reports GFLOP/s with flops = 2·rows·l·d per call.
func BenchKernelGather(b *testing.B, be backend.Backend, k pursuit.Kernel, rows, l, d int) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := randMatrix(rng, l, d)
	xn := sqNorms(b, be, x)
	idx := make([]int, rows)
	for i := range idx {
		idx[i] = rng.IntN(l)
	}
	dst := pursuit.NewMatrix(rows, l)
	loop(b, 2*float64(rows)*float64(l)*float64(d)/1e9, "GFLOP", func() error {
		return be.KernelGather(dst, k, x, xn, idx, x, xn)
	})
}

// BenchSparseGather times KernelGather of rows random rows of a sparse
// l×d matrix X against all of X on an rcv1-like shape: about nnz
// non-zeros a row at columns drawn from a Zipf law (exponent 1.1) over a
// fixed random order of the columns, positive values, unit-norm rows. It
// reports Gprod/s, the streamed products rows·NNZ(X) per call (each
// gathered row against each stored value of X; a dense gather's GFLOP/s
// is 2 Gprod/s), and logs X's size.
func BenchSparseGather(b *testing.B, be backend.Backend, k pursuit.Kernel, rows, l, d, nnz int) {
	x := rcv1Like(rand.New(rand.NewPCG(28, 2)), l, d, nnz)
	rng := rand.New(rand.NewPCG(2, 2))
	xn := sqNorms(b, be, x)
	idx := make([]int, rows)
	for i := range idx {
		idx[i] = rng.IntN(l)
	}
	dst := pursuit.NewMatrix(rows, l)
	b.Logf("X: %d×%d, %d non-zeros (%.1f a row), %.1f MB", l, d, x.NNZ(), float64(x.NNZ())/float64(l), float64(x.Bytes())/1e6)
	loop(b, float64(rows)*float64(x.NNZ())/1e9, "Gprod", func() error {
		return be.KernelGather(dst, k, x, xn, idx, x, xn)
	})
}

// rcv1Like returns the sparse matrix of BenchSparseGather.
func rcv1Like(rng *rand.Rand, l, d, nnz int) pursuit.Matrix {
	perm := rng.Perm(d)
	z := rand.NewZipf(rng, 1.1, 1, uint64(d-1))
	offsets := make([]int64, 1, l+1)
	indices := make([]int32, 0, l*nnz)
	values := make([]float32, 0, l*nnz)
	seen := make(map[int32]bool, 2*nnz)
	for range l {
		clear(seen)
		n := max(1, nnz/2+rng.IntN(nnz+1)) // nnz on average
		start := len(indices)
		for len(seen) < min(n, d) {
			c := int32(perm[z.Uint64()])
			if !seen[c] {
				seen[c] = true
				indices = append(indices, c)
			}
		}
		row := indices[start:]
		slices.Sort(row)
		var sq float64
		for range row {
			v := 0.1 + rng.Float64()
			values = append(values, float32(v))
			sq += v * v
		}
		for p := start; p < len(values); p++ {
			values[p] = float32(float64(values[p]) / math.Sqrt(sq))
		}
		offsets = append(offsets, int64(len(indices)))
	}
	m, err := pursuit.SparseFrom(l, d, offsets, indices, values)
	if err != nil {
		panic(err) // built valid above
	}
	return m
}

// BenchDictProducts times DictProducts of an l×n dictionary with k vectors
// and reports GB/s of dictionary read: 4·l·n bytes per call (the vectors are
// small and stay in cache).
func BenchDictProducts(b *testing.B, be backend.Backend, l, n, k int) {
	rng := rand.New(rand.NewPCG(3, 3))
	dict, vecs := randMatrix(rng, l, n), randMatrix(rng, k, n)
	dst := make([]float64, l*k)
	loop(b, 4*float64(l)*float64(n)/1e9, "GB", func() error {
		return be.DictProducts(dst, dict, vecs)
	})
}

// BenchDictProductsSets times a SetProducts pass of an l×n dictionary with
// sets sets of k vectors each (one-vs-rest pre-fitting's passes: one or two
// vectors per class) and reports GB/s of dictionary read, 4·l·n bytes per
// call.
func BenchDictProductsSets(b *testing.B, be backend.Backend, l, n, sets, k int) {
	sp := be.(backend.SetProducts)
	rng := rand.New(rand.NewPCG(3, 4))
	dict := randMatrix(rng, l, n)
	vecs := make([]pursuit.Matrix, sets)
	dst := make([][]float64, sets)
	for s := range vecs {
		vecs[s], dst[s] = randMatrix(rng, k, n), make([]float64, l*k)
	}
	loop(b, 4*float64(l)*float64(n)/1e9, "GB", func() error {
		return sp.DictProductsSets(dst, dict, vecs)
	})
}

// BenchRankUpdate times a rank-k update of a rows×cols matrix and reports
// GB/s of the matrix read and written: 8·rows·cols bytes per call. Repeated
// updates with alpha = −1 and 1 alternate so the values stay bounded.
func BenchRankUpdate(b *testing.B, be backend.Backend, rows, cols, k int) {
	rng := rand.New(rand.NewPCG(4, 4))
	d, u, v := randMatrix(rng, rows, cols), randMatrix(rng, k, rows), randMatrix(rng, k, cols)
	alpha := float32(-1)
	loop(b, 8*float64(rows)*float64(cols)/1e9, "GB", func() error {
		alpha = -alpha
		return be.RankUpdate(d, alpha, u, v)
	})
}

// BenchSqNorms times the squared row norms of a rows×cols matrix and
// reports GB/s of the matrix read: 4·rows·cols bytes per call.
func BenchSqNorms(b *testing.B, be backend.Backend, rows, cols int) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := randMatrix(rng, rows, cols)
	dst := make([]float32, rows)
	loop(b, 4*float64(rows)*float64(cols)/1e9, "GB", func() error {
		return be.SqNorms(dst, x)
	})
}

// BenchScoredArgMax times the scored arg-max over m candidates (one in
// sixteen skipped, as chosen atoms are in a pursuit) and reports GB/s of the
// scores and norms read: 16·m bytes per call.
func BenchScoredArgMax(b *testing.B, be backend.Backend, m int) {
	rng := rand.New(rand.NewPCG(6, 6))
	s, n, skip := make([]float64, m), make([]float64, m), make([]bool, m)
	for i := range s {
		s[i] = 2*rng.Float64() - 1
		n[i] = rng.Float64() + 0.5
		skip[i] = i%16 == 0
	}
	var best int
	loop(b, 16*float64(m)/1e9, "GB", func() error {
		best, _ = be.ScoredArgMax(s, n, skip)
		if best < 0 {
			return fmt.Errorf("ScoredArgMax found no candidate among %d", m)
		}
		return nil
	})
}

// loop runs op under b.Loop and reports work/second as unit+"/s" (wall
// clock) and, where the process CPU time is available, work per CPU-second
// as unit+"/cpu-s". On a machine shared with other jobs the wall figure
// drops with the load while the CPU-time figure of a single-threaded backend
// stays close to its unloaded speed; for a multi-threaded backend it is the
// throughput per busy core. work is per call, in units of 1e9.
func loop(b *testing.B, work float64, unit string, op func() error) {
	calls := 0
	cpu0, cpuOK := CPUTime()
	for b.Loop() {
		calls++
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	cpu1, _ := CPUTime()
	b.ReportMetric(work*float64(calls)/b.Elapsed().Seconds(), unit+"/s")
	if cpuOK && cpu1 > cpu0 {
		b.ReportMetric(work*float64(calls)/(cpu1-cpu0).Seconds(), unit+"/cpu-s")
	}
}
