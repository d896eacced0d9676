package backendtest_test

import (
	"testing"

	"github.com/pursuit-ml/pursuit/asm"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// The package documentation's two usage snippets, kept here so that the
// compiler checks them (they are not run: the asm package runs the suite
// and the benchmarks itself).
var (
	_ = docConformance
	_ = docBench
)

func docConformance(t *testing.T) {
	be, err := asm.New()
	if err != nil {
		t.Skip(err)
	}
	backendtest.Run(t, be)
}

func docBench(b *testing.B) {
	be, err := asm.New(asm.WithThreads(1))
	if err != nil {
		b.Skip(err)
	}
	backendtest.Bench(b, be)
}
