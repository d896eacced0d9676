package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pursuit-ml/pursuit"
)

// TwoMoons generates n points of the two interleaved half circles problem
// in the plane, labels ±1 alternating, with Gaussian noise of standard
// deviation noise.
func TwoMoons(n int, noise float64, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &Dataset{X: pursuit.NewMatrix(n, 2), Y: make([]float64, n), Name: "two-moons"}
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

// Ringnorm generates Breiman's ringnorm problem in dim dimensions: class +1
// is N(0, 4I), class −1 is N(μ, I) with μ_j = 1/√dim. The Bayes error is
// about 1.3% for dim = 20; no linear rule comes close.
func Ringnorm(n, dim int, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 2))
	d := &Dataset{X: pursuit.NewMatrix(n, dim), Y: make([]float64, n), Name: fmt.Sprintf("ringnorm-%dd", dim)}
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

// Banana generates n points of a two-class banana-shaped problem in the
// plane: class +1 lies along the parabola y = x² − 1 for x in [−1.5, 1.5],
// class −1 along the inverted parabola y = 1.2 − x² shifted by 0.6 to the
// right, both with Gaussian noise of standard deviation noise, so the
// classes interleave like two bananas and overlap a little. Labels
// alternate +1, −1.
func Banana(n int, noise float64, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := &Dataset{X: pursuit.NewMatrix(n, 2), Y: make([]float64, n), Name: "banana"}
	for i := range n {
		t := 3*rng.Float64() - 1.5
		var x, y float64
		if i%2 == 0 {
			x, y = t, t*t-1
			d.Y[i] = 1
		} else {
			x, y = t+0.6, 1.2-t*t
			d.Y[i] = -1
		}
		d.X.Set(i, 0, float32(x+noise*rng.NormFloat64()))
		d.X.Set(i, 1, float32(y+noise*rng.NormFloat64()))
	}
	return d
}

// Coarse generates n points of a two-class problem on a coarse grid, in the
// manner of the titanic set: three features taking 4, 2 and 2 values (16
// distinct rows in all, so most rows of a sample of a hundred or more are
// duplicates), and a label that is +1 with a probability fixed per grid
// cell, between 0.1 and 0.9, so that identical rows often carry different
// labels.
func Coarse(n int, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 4))
	d := &Dataset{X: pursuit.NewMatrix(n, 3), Y: make([]float64, n), Name: "coarse"}
	for i := range n {
		a, b, c := rng.IntN(4), rng.IntN(2), rng.IntN(2)
		// An additive logistic rule, as the titanic set roughly follows
		// (class, sex, age).
		s := 1.2*float64(a) - 1.8 - 1.5*float64(b) + 2*float64(c)
		pr := 0.1 + 0.8/(1+math.Exp(-2*s))
		d.X.Set(i, 0, float32(a))
		d.X.Set(i, 1, float32(b))
		d.X.Set(i, 2, float32(c))
		d.Y[i] = -1
		if rng.Float64() < pr {
			d.Y[i] = 1
		}
	}
	return d
}

// Waveform generates n points of Breiman's waveform problem (Breiman,
// Friedman, Olshen & Stone, Classification and Regression Trees, 1984,
// §2.6.2; also Hastie, Tibshirani & Friedman, The Elements of Statistical
// Learning, §12.3.4) with 21 features. With the triangular waves
// h1(m) = max(6 − |m − 11|, 0), h2(m) = h1(m − 4), h3(m) = h1(m + 4) on
// m = 1, …, 21, u ~ U(0, 1) and ε_m ~ N(0, 1), a point of
//
//	class 0 is u·h1(m) + (1 − u)·h2(m) + ε_m,
//	class 1 is u·h1(m) + (1 − u)·h3(m) + ε_m,
//	class 2 is u·h2(m) + (1 − u)·h3(m) + ε_m,
//
// the class drawn uniformly. Labels are +1 for class 0 and −1 for classes
// 1 and 2: the two-class version in the manner of Rätsch's benchmark
// collection (400 training and 4600 test points per split there). Which of
// the three classes that collection took as positive is not recorded here;
// the Bayes-optimal error of the three-class problem is about 14%, that of
// class 0 against the rest lower.
func Waveform(n int, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 5))
	const dim = 21
	var h [3][dim]float64
	for m := 1; m <= dim; m++ {
		h[0][m-1] = math.Max(6-math.Abs(float64(m-11)), 0)
		h[1][m-1] = math.Max(6-math.Abs(float64(m-4-11)), 0)
		h[2][m-1] = math.Max(6-math.Abs(float64(m+4-11)), 0)
	}
	pairs := [3][2]int{{0, 1}, {0, 2}, {1, 2}}
	d := &Dataset{X: pursuit.NewMatrix(n, dim), Y: make([]float64, n), Name: "waveform"}
	for i := range n {
		cls := rng.IntN(3)
		u := rng.Float64()
		a, b := h[pairs[cls][0]], h[pairs[cls][1]]
		row := d.X.Row(i)
		for m := range row {
			row[m] = float32(u*a[m] + (1-u)*b[m] + rng.NormFloat64())
		}
		d.Y[i] = -1
		if cls == 0 {
			d.Y[i] = 1
		}
	}
	return d
}
