package asm

import (
	"testing"

	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// TestConformance runs the shared conformance suite on every path: the
// assembly (1 and 2 threads) and the pure-Go kernels forced by masking.
func TestConformance(t *testing.T) {
	for name, b := range testBackends(t) {
		t.Run(name, func(t *testing.T) { backendtest.Run(t, b) })
	}
}
