package engine

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/asm"
	"github.com/pursuit-ml/pursuit/backend"
)

// newAVX2 opens the assembly backend of package asm when the CPU has AVX2
// and FMA and the build includes assembly (amd64 without the purego tag).
func newAVX2(threads int) (backend.Backend, string, error) {
	if ok, why := asm.Available(); !ok {
		return nil, why, fmt.Errorf("%s", why)
	}
	be, err := asm.New(asm.WithThreads(threads))
	if err != nil {
		return nil, err.Error(), err
	}
	_, why := asm.Available()
	return be, fmt.Sprintf("AVX2/FMA assembly backend, %d threads (%s)", threads, why), nil
}
