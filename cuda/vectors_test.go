//go:build cuda

package cuda_test

import (
	"testing"

	"github.com/pursuit-ml/pursuit/engine/enginetest"
)

// TestResidentVectors runs the engine's conformance check of float64
// vectors on this backend, where they live on the device
// (backend.ResidentVectors): every operation against a float64 reference,
// and the errors for bad rows and released handles.
func TestResidentVectors(t *testing.T) {
	e := newEngine(t, "cuda")
	if !e.ResidentVectors() {
		t.Fatal("the cuda engine does not keep vectors resident")
	}
	enginetest.Vectors(t, e)
}
