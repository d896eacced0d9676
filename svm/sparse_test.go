package svm

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// denseOf returns the rows of x (dense or sparse) as a dense matrix.
func denseOf(x pursuit.Matrix) pursuit.Matrix {
	out := pursuit.NewMatrix(x.Rows, x.Cols)
	for i := range x.Rows {
		x.RowTo(out.Row(i), i)
	}
	return out
}

// refDecision64 is the float64 reference of a binary or ε-SVR model's
// decision values: Σ_s coef_s K(sv_s, x) − ρ with the kernel computed in
// float64 from the rows' values (dense or sparse alike, through At).
func refDecision64(m *Model, x pursuit.Matrix) []float64 {
	d := max(x.Cols, m.SV.Cols)
	dense64 := func(a pursuit.Matrix) [][]float64 {
		rows := make([][]float64, a.Rows)
		buf := make([]float32, a.Cols)
		for i := range rows {
			rows[i] = make([]float64, d)
			for j, v := range a.RowTo(buf, i) {
				rows[i][j] = float64(v)
			}
		}
		return rows
	}
	xs, svs := dense64(x), dense64(m.SV)
	out := make([]float64, x.Rows)
	for i, a := range xs {
		s := -m.Rho[0]
		for t, b := range svs {
			var dot, dist float64
			for j := range d {
				dot += a[j] * b[j]
				dist += (a[j] - b[j]) * (a[j] - b[j])
			}
			s += m.Coef[0][t] * m.Kernel.FromDot(dot, dist)
		}
		out[i] = s
	}
	return out
}

// closeRel checks got against want to tol of want's largest magnitude.
func closeRel(what string, got, want []float64, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, want %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*scale {
			return fmt.Errorf("%s %d = %v, want %v (scale %v)", what, i, got[i], want[i], scale)
		}
	}
	return nil
}

// sameModelsDenseSparse trains p on x held dense and sparse and checks
// that the models have the same support vectors (the same training rows,
// the sparse model's held sparse), coefficients, offsets and decisions on
// xt (dense and sparse, each model) within 1e-5 relative (coefficients
// 1e-4).
func sameModelsDenseSparse(t *testing.T, e *engine.Engine, x pursuit.Matrix, y []float64, xt pursuit.Matrix, p Params) (dm, sm *Model) {
	t.Helper()
	xd, xs := denseOf(x), sparseOf(x, 0)
	xtd, xts := denseOf(xt), sparseOf(xt, 0)
	dm, err := Train(e, xd, y, p)
	if err != nil {
		t.Fatalf("dense: %v", err)
	}
	sm, err = Train(e, xs, y, p)
	if err != nil {
		t.Fatalf("sparse: %v", err)
	}
	if !sm.SV.IsSparse() || dm.SV.IsSparse() {
		t.Fatalf("support vectors sparse %v (dense training) and %v (sparse training)", dm.SV.IsSparse(), sm.SV.IsSparse())
	}
	if !slices.Equal(sm.SVIndex, dm.SVIndex) {
		t.Fatalf("sparse rows: %d support vectors %v…, dense rows %d %v…", len(sm.SVIndex), sm.SVIndex[:min(8, len(sm.SVIndex))], len(dm.SVIndex), dm.SVIndex[:min(8, len(dm.SVIndex))])
	}
	if err := sameRows(sm.SV, sparseOf(dm.SV, 0)); err != nil {
		t.Fatalf("support vectors: %v", err)
	}
	if !slices.Equal(sm.Labels, dm.Labels) || !slices.Equal(sm.NumSV, dm.NumSV) {
		t.Fatalf("labels %v %v, dense %v %v", sm.Labels, sm.NumSV, dm.Labels, dm.NumSV)
	}
	// Coefficients to 1e-4: a singular kernel matrix (the degree-2
	// polynomial of 8 features has rank 45) leaves them not unique, while
	// the decision function is.
	for q := range dm.Coef {
		if err := closeRel(fmt.Sprint("coefficient row ", q), sm.Coef[q], dm.Coef[q], 1e-4); err != nil {
			t.Fatal(err)
		}
	}
	if err := closeRel("ρ", sm.Rho, dm.Rho, 1e-5); err != nil {
		t.Fatal(err)
	}
	want, err := dm.Decision(e, xtd)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *Model
		x    pursuit.Matrix
	}{{"sparse model, sparse rows", sm, xts}, {"sparse model, dense rows", sm, xtd}, {"dense model, sparse rows", dm, xts}} {
		got, err := c.m.Decision(e, c.x)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := closeRel("decision ("+c.name+")", got, want, 1e-5); err != nil {
			t.Fatal(err)
		}
	}
	return dm, sm
}

