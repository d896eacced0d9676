package backend_test

import (
	"strconv"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

func TestGoConformance(t *testing.T) {
	threads := []int{1, 2, 3}
	if raceEnabled {
		threads = []int{2} // the race detector needs only the parallel paths
	}
	for _, threads := range threads {
		be := backend.NewGo(threads)
		t.Run(be.Name()+"/threads="+strconv.Itoa(threads), func(t *testing.T) {
			backendtest.Run(t, be)
		})
	}
}
