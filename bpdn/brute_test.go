package bpdn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bruteForce minimises (25) with Σa = 0 and |a_i| ≤ c over a few variables
// by trying every assignment of each variable to zero, free positive, free
// negative, +C or −C (zero and the free signs only when c = ∞), solving the
// equality-constrained system of the free ones, and keeping the best point
// that respects its signs and the box.
func bruteForce(n int, k, y []float64, eps, c float64) float64 {
	states := 5
	if math.IsInf(c, 1) {
		states = 3
	}
	best := math.Inf(1)
	code := make([]int, n)
	for {
		var free []int
		a := make([]float64, n)
		sgn := make([]float64, n)
		var sumB float64
		for i, s := range code {
			switch s {
			case 1, 2:
				free = append(free, i)
				sgn[i] = 3 - 2*float64(s) // 1 → +1, 2 → −1
			case 3:
				a[i] = c
			case 4:
				a[i] = -c
			}
			sumB += a[i]
		}
		ok := true
		if m := len(free); m > 0 {
			kkt := mat.NewDense(m+1, m+1, nil)
			rhs := mat.NewVecDense(m+1, nil)
			for r, i := range free {
				v := y[i] - eps*sgn[i]
				for j := range n {
					if code[j] >= 3 {
						v -= k[i*n+j] * a[j]
					}
				}
				rhs.SetVec(r, v)
				for cc, j := range free {
					kkt.Set(r, cc, k[i*n+j])
				}
				kkt.Set(r, m, 1)
				kkt.Set(m, r, 1)
			}
			rhs.SetVec(m, -sumB)
			var sol mat.VecDense
			if err := sol.SolveVec(kkt, rhs); err != nil {
				ok = false
			} else {
				for r, i := range free {
					a[i] = sol.AtVec(r)
					if sgn[i]*a[i] < -1e-12 || math.Abs(a[i]) > c*(1+1e-12) {
						ok = false
					}
				}
			}
		} else if math.Abs(sumB) > 1e-12 {
			ok = false
		}
		if ok {
			best = math.Min(best, Objective(n, k, y, a, eps))
		}
		i := 0
		for ; i < n; i++ {
			code[i]++
			if code[i] < states {
				break
			}
			code[i] = 0
		}
		if i == n {
			return best
		}
	}
}

// TestBruteForce: on small random problems the solver's objective is the
// brute-force minimum, with and without the warm start.
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for trial := range 40 {
		n := 3 + trial%4
		p := newRKHS(uint64(100+trial), n, 2, 3, 3)
		y := p.y
		for i := range y {
			y[i] += 0.3 * rng.NormFloat64()
		}
		eps := []float64{0, 0.05, 0.2}[trial%3]
		c := []float64{inf, 0.5, 2, 0.05}[trial%4]
		want := bruteForce(n, p.k, y, eps, c)
		for _, cold := range []bool{false, true} {
			sol := mustSolve(t, n, p.k, y, Params{Epsilon: eps, C: c, NoWarmStart: cold})
			if math.Abs(sol.Obj-want) > 1e-9*math.Max(1, math.Abs(want)) || math.Abs(sol.SumA) > 1e-12 {
				t.Errorf("trial %d (n=%d ε=%g C=%g cold=%v): objective %.15g, brute force %.15g, Σa %g", trial, n, eps, c, cold, sol.Obj, want, sol.SumA)
			}
		}
	}
}
