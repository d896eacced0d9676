package engine

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/asm"
	"github.com/pursuit-ml/pursuit/backend"
)

// newAVX2 opens the assembly backend of package asm when the CPU has AVX2
// and FMA and the build includes assembly (amd64 without the purego tag),
// with its AVX-512 kernels where the CPU has them unless avx512 is false.
func newAVX2(threads int, avx512 bool) (backend.Backend, string, error) {
	if ok, why := asm.Available(); !ok {
		return nil, why, fmt.Errorf("%s", why)
	}
	be, err := asm.New(asm.WithThreads(threads), asm.WithAVX512(avx512))
	if err != nil {
		return nil, err.Error(), err
	}
	_, why := asm.Available()
	kernels := "AVX-512 kernels where the CPU has AVX-512F and VL"
	if !avx512 {
		kernels = "AVX-512 kernels off"
	}
	return be, fmt.Sprintf("AVX2/FMA assembly backend, %d threads, %s (%s)", threads, kernels, why), nil
}
