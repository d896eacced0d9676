package data

import (
	"math"
	"math/rand/v2"

	"github.com/pursuit-ml/pursuit"
)

// CovtypeLike generates n points shaped like LIBSVM's scaled
// covtype.binary (54 features: 10 continuous in [0, 1], a one-hot
// wilderness area of 4 and a one-hot soil type of 40, so about 12 non-zeros
// a row) with labels ±1 from a smooth rule plus Gaussian noise, so that the
// classes overlap and an RBF machine keeps thousands of support vectors, as
// on covtype. The same seed gives the same points; the soil types' offsets
// come from the seed, so a train/test split must come from one call. (The
// SVM ratios against svm-train and the stochastic KMP comparisons of issue
// 34 use it.)
func CovtypeLike(n int, seed uint64) *Dataset {
	const cont, wild, soil = 10, 4, 40
	rng := rand.New(rand.NewPCG(seed, 0xc0f7))
	x := pursuit.NewMatrix(n, cont+wild+soil)
	y := make([]float64, n)
	wildP := []float64{0.45, 0.05, 0.44, 0.06}
	soilOff := make([]float64, soil)
	for s := range soilOff {
		soilOff[s] = 0.8 * rng.NormFloat64()
	}
	sq := func(v float64) float64 { return v * v }
	for i := range n {
		row := x.Row(i)
		lat := rng.NormFloat64()
		for j := range cont {
			v := 0.5 + 0.18*rng.NormFloat64() + 0.08*lat*float64(j%3-1)
			row[j] = float32(min(max(v, 0), 1))
		}
		u, w := rng.Float64(), 0
		for w < wild-1 && u > wildP[w] {
			u -= wildP[w]
			w++
		}
		row[cont+w] = 1
		s := (w*10 + rng.IntN(16)) % soil
		row[cont+wild+s] = 1
		f := math.Sin(6*float64(row[0])) + 3*float64(row[1])*float64(row[2]) -
			4*sq(float64(row[3])-0.5) + float64(row[4]) - float64(row[5]) +
			0.5*float64(w%2) + soilOff[s] - 0.6
		if f+0.6*rng.NormFloat64() > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return &Dataset{X: x, Y: y, Name: "covtype-like"}
}
