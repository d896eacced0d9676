package svm

import (
	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
)

// covtypeLike is data.CovtypeLike as a matrix and labels.
func covtypeLike(n int, seed uint64) (pursuit.Matrix, []float64) {
	d := data.CovtypeLike(n, seed)
	return d.X, d.Y
}
