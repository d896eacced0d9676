package main

import "github.com/pursuit-ml/pursuit/data"

// twoMoons is data.TwoMoons (the demo's two-moons problem).
func twoMoons(n int, noise float64, seed uint64) *data.Dataset { return data.TwoMoons(n, noise, seed) }

// ringnorm is data.Ringnorm (the demo's ringnorm problem).
func ringnorm(n, dim int, seed uint64) *data.Dataset { return data.Ringnorm(n, dim, seed) }

// head is data.Dataset.TrainTest.
func head(ds *data.Dataset, n int) (*data.Dataset, *data.Dataset) { return ds.TrainTest(n) }