// Sparse and dense storage of the same data give the same models: C-SVC
// binary and one-vs-one, one-vs-rest and ε-SVR, on generated data with
// real zeros and on a text-like set; the sparse model's decisions match a
// float64 reference, and its LIBSVM text reads back sparse to the same
// decisions.
func TestSparseSameModels(t *testing.T) {
	e := testEngine(t)
	x, y3, z := shardData(300, 8, 3, 21)
	_, y2, _ := shardData(300, 8, 2, 21)
	x = sparseOf(x, 0.6)
	xt, _, _ := shardData(60, 8, 3, 22)
	xt = sparseOf(xt, 0.6)
	text, err := data.TextLike(data.TextLikeConfig{Rows: 400, Dim: 3000, NNZPerRow: 30, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	textTest, err := data.TextLike(data.TextLikeConfig{Rows: 100, Dim: 3000, NNZPerRow: 30, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		x, xt pursuit.Matrix
		y     []float64
		p     Params
	}{
		{"binary RBF", x, xt, y2, Params{Kernel: pursuit.NewRBF(0.3), C: 2}},
		{"three classes RBF, probability", x, xt, y3, Params{Kernel: pursuit.NewRBF(0.3), C: 1, Probability: true, Seed: 1}},
		{"ε-SVR RBF", x, xt, z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 1, Epsilon: 0.05}},
		{"binary polynomial, no shrinking", x, xt, y2, Params{Kernel: pursuit.NewPoly(0.2, 1, 2), C: 0.5, NoShrinking: true}},
		{"text-like RBF γ=1 C=10", text.X, textTest.X, text.Y, Params{Kernel: pursuit.NewRBF(1), C: 10}},
		{"text-like linear", text.X, textTest.X, text.Y, Params{Kernel: pursuit.NewLinear(), C: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The dense and sparse kernel values differ in their last
			// float32 bits (the products are summed in another order), so
			// the two solvers may take different paths to solutions that
			// differ by about the stopping tolerance: compared at a tight
			// one (mushrooms' 0/1 features give identical products).
			c.p.Tol = 1e-7
			_, sm := sameModelsDenseSparse(t, e, c.x, c.y, c.xt, c.p)
			if len(sm.Rho) == 1 {
				got, err := sm.Decision(e, c.xt)
				if err != nil {
					t.Fatal(err)
				}
				if err := closeRel("decision against the float64 reference", got, refDecision64(sm, c.xt), 1e-5); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			if err := sm.WriteLIBSVM(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := ReadLIBSVMModel(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if dens := data.Density(sm.SV.Rows, sm.SV.Cols, sm.SV.NNZ()); back.SV.IsSparse() != (dens < data.SparseDensity) {
				t.Errorf("the model read back holds its %d×%d support vectors at density %.3g sparse: %v", back.SV.Rows, back.SV.Cols, dens, back.SV.IsSparse())
			}
			if err := sameRows(back.SV, sm.SV); err != nil {
				t.Fatalf("support vectors read back: %v", err)
			}
			want, _ := sm.Decision(e, c.xt)
			got, err := back.Decision(e, c.xt)
			if err != nil {
				t.Fatal(err)
			}
			if err := closeRel("decision of the model read back", got, want, 1e-5); err != nil {
				t.Fatal(err)
			}
		})
	}
	// One-vs-rest on sparse rows gives the dense machines.
	p := Params{Kernel: pursuit.NewRBF(0.3), C: 2, Tol: 1e-7}
	dm, err := TrainOneVsRest(e, denseOf(x), y3, p)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := TrainOneVsRest(e, x, y3, p)
	if err != nil {
		t.Fatal(err)
	}
	for c := range dm.Machines {
		if !slices.Equal(sm.Machines[c].SVIndex, dm.Machines[c].SVIndex) || !sm.Machines[c].SV.IsSparse() {
			t.Fatalf("one-vs-rest machine %d: support vectors differ or are dense", c)
		}
	}
	dd, _ := dm.Decision(e, denseOf(xt))
	sd, err := sm.Decision(e, xt)
	if err != nil {
		t.Fatal(err)
	}
	if err := closeRel("one-vs-rest decision", sd, dd, 1e-5); err != nil {
		t.Fatal(err)
	}
}

// The same models dense and sparse on mushrooms (8,124 × 112 one-hot,
// 21 non-zeros a row), from ../shared/datasets: C-SVC and ε-SVR on its
// first 2,000 rows.
func TestSparseSameModelsMushrooms(t *testing.T) {
	path, err := data.SharedFile("mushrooms", "mushrooms.gz")
	if err != nil {
		t.Skipf("shared data set not available, skipping: %v", err)
	}
	ds, err := data.Load(path, data.WithStorage(data.StorageSparse))
	if err != nil {
		t.Fatal(err)
	}
	if !ds.X.IsSparse() {
		t.Fatal("mushrooms loaded dense with StorageSparse")
	}
	n := 2000
	if testing.Short() {
		n = 600
	}
	x, y := ds.X.Slice(0, n, 0, ds.X.Cols), ds.Y[:n]
	xt := ds.X.Slice(n, n+500, 0, ds.X.Cols)
	e := testEngine(t)
	for _, c := range []struct {
		name string
		p    Params
	}{
		{"C-SVC RBF", Params{Kernel: pursuit.NewRBF(0.05), C: 1}},
		{"ε-SVR RBF", Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.05), C: 1, Epsilon: 0.1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dm, _ := sameModelsDenseSparse(t, e, x, y, xt, c.p)
			t.Logf("%d support vectors", dm.TotalSV())
		})
	}
}
