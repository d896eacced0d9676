package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// timeCPU runs f b.N times and reports its CPU time (user+sys, all
// threads) per call beside the wall-clock time: the machine is shared.
func timeCPU(b *testing.B, f func() error) {
	c0, ok := backendtest.CPUTime()
	for range b.N {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	if c1, ok1 := backendtest.CPUTime(); ok && ok1 {
		b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkDictProductsSets times the products of a USPS-sized dictionary
// (7292 × 7291) with ten sets of four vectors (one-vs-rest pre-fitting's
// step on ten classes): ten DictProducts passes against one
// DictProductsSets pass.
func BenchmarkDictProductsSets(b *testing.B) {
	e, err := New()
	if err != nil {
		b.Fatal(err)
	}
	const m, l, outs = 7292, 7291, 10
	rng := rand.New(rand.NewPCG(1, 2))
	d := randMatrix(rng, m, l)
	sets := make([]pursuit.Matrix, outs)
	dst := make([][]float64, outs)
	for s := range sets {
		sets[s] = randMatrix(rng, 4, l)
		dst[s] = make([]float64, 4*m)
	}
	b.Run("separate", func(b *testing.B) {
		timeCPU(b, func() error {
			for s := range sets {
				if err := e.DictProducts(dst[s], d, sets[s]); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.Run("sets", func(b *testing.B) {
		timeCPU(b, func() error { return e.DictProductsSets(dst, d, sets) })
	})
}
