package engine_test

import (
	"testing"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/enginetest"
)

// TestVectorsHost runs the conformance check of the engine's float64
// vectors on the CPU backends, where the engine keeps them in host memory.
func TestVectorsHost(t *testing.T) {
	for _, name := range []string{engine.BackendGo, "avx2"} {
		t.Run(name, func(t *testing.T) {
			e, err := engine.New(engine.WithBackend(name), engine.WithThreads(2))
			if err != nil {
				t.Skipf("backend %s: %v", name, err)
			}
			defer e.Close()
			if e.ResidentVectors() {
				t.Fatalf("backend %s reports resident vectors", name)
			}
			enginetest.Vectors(t, e)
		})
	}
}
