package asm

import (
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// Benchmarks: the standard backendtest set on the assembly backend and, in
// the same run, on the pure-Go backend, single-threaded and on 2 threads,
// so results can be quoted as ratios. For example:
//
//	go test -run '^$' -bench 'Bench/.*/KernelBlock/rbf/4096' -benchtime 3x ./asm
//
// Divide by the machine limits from ../shared/tools/machine-limits.sh
// measured in the same job (OpenBLAS SGEMM GFLOP/s, streaming GB/s).
func BenchmarkBench(b *testing.B) {
	if ok, why := Available(); ok {
		for _, th := range []int{1, 2} {
			be, err := New(WithThreads(th))
			if err != nil {
				b.Fatal(err)
			}
			b.Run("avx2-"+string(rune('0'+th))+"t", func(b *testing.B) { backendtest.Bench(b, be) })
		}
	} else {
		b.Logf("assembly backend not benchmarked: %s", why)
	}
	for _, th := range []int{1, 2} {
		b.Run("go-"+string(rune('0'+th))+"t", func(b *testing.B) { backendtest.Bench(b, backend.NewGo(th)) })
	}
}
