package svm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// randData returns n points in d dimensions with labels from a noisy
// non-linear rule (both classes present).
func randData(seed uint64, n, d int) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x := pursuit.NewMatrix(n, d)
	y := make([]float64, n)
	for i := range n {
		var s float64
		for j := range d {
			v := rng.NormFloat64()
			x.Set(i, j, float32(v))
			s += v * v
		}
		y[i] = 1
		if s+0.5*rng.NormFloat64() < float64(d) {
			y[i] = -1
		}
	}
	y[0], y[1] = 1, -1
	return x, y
}

// gram64 computes the kernel matrix in float64 with the scalar reference.
func gram64(k pursuit.Kernel, x pursuit.Matrix) []float64 {
	n := x.Rows
	g := make([]float64, n*n)
	for i := range n {
		for j := range n {
			g[i*n+j] = k.Eval(x.Row(i), x.Row(j))
		}
	}
	return g
}

// bruteForce minimises ½αᵀQα + pᵀα, yᵀα = 0, 0 ≤ α ≤ C over n variables
// (Q_ab = y_a y_b K[kidx_a][kidx_b]) by trying every assignment of the
// variables to lower bound, upper bound or free, solving the equality-
// constrained system of the free ones, and keeping the best feasible point.
func bruteForce(k []float64, l int, prob Problem) float64 {
	n := len(prob.Y)
	ki := func(a int) int {
		if prob.Index == nil {
			return a
		}
		return prob.Index[a]
	}
	q := func(a, b int) float64 { return prob.Y[a] * prob.Y[b] * k[ki(a)*l+ki(b)] }
	obj := func(al []float64) float64 {
		var v float64
		for a := range n {
			v += prob.P[a] * al[a]
			for b := range n {
				v += 0.5 * al[a] * q(a, b) * al[b]
			}
		}
		return v
	}
	best := math.Inf(1)
	st := make([]int, n)
	al := make([]float64, n)
	total := 1
	for range n {
		total *= 3
	}
	for code := range total {
		c := code
		var fr []int
		for a := range n {
			st[a] = c % 3
			c /= 3
			switch st[a] {
			case 0:
				al[a] = 0
			case 1:
				al[a] = prob.C[a]
			case 2:
				fr = append(fr, a)
			}
		}
		if len(fr) == 0 {
			var s float64
			for a := range n {
				s += prob.Y[a] * al[a]
			}
			if math.Abs(s) < 1e-9 {
				best = math.Min(best, obj(al))
			}
			continue
		}
		// [Q_FF y_F; y_Fᵀ 0] [α_F; ν] = [−p_F − Q_FB α_B; −y_Bᵀ α_B]
		m := len(fr)
		A := mat.NewDense(m+1, m+1, nil)
		rhs := mat.NewVecDense(m+1, nil)
		var yb float64
		for a := range n {
			if st[a] != 2 {
				yb += prob.Y[a] * al[a]
			}
		}
		for r, a := range fr {
			v := -prob.P[a]
			for b := range n {
				if st[b] != 2 {
					v -= q(a, b) * al[b]
				}
			}
			rhs.SetVec(r, v)
			for s, b := range fr {
				A.Set(r, s, q(a, b))
			}
			A.Set(r, m, prob.Y[a])
			A.Set(m, r, prob.Y[a])
		}
		rhs.SetVec(m, -yb)
		var sol mat.VecDense
		if err := sol.SolveVec(A, rhs); err != nil {
			continue
		}
		ok := true
		for r, a := range fr {
			v := sol.AtVec(r)
			if v < -1e-10 || v > prob.C[a]+1e-10 || math.IsNaN(v) {
				ok = false
				break
			}
			al[a] = v
		}
		if ok {
			best = math.Min(best, obj(al))
		}
	}
	return best
}

