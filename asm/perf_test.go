package asm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// TestPerfReport prints best-of-N throughputs of the assembly and pure-Go
// backends measured alternately in one run, for quoting ratios on a busy
// machine (best-of-N filters out the time slices lost to other processes).
// It runs only with PURSUIT_ASM_PERF=N (N repetitions per measurement).
func TestPerfReport(t *testing.T) {
	reps, _ := strconv.Atoi(os.Getenv("PURSUIT_ASM_PERF"))
	if reps <= 0 {
		t.Skip("set PURSUIT_ASM_PERF=N to measure (N repetitions each)")
	}
	if ok, why := Available(); !ok {
		t.Skip(why)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	rmat := func(r, c int) pursuit.Matrix {
		m := pursuit.NewMatrix(r, c)
		for i := range m.Data {
			m.Data[i] = float32(2*rng.Float64() - 1)
		}
		return m
	}
	// best returns the shortest wall time and the shortest CPU time (all
	// threads) of reps calls of f.
	best := func(f func()) (wall, cpu float64) {
		bw, bc := time.Duration(1<<62), time.Duration(1<<62)
		for range reps {
			c0, s := cpuTime(), time.Now()
			f()
			bw = min(bw, time.Since(s))
			bc = min(bc, cpuTime()-c0)
		}
		return bw.Seconds(), bc.Seconds()
	}
	type be struct {
		name string
		b    backend.Backend
	}
	var bes []be
	for _, th := range []int{1, 2} {
		a, _ := New(WithThreads(th))
		bes = append(bes, be{"avx2-" + strconv.Itoa(th) + "t", a}, be{"go-" + strconv.Itoa(th) + "t", backend.NewGo(th)})
	}
	if b := newBackend(WithThreads(1)); b.UsesAVX512() {
		bes = append(bes, be{"avx2only-1t", newBackend(WithThreads(1), WithAVX512(false))})
	}
	only := os.Getenv("PURSUIT_ASM_PERF_OPS")
	want := func(op string) bool { return only == "" || only == op }

	if want("dict") || want("rank") {
		const l, n = 8192, 8192
		dict := rmat(l, n)
		for _, k := range []int{1, 2, 4, 8} {
			if !want("dict") {
				break
			}
			vecs := rmat(k, n)
			dst := make([]float64, l*k)
			for _, e := range bes {
				w, c := best(func() { _ = e.b.DictProducts(dst, dict, vecs) })
				t.Logf("DictProducts 8192x8192 k=%d %-8s %6.2f GB/s wall, %6.2f GB/s per CPU-second", k, e.name, 4*l*n/w/1e9, 4*l*n/c/1e9)
			}
		}
		for _, k := range []int{1, 8} {
			if !want("rank") {
				break
			}
			u, v := rmat(k, l), rmat(k, n)
			for _, e := range bes {
				alpha := float32(1)
				w, c := best(func() { _ = e.b.RankUpdate(dict, alpha, u, v); alpha = -alpha })
				t.Logf("RankUpdate 8192x8192 k=%d %-8s %6.2f GB/s wall, %6.2f GB/s per CPU-second", k, e.name, 8*l*n/w/1e9, 8*l*n/c/1e9)
			}
		}
	}
	if want("argmax") {
		const m = 1 << 20
		s, n, skip := make([]float64, m), make([]float64, m), make([]bool, m)
		for k := range s {
			s[k], n[k], skip[k] = rng.NormFloat64(), rng.Float64()+0.1, rng.IntN(10) == 0
		}
		for _, e := range bes {
			w, c := best(func() { e.b.ScoredArgMax(s, n, skip) })
			t.Logf("ScoredArgMax M=2^20 %-8s %6.0f M candidates/s wall, %6.0f per CPU-second", e.name, m/w/1e6, m/c/1e6)
		}
	}
	if want("sqnorms") {
		x := rmat(8192, 4096)
		out := make([]float32, 8192)
		for _, e := range bes {
			w, c := best(func() { _ = e.b.SqNorms(out, x) })
			t.Logf("SqNorms 8192x4096 %-8s %6.2f GB/s wall, %6.2f GB/s per CPU-second", e.name, 4*8192*4096/w/1e9, 4*8192*4096/c/1e9)
		}
	}
	if want("rbf") {
		for _, coretype := range []string{"", "Haswell"} {
			if w, c, err := openBLASSgemm(coretype, 4096, 4096, 256, reps); err != nil {
				t.Logf("OpenBLAS SGEMM not measured: %v", err)
			} else {
				t.Logf("OpenBLAS SGEMM 4096x4096x256 1 thread, OPENBLAS_CORETYPE=%q: %6.1f GFLOP/s wall, %6.1f GFLOP/s per CPU-second", coretype, w, c)
			}
		}
		const n, d = 4096, 256
		x, z := rmat(n, d), rmat(n, d)
		dst := pursuit.NewMatrix(n, n)
		k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1.0 / d}
		for _, e := range bes {
			xn, zn := make([]float32, n), make([]float32, n)
			_ = e.b.SqNorms(xn, x)
			_ = e.b.SqNorms(zn, z)
			w, c := best(func() { _ = e.b.KernelBlock(dst, k, x, xn, z, zn) })
			t.Logf("KernelBlock rbf 4096x4096x256 %-8s %6.1f GFLOP/s wall, %6.1f GFLOP/s per CPU-second", e.name, 2*n*n*d/w/1e9, 2*n*n*d/c/1e9)
		}
	}
}

// openBLASSgemm times a 1-thread OpenBLAS SGEMM of an n×d by d×m matrix
// through Debian's python3-numpy (best of reps), with OPENBLAS_CORETYPE set
// to coretype when not empty ("Haswell" = its AVX2 kernels; empty = the
// library's choice for this CPU).
func openBLASSgemm(coretype string, n, m, d, reps int) (wall, cpu float64, err error) {
	script := fmt.Sprintf(`import numpy as np, time
a=np.random.rand(%d,%d).astype(np.float32); b=np.random.rand(%d,%d).astype(np.float32); a@b
w=c=1e9
for _ in range(%d):
    s=time.perf_counter(); p=time.process_time(); a@b
    w=min(w,time.perf_counter()-s); c=min(c,time.process_time()-p)
f=2.0*%d*%d*%d
print(f/w/1e9, f/c/1e9)`, n, d, d, m, reps, n, m, d)
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1")
	if coretype != "" {
		cmd.Env = append(cmd.Env, "OPENBLAS_CORETYPE="+coretype)
	}
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("python3-numpy: %w", err)
	}
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &wall, &cpu); err != nil {
		return 0, 0, fmt.Errorf("parsing %q: %w", out, err)
	}
	return wall, cpu, nil
}
