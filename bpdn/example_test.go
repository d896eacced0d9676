package bpdn_test

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/svm"
)

// Girosi's sparse approximation of sin on 40 points with the hard ε-tube
// (C = ∞), certified against the SVM's ε-SVR by SMO on the same Gram
// matrix.
func ExampleSolve() {
	const n, eps, gamma = 40, 0.1, 200.0
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range n {
		x[i] = float64(i) / (n - 1)
		y[i] = math.Sin(2 * math.Pi * x[i])
	}
	k := make([]float64, n*n) // float64 RBF Gram matrix; bpdn.Gram computes one through the engine
	for i := range n {
		for j := range n {
			k[i*n+j] = math.Exp(-gamma * (x[i] - x[j]) * (x[i] - x[j]))
		}
	}
	sol, err := bpdn.Solve(n, k, y, bpdn.Params{Epsilon: eps, C: math.Inf(1)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var worst float64 // largest training residual |y − f|
	for i := range n {
		f := sol.B
		for j, a := range sol.A {
			f += k[i*n+j] * a
		}
		worst = math.Max(worst, math.Abs(y[i]-f))
	}
	fmt.Printf("%d support vectors of %d, every residual within ε: %v\n", len(sol.Support), n, worst <= eps*(1+1e-9))

	// The same problem by SMO, with a box that does not bind.
	g, _ := svm.NewGram64(n, k)
	smo, err := svm.SolveSVR(g, y, 10*maxAbs(sol.A), eps, svm.Options{Tol: 1e-10})
	if err != nil {
		fmt.Println(err)
		return
	}
	ct := bpdn.Compare(n, k, y, eps, math.Inf(1), sol.A, sol.B, svm.SVRCoef(smo), smo.Bias, bpdn.DefaultTolerances)
	fmt.Printf("agrees with SMO: %v (same support: %v)\n", ct.Agree, ct.SameSupport)
	// Output:
	// 22 support vectors of 40, every residual within ε: true
	// agrees with SMO: true (same support: true)
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
