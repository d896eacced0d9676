package asm

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/backend"
)

// Backend is the AVX2/FMA backend: backend.CPU, the one CPU driver, fed
// with the assembly kernel table. Build it with New. It spreads each
// operation over its threads internally and, like the driver, is safe for
// concurrent use.
type Backend struct {
	*backend.CPU
	asm    bool // the assembly kernels run (false: the pure-Go kernels)
	avx512 bool // the AVX-512F kernels (GEMM, RBF, 4/8-vector dots) run
}

var _ backend.Backend = (*Backend)(nil)

// String describes the configuration, e.g. "avx2 (assembly, 2 threads)".
func (b *Backend) String() string {
	path := "assembly"
	if b.avx512 {
		path = "assembly, AVX-512F GEMM, RBF and dot kernels"
	}
	if !b.asm {
		path = "pure-Go kernels: AVX2/FMA masked or not built"
	}
	return fmt.Sprintf("avx2 (%s, %d threads)", path, b.Threads())
}

// UsesAssembly reports whether the assembly kernels run (false when AVX2 or
// FMA were masked with options, or the build is purego).
func (b *Backend) UsesAssembly() bool { return b.asm }

// UsesAVX512 reports whether the AVX-512F kernels run.
func (b *Backend) UsesAVX512() bool { return b.avx512 }

// kernels is the driver's kernel table.
type kernels = backend.CPUKernels

// goKernels returns the pure-Go kernel table the backend runs when the
// assembly is masked or not built.
func goKernels() kernels { return backend.GoKernels() }
