//go:build !cuda

package engine

import (
	"errors"

	"github.com/pursuit-ml/pursuit/backend"
)

const cudaBuilt = false

// newCUDA reports that this binary has no CUDA backend: the default build is
// the CPU build and never loads the NVIDIA driver.
func newCUDA(int) (backend.Backend, string, error) {
	const why = "this binary was built without -tags cuda (the CPU build never loads the NVIDIA driver); build with `go build -tags cuda` on a machine with an NVIDIA driver"
	return nil, why, errors.New(why)
}
