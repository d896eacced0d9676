package engine

import (
	"math/rand/v2"
	"testing"
)

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
	sets := make([]Matrix, outs)
	dst := make([][]float64, outs)
	for s := range sets {
		sets[s] = randMatrix(rng, 4, l)
		dst[s] = make([]float64, 4*m)
	}
	b.Run("separate", func(b *testing.B) {
		for range b.N {
			for s := range sets {
				if err := e.DictProducts(dst[s], d, sets[s]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("sets", func(b *testing.B) {
		for range b.N {
			if err := e.DictProductsSets(dst, d, sets); err != nil {
				b.Fatal(err)
			}
		}
	})
}
