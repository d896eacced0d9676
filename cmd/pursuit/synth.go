package main

import "github.com/pursuit-ml/pursuit/data"

// twoMoons is data.TwoMoons (the demo's two-moons problem).
func twoMoons(n int, noise float64, seed uint64) *data.Dataset { return data.TwoMoons(n, noise, seed) }

// ringnorm is data.Ringnorm (the demo's ringnorm problem).
func ringnorm(n, dim int, seed uint64) *data.Dataset { return data.Ringnorm(n, dim, seed) }

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
