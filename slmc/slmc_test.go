package slmc

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

func goEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// fullSVM trains the exact RBF SVM in float64 (precomputed Gram matrix) and
// returns it as an Expansion over its support vectors.
func fullSVM(t *testing.T, x pursuit.Matrix, y []float64, k pursuit.Kernel, c float64) (*Expansion, *svm.Solution) {
	t.Helper()
	xf := toDense(x)
	n := x.Rows
	g := mat.NewDense(n, n, nil)
	kernelRef(g, k, xf, xf, nil)
	src, err := svm.NewGram64(n, g.RawMatrix().Data)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := svm.SolveCSVC(src, y, c, c, nil, svm.Options{Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	var coef []float64
	for i, a := range sol.Alpha {
		if a > 0 {
			idx = append(idx, i)
			coef = append(coef, a*y[i])
		}
	}
	sv := pursuit.NewMatrix(len(idx), x.Cols)
	for r, i := range idx {
		copy(sv.Row(r), x.Row(i))
	}
	return &Expansion{Kernel: k, Vectors: sv, Coef: coef, Bias: sol.Bias}, sol
}

// decisionRef evaluates Σβ K(z, x) + b in float64.
func decisionRef(m *Model, x pursuit.Matrix) []float64 {
	kk := mat.NewDense(x.Rows, m.XV.Rows, nil)
	kernelRef(kk, m.Kernel, toDense(x), toDense(m.XV), nil)
	out := make([]float64, x.Rows)
	for i := range out {
		out[i] = m.Bias
		for u, v := range kk.RawRowView(i) {
			out[i] += m.Beta[u] * v
		}
	}
	return out
}

// TestExample1 is the paper's Example 1: with Nz = #SV and Z = the SVs, the
// SVM restricted to span φ(Z) is the SVM itself, W(Z) is the SVM optimum,
// ∇W vanishes, and SLMC started there keeps the SVM's decision function.
func TestExample1(t *testing.T) {
	x, y := blobs(60, 2, 0.6, 21)
	k := pursuit.NewRBF(0.5)
	const c = 2.0
	exp, sol := fullSVM(t, x, y, k, c)
	nsv := exp.Vectors.Rows
	t.Logf("SVM: %d SVs of 60, dual optimum %.6f", nsv, -sol.Obj)

	e := goEngine(t)
	fit, err := FitCoefficients(e, x, y, k, exp.Vectors, c, FitOptions{Float64Kernels: true, Solver: SolverOptions{Tol: 1e-10}})
	if err != nil {
		t.Fatal(err)
	}
	test, _ := blobs(50, 2, 0.6, 22)
	want := decisionRef(exp.AsModel(), test)
	got := decisionRef(fit, test)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-5*(1+math.Abs(want[i])) {
			t.Fatalf("eq. 45 on the SVs: f(x_%d) = %v, SVM %v", i, got[i], want[i])
		}
	}

	res, err := Train(e, x, y, Config{
		Kernel: k, C: c, NumXV: nsv, Init: InitGiven, InitXV: exp.Vectors,
		Float64Kernels: true, Solver: SolverOptions{Tol: 1e-10},
	})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.W0-(-sol.Obj)) > 1e-7*math.Abs(sol.Obj) {
		t.Fatalf("W(SVs) = %.9f, SVM optimum %.9f", res.W0, -sol.Obj)
	}
	if len(res.History) > 0 && res.History[0].GradNorm > 1e-4 {
		t.Errorf("‖∇W‖ at the SVs = %v, want ≈ 0", res.History[0].GradNorm)
	}
	if res.W > res.W0+1e-9*math.Abs(res.W0) {
		t.Fatalf("W grew from %v to %v", res.W0, res.W)
	}
	// W(Z) ≥ the SVM optimum for every Z (extra constraint), so SLMC
	// cannot go lower than the SVM: it stays there.
	if res.W < -sol.Obj-1e-6*math.Abs(sol.Obj) {
		t.Fatalf("W = %v below the unconstrained SVM optimum %v", res.W, -sol.Obj)
	}
	got = decisionRef(res.Model, test)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-3*(1+math.Abs(want[i])) {
			t.Fatalf("SLMC from the SVs: f(x_%d) = %v, SVM %v", i, got[i], want[i])
		}
	}
}

// TestGradientFD checks ∇W(Z) of SLMC, with α re-solved at every Z, against
// central finite differences.
func TestGradientFD(t *testing.T) {
	x, y := blobs(50, 3, 0.4, 31)
	k := pursuit.NewRBF(0.3)
	p, err := newProblem(nil, k, x, y)
	if err != nil {
		t.Fatal(err)
	}
	so := SolverOptions{Tol: 1e-12}
	m := &slmcW{p: p, c: 1, so: so}
	z := randDense(4, 3, 1, 32)
	g := make([]float64, 12)
	if _, err := m.eval(z, g); err != nil {
		t.Fatal(err)
	}
	w := func(z *mat.Dense) float64 {
		f, err := p.fit(z, 1, nil, so)
		if err != nil {
			t.Fatal(err)
		}
		return f.w
	}
	const h = 1e-5
	var num, den float64
	for i := range 12 {
		zp := mat.DenseCopyOf(z)
		zp.RawMatrix().Data[i] += h
		wp := w(zp)
		zp.RawMatrix().Data[i] -= 2 * h
		wm := w(zp)
		fd := (wp - wm) / (2 * h)
		num += (fd - g[i]) * (fd - g[i])
		den += fd * fd
	}
	rel := math.Sqrt(num / den)
	t.Logf("SLMC ∇W: relative error %.2e against central differences (‖∇W‖ = %.3g, %d SVs)", rel, math.Sqrt(den), m.last.sol.NumSV)
	if !(rel <= 1e-4) {
		t.Fatalf("relative error %.3e > 1e-4", rel)
	}
}

