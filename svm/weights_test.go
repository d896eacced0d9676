package svm

import (
	"errors"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestInstanceWeightsBruteForce checks SolveCSVCWeighted against the
// brute-force optimum of the dual with bounds cPos·w_i / cNeg·w_i.
func TestInstanceWeightsBruteForce(t *testing.T) {
	x, y := randData(31, 7, 2)
	k := pursuit.NewRBF(0.7)
	g := gram64(k, x)
	w := []float64{0.3, 2.5, 1, 4, 0.7, 1.5, 3}
	const cPos, cNeg = 1.5, 0.8
	src, err := NewGram64(7, g)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := SolveCSVCWeighted(src, y, cPos, cNeg, w, nil, Options{Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	prob := Problem{Y: y, P: make([]float64, 7), C: make([]float64, 7)}
	for i := range y {
		prob.P[i] = -1
		prob.C[i] = cNeg * w[i]
		if y[i] > 0 {
			prob.C[i] = cPos * w[i]
		}
		if sol.Alpha[i] < 0 || sol.Alpha[i] > prob.C[i]*(1+1e-12) {
			t.Errorf("α_%d = %v outside [0, %v]", i, sol.Alpha[i], prob.C[i])
		}
	}
	want := bruteForce(g, 7, prob)
	if math.Abs(sol.Obj-want) > 1e-8*math.Max(1, math.Abs(want)) {
		t.Fatalf("weighted objective %.12g, brute force %.12g", sol.Obj, want)
	}
	if _, err := SolveCSVCWeighted(src, y, 1, 1, w[:3], nil, Options{}); err == nil {
		t.Error("3 weights for 7 points accepted")
	}
	w[2] = -1
	if _, err := SolveCSVCWeighted(src, y, 1, 1, w, nil, Options{}); err == nil {
		t.Error("a negative weight accepted")
	}
}

// repeatRows returns x and y with row i repeated m[i] times.
func repeatRows(x pursuit.Matrix, y []float64, m []int) (pursuit.Matrix, []float64) {
	n := 0
	for _, c := range m {
		n += c
	}
	out := pursuit.NewMatrix(n, x.Cols)
	oy := make([]float64, 0, n)
	r := 0
	for i, c := range m {
		for range c {
			copy(out.Row(r), x.Row(i))
			oy = append(oy, y[i])
			r++
		}
	}
	return out, oy
}

// TestInstanceWeightsEqualDuplicates checks that integer instance weights
// train the same decision function as duplicated rows: exactly (float64
// Gram matrix, tight tolerance) for the binary solver with class weights,
// and through Train for one-vs-one, one-vs-rest and ε-SVR.
func TestInstanceWeightsEqualDuplicates(t *testing.T) {
	x, y := randData(5, 40, 3)
	mult := make([]int, 40)
	w := make([]float64, 40)
	for i := range mult {
		mult[i] = 1 + (i*7)%4
		w[i] = float64(mult[i])
	}
	xd, yd := repeatRows(x, y, mult)
	k := pursuit.NewRBF(0.3)
	xt, _ := randData(6, 30, 3)

	// Binary, float64: the dual optimum, the bias and f on test points.
	const cPos, cNeg = 2.0, 0.7
	sw, err := NewGram64(40, gram64(k, x))
	if err != nil {
		t.Fatal(err)
	}
	solW, err := SolveCSVCWeighted(sw, y, cPos, cNeg, w, nil, Options{Tol: 1e-11})
	if err != nil {
		t.Fatal(err)
	}
	sd, err := NewGram64(xd.Rows, gram64(k, xd))
	if err != nil {
		t.Fatal(err)
	}
	solD, err := SolveCSVC(sd, yd, cPos, cNeg, nil, Options{Tol: 1e-11})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(solW.Obj-solD.Obj) > 1e-9*math.Abs(solD.Obj) {
		t.Errorf("dual optimum %.12g weighted, %.12g duplicated", solW.Obj, solD.Obj)
	}
	if math.Abs(solW.Bias-solD.Bias) > 1e-7 {
		t.Errorf("bias %.10g weighted, %.10g duplicated", solW.Bias, solD.Bias)
	}
	f := func(xs pursuit.Matrix, ys, alpha []float64, b float64, row []float32) float64 {
		s := b
		for i, a := range alpha {
			s += a * ys[i] * k.Eval(xs.Row(i), row)
		}
		return s
	}
	for r := range xt.Rows {
		fw := f(x, y, solW.Alpha, solW.Bias, xt.Row(r))
		fd := f(xd, yd, solD.Alpha, solD.Bias, xt.Row(r))
		if math.Abs(fw-fd) > 1e-7*math.Max(1, math.Abs(fd)) {
			t.Fatalf("test point %d: f = %.10g weighted, %.10g duplicated", r, fw, fd)
		}
	}

	// Through Train (float32 kernel rows): one-vs-one on three classes
	// with a class weight, one-vs-rest, and ε-SVR.
	e := testEngine(t)
	defer e.Close()
	y3 := make([]float64, 40)
	for i := range y3 {
		y3[i] = float64(i % 3)
	}
	_, y3d := repeatRows(x, y3, mult)
	p := Params{Kernel: k, C: 3, Weights: map[float64]float64{2: 1.7}, Tol: 1e-7}
	pw := p
	pw.InstanceWeights = w
	same := func(what string, a, b []float64, tol float64) {
		t.Helper()
		if len(a) != len(b) {
			t.Fatalf("%s: %d and %d values", what, len(a), len(b))
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > tol*math.Max(1, math.Abs(b[i])) {
				t.Fatalf("%s: value %d is %.8g weighted, %.8g duplicated", what, i, a[i], b[i])
			}
		}
	}
	mw, err := Train(e, x, y3, pw)
	if err != nil {
		t.Fatal(err)
	}
	md, err := Train(e, xd, y3d, p)
	if err != nil {
		t.Fatal(err)
	}
	dw, _ := mw.Decision(e, xt)
	dd, _ := md.Decision(e, xt)
	same("one-vs-one", dw, dd, 1e-4)
	ow, err := TrainOneVsRest(e, x, y3, pw)
	if err != nil {
		t.Fatal(err)
	}
	od, err := TrainOneVsRest(e, xd, y3d, p)
	if err != nil {
		t.Fatal(err)
	}
	dw, _ = ow.Decision(e, xt)
	dd, _ = od.Decision(e, xt)
	same("one-vs-rest", dw, dd, 1e-4)
	z := make([]float64, 40)
	for i := range z {
		z[i] = math.Sin(float64(x.At(i, 0))) + 0.5*float64(x.At(i, 1))
	}
	_, zd := repeatRows(x, z, mult)
	ps := Params{Type: EpsilonSVR, Kernel: k, C: 2, Epsilon: 0.1, Tol: 1e-7}
	psw := ps
	psw.InstanceWeights = w
	rw, err := Train(e, x, z, psw)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Train(e, xd, zd, ps)
	if err != nil {
		t.Fatal(err)
	}
	dw, _ = rw.Decision(e, xt)
	dd, _ = rd.Decision(e, xt)
	same("ε-SVR", dw, dd, 1e-4)

	bad := pw
	bad.InstanceWeights = w[:39]
	if _, err := Train(e, x, y3, bad); !errors.Is(err, ErrBadInput) {
		t.Errorf("39 weights for 40 rows: %v", err)
	}
	bad.InstanceWeights = append([]float64{math.NaN()}, w[1:]...)
	if _, err := Train(e, x, y3, bad); !errors.Is(err, ErrBadInput) {
		t.Errorf("a NaN weight: %v", err)
	}
}
