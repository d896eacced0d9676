//go:build !amd64 || purego

package asm

// asmBuilt reports whether this build contains the assembly kernels.
const asmBuilt = false

// asmKernels is never called when asmBuilt is false; it returns the Go
// kernels so that the two builds share one code path.
func asmKernels(avx512 bool) kernels { return goKernels() }
