//go:build cuda

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/asm"
	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
	"github.com/pursuit-ml/pursuit/data"
)

// Benchmarks (GPU machines only; scripts/gpu-check.sh runs them):
//
//	BenchmarkCUDA        the standard set of package backendtest on host
//	                     slices: every call copies its operands over the bus
//	BenchmarkGoAll       the same set on the pure-Go backend, all cores, for
//	                     the ratio on the same machine
//	BenchmarkResident    kernel blocks gathered into resident blocks against
//	                     a prepared X (GFLOP/s and the fraction of the
//	                     device's FP32 peak) and products of resident blocks
//	                     (GB/s and the fraction of the measured device copy
//	                     bandwidth)
//	BenchmarkDeviceLimits the denominators: FP32 peak from the device
//	                     attributes, copy bandwidth measured with cuMemcpyDtoD
//	BenchmarkSparseGather sparse kernel rows K(X[idx], X) on rcv1's shape:
//	                     cuda plain and prepared against the AVX2 backend
//	BenchmarkStochasticKMP200k (e2e_test.go) stochastic KMP steps at
//	                     l = 200000 through the engine, CUDA against the
//	                     pure-Go backend on all cores

func BenchmarkCUDA(b *testing.B) { backendtest.Bench(b, openB(b)) }

func BenchmarkGoAll(b *testing.B) { backendtest.Bench(b, backend.NewGo(runtime.NumCPU())) }

func openB(b *testing.B) *Backend {
	b.Helper()
	be, err := New()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = be.Close() })
	return be
}

// fp32PerSM is the number of FP32 lanes per multiprocessor by architecture.
func fp32PerSM(major, minor int) int {
	switch {
	case major == 7:
		return 64 // Volta, Turing
	case major == 8 && minor == 0:
		return 64 // A100
	default:
		return 128 // GA10x, Ada, Hopper, Blackwell
	}
}

