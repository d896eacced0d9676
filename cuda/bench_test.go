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

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// Benchmarks (GPU machines only; scripts/gpu-check.sh runs them):
//
//	BenchmarkCUDA        the standard set of package backendtest on host
//	                     slices: every call copies its operands over the bus
//	BenchmarkGoAll       the same set on the pure-Go backend, all cores, for
//	                     the ratio on the same machine
//	BenchmarkResident    device-resident kernel blocks (GFLOP/s and the
//	                     fraction of the device's FP32 peak), dictionary
//	                     passes and rank-1 updates (GB/s and the fraction of
//	                     the measured device copy bandwidth)
//	BenchmarkDeviceLimits the denominators: FP32 peak from the device
//	                     attributes, copy bandwidth measured with cuMemcpyDtoD
//	BenchmarkStochasticKMP200k  end-to-end stochastic KMP steps at l = 200000,
//	                     resident CUDA against the pure-Go backend on all cores

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
	src, err := be.Alloc(1, bytes/4)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Free()
	dst, err := be.Alloc(1, bytes/4)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Free()
	s, d := src.(*devMatrix), dst.(*devMatrix)
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

func uploadRand(b *testing.B, be *Backend, rng *rand.Rand, rows, cols int) Buffer {
	b.Helper()
	m := backend.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(2*rng.Float64() - 1)
	}
	buf, err := be.Upload(m)
	if err != nil {
		b.Fatal(err)
	}
	return buf
}

func BenchmarkResident(b *testing.B) {
	be := openB(b)
	peak, bw := deviceLimits(b, be)
	rng := rand.New(rand.NewPCG(1, 2))
	rbf := backend.Kernel{Kind: backend.RBF, Gamma: 1.0 / 256}

	for _, n := range []int{4096, 16384} {
		b.Run(fmt.Sprintf("KernelBlockOn/rbf/%dx%dx256", n, n), func(b *testing.B) {
			x := uploadRand(b, be, rng, n, 256)
			defer x.Free()
			xn, _ := be.Alloc(1, n)
			defer xn.Free()
			if err := be.SqNormsOn(xn, x); err != nil {
				b.Fatal(err)
			}
			dst, err := be.Alloc(n, n)
			if err != nil {
				b.Fatal(err)
			}
			defer dst.Free()
			calls := 0
			for b.Loop() {
				calls++
				if err := be.KernelBlockOn(dst, rbf, x, xn, x, xn); err != nil {
					b.Fatal(err)
				}
			}
			g := 2 * float64(n) * float64(n) * 256 * float64(calls) / b.Elapsed().Seconds() / 1e9
			b.ReportMetric(g, "GFLOP/s")
			b.ReportMetric(g/peak, "of-peak")
		})
	}
	b.Run("KernelGatherOn/rbf/rows=228/200000x64", func(b *testing.B) {
		const l, s = 200000, 228
		x := uploadRand(b, be, rng, l, 64)
		defer x.Free()
		dst, _ := be.Alloc(s, l)
		defer dst.Free()
		idx := make([]int, s)
		for i := range idx {
			idx[i] = rng.IntN(l)
		}
		calls := 0
		for b.Loop() {
			calls++
			if err := be.KernelGatherOn(dst, rbf, x, nil, idx, x, nil); err != nil {
				b.Fatal(err)
			}
		}
		g := 2 * float64(s) * l * 64 * float64(calls) / b.Elapsed().Seconds() / 1e9
		b.ReportMetric(g, "GFLOP/s")
		b.ReportMetric(g/peak, "of-peak")
	})
	for _, shape := range [][2]int{{8192, 8192}, {228, 200000}} {
		for _, k := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("DictProductsOn/%dx%d/k=%d", shape[0], shape[1], k), func(b *testing.B) {
				dict := uploadRand(b, be, rng, shape[0], shape[1])
				defer dict.Free()
				vecs := uploadRand(b, be, rng, k, shape[1])
				defer vecs.Free()
				out, _ := be.AllocF64(k * shape[0])
				defer out.Free()
				calls := 0
				for b.Loop() {
					calls++
					if err := be.DictProductsOn(out, dict, vecs); err != nil {
						b.Fatal(err)
					}
				}
				gb := 4 * float64(shape[0]) * float64(shape[1]) * float64(calls) / b.Elapsed().Seconds() / 1e9
				b.ReportMetric(gb, "GB/s")
				b.ReportMetric(gb/bw, "of-copy-bw")
			})
		}
	}
	b.Run("RankUpdateOn/8192x8192/k=1", func(b *testing.B) {
		d := uploadRand(b, be, rng, 8192, 8192)
		defer d.Free()
		u := uploadRand(b, be, rng, 1, 8192)
		defer u.Free()
		v := uploadRand(b, be, rng, 1, 8192)
		defer v.Free()
		alpha := float32(-1)
		calls := 0
		for b.Loop() {
			calls++
			if err := be.RankUpdateOn(d, alpha, u, v); err != nil {
				b.Fatal(err)
			}
			alpha = -alpha
		}
		gb := 8 * 8192 * 8192 * float64(calls) / b.Elapsed().Seconds() / 1e9
		b.ReportMetric(gb, "GB/s")
		b.ReportMetric(gb/bw, "of-copy-bw")
	})
}

// BenchmarkStochasticKMP200k times steps of the end-to-end stochastic KMP
// of e2e_test.go at l = 200000 (d = 64, s = 228, RBF) with the kernel rows
// resident on the GPU, and the same steps on the pure-Go backend over all
// cores, and reports both and the speed-up. Run with -benchtime 1x.
func BenchmarkStochasticKMP200k(b *testing.B) {
	be := openB(b)
	const l, d, s, steps = 200000, 64, 228, 10
	x, y := skmpData(l, d, 3)
	k := backend.Kernel{Kind: backend.RBF, Gamma: 1.0 / d}
	var gpuStep, cpuStep time.Duration
	for b.Loop() {
		ops, err := newResidentOps(be, k, x, s)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := stochasticKMP(ops, y, steps, s, 1); err != nil {
			b.Fatal(err)
		}
		gpuStep = time.Since(t0) / steps

		goOps, err := newHostOps(backend.NewGo(runtime.NumCPU()), k, x, s)
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		if _, err := stochasticKMP(goOps, y, steps, s, 1); err != nil {
			b.Fatal(err)
		}
		cpuStep = time.Since(t0) / steps
	}
	b.ReportMetric(float64(gpuStep.Microseconds())/1e3, "ms/step-cuda")
	b.ReportMetric(float64(cpuStep.Microseconds())/1e3, "ms/step-go")
	b.ReportMetric(float64(cpuStep)/float64(gpuStep), "speedup")
}