func TestBruteForceCSVC(t *testing.T) {
	kernels := []pursuit.Kernel{pursuit.NewRBF(0.3), pursuit.NewLinear(), pursuit.NewPoly(0.5, 1, 2)}
	for trial := range 6 {
		x, y := randData(uint64(trial), 8, 3)
		k := kernels[trial%3]
		g := gram64(k, x)
		src, err := NewGram64(8, g)
		if err != nil {
			t.Fatal(err)
		}
		cPos, cNeg := 0.7+float64(trial), 1.3
		sol, err := SolveCSVC(src, y, cPos, cNeg, nil, Options{Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		prob := Problem{Y: y, P: make([]float64, 8), C: make([]float64, 8)}
		for i := range y {
			prob.P[i] = -1
			prob.C[i] = cNeg
			if y[i] > 0 {
				prob.C[i] = cPos
			}
		}
		want := bruteForce(g, 8, prob)
		if d := relDiff(sol.Obj, want); d > 1e-8 {
			t.Errorf("trial %d (%v): SMO objective %.12g, brute force %.12g (rel. diff %.2g)", trial, k, sol.Obj, want, d)
		}
		if !sol.Converged {
			t.Errorf("trial %d: not converged", trial)
		}
	}
}

func TestBruteForceSVR(t *testing.T) {
	for trial := range 3 {
		x, _ := randData(uint64(10+trial), 5, 2)
		z := make([]float64, 5)
		for i := range z {
			z[i] = float64(x.At(i, 0))*2 + math.Sin(float64(i))
		}
		k := pursuit.NewRBF(0.5)
		g := gram64(k, x)
		src, _ := NewGram64(5, g)
		c, eps := 2.0, 0.1*float64(trial)
		sol, err := SolveSVR(src, z, c, eps, Options{Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		prob := Problem{Y: make([]float64, 10), P: make([]float64, 10), C: make([]float64, 10), Index: make([]int, 10)}
		for i := range 5 {
			prob.Y[i], prob.Y[i+5] = 1, -1
			prob.P[i], prob.P[i+5] = eps-z[i], eps+z[i]
			prob.C[i], prob.C[i+5] = c, c
			prob.Index[i], prob.Index[i+5] = i, i
		}
		want := bruteForce(g, 5, prob)
		if d := relDiff(sol.Obj, want); d > 1e-8 {
			t.Errorf("trial %d: SVR objective %.12g, brute force %.12g", trial, sol.Obj, want)
		}
		// Coefficients reproduce the targets within ε at free SVs.
		coef := SVRCoef(sol)
		for i := range 5 {
			var f float64
			for j := range 5 {
				f += coef[j] * g[j*5+i]
			}
			f += sol.Bias
			if a := math.Abs(coef[i]); a > 1e-6 && a < c-1e-6 {
				if r := math.Abs(math.Abs(f-z[i]) - eps); r > 1e-6 {
					t.Errorf("trial %d: free SV %d has |f−z| = %g, want ε = %g", trial, i, math.Abs(f-z[i]), eps)
				}
			}
		}
	}
}

// kktGap recomputes, in float64 from scratch, the maximal KKT violation of
// a C-SVC solution.
func kktGap(g []float64, y, alpha []float64, cPos, cNeg float64) float64 {
	n := len(y)
	up, low := math.Inf(-1), math.Inf(1)
	for i := range n {
		gi := -1.0
		for j := range n {
			gi += y[i] * y[j] * g[i*n+j] * alpha[j]
		}
		c := cNeg
		if y[i] > 0 {
			c = cPos
		}
		v := -y[i] * gi
		inUp := (y[i] > 0 && alpha[i] < c) || (y[i] < 0 && alpha[i] > 0)
		inLow := (y[i] > 0 && alpha[i] > 0) || (y[i] < 0 && alpha[i] < c)
		if inUp {
			up = math.Max(up, v)
		}
		if inLow {
			low = math.Min(low, v)
		}
	}
	return up - low
}

func TestKKTEngineRows(t *testing.T) {
	e := testEngine(t)
	x, y := randData(3, 300, 6)
	k := pursuit.NewRBF(0.2)
	rows, err := NewEngineRows(e, x, k)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := SolveCSVC(rows, y, 5, 5, nil, Options{Tol: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	gap := kktGap(gram64(k, x), y, sol.Alpha, 5, 5)
	// float32 kernel rows: allow their rounding on top of the tolerance.
	if gap > 1e-3+1e-4 {
		t.Errorf("KKT gap recomputed in float64 is %g, want ≤ 1e-3 (+float32 slack)", gap)
	}
	var sum float64
	for i, a := range sol.Alpha {
		sum += y[i] * a
		if a < 0 || a > 5 {
			t.Fatalf("α_%d = %g outside [0, 5]", i, a)
		}
	}
	if math.Abs(sum) > 1e-9 {
		t.Errorf("yᵀα = %g, want 0", sum)
	}
}

func TestSolverVariantsAgree(t *testing.T) {
	x, y := randData(4, 250, 5)
	k := pursuit.NewRBF(0.3)
	g32 := pursuit.NewMatrix(250, 250)
	g := gram64(k, x)
	for i := range g {
		g32.Data[i] = float32(g[i])
	}
	src, err := NewGram32(g32)
	if err != nil {
		t.Fatal(err)
	}
	base, err := SolveCSVC(src, y, 10, 10, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Batching and cache size change which rows are computed when, never
	// the arithmetic: the iterates must be identical.
	for _, o := range []Options{{Batch: 1}, {Batch: 64}, {CacheMB: 1e-6}, {CacheMB: 0.01, Batch: 3}} {
		s, err := SolveCSVC(src, y, 10, 10, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if s.Iter != base.Iter || s.Obj != base.Obj {
			t.Errorf("%+v: %d iterations, obj %.15g; default: %d, %.15g", o, s.Iter, s.Obj, base.Iter, base.Obj)
		}
		for i := range s.Alpha {
			if s.Alpha[i] != base.Alpha[i] {
				t.Fatalf("%+v: α_%d = %g, default %g", o, i, s.Alpha[i], base.Alpha[i])
			}
		}
	}
	// Without shrinking the path differs but the optimum agrees.
	ns, err := SolveCSVC(src, y, 10, 10, nil, Options{NoShrinking: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(ns.Obj, base.Obj); d > 1e-4 {
		t.Errorf("no shrinking: obj %g vs %g", ns.Obj, base.Obj)
	}
	if base.CacheMisses == 0 || base.RowsComputed < base.CacheMisses {
		t.Errorf("cache statistics look wrong: %+v", base)
	}
}

func TestFloat64SourcesAgree(t *testing.T) {
	e := testEngine(t)
	n, d := 120, 4
	x, y := randData(5, n, d)
	feat := make([]float64, n*d)
	for i := range n {
		for j := range d {
			feat[i*d+j] = float64(x.At(i, j))
		}
	}
	lin, err := NewLinear64(n, d, feat)
	if err != nil {
		t.Fatal(err)
	}
	g64, _ := NewGram64(n, gram64(pursuit.NewLinear(), x))
	eng, err := NewEngineRows(e, x, pursuit.NewLinear())
	if err != nil {
		t.Fatal(err)
	}
	a, err := SolveCSVC(lin, y, 1, 1, nil, Options{Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	b, err := SolveCSVC(g64, y, 1, 1, nil, Options{Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	c, err := SolveCSVC(eng, y, 1, 1, nil, Options{Tol: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(a.Obj, b.Obj); d > 1e-12 {
		t.Errorf("Linear64 obj %.15g vs Gram64 %.15g", a.Obj, b.Obj)
	}
	if d := relDiff(a.Obj, c.Obj); d > 1e-4 {
		t.Errorf("Linear64 obj %.15g vs float32 engine rows %.15g", a.Obj, c.Obj)
	}
	if gap := kktGap(gram64(pursuit.NewLinear(), x), y, a.Alpha, 1, 1); gap > 1e-9 {
		t.Errorf("float64 path: KKT gap %g > 1e-9", gap)
	}
}

func TestWarmStart(t *testing.T) {
	n, d := 150, 5
	x, y := randData(6, n, d)
	feat := make([]float64, n*d)
	for i := range feat {
		feat[i] = float64(x.Data[i])
	}
	src, _ := NewLinear64(n, d, feat)
	cold, err := SolveCSVC(src, y, 2, 2, nil, Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	again, err := SolveCSVC(src, y, 2, 2, cold.Alpha, Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if again.Iter > 2 || relDiff(again.Obj, cold.Obj) > 1e-12 {
		t.Errorf("warm start from the optimum: %d iterations, obj %.15g vs %.15g", again.Iter, again.Obj, cold.Obj)
	}
	// Perturb the features: warm and cold starts reach the same optimum,
	// the warm one in fewer iterations.
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range feat {
		feat[i] += 0.01 * rng.NormFloat64()
	}
	src2, _ := NewLinear64(n, d, feat)
	cold2, err := SolveCSVC(src2, y, 2, 2, nil, Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	warm2, err := SolveCSVC(src2, y, 2, 2, cold.Alpha, Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(cold2.Obj, warm2.Obj); d > 1e-10 {
		t.Errorf("perturbed: warm obj %.15g vs cold %.15g", warm2.Obj, cold2.Obj)
	}
	t.Logf("perturbed problem: cold %d iterations, warm %d", cold2.Iter, warm2.Iter)
	bad := append([]float64(nil), cold.Alpha...)
	for i := range bad {
		if bad[i] < 1 {
			bad[i] += 0.5
			break
		}
	}
	if _, err := SolveCSVC(src2, y, 2, 2, bad, Options{}); err == nil || !strings.Contains(err.Error(), "infeasible") {
		t.Errorf("infeasible warm start: got %v", err)
	}
}

func TestBadInput(t *testing.T) {
	e := testEngine(t)
	x, y := randData(7, 20, 3)
	ok := Params{Kernel: pursuit.NewRBF(0.5), C: 1}
	nan := pursuit.NewMatrix(20, 3)
	copy(nan.Data, x.Data)
	nan.Set(4, 1, float32(math.NaN()))
	ones := make([]float64, 20)
	for i := range ones {
		ones[i] = 1
	}
	ynan := append([]float64(nil), y...)
	ynan[3] = math.NaN()
	cases := []struct {
		name string
		x    pursuit.Matrix
		y    []float64
		p    Params
		want string
	}{
		{"C = 0", x, y, Params{Kernel: pursuit.NewRBF(0.5)}, "C must be positive"},
		{"C < 0", x, y, Params{Kernel: pursuit.NewRBF(0.5), C: -1}, "C must be positive"},
		{"gamma = 0", x, y, Params{Kernel: pursuit.NewRBF(0), C: 1}, "gamma"},
		{"gamma < 0", x, y, Params{Kernel: pursuit.NewRBF(-2), C: 1}, "gamma"},
		{"no kernel", x, y, Params{C: 1}, "no kernel"},
		{"single class", x, ones, ok, "two classes"},
		{"empty", pursuit.NewMatrix(0, 3), nil, ok, "empty"},
		{"NaN feature", nan, y, ok, "not finite"},
		{"NaN label", x, ynan, ok, "not finite"},
		{"label count", x, y[:10], ok, "10 labels"},
		{"negative epsilon", x, y, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(1), C: 1, Epsilon: -1}, "epsilon"},
		{"unknown weight", x, y, Params{Kernel: pursuit.NewRBF(1), C: 1, Weights: map[float64]float64{5: 2}}, "class 5"},
		{"bad tolerance", x, y, Params{Kernel: pursuit.NewRBF(1), C: 1, Tol: -1}, "tolerance"},
	}
	for _, c := range cases {
		_, err := Train(e, c.x, c.y, c.p)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not wrap ErrBadInput or lacks %q", c.name, err, c.want)
		}
	}
	if _, err := TrainOneVsRest(e, x, ones, ok); err == nil {
		t.Error("one-vs-rest on a single class: no error")
	}
}

func TestDuplicatedPoints(t *testing.T) {
	e := testEngine(t)
	x0, y0 := randData(8, 40, 3)
	// Every point three times, and one point duplicated with both labels.
	x := pursuit.NewMatrix(121, 3)
	y := make([]float64, 121)
	for r := range 3 {
		for i := range 40 {
			copy(x.Row(r*40+i), x0.Row(i))
			y[r*40+i] = y0[i]
		}
	}
	copy(x.Row(120), x0.Row(0))
	y[120] = -y0[0]
	k := pursuit.NewRBF(0.5)
	m, err := Train(e, x, y, Params{Kernel: k, C: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Stats[0].Converged {
		t.Fatal("did not converge on duplicated points")
	}
	// The float64 KKT check on the grouped order.
	labels, groups := groupClasses(y)
	_ = labels
	idx := append(append([]int(nil), groups[0]...), groups[1]...)
	sub := gatherRows(x, idx)
	sy := make([]float64, len(idx))
	for t2, i := range idx {
		sy[t2] = y[i]
	}
	src, _ := NewGram64(len(idx), gram64(k, sub))
	sol, err := SolveCSVC(src, sy, 3, 3, nil, Options{Tol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(sol.Obj, m.Stats[0].Obj); d > 1e-4 {
		t.Errorf("duplicated points: obj %g vs float64 %g", m.Stats[0].Obj, sol.Obj)
	}
}

func TestMulticlassProbabilityCoupling(t *testing.T) {
	p := []float64{0.5, 0.3, 0.15, 0.05}
	k := len(p)
	r := make([][]float64, k)
	for i := range r {
		r[i] = make([]float64, k)
		for j := range k {
			if i != j {
				r[i][j] = p[i] / (p[i] + p[j])
			}
		}
	}
	got := make([]float64, k)
	multiclassProbability(r, got)
	for i := range p {
		if math.Abs(got[i]-p[i]) > 5e-3 {
			t.Errorf("coupling: p = %v, want %v", got, p)
			break
		}
	}
}

func TestSigmoidTrain(t *testing.T) {
	// Decision values drawn so that P(y=+1|f) = 1/(1+exp(−2f)).
	rng := rand.New(rand.NewPCG(3, 3))
	n := 4000
	dec := make([]float64, n)
	y := make([]float64, n)
	for i := range n {
		dec[i] = 2*rng.Float64() - 1
		if rng.Float64() < 1/(1+math.Exp(-2*dec[i])) {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	a, b := sigmoidTrain(dec, y)
	if math.Abs(a+2) > 0.3 || math.Abs(b) > 0.15 {
		t.Errorf("sigmoid fit A = %g, B = %g; want about −2, 0", a, b)
	}
}

func TestMaxIterAndSolveErrors(t *testing.T) {
	x, y := randData(9, 100, 4)
	src, _ := NewGram64(100, gram64(pursuit.NewRBF(0.3), x))
	sol, err := SolveCSVC(src, y, 10, 10, nil, Options{MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Converged || sol.Iter != 5 || !(sol.Gap >= 1e-3) {
		t.Errorf("MaxIter 5: converged=%v after %d iterations, gap %g", sol.Converged, sol.Iter, sol.Gap)
	}
	ones := make([]float64, 100)
	for i := range ones {
		ones[i] = 1
	}
	p := make([]float64, 100)
	c := make([]float64, 100)
	for i := range c {
		c[i], p[i] = 1, -1
	}
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"short labels", func() error { _, err := SolveCSVC(src, y[:50], 1, 1, nil, Options{}); return err }, "50 labels"},
		{"zero C", func() error { _, err := SolveCSVC(src, y, 0, 1, nil, Options{}); return err }, "C must be positive"},
		{"one class", func() error { _, err := SolveCSVC(src, ones, 1, 1, nil, Options{}); return err }, "both classes"},
		{"bad label", func() error {
			yy := append([]float64(nil), y...)
			yy[3] = 2
			_, err := SolveCSVC(src, yy, 1, 1, nil, Options{})
			return err
		}, "needs ±1"},
		{"index length", func() error {
			_, err := Solve(src, Problem{Y: y, P: p, C: c, Index: []int{1}}, Options{})
			return err
		}, "Index has 1"},
		{"index range", func() error {
			idx := make([]int, 100)
			idx[7] = 100
			_, err := Solve(src, Problem{Y: y, P: p, C: c, Index: idx}, Options{})
			return err
		}, "out of range"},
		{"warm start length", func() error { _, err := SolveCSVC(src, y, 1, 1, []float64{0}, Options{}); return err }, "warm start"},
		{"negative batch", func() error { _, err := SolveCSVC(src, y, 1, 1, nil, Options{Batch: -1}); return err }, "Batch"},
		{"SVR NaN target", func() error {
			z := make([]float64, 100)
			z[2] = math.NaN()
			_, err := SolveSVR(src, z, 1, 0.1, Options{})
			return err
		}, "target 2"},
		{"nil source", func() error { _, err := Solve(nil, Problem{Y: y, P: p, C: c}, Options{}); return err }, "nil kernel"},
		{"bad features", func() error { _, err := NewLinear64(2, 2, []float64{1, math.Inf(1), 0, 0}); return err }, "row 0"},
		{"non-square Gram", func() error { _, err := NewGram32(pursuit.NewMatrix(2, 3)); return err }, "square"},
	}
	for _, tc := range cases {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestAllFinite checks the branch-free finiteness scan against math.IsNaN
// and math.IsInf for every length up to 11 and every position of a NaN,
// +Inf or −Inf (the unrolled body and the tail), and large finite values
// whose products with zero stay zero.
func TestAllFinite(t *testing.T) {
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for n := 0; n <= 11; n++ {
		row := make([]float32, n)
		for j := range row {
			row[j] = float32(j) - 3.5
		}
		if n > 0 {
			row[0] = math.MaxFloat32
		}
		if !allFinite(row) {
			t.Fatalf("length %d: finite row %v reported not finite", n, row)
		}
		for j := range row {
			for _, v := range bad {
				old := row[j]
				row[j] = v
				if allFinite(row) {
					t.Fatalf("length %d: %v at %d not found", n, v, j)
				}
				row[j] = old
			}
		}
	}
}

// pickJReference is pickJ as a plain loop over the active set (no
// contiguous fast path), keeping jTop by pushTop directly: pickJ must
// return the same j, minimum and I_low maximum and leave the same jTop.
func pickJReference[T real](s *smo[T], gmax, qdi float64, qi []T) (int, float64, float64, []cand) {
	jmin, objMin, gmax2 := -1, math.Inf(1), math.Inf(-1)
	var top []cand
	for _, a32 := range s.active {
		a := int(a32)
		yg := s.lowSign[a] * s.g[a]
		if yg >= gmax2 {
			gmax2 = yg
		}
		if diff := gmax + yg; diff > 0 {
			quad := qdi + s.qd[a] - 2*float64(qi[s.ki(a)])
			if quad <= 0 {
				quad = tau
			}
			o := -diff * diff / quad
			if o <= objMin {
				objMin, jmin = o, a
			}
			if k := s.key(a); !s.cache.has(k) {
				top = pushTop(top, cand{-o, k, a}, s.batch)
			}
		}
	}
	return jmin, objMin, gmax2, top
}

// TestPickJMatchesReference runs pickJ against pickJReference on random
// states — with and without an index map, with all variables active and
// with a shrunk active set, some points cached, gradients drawn from a few
// values so that objectives tie, and kernel values that make quad tiny,
// zero or negative — and requires identical results.
func TestPickJMatchesReference(t *testing.T) {
	e := testEngine(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		n := 1 + rng.IntN(200)
		l := n
		var kidx []int
		if trial%3 == 2 {
			kidx = make([]int, n)
			l = 1 + n/2
			for a := range kidx {
				kidx[a] = rng.IntN(l)
			}
		}
		s := &smo[float32]{n: n, kidx: kidx, batch: 1 + rng.IntN(14),
			g: make([]float64, n), qd: make([]float64, n), lowSign: make([]float64, n)}
		s.cache = newRowCache[float32](l, 1<<20, 4, func([]float32, []int) error { return nil })
		for k := range l {
			if rng.IntN(4) == 0 {
				s.cache.slotOf[k] = 0
			}
		}
		levels := []float64{-2, -1, -0.5, 0, 0.25, 1, 3}
		for a := range n {
			s.g[a] = levels[rng.IntN(len(levels))]
			if trial%2 == 0 {
				s.g[a] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
			}
			s.qd[a] = 1
			if trial%4 == 3 {
				s.qd[a] = rng.Float64() * 5
			}
			s.lowSign[a] = []float64{1, -1, math.NaN()}[rng.IntN(3)]
			if rng.IntN(2) == 0 || trial%5 == 0 {
				s.active = append(s.active, int32(a))
			}
		}
		if trial%5 == 0 {
			s.active = s.active[:0]
			for a := range n {
				s.active = append(s.active, int32(a))
			}
		}
		// The solver's invariant: an inactive variable's signs are NaN.
		inAct := make([]bool, n)
		for _, a := range s.active {
			inAct[a] = true
		}
		for a := range n {
			if !inAct[a] {
				s.lowSign[a] = math.NaN()
			}
		}
		qi := make([]float32, l)
		for k := range qi {
			qi[k] = float32(rng.Float64())
			if rng.IntN(8) == 0 {
				qi[k] = 1 // quad 0 → tau
			}
			if rng.IntN(16) == 0 {
				qi[k] = 1.5 // quad < 0 → tau
			}
		}
		gmax := rng.NormFloat64()
		if trial%7 == 0 {
			gmax = 3
		}
		wj, wo, wg, wtop := pickJReference(s, gmax, 1, qi)
		// The Go loops, and the engine's scan (which keeps jTop only when
		// j's row is missing and rows come in batches, the one case rowJ
		// reads it).
		for _, scan := range []backend.SMOScanner{nil, e} {
			s.scan = scan
			j, o, g2 := s.pickJ(gmax, 1, qi)
			if j != wj || o != wo || g2 != wg && !(math.IsInf(g2, -1) && math.IsInf(wg, -1)) {
				t.Fatalf("trial %d (n %d, %d active, batch %d, scan %v): pickJ = %d, %v, %v; reference %d, %v, %v", trial, n, len(s.active), s.batch, scan != nil, j, o, g2, wj, wo, wg)
			}
			if scan != nil && (s.batch == 1 || j >= 0 && s.cache.has(s.key(j))) {
				continue
			}
			if len(s.jTop) != len(wtop) {
				t.Fatalf("trial %d (scan %v): jTop %v, reference %v", trial, scan != nil, s.jTop, wtop)
			}
			for r := range wtop {
				if s.jTop[r] != wtop[r] {
					t.Fatalf("trial %d (scan %v): jTop %v, reference %v", trial, scan != nil, s.jTop, wtop)
				}
			}
		}
	}
}

// hiddenRows is EngineRows under another type, so that the solver runs its
// Go loops instead of the engine's scans.
type hiddenRows struct{ *EngineRows }

// TestScansMatchLoops trains a problem that shrinks (2,000 overlapping
// points, thousands of iterations) with the engine's SMO scans and with the
// solver's Go loops, and requires the same iterates bit for bit: the same
// iteration count, α, gradient and ρ.
func TestScansMatchLoops(t *testing.T) {
	e := testEngine(t)
	x, y := covtypeLike(2000, 3)
	rows, err := NewEngineRows(e, x, pursuit.NewRBF(0.5))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Release() }()
	for _, o := range []Options{{}, {CacheMB: 2}} {
		scans, err := SolveCSVC(rows, y, 8, 8, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		loops, err := SolveCSVC(hiddenRows{rows}, y, 8, 8, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if scans.Iter != loops.Iter || scans.Rho != loops.Rho || scans.Iter < 2000 {
			t.Fatalf("%+v: scans %d iterations, ρ %v; loops %d, ρ %v (want equal, over 2000)", o, scans.Iter, scans.Rho, loops.Iter, loops.Rho)
		}
		for a := range scans.Alpha {
			if scans.Alpha[a] != loops.Alpha[a] || scans.Grad[a] != loops.Grad[a] {
				t.Fatalf("%+v: variable %d: scans α %v, G %v; loops α %v, G %v", o, a, scans.Alpha[a], scans.Grad[a], loops.Alpha[a], loops.Grad[a])
			}
		}
	}
}

// TestSignsFollowActivity checks the invariant the scans over all variables
// rest on: after shrinking, an inactive variable's upSign and lowSign are
// NaN and an active one's follow its status; after reconstruct, every
// variable's follow its status.
func TestSignsFollowActivity(t *testing.T) {
	e := testEngine(t)
	x, y := covtypeLike(1000, 4)
	rows, err := NewEngineRows(e, x, pursuit.NewRBF(0.5))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Release() }()
	n := len(y)
	prob := Problem{Y: y, P: make([]float64, n), C: make([]float64, n)}
	for a := range n {
		prob.P[a], prob.C[a] = -1, 8
	}
	alpha, diag, o, maxIter, err := prepare(rows, prob, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newRowCache(n, 1<<24, 4, fill32(rows))
	defer c.release()
	s := newSMO(c, e, prob, diag, alpha, o, maxIter)
	if err := s.initGradient(); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for a := range n {
			up, low := -y[a], y[a]
			if !s.inAct[a] || !s.inUp(a) {
				up = math.NaN()
			}
			if !s.inAct[a] || !s.inLow(a) {
				low = math.NaN()
			}
			if math.Float64bits(s.upSign[a]) != math.Float64bits(up) || math.Float64bits(s.lowSign[a]) != math.Float64bits(low) {
				t.Fatalf("%s: variable %d (active %v, status %d): signs %v, %v; want %v, %v", when, a, s.inAct[a], s.status[a], s.upSign[a], s.lowSign[a], up, low)
			}
		}
	}
	shrunk := false
	for round := range 3 {
		for range 300 {
			i, j, done, err := s.selectWS()
			if err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
			if err := s.update(i, j); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.shrink(); err != nil {
			t.Fatal(err)
		}
		shrunk = shrunk || len(s.active) < n
		check(fmt.Sprintf("after shrink %d (%d active)", round, len(s.active)))
	}
	if !shrunk {
		t.Fatal("nothing was shrunk: the test checks nothing about inactive variables")
	}
	if err := s.reconstruct(); err != nil {
		t.Fatal(err)
	}
	check("after reconstruct")
}

// TestDefaultBatchIsOneTile checks that the default row batch is one tile
// of the backend's kernel rows: the pure-Go driver's 2 and the assembly's 6
// (AVX2) or 12 (AVX-512), each training as with that batch given and
// unlike with another; a backend that gives no tile height (CUDA) gets
// defaultBatch.
func TestDefaultBatchIsOneTile(t *testing.T) {
	x, y := covtypeLike(1500, 3)
	engines := []string{"go", ""}
	if raceEnabled {
		engines = engines[1:]
	}
	for _, be := range engines {
		e, err := newEngine(be)
		if err != nil {
			t.Fatal(err)
		}
		if tile := e.TileRows(); tile < 0 || be == "go" && tile != 2 || e.BackendName() != "cuda" && tile == 0 {
			t.Fatalf("%s: TileRows %d", e.BackendName(), tile)
		}
		tile := batchFor(e.TileRows())
		stats := func(batch int) TrainStats {
			m, err := Train(e, x, y, Params{Kernel: pursuit.NewRBF(0.5), C: 1, Batch: batch})
			if err != nil {
				t.Fatal(err)
			}
			return m.Stats[0]
		}
		def, one, other := stats(0), stats(tile), stats(tile+1)
		if def.RowsComputed != one.RowsComputed || def.CacheMisses != one.CacheMisses {
			t.Errorf("%s: default batch computed %d rows in %d misses, batch %d (the tile) %d in %d",
				e.BackendName(), def.RowsComputed, def.CacheMisses, tile, one.RowsComputed, one.CacheMisses)
		}
		if other.RowsComputed == one.RowsComputed {
			t.Errorf("%s: batches %d and %d both computed %d rows: the test cannot tell them apart", e.BackendName(), tile, tile+1, one.RowsComputed)
		}
	}
}

// TestModelIndependentOfCacheAndBatch: the kernel rows come from prepared
// kernel blocks, whose values do not depend on the rows computed beside
// them (backend.Preparer), so the model — support vectors, coefficients, ρ,
// objective and iterations, bit for bit — is the same whatever the cache
// size (down to one that evicts on almost every miss) and the number of rows
// computed per miss, as a LIBSVM model does not depend on -m. Only the
// cache statistics differ.
func TestModelIndependentOfCacheAndBatch(t *testing.T) {
	x, y := covtypeLike(1500, 3)
	engines := []string{"go", ""}
	if raceEnabled {
		engines = engines[1:]
	}
	for _, be := range engines {
		e, err := newEngine(be)
		if err != nil {
			t.Fatal(err)
		}
		base := Params{Kernel: pursuit.NewRBF(0.5), C: 1}
		want, err := Train(e, x, y, base)
		if err != nil {
			t.Fatal(err)
		}
		rows := want.Stats[0].RowsComputed
		for _, v := range []struct {
			cacheMB float64
			batch   int
		}{{0, 1}, {0, 2}, {0, 5}, {0, 6}, {0, 9}, {0, 12}, {0, 16}, {0.05, 12}, {0.05, 1}, {0.5, 3}} {
			p := base
			p.CacheMB, p.Batch = v.cacheMB, v.batch
			got, err := Train(e, x, y, p)
			if err != nil {
				t.Fatal(err)
			}
			gs, ws := got.Stats[0], want.Stats[0]
			gotRows := gs.RowsComputed
			if gotRows == rows && (v.batch != batchFor(e.TileRows()) || v.cacheMB != 0) {
				t.Errorf("%s cache %v MB batch %d: computed %d rows, as many as the default: the variant changed nothing", e.BackendName(), v.cacheMB, v.batch, rows)
			}
			gs.RowsComputed, gs.CacheHits, gs.CacheMisses = ws.RowsComputed, ws.CacheHits, ws.CacheMisses
			got.Stats[0] = gs
			if err := identical(got, want); err != nil {
				t.Errorf("%s cache %v MB batch %d (%d rows computed, %d by default): %v", e.BackendName(), v.cacheMB, v.batch, gotRows, rows, err)
			}
		}
	}
}