// deviceLimits returns the FP32 peak (GFLOP/s, from the attributes: SMs ×
// lanes × 2 × clock) and the measured device-to-device copy bandwidth (GB/s
// of bytes read + written).
func deviceLimits(b *testing.B, be *Backend) (peak, bw float64) {
	b.Helper()
	var clockKHz int
	err := be.do(func() error {
		var err error
		clockKHz, err = be.info.dev.Attribute(cu.ClockRate)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	peak = float64(be.info.sms*fp32PerSM(be.info.major, be.info.minor)) * 2 * float64(clockKHz) * 1e3 / 1e9
	if peak <= 0 {
		b.Logf("the driver reports no clock rate: the of-peak ratios are meaningless")
		peak = math.NaN()
	}

	const bytes = 1 << 30
	src, err := be.NewBlock(1, bytes/4)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Release()
	dst, err := be.NewBlock(1, bytes/4)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Release()
	s, d := src.(*cudaBlock).m, dst.(*cudaBlock).m
	const reps = 10
	var elapsed time.Duration
	err = be.do(func() error {
		if err := cu.MemcpyDtoD(d.mem.ptr, s.mem.ptr, bytes); err != nil { // warm-up
			return err
		}
		if err := cu.Synchronize(); err != nil {
			return err
		}
		t0 := time.Now()
		for range reps {
			if err := cu.MemcpyDtoD(d.mem.ptr, s.mem.ptr, bytes); err != nil {
				return err
			}
		}
		err := cu.Synchronize()
		elapsed = time.Since(t0)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	bw = 2 * bytes * reps / elapsed.Seconds() / 1e9
	return peak, bw
}

func BenchmarkDeviceLimits(b *testing.B) {
	be := openB(b)
	var peak, bw float64
	for b.Loop() {
		peak, bw = deviceLimits(b, be)
	}
	b.ReportMetric(peak, "peakGFLOP/s")
	b.ReportMetric(bw, "copyGB/s")
	b.Logf("%s: FP32 peak %.0f GFLOP/s (attributes), device copy %.0f GB/s (measured)", be.Device(), peak, bw)
}

func randHost(rng *rand.Rand, rows, cols int) pursuit.Matrix {
	m := pursuit.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(2*rng.Float64() - 1)
	}
	return m
}

// residentBlock prepares x (rows×cols, random) and gathers the block of
// its rows idx into a resident block.
func residentBlock(b *testing.B, be *Backend, k pursuit.Kernel, x pursuit.Matrix, idx []int) (backend.Prepared, backend.Block) {
	b.Helper()
	p, err := be.Prepare(x)
	if err != nil {
		b.Fatal(err)
	}
	blk, err := be.NewBlock(len(idx), x.Rows)
	if err != nil {
		b.Fatal(err)
	}
	if err := be.KernelGatherBlock(blk, k, x, nil, idx, p); err != nil {
		b.Fatal(err)
	}
	return p, blk
}

func allRows(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func BenchmarkResident(b *testing.B) {
	be := openB(b)
	peak, bw := deviceLimits(b, be)
	rng := rand.New(rand.NewPCG(1, 2))
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1.0 / 256}

	for _, n := range []int{4096, 16384} {
		b.Run(fmt.Sprintf("KernelGatherBlock/rbf/%dx%dx256", n, n), func(b *testing.B) {
			x := randHost(rng, n, 256)
			idx := allRows(n)
			p, blk := residentBlock(b, be, rbf, x, idx)
			defer p.Release()
			defer blk.Release()
			calls := 0
			for b.Loop() {
				calls++
				if err := be.KernelGatherBlock(blk, rbf, x, nil, idx, p); err != nil {
					b.Fatal(err)
				}
			}
			g := 2 * float64(n) * float64(n) * 256 * float64(calls) / b.Elapsed().Seconds() / 1e9
			b.ReportMetric(g, "GFLOP/s")
			b.ReportMetric(g/peak, "of-peak")
		})
	}
	b.Run("KernelGatherBlock/rbf/rows=228/200000x64", func(b *testing.B) {
		const l, s = 200000, 228
		x := randHost(rng, l, 64)
		idx := make([]int, s)
		for i := range idx {
			idx[i] = rng.IntN(l)
		}
		p, blk := residentBlock(b, be, rbf, x, idx)
		defer p.Release()
		defer blk.Release()
		calls := 0
		for b.Loop() {
			calls++
			if err := be.KernelGatherBlock(blk, rbf, x, nil, idx, p); err != nil {
				b.Fatal(err)
			}
		}
		g := 2 * float64(s) * l * 64 * float64(calls) / b.Elapsed().Seconds() / 1e9
		b.ReportMetric(g, "GFLOP/s")
		b.ReportMetric(g/peak, "of-peak")
	})
	// BlockProducts includes copying the k vectors up and the products
	// back, as a stochastic-KMP step does.
	for _, shape := range [][2]int{{8192, 8192}, {228, 200000}} {
		for _, k := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("BlockProducts/%dx%d/k=%d", shape[0], shape[1], k), func(b *testing.B) {
				x := randHost(rng, shape[1], 1)
				p, blk := residentBlock(b, be, pursuit.Kernel{Kind: pursuit.Linear}, x, allRows(shape[0]))
				defer p.Release()
				defer blk.Release()
				vecs := randHost(rng, k, shape[1])
				out := make([]float64, k*shape[0])
				calls := 0
				for b.Loop() {
					calls++
					if err := be.BlockProducts(out, blk, vecs); err != nil {
						b.Fatal(err)
					}
				}
				gb := 4 * float64(shape[0]) * float64(shape[1]) * float64(calls) / b.Elapsed().Seconds() / 1e9
				b.ReportMetric(gb, "GB/s")
				b.ReportMetric(gb/bw, "of-copy-bw")
			})
		}
	}
}

// BenchmarkSparseGather times sparse kernel rows on rcv1's shape
// (data.RCV1Shape: 20242×47236, about 76 non-zeros a row, tf-idf rows of
// unit norm): K(X[idx], X) for rows random rows, RBF, as an SMO solver
// gathers them. Variants: cuda (plain KernelGather: X's CSR crosses the
// bus every call), cuda-prepared (X resident, KernelGatherPrepared: only
// idx goes up, only the rows come back), avx2 (the AVX2 assembly backend
// on all cores, prepared, the CPU's best). It reports Gprod/s, the
// streamed products rows·NNZ(X) per call, and checks the first call's
// rows against the AVX2 backend's.
func BenchmarkSparseGather(b *testing.B) {
	ds, err := data.TextLike(data.RCV1Shape)
	if err != nil {
		b.Fatal(err)
	}
	x := ds.X
	k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1}
	ref, err := asm.New(asm.WithThreads(runtime.NumCPU()))
	if err != nil {
		b.Skipf("no AVX2 backend to compare with: %v", err)
	}
	for _, rows := range []int{64, 1024} {
		rng := rand.New(rand.NewPCG(28, uint64(rows)))
		idx := make([]int, rows)
		for i := range idx {
			idx[i] = rng.IntN(x.Rows)
		}
		want := pursuit.NewMatrix(rows, x.Rows)
		if err := ref.KernelGather(want, k, x, nil, idx, x, nil); err != nil {
			b.Fatal(err)
		}
		work := float64(rows) * float64(x.NNZ()) / 1e9
		run := func(name string, be backend.Backend, call func(dst pursuit.Matrix) error) {
			b.Run(fmt.Sprintf("%s/rows=%d", name, rows), func(b *testing.B) {
				b.Logf("X: %d×%d, %d non-zeros (%.1f a row), %.1f MB", x.Rows, x.Cols, x.NNZ(), float64(x.NNZ())/float64(x.Rows), float64(x.Bytes())/1e6)
				dst := pursuit.NewMatrix(rows, x.Rows)
				if err := call(dst); err != nil {
					b.Fatal(err)
				}
				for i := range want.Data {
					if !closeTo(float64(dst.Data[i]), float64(want.Data[i]), 1e-4) {
						b.Fatalf("%s: element %d = %v, avx2 %v", be.Name(), i, dst.Data[i], want.Data[i])
					}
				}
				calls := 0
				for b.Loop() {
					calls++
					if err := call(dst); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(work*float64(calls)/b.Elapsed().Seconds(), "Gprod/s")
			})
		}
		gpu := openB(b)
		run("cuda", gpu, func(dst pursuit.Matrix) error { return gpu.KernelGather(dst, k, x, nil, idx, x, nil) })
		p, err := gpu.Prepare(x)
		if err != nil {
			b.Fatal(err)
		}
		run("cuda-prepared", gpu, func(dst pursuit.Matrix) error { return gpu.KernelGatherPrepared(dst, k, x, nil, idx, p) })
		_ = p.Release()
		rp, err := ref.(backend.Preparer).Prepare(x)
		if err != nil {
			b.Fatal(err)
		}
		run("avx2", ref, func(dst pursuit.Matrix) error {
			return ref.(backend.Preparer).KernelGatherPrepared(dst, k, x, nil, idx, rp)
		})
		_ = rp.Release()
	}
}
