package bpdn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit/svm"
)

// rkhsProblem is a noiseless sample of a random RKHS function
// f = Σ_{j<20} c_j K(·, z_j) at m points in [0,1]^d, RBF kernel, all in
// float64.
type rkhsProblem struct {
	m, d  int
	gamma float64
	x, z  [][]float64
	c     []float64
	y     []float64
	k     []float64 // K(x_i, x_j), m×m
}

func rbf64(gamma float64, u, v []float64) float64 {
	var s float64
	for i := range u {
		d := u[i] - v[i]
		s += d * d
	}
	return math.Exp(-gamma * s)
}

func newRKHS(seed uint64, m, d, centers int, gamma float64) *rkhsProblem {
	rng := rand.New(rand.NewPCG(seed, 13))
	p := &rkhsProblem{m: m, d: d, gamma: gamma}
	pt := func() []float64 {
		v := make([]float64, d)
		for i := range v {
			v[i] = rng.Float64()
		}
		return v
	}
	p.fill(pt, rng, centers)
	return p
}

// fill draws p.m points and the centres with pt, normal coefficients from
// rng, and computes the targets and the Gram matrix.
func (p *rkhsProblem) fill(pt func() []float64, rng *rand.Rand, centers int) {
	m, gamma := p.m, p.gamma
	for range m {
		p.x = append(p.x, pt())
	}
	for range centers {
		p.z = append(p.z, pt())
		p.c = append(p.c, rng.NormFloat64())
	}
	p.y = make([]float64, m)
	for i, xi := range p.x {
		for j, zj := range p.z {
			p.y[i] += p.c[j] * rbf64(gamma, xi, zj)
		}
	}
	p.k = make([]float64, m*m)
	for i := range m {
		for j := range m {
			p.k[i*m+j] = rbf64(gamma, p.x[i], p.x[j])
		}
	}
}

// smoSVR solves the same problem with the svm package's SMO on the float64
// Gram matrix, tolerance 1e-10.
func smoSVR(t *testing.T, m int, k, y []float64, c, eps float64) ([]float64, float64, *svm.Solution) {
	t.Helper()
	g, err := svm.NewGram64(m, k)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := svm.SolveSVR(g, y, c, eps, svm.Options{Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.Converged {
		t.Fatalf("SMO did not converge (gap %g)", sol.Gap)
	}
	return svm.SVRCoef(sol), sol.Bias, sol
}
