package backend_test

import (
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

func TestGoConformance(t *testing.T) {
	for _, threads := range []int{1, 2, 3} {
		be := backend.NewGo(threads)
		t.Run(be.Name()+"/threads="+string(rune('0'+threads)), func(t *testing.T) {
			backendtest.Run(t, be)
		})
	}
}
