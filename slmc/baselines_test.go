package slmc

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/svm"
)

// primal28 evaluates the objective (28) of the SVM restricted to span φ(Z),
// ½βᵀKzβ + C Σ max(0, 1 − y_i f(x_i)), in float64.
func primal28(m *Model, x pursuit.Matrix, y []float64, c float64) float64 {
	z := toDense(m.XV)
	kz := kernelZZ(m.Kernel, z)
	b := mat.NewVecDense(len(m.Beta), m.Beta)
	obj := 0.5 * mat.Inner(b, kz, b)
	for i, f := range decisionRef(m, x) {
		obj += c * math.Max(0, 1-y[i]*f)
	}
	return obj
}

// TestModifiedBeatOriginal checks the paper's claim behind MRS and MRSVM:
// for the same expansion vectors, eq. 45 solves problem (28)–(30) exactly,
// so its objective is at most that of the RS (eq. 47) and RSVM
// coefficients.
func TestModifiedBeatOriginal(t *testing.T) {
	x, y := ring(200, 61)
	k := pursuit.NewRBF(1)
	const c = 5.0
	e := goEngine(t)
	exp, _ := fullSVM(t, x, y, k, c)
	nz := exp.NumXVFraction(0.1)
	rs, err := ReducedSet(exp, nz, RSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fit := FitOptions{Solver: SolverOptions{Tol: 1e-8}}
	mrs, err := ModifiedRS(e, x, y, rs.Model, c, fit)
	if err != nil {
		t.Fatal(err)
	}
	xv, err := RandomXV(x, nz, 7)
	if err != nil {
		t.Fatal(err)
	}
	rsvm, err := ReducedSVM(e, x, y, k, xv, c, fit)
	if err != nil {
		t.Fatal(err)
	}
	mrsvm, err := ModifiedRSVM(e, x, y, k, xv, c, fit)
	if err != nil {
		t.Fatal(err)
	}
	pRS, pMRS := primal28(rs.Model, x, y, c), primal28(mrs, x, y, c)
	pRSVM, pMRSVM := primal28(rsvm, x, y, c), primal28(mrsvm, x, y, c)
	t.Logf("nz=%d (of %d SVs); objective (28): RS %.3f, MRS %.3f, RSVM %.3f, MRSVM %.3f; RS residual %.3f",
		nz, exp.Vectors.Rows, pRS, pMRS, pRSVM, pMRSVM, rs.Residual)
	if pMRS > pRS*(1+1e-6) {
		t.Errorf("MRS objective %.6f above RS %.6f", pMRS, pRS)
	}
	if pMRSVM > pRSVM*(1+1e-6) {
		t.Errorf("MRSVM objective %.6f above RSVM %.6f", pMRSVM, pRSVM)
	}
	for _, m := range []*Model{rs.Model, mrs, rsvm, mrsvm} {
		er, err := m.ErrorRate(e, x, y)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d XVs, training error %.3f", m.Method, m.NumXV(), er)
		if er > 0.25 {
			t.Errorf("%s training error %.3f on a separable ring", m.Method, er)
		}
	}
	if _, err := ReducedSVM(e, x, y, k, xv, 0, fit); err == nil {
		t.Error("RSVM accepted C = 0")
	}
	if _, err := ModifiedRSVM(e, x, y, k, pursuit.NewMatrix(3, 5), c, fit); err == nil {
		t.Error("MRSVM accepted XVs of the wrong dimension")
	}
	if _, err := RandomXV(x, 201, 1); err == nil {
		t.Error("RandomXV accepted nz > n")
	}
}

// TestFromSVM converts an svm.Model (directly and through a LIBSVM model
// file) and checks the decision values against the svm package's.
func TestFromSVM(t *testing.T) {
	x, y := blobs(80, 3, 0.5, 71)
	e := goEngine(t)
	m, err := svm.Train(e, x, y, svm.Params{Kernel: pursuit.NewRBF(0.5), C: 1})
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := FromSVM(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteLIBSVM(&buf); err != nil {
		t.Fatal(err)
	}
	fromFile, err := ReadSVMExpansion(&buf, 1)
	if err != nil {
		t.Fatal(err)
	}
	neg, err := FromSVM(m, -1)
	if err != nil {
		t.Fatal(err)
	}
	for name, xp := range map[string]*Expansion{"model": exp, "file": fromFile} {
		got, err := xp.AsModel().Decision(e, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-4*(1+math.Abs(want[i])) {
				t.Fatalf("%s: f(x_%d) = %v, svm %v", name, i, got[i], want[i])
			}
		}
	}
	gn, _ := neg.AsModel().Decision(e, x)
	for i := range want {
		if math.Abs(gn[i]+want[i]) > 1e-4*(1+math.Abs(want[i])) {
			t.Fatalf("negative class: f(x_%d) = %v, want %v", i, gn[i], -want[i])
		}
	}
	if _, err := FromSVM(m, 3); err == nil {
		t.Error("positive label 3 accepted for a ±1 model")
	}
	if _, err := ReadSVMExpansion(bytes.NewReader([]byte("svm_type c_svc\nkernel_type rbf\n")), 1); err == nil {
		t.Error("truncated model file accepted")
	}
	if _, err := LoadSVMExpansion("/nonexistent/model", 1); err == nil {
		t.Error("missing model file accepted")
	}
}

// TestSKFDGradientFD checks the sparse-KFD gradient (eq. 63) against
// central finite differences of W(Z) = −λmax.
func TestSKFDGradientFD(t *testing.T) {
	x, y := blobs(40, 3, 0.4, 81)
	p, err := newProblem(nil, pursuit.NewRBF(0.3), x, y)
	if err != nil {
		t.Fatal(err)
	}
	m := newSKFDW(p, 0.05)
	z := randDense(4, 3, 1, 82)
	g := make([]float64, 12)
	if _, err := m.eval(z, g); err != nil {
		t.Fatal(err)
	}
	tmp := make([]float64, 12)
	const h = 1e-5
	var num, den float64
	for i := range 12 {
		zp := mat.DenseCopyOf(z)
		zp.RawMatrix().Data[i] += h
		wp, err := m.eval(zp, tmp)
		if err != nil {
			t.Fatal(err)
		}
		zp.RawMatrix().Data[i] -= 2 * h
		wm, err := m.eval(zp, tmp)
		if err != nil {
			t.Fatal(err)
		}
		fd := (wp - wm) / (2 * h)
		num += (fd - g[i]) * (fd - g[i])
		den += fd * fd
	}
	rel := math.Sqrt(num / den)
	t.Logf("SKFD ∇W: relative error %.2e (‖∇W‖ = %.3g)", rel, math.Sqrt(den))
	if !(rel <= 1e-4) {
		t.Fatalf("relative error %.3e > 1e-4", rel)
	}
}

func TestSKFDTrain(t *testing.T) {
	x, y := ring(300, 91)
	e := goEngine(t)
	res, err := TrainSKFD(e, x, y, Config{Kernel: pursuit.NewRBF(1), C: 10, NumXV: 5, Init: InitKMeans, Seed: 1,
		Optim: OptimOptions{MaxIter: 50}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SKFD: W %.5f → %.5f in %d iterations (%s); training error %.3f",
		res.W0, res.W, res.Iterations, res.Status, res.TrainError)
	if !(res.W < res.W0) {
		t.Fatalf("W did not decrease: %v → %v", res.W0, res.W)
	}
	if res.TrainError > 0.1 {
		t.Fatalf("training error %.3f on a separable ring", res.TrainError)
	}
	if len(res.KFDBeta) != 5 || res.Model.NumXV() != 5 {
		t.Fatalf("got %d Fisher coefficients and %d XVs, want 5", len(res.KFDBeta), res.Model.NumXV())
	}
	if _, err := TrainSKFD(e, x, y, Config{Kernel: pursuit.NewLinear(), C: 1, NumXV: 3}, 0); err == nil {
		t.Error("SKFD accepted a linear kernel")
	}
	if _, err := TrainSKFD(e, x, y, Config{Kernel: pursuit.NewRBF(1), C: 1, NumXV: 3}, math.Inf(1)); err == nil {
		t.Error("SKFD accepted mu = +Inf")
	}
}

// TestFitCoefficientsPoly is Example 1 for a polynomial kernel: eq. 45 on
// the SVs of a polynomial-kernel SVM reproduces its decision function (the
// coefficient fit accepts any positive semi-definite kernel).
func TestFitCoefficientsPoly(t *testing.T) {
	x, y := ring(80, 101)
	k := pursuit.NewPoly(0.5, 1, 2)
	exp, _ := fullSVM(t, x, y, k, 1)
	e := goEngine(t)
	fit, err := FitCoefficients(e, x, y, k, exp.Vectors, 1, FitOptions{Float64Kernels: true, Solver: SolverOptions{Tol: 1e-10}})
	if err != nil {
		t.Fatal(err)
	}
	test, _ := ring(40, 102)
	want, got := decisionRef(exp.AsModel(), test), decisionRef(fit, test)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-4*(1+math.Abs(want[i])) {
			t.Fatalf("f(x_%d) = %v, SVM %v", i, got[i], want[i])
		}
	}
}

func TestExpansionHelpers(t *testing.T) {
	exp := oneDExpansion()
	if n := exp.NumXVFraction(0.1); n != 1 {
		t.Errorf("10%% of 6 vectors = %d, want 1", n)
	}
	if n := exp.NumXVFraction(0.5); n != 3 {
		t.Errorf("50%% of 6 vectors = %d, want 3", n)
	}
	init, err := exp.SVsAsInit(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float32]bool{}
	for i := range init.Rows {
		v := init.At(i, 0)
		found := false
		for j := range exp.Vectors.Rows {
			found = found || exp.Vectors.At(j, 0) == v
		}
		if !found || seen[v] {
			t.Fatalf("initial vector %v is not a distinct support vector", v)
		}
		seen[v] = true
	}
	if _, err := exp.SVsAsInit(7, 1); err == nil {
		t.Error("7 initial vectors from 6 SVs accepted")
	}
	bad := *exp
	bad.Coef = bad.Coef[:2]
	if _, err := ReducedSet(&bad, 1, RSOptions{}); err == nil {
		t.Error("expansion with too few coefficients accepted")
	}
}
