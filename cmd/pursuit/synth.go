package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/data"
)

// twoMoons generates n points of the two interleaved half circles problem
// in the plane, labels ±1 alternating, with Gaussian noise of standard
// deviation noise.
func twoMoons(n int, noise float64, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &data.Dataset{X: backend.NewMatrix(n, 2), Y: make([]float64, n), Name: "two-moons"}
	for i := range n {
		t := math.Pi * rng.Float64()
		var x, y float64
		if i%2 == 0 {
			x, y = math.Cos(t), math.Sin(t)
			d.Y[i] = 1
		} else {
			x, y = 1-math.Cos(t), 0.5-math.Sin(t)
			d.Y[i] = -1
		}
		d.X.Set(i, 0, float32(x+noise*rng.NormFloat64()))
		d.X.Set(i, 1, float32(y+noise*rng.NormFloat64()))
	}
	return d
}

// ringnorm generates Breiman's ringnorm problem in dim dimensions: class +1
// is N(0, 4I), class −1 is N(μ, I) with μ_j = 1/√dim. The Bayes error is
// about 1.3% for dim = 20; no linear rule comes close.
func ringnorm(n, dim int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 2))
	d := &data.Dataset{X: backend.NewMatrix(n, dim), Y: make([]float64, n), Name: fmt.Sprintf("ringnorm-%dd", dim)}
	mu := 1 / math.Sqrt(float64(dim))
	for i := range n {
		row := d.X.Row(i)
		if i%2 == 0 {
			d.Y[i] = 1
			for j := range row {
				row[j] = float32(2 * rng.NormFloat64())
			}
		} else {
			d.Y[i] = -1
			for j := range row {
				row[j] = float32(mu + rng.NormFloat64())
			}
		}
	}
	return d
}

// head splits ds into its first n rows and the rest.
func head(ds *data.Dataset, n int) (*data.Dataset, *data.Dataset) {
	a, b := make([]int, n), make([]int, ds.Len()-n)
	for i := range a {
		a[i] = i
	}
	for i := range b {
		b[i] = n + i
	}
	x, y := ds.Subset(a), ds.Subset(b)
	x.Name, y.Name = ds.Name+" (train)", ds.Name+" (test)"
	return x, y
}