// TestTrainDecreasesW runs SLMC on two interleaved classes and checks that
// W decreases, the progress hook sees every iteration, and the classifier
// beats the one at the random initial XVs.
func TestTrainDecreasesW(t *testing.T) {
	x, y := ring(300, 41)
	k := pursuit.NewRBF(1)
	e := goEngine(t)
	var seen []Progress
	cfg := Config{Kernel: k, C: 10, NumXV: 4, Seed: 3,
		Optim: OptimOptions{MaxIter: 60, Progress: func(p Progress) { seen = append(seen, p) }}}
	res, err := Train(e, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("W %.4f → %.4f in %d iterations, %d evaluations (%s); train error %.3f",
		res.W0, res.W, res.Iterations, res.Evaluations, res.Status, res.TrainError)
	if !(res.W < res.W0*0.9) {
		t.Fatalf("W did not decrease: %v → %v", res.W0, res.W)
	}
	if len(seen) == 0 || len(seen) != len(res.History) {
		t.Fatalf("progress hook saw %d iterations, history has %d", len(seen), len(res.History))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].W > seen[i-1].W+1e-6*math.Abs(seen[i-1].W) {
			t.Fatalf("W rose at iteration %d: %v → %v", seen[i].Iter, seen[i-1].W, seen[i].W)
		}
		if math.IsNaN(seen[i].TrainError) {
			t.Fatalf("iteration %d reports no training error", seen[i].Iter)
		}
	}
	// The initial random XVs give a worse classifier.
	init := Config{Kernel: k, C: 10, NumXV: 4, Seed: 3, Optim: OptimOptions{MaxIter: 1}}
	p, z0, _, err := init.setup("test", e, x, y, true)
	if err != nil {
		t.Fatal(err)
	}
	f0, err := p.fit(z0, 10, nil, SolverOptions{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	err0 := errorRate(f0.b.decision(f0.beta, f0.bias), p.y)
	if res.TrainError > err0 {
		t.Fatalf("SLMC training error %.3f worse than at its random start %.3f", res.TrainError, err0)
	}
	// The model's own decision function (engine) agrees with the float64 one.
	fe, err := res.Model.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	fr := decisionRef(res.Model, x)
	for i := range fe {
		if math.Abs(fe[i]-fr[i]) > 1e-4*(1+math.Abs(fr[i])) {
			t.Fatalf("Decision(x_%d) = %v, float64 %v", i, fe[i], fr[i])
		}
	}
	if er, _ := res.Model.ErrorRate(e, x, y); math.Abs(er-res.TrainError) > 0.01 {
		t.Fatalf("ErrorRate %v, Train reported %v", er, res.TrainError)
	}
}

// ring returns points inside a disc (+1) and in an annulus around it (−1).
func ring(n int, seed uint64) (pursuit.Matrix, []float64) {
	rng := newRand(seed)
	x := pursuit.NewMatrix(n, 2)
	y := make([]float64, n)
	for i := range n {
		r := 1.5 * rng.Float64()
		if i%2 == 0 {
			y[i] = 1
		} else {
			y[i] = -1
			r = 2 + 1.5*rng.Float64()
		}
		th := 2 * math.Pi * rng.Float64()
		x.Set(i, 0, float32(r*math.Cos(th)))
		x.Set(i, 1, float32(r*math.Sin(th)))
	}
	return x, y
}

func TestTrainBadInput(t *testing.T) {
	x, y := blobs(30, 2, 0.5, 51)
	e := goEngine(t)
	good := Config{Kernel: pursuit.NewRBF(1), C: 1, NumXV: 3}
	cases := map[string]func(c *Config){
		"linear kernel":  func(c *Config) { c.Kernel = pursuit.NewLinear() },
		"poly kernel":    func(c *Config) { c.Kernel = pursuit.NewPoly(1, 0, 2) },
		"C = 0":          func(c *Config) { c.C = 0 },
		"C = NaN":        func(c *Config) { c.C = math.NaN() },
		"Nz = 0":         func(c *Config) { c.NumXV = 0 },
		"Nz > N":         func(c *Config) { c.NumXV = 31 },
		"given, missing": func(c *Config) { c.Init = InitGiven },
		"unknown init":   func(c *Config) { c.Init = 9 },
	}
	for name, mod := range cases {
		c := good
		mod(&c)
		if _, err := Train(e, x, y, c); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := Train(e, x, y[:10], good); err == nil {
		t.Error("label count mismatch accepted")
	}
	if _, err := Train(nil, x, y, good); err == nil {
		t.Error("nil engine accepted")
	}
	c := good
	c.Kernel = pursuit.NewSigmoid(1, 0)
	if _, err := Train(e, x, y, c); !errors.Is(err, ErrKernel) {
		t.Errorf("sigmoid kernel: error %v does not wrap ErrKernel", err)
	}
	// Duplicates are removed before drawing the initial XVs.
	xd := pursuit.NewMatrix(60, 2)
	copy(xd.Data[:60], x.Data)
	copy(xd.Data[60:], x.Data)
	yd := append(append([]float64(nil), y...), y...)
	res, err := Train(e, xd, yd, Config{Kernel: pursuit.NewRBF(1), C: 1, NumXV: 3, Optim: OptimOptions{MaxIter: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicates != 30 {
		t.Fatalf("removed %d duplicates, want 30", res.Duplicates)
	}
}
