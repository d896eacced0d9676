package asm

import (
	"fmt"
	"testing"
)

// Micro-benchmarks of the kernels on cache-resident data (compute limits,
// not memory): useful to see the kernel's own speed on a busy machine.
func BenchmarkMicro(b *testing.B) {
	sets := kernelSets(b)
	for _, name := range []string{"asm512", "asm", "go"} {
		ks, ok := sets[name]
		if !ok {
			continue
		}
		b.Run(fmt.Sprintf("%s/sqnorm/n=4096", name), func(b *testing.B) {
			x := make([]float32, 4096)
			c0 := cpuTime()
			for b.Loop() {
				ks.SqNorm(x)
			}
			b.ReportMetric(float64(4*len(x)*b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			b.ReportMetric(float64(4*len(x)*b.N)/(cpuTime()-c0).Seconds()/1e9, "GB/cpu-s")
		})
		for _, k := range []int{1, 2, 4} {
			const n = 1024
			rows := ks.RowsPerCall(k)
			x := make([]float32, rows*n)
			v := make([]float32, k*n)
			acc := make([]float64, 4*rows*k)
			b.Run(fmt.Sprintf("%s/dotRows/rows=%d/k=%d/n=%d", name, rows, k, n), func(b *testing.B) {
				c0 := cpuTime()
				for b.Loop() {
					ks.DotRows(acc, x, n, rows, n, v, n, k)
				}
				b.ReportMetric(float64(4*rows*n*b.N)/(cpuTime()-c0).Seconds()/1e9, "GB/cpu-s")
			})
		}
		mr, nr := ks.MR, ks.NR
		b.Run(fmt.Sprintf("%s/gemm%dx%d/kc=256", name, mr, nr), func(b *testing.B) {
			const kc = 256
			ap := make([]float32, kc*mr)
			bp := make([]float32, kc*nr)
			c := make([]float32, mr*nr)
			c0 := cpuTime()
			for b.Loop() {
				ks.Gemm(kc, ap, bp, c, nr, true)
			}
			b.ReportMetric(float64(2*kc*mr*nr*b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(float64(2*kc*mr*nr*b.N)/(cpuTime()-c0).Seconds()/1e9, "GFLOP/cpu-s")
		})
		b.Run(fmt.Sprintf("%s/rbf%dx%d", name, mr, nr), func(b *testing.B) {
			c := make([]float32, mr*nr)
			an := make([]float32, mr)
			bn := make([]float32, nr)
			c0 := cpuTime()
			for b.Loop() {
				ks.RBF(c, nr, mr, nr, an, bn, -0.5)
			}
			b.ReportMetric(float64(mr*nr*b.N)/b.Elapsed().Seconds()/1e9, "Gexp/s")
			b.ReportMetric(float64(mr*nr*b.N)/(cpuTime()-c0).Seconds()/1e9, "Gexp/cpu-s")
		})
	}
}
