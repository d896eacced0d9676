package svm

import (
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// backendEngines returns an engine on the go backend and, where the CPU
// has it, one on avx2.
func backendEngines(t testing.TB) map[string]*engine.Engine {
	t.Helper()
	out := map[string]*engine.Engine{}
	for _, name := range []string{"go", "avx2"} {
		e, err := engine.New(engine.WithBackend(name))
		if err != nil {
			if name == "go" {
				t.Fatal(err)
			}
			t.Logf("backend %s unavailable: %v", name, err)
			continue
		}
		out[name] = e
	}
	return out
}

// solveBoth solves one problem by SMO and by the batched solver with the
// same options (o.Solver set per solver).
func solveBoth(t *testing.T, src RowSource, prob Problem, o Options) (smoSol, bat *Solution) {
	t.Helper()
	o.Solver = SolverSMO
	smoSol, err := Solve(src, prob, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Solver = SolverBatched
	bat, err = Solve(src, prob, o)
	if err != nil {
		t.Fatal(err)
	}
	if !smoSol.Converged || !bat.Converged {
		t.Fatalf("not converged: SMO %v (gap %g), batched %v (gap %g)", smoSol.Converged, smoSol.Gap, bat.Converged, bat.Gap)
	}
	return smoSol, bat
}

// checkFeasible checks that a solution satisfies the dual's constraints.
func checkFeasible(t *testing.T, prob Problem, sol *Solution) {
	t.Helper()
	var s float64
	for a, v := range sol.Alpha {
		if v < 0 || v > prob.C[a] {
			t.Fatalf("α_%d = %v outside [0, %v]", a, v, prob.C[a])
		}
		s += prob.Y[a] * v
	}
	if math.Abs(s) > 1e-9*float64(len(sol.Alpha)) {
		t.Fatalf("yᵀα = %g", s)
	}
}

func TestBatchedMatchesSMOGenerated(t *testing.T) {
	x, y := randData(7, 600, 5)
	k := pursuit.NewRBF(0.2)
	for name, e := range backendEngines(t) {
		rows, err := NewEngineRows(e, x, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, ws := range []int{0, 16, 64, 256} {
			// Tight tolerance: the objectives agree to 1e-6 relative.
			prob := csvcProblem(y, 2, 1.5, nil)
			sm, bt := solveBoth(t, rows, prob, Options{Tol: 1e-6, WorkingSet: ws})
			checkFeasible(t, prob, bt)
			if bt.OuterIter == 0 {
				t.Errorf("%s q=%d: no outer iteration", name, ws)
			}
			if r := relDiff(bt.Obj, sm.Obj); r > 1e-6 {
				t.Errorf("%s q=%d: objective %.12g vs SMO %.12g (rel %g)", name, ws, bt.Obj, sm.Obj, r)
			}
			if math.Abs(bt.Rho-sm.Rho) > 1e-4*math.Max(1, math.Abs(sm.Rho)) {
				t.Errorf("%s q=%d: ρ %v vs SMO %v", name, ws, bt.Rho, sm.Rho)
			}
			t.Logf("%s q=%d: obj %.10g vs %.10g, SV %d vs %d, outer %d, inner steps %d vs SMO %d, rows %d vs %d",
				name, ws, bt.Obj, sm.Obj, bt.NumSV, sm.NumSV, bt.OuterIter, bt.Iter, sm.Iter, bt.RowsComputed, sm.RowsComputed)
		}
		// Weighted, warm-started and SVR problems through the same path.
		w := make([]float64, len(y))
		for i := range w {
			w[i] = 0.5 + float64(i%3)
		}
		prob := csvcProblem(y, 1, 3, w)
		sm, bt := solveBoth(t, rows, prob, Options{Tol: 1e-6})
		if r := relDiff(bt.Obj, sm.Obj); r > 1e-6 {
			t.Errorf("%s weighted: objective %.12g vs SMO %.12g (rel %g)", name, bt.Obj, sm.Obj, r)
		}
		z := make([]float64, len(y))
		for i := range z {
			z[i] = float64(x.At(i, 0)) + 0.3*y[i]
		}
		svrS, err := SolveSVR(rows, z, 1, 0.1, Options{Tol: 1e-6, Solver: SolverSMO})
		if err != nil {
			t.Fatal(err)
		}
		svrB, err := SolveSVR(rows, z, 1, 0.1, Options{Tol: 1e-6, Solver: SolverBatched})
		if err != nil {
			t.Fatal(err)
		}
		if !svrB.Converged || relDiff(svrB.Obj, svrS.Obj) > 1e-6 || math.Abs(svrB.Rho-svrS.Rho) > 1e-4 {
			t.Errorf("%s SVR: batched obj %.12g ρ %v (converged %v) vs SMO %.12g ρ %v", name, svrB.Obj, svrB.Rho, svrB.Converged, svrS.Obj, svrS.Rho)
		}
		_ = rows.Release()
	}
}

// TestBatchedFloat64Gram: the batched solver on a float64 Gram matrix
// reaches the brute-force optimum's objective.
func TestBatchedFloat64Gram(t *testing.T) {
	x, y := randData(3, 200, 4)
	k := pursuit.NewRBF(0.3)
	g, err := NewGram64(x.Rows, gram64(k, x))
	if err != nil {
		t.Fatal(err)
	}
	prob := csvcProblem(y, 1, 1, nil)
	sm, bt := solveBoth(t, g, prob, Options{Tol: 1e-9, WorkingSet: 32})
	if r := relDiff(bt.Obj, sm.Obj); r > 1e-9 {
		t.Errorf("objective %.14g vs SMO %.14g (rel %g)", bt.Obj, sm.Obj, r)
	}
}

func TestParseSolver(t *testing.T) {
	for in, want := range map[string]SolverKind{"smo": SolverSMO, "batched": SolverBatched, "auto": SolverAuto, "": SolverAuto} {
		got, err := ParseSolver(in)
		if err != nil || got != want {
			t.Errorf("ParseSolver(%q) = %v, %v; want %v", in, got, err, want)
		}
		if in != "" && got.String() != in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if _, err := ParseSolver("thunder"); err == nil {
		t.Error("ParseSolver accepted an unknown solver")
	}
	if _, err := (Options{Solver: 7}).withDefaults(); err == nil {
		t.Error("an unknown solver kind was accepted")
	}
}

func TestWorkingSetSize(t *testing.T) {
	for _, c := range []struct {
		want, n, l, elem int
		budget           int64
		q                int
	}{
		{0, 100, 100, 4, 1 << 30, 64},
		{0, 7291, 7291, 4, 100 << 20, 512},
		{0, 15000, 15000, 4, 100 << 20, 512},
		{0, 1 << 20, 1 << 20, 4, 1 << 40, 1024},
		{0, 10, 10, 4, 1 << 30, 10},
		{0, 15000, 15000, 4, 15000 * 4 * 100, 100},
		{33, 1000, 1000, 4, 1 << 30, 32},
	} {
		if got := workingSetSize(c.want, c.n, c.l, c.elem, c.budget); got != c.q {
			t.Errorf("workingSetSize(%d, %d, %d, %d, %d) = %d, want %d", c.want, c.n, c.l, c.elem, c.budget, got, c.q)
		}
	}
}

// sameModels trains x, y by SMO and by the batched solver on every backend
// and checks: at tolerance 1e-6 the dual objectives agree to 1e-6
// relative; at the default tolerance the support vectors agree within
// ±0.5% and the test accuracies within ±0.1 point.
func sameModels(t *testing.T, name string, xtr pursuit.Matrix, ytr []float64, xte pursuit.Matrix, yte []float64, p Params) {
	for bname, e := range backendEngines(t) {
		train := func(s SolverKind, tol float64) *Model {
			q := p
			q.Solver, q.Tol = s, tol
			m, err := Train(e, xtr, ytr, q)
			if err != nil {
				t.Fatalf("%s, %s, %v: %v", name, bname, s, err)
			}
			if !m.Stats[0].Converged {
				t.Fatalf("%s, %s, %v: not converged", name, bname, s)
			}
			return m
		}
		ms, mb := train(SolverSMO, 1e-6), train(SolverBatched, 1e-6)
		if r := relDiff(mb.Stats[0].Obj, ms.Stats[0].Obj); r > 1e-6 {
			t.Errorf("%s, %s, tolerance 1e-6: objective %.10g vs SMO %.10g (rel %.2g)", name, bname, mb.Stats[0].Obj, ms.Stats[0].Obj, r)
		} else {
			t.Logf("%s, %s, tolerance 1e-6: objective %.10g vs SMO %.10g (rel %.2g)", name, bname, mb.Stats[0].Obj, ms.Stats[0].Obj, r)
		}
		ms, mb = train(SolverSMO, 0), train(SolverBatched, 0)
		svS, svB := ms.TotalSV(), mb.TotalSV()
		ps, err := ms.Predict(e, xte)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := mb.Predict(e, xte)
		if err != nil {
			t.Fatal(err)
		}
		accS, accB := 100-errorRate(ps, yte), 100-errorRate(pb, yte)
		t.Logf("%s, %s, tolerance 1e-3: SVs %d vs SMO %d, accuracy %.3f%% vs %.3f%%, objective %.8g vs %.8g, outer iterations %d, rows %d vs %d",
			name, bname, svB, svS, accB, accS, mb.Stats[0].Obj, ms.Stats[0].Obj, mb.Stats[0].OuterIter, mb.Stats[0].RowsComputed, ms.Stats[0].RowsComputed)
		if math.Abs(float64(svB-svS)) > 0.005*float64(svS) {
			t.Errorf("%s, %s: %d support vectors vs SMO's %d (more than ±0.5%%)", name, bname, svB, svS)
		}
		if math.Abs(accB-accS) > 0.1 {
			t.Errorf("%s, %s: test accuracy %.3f%% vs SMO's %.3f%% (more than ±0.1 point)", name, bname, accB, accS)
		}
	}
}

func TestBatchedSameModelsGenerated(t *testing.T) {
	x, y := covtypeLike(3000, 5)
	const l = 2000
	sameModels(t, "covtype-like 2000", x.Slice(0, l, 0, x.Cols), y[:l], x.Slice(l, x.Rows, 0, x.Cols), y[l:], Params{Kernel: pursuit.NewRBF(0.5), C: 1})
}

func TestBatchedSameModelsUSPS8VsRest(t *testing.T) {
	skipUnlessUSPS(t)
	tr := loadShared(t, "usps", "usps.train.gz")
	te := loadShared(t, "usps", "usps.test.gz")
	ytr, err := data.BinaryLabels(tr.Y, 8)
	if err != nil {
		t.Fatal(err)
	}
	yte, err := data.BinaryLabels(te.Y, 8)
	if err != nil {
		t.Fatal(err)
	}
	sameModels(t, "USPS 8 vs rest", tr.X, ytr, te.X, yte, uspsParams())
}

func TestBatchedSameModelsMushrooms(t *testing.T) {
	if testing.Short() {
		t.Skip("mushrooms with both solvers on two backends; skipped by -short")
	}
	d := loadShared(t, "mushrooms", "mushrooms.gz")
	tr, te := splitThirds(t, d)
	sameModels(t, "mushrooms", tr.X, tr.Y, te.X, te.Y, Params{Kernel: pursuit.NewRBF(1.0 / 112), C: 1})
}
