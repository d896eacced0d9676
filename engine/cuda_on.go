//go:build cuda

package engine

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/cuda"
)

const cudaBuilt = true

// newCUDA opens the CUDA backend; why explains the choice or failure. The
// backend runs on the GPU, so the CPU thread count does not apply to it.
//
// A binary built with -tags cuda is linked against the NVIDIA driver and
// exits at start-up on a machine without a device (gorgonia.org/cu does so
// in its package initialisation), so reaching this function means a driver
// and a device exist; it fails only for a device that is unusable.
func newCUDA(int) (b backend.Backend, why string, err error) {
	ok, desc := cuda.Available()
	if !ok {
		why = "no usable CUDA device: " + desc + " (use the CPU build, without -tags cuda, on machines without an NVIDIA GPU)"
		return nil, why, fmt.Errorf("%s", why)
	}
	be, err := cuda.New()
	if err != nil {
		return nil, "CUDA device present but the backend failed to open: " + err.Error(), fmt.Errorf("opening the CUDA backend on %s: %w", desc, err)
	}
	return be, "CUDA backend (custom kernels, driver API) on " + desc, nil
}
