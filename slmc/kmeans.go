package slmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// newRand returns the deterministic generator used for all random choices.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// randomRows returns k distinct indices drawn uniformly from [0, n).
func randomRows(rng *rand.Rand, n, k int) []int {
	perm := rng.Perm(n)
	return perm[:k]
}

// sqDistances writes ‖x_i − c_j‖² into dst (N×k), clamped at 0.
func sqDistances(dst *mat.Dense, x *mat.Dense, xsq []float64, c *mat.Dense) {
	n, _ := x.Dims()
	k, _ := c.Dims()
	csq := rowSqNorms(c)
	dst.Mul(x, c.T())
	for i := range n {
		row := dst.RawRowView(i)
		for j := range k {
			row[j] = math.Max(0, xsq[i]+csq[j]-2*row[j])
		}
	}
}

// KMeansResult is the outcome of KMeans.
type KMeansResult struct {
	Centers    *mat.Dense // k×d
	Assign     []int      // cluster of each row
	Inertia    float64    // Σ_i ‖x_i − c_{Assign[i]}‖²
	Iterations int        // Lloyd iterations run
}

// KMeans clusters the rows of x (N×d) into k groups with Lloyd's algorithm
// from k-means++ seeding (Arthur & Vassilvitskii), stopping when no point
// changes cluster or after maxIter iterations. An empty cluster is re-seeded
// at the point farthest from its center.
func KMeans(x *mat.Dense, k, maxIter int, seed uint64) (*KMeansResult, error) {
	n, d := x.Dims()
	if k < 1 || k > n {
		return nil, fmt.Errorf("slmc: k-means: k = %d clusters must be in [1, %d] (the number of points)", k, n)
	}
	if maxIter < 1 {
		maxIter = 100
	}
	rng := newRand(seed)
	xsq := rowSqNorms(x)
	centers := mat.NewDense(k, d, nil)

	// k-means++ seeding: each new center is drawn with probability
	// proportional to the squared distance to the nearest chosen center.
	first := rng.IntN(n)
	copy(centers.RawRowView(0), x.RawRowView(first))
	near := make([]float64, n)
	for i := range n {
		near[i] = sqDist(x.RawRowView(i), centers.RawRowView(0))
	}
	for c := 1; c < k; c++ {
		var total float64
		for _, v := range near {
			total += v
		}
		pick := -1
		if total > 0 {
			r := rng.Float64() * total
			for i, v := range near {
				r -= v
				if r < 0 && v > 0 {
					pick = i
					break
				}
			}
			if pick < 0 { // rounding: take the last point with positive weight
				for i := n - 1; i >= 0; i-- {
					if near[i] > 0 {
						pick = i
						break
					}
				}
			}
		}
		if pick < 0 {
			return nil, fmt.Errorf("slmc: k-means: only %d distinct points for %d clusters", c, k)
		}
		copy(centers.RawRowView(c), x.RawRowView(pick))
		for i := range n {
			near[i] = math.Min(near[i], sqDist(x.RawRowView(i), centers.RawRowView(c)))
		}
	}

	assign := make([]int, n)
	for i := range assign {
		assign[i] = -1
	}
	dist := mat.NewDense(n, k, nil)
	counts := make([]int, k)
	res := &KMeansResult{Centers: centers, Assign: assign}
	for it := 1; it <= maxIter; it++ {
		res.Iterations = it
		sqDistances(dist, x, xsq, centers)
		changed := 0
		res.Inertia = 0
		for i := range n {
			row := dist.RawRowView(i)
			best := 0
			for j := 1; j < k; j++ {
				if row[j] < row[best] {
					best = j
				}
			}
			if assign[i] != best {
				changed++
				assign[i] = best
			}
			res.Inertia += row[best]
		}
		if changed == 0 {
			break
		}
		centers.Zero()
		clear(counts)
		for i := range n {
			counts[assign[i]]++
			cr := centers.RawRowView(assign[i])
			for j, v := range x.RawRowView(i) {
				cr[j] += v
			}
		}
		for c := range k {
			cr := centers.RawRowView(c)
			if counts[c] == 0 {
				// Re-seed at the point farthest from its current center.
				far, fd := 0, -1.0
				for i := range n {
					if v := dist.At(i, assign[i]); v > fd {
						far, fd = i, v
					}
				}
				copy(cr, x.RawRowView(far))
				dist.Set(far, assign[far], 0)
				continue
			}
			inv := 1 / float64(counts[c])
			for j := range cr {
				cr[j] *= inv
			}
		}
	}
	return res, nil
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}
