package kmp

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/approx"
)

// sparseFixture returns a text-like problem with real zeros, held dense and
// sparse (the same values), with ±1 labels, real targets and three classes,
// and test rows dense and sparse.
func sparseFixture(t testing.TB) (dense, sparse pursuit.Matrix, bin, reg, three []float64, testD, testS pursuit.Matrix) {
	t.Helper()
	d, err := data.TextLike(data.TextLikeConfig{Rows: 300, Dim: 120, NNZPerRow: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := data.Densify(d, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	tr, te := dd.Subset(seq(240)), dd.Subset(seq(300)[240:])
	bin = tr.Y
	reg = make([]float64, tr.Len())
	three = make([]float64, tr.Len())
	for i := range tr.Len() {
		var s float64
		for j, v := range tr.X.Row(i) {
			s += float64(v) * math.Sin(float64(j))
		}
		reg[i] = 3*s + bin[i]
		three[i] = float64(i % 3)
		if bin[i] > 0 {
			three[i] = float64(i % 2)
		}
	}
	return tr.X, data.Sparsify(tr).X, bin, reg, three, te.X, data.Sparsify(te).X
}

// sameModels checks that the models trained on dense and sparse storage
// have the same support vectors and decisions within 1e-5 relative on the
// test rows, dense and sparse, and after a save and load.
func sameModels(t *testing.T, e *engine.Engine, md, ms *Model, testD, testS pursuit.Matrix, opts ...LoadOption) {
	t.Helper()
	if !slices.Equal(md.SupportIndex, ms.SupportIndex) || !slices.Equal(md.SupportKernel, ms.SupportKernel) {
		t.Fatalf("support vectors differ: dense %v, sparse %v", md.SupportIndex, ms.SupportIndex)
	}
	if !ms.Support.IsSparse() || !sameRows(ms.Support, md.Support) {
		t.Errorf("the sparse model's support vectors are dense (%v) or differ from the dense model's", !ms.Support.IsSparse())
	}
	var buf bytes.Buffer
	if err := ms.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := md.DecisionAll(e, testD)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for _, c := range []struct {
		name string
		m    *Model
		x    pursuit.Matrix
	}{{"dense model, sparse rows", md, testS}, {"sparse model, dense rows", ms, testD}, {"sparse model, sparse rows", ms, testS}, {"loaded sparse model", loaded, testS}} {
		got, err := c.m.DecisionAll(e, c.x)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for o := range ref {
			d := approx.RelDiff(ref[o], got[o])
			worst = math.Max(worst, d)
			if d > 1e-5 {
				t.Errorf("%s: output %d decisions differ by %.3g relative", c.name, o, d)
			}
		}
	}
	t.Logf("%d support vectors, decisions within %.3g relative", len(md.SupportIndex), worst)
}

func TestSparseSameModels(t *testing.T) {
	for _, be := range []string{"go", "auto"} {
		t.Run(be, func(t *testing.T) {
			e, err := engine.New(engine.WithBackend(be))
			if err != nil {
				t.Skip(err)
			}
			sparseSameModels(t, e)
		})
	}
}

func sparseSameModels(t *testing.T, e *engine.Engine) {
	xd, xs, bin, reg, three, testD, testS := sparseFixture(t)
	rbf := []pursuit.Kernel{pursuit.NewRBF(1)}
	cases := []struct {
		name string
		cfg  Config
		y    []float64
		ovr  bool
	}{
		{"basic", Config{Variant: Basic, Kernels: rbf, N: 20, Bias: true}, bin, false},
		{"backfit", Config{Variant: BackFit, Kernels: rbf, N: 20, Bias: true}, bin, false},
		{"prefit", Config{Variant: PreFit, Kernels: rbf, N: 20, Bias: true}, bin, false},
		{"regression", Config{Task: Regression, Variant: PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5), pursuit.NewPoly(1, 1, 2)}, N: 15, Bias: true}, reg, false},
		{"logistic", Config{Variant: BackFit, Loss: Logistic, Kernels: rbf, N: 12, Bias: true}, bin, false},
		{"tanh basic", Config{Variant: Basic, Loss: Tanh, Kernels: rbf, N: 12, Bias: true}, bin, false},
		{"one-vs-rest", Config{Variant: BackFit, Kernels: rbf, N: 10, Bias: true}, three, true},
		{"maxabs valfrac", Config{Variant: PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(0.05)}, N: 15, Bias: true, Scale: data.ScaleMaxAbs, ValFrac: 0.2, Seed: 4}, bin, false},
		{"candidates", Config{Variant: BackFit, Kernels: rbf, N: 10, Candidates: 80, Seed: 2}, bin, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			trainFn := Train
			if tc.ovr {
				trainFn = TrainOneVsRest
			}
			md, err := trainFn(e, xd, tc.y, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := trainFn(e, xs, tc.y, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			sameModels(t, e, md, ms, testD, testS)
		})
	}
	t.Run("stochastic", func(t *testing.T) {
		cfg := Config{Variant: Basic, Kernels: rbf, N: 15, Bias: true, Seed: 9}
		sc := Stochastic{Eps: 0.05, Q: 0.95}
		md, err := TrainStochastic(e, xd, bin, cfg, sc)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := TrainStochastic(e, xs, bin, cfg, sc)
		if err != nil {
			t.Fatal(err)
		}
		sameModels(t, e, md, ms, testD, testS)
	})
	t.Run("streamed", func(t *testing.T) {
		// A budget below the in-memory dictionary (241 × 240 × 4 bytes)
		// streams it: every atom recomputed block by block each step.
		es, err := engine.New(engine.WithBackend(e.BackendName()), engine.WithMemoryBudget(150<<10))
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Variant: PreFit, Kernels: rbf, N: 10, Bias: true}
		plan, err := PlanTraining(es, xs.Rows, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Mode != Streamed {
			t.Fatalf("plan %v, want a streamed dictionary", plan)
		}
		md, err := Train(es, xd, bin, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Train(es, xs, bin, cfg)
		if err != nil {
			t.Fatal(err)
		}
		sameModels(t, es, md, ms, testD, testS)
		steps := []int{3, 10}
		pd, err := md.PrefixDecisions(es, testD, steps)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := ms.PrefixDecisions(es, testS, steps)
		if err != nil {
			t.Fatal(err)
		}
		for i := range steps {
			if d := approx.RelDiff(pd[i][0], ps[i][0]); d > 1e-5 {
				t.Errorf("prefix decisions after %d steps differ by %.3g relative", steps[i], d)
			}
		}
	})
	t.Run("truncate", func(t *testing.T) {
		cfg := Config{Variant: BackFit, Kernels: rbf, N: 12, Bias: true}
		md, err := Train(e, xd, bin, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Train(e, xs, bin, cfg)
		if err != nil {
			t.Fatal(err)
		}
		td, err := md.Truncate(5)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := ms.Truncate(5)
		if err != nil {
			t.Fatal(err)
		}
		sameModels(t, e, td, ts, testD, testS)
	})
	t.Run("custom kernel", func(t *testing.T) {
		// A Go function on dense rows: sparse rows are densified one at a
		// time for it.
		f := func(a, b []float32) float64 {
			var s float64
			for j := range a {
				d := float64(a[j] - b[j])
				s += d * d
			}
			return math.Exp(-s)
		}
		cfg := Config{Variant: BackFit, Custom: &CustomKernel{Name: "rbf1", Func: f}, N: 10, Bias: true}
		md, err := Train(e, xd, bin, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Train(e, xs, bin, cfg)
		if err != nil {
			t.Fatal(err)
		}
		sameModels(t, e, md, ms, testD, testS, WithKernelFunc("rbf1", f))
	})
}

// TestSparseMinMaxRefused: min-max scaling would fill in the zeros of
// sparse rows; Train refuses it with a configuration error naming maxabs.
func TestSparseMinMaxRefused(t *testing.T) {
	e := goEngine(t)
	_, xs, bin, _, _, _, _ := sparseFixture(t)
	for _, s := range []data.ScaleMode{data.ScaleMinMax, data.ScaleStandard} {
		_, err := Train(e, xs, bin, Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, N: 5, Scale: s})
		if err == nil || !errors.Is(err, pursuit.ErrConfig) || !bytes.Contains([]byte(err.Error()), []byte("maxabs")) {
			t.Errorf("Scale %s on sparse rows: %v, want a configuration error naming maxabs", s, err)
		}
	}
}

// TestShardedSparse: sharded training where each rank holds its rows'
// non-zeros (on 3 ranks, one holding a single row; and on 2 ranks with one
// rank's rows dense, the other's sparse) chooses the atoms of the
// single-process run on the same rows held dense, and decides as it does
// within 1e-5 relative; the model's support vectors are sparse.
func TestShardedSparse(t *testing.T) {
	xd, xs, bin, reg, three, testD, _ := sparseFixture(t)
	single, err := engine.New(engine.WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	rbf := []pursuit.Kernel{pursuit.NewRBF(1)}
	cases := []struct {
		tc shardCase
		y  []float64
	}{
		{shardCase{name: "basic", cfg: Config{Variant: Basic, Kernels: rbf, N: 10, Bias: true}}, bin},
		{shardCase{name: "prefit regression", cfg: Config{Task: Regression, Variant: PreFit, Kernels: rbf, N: 10, Bias: true}}, reg},
		{shardCase{name: "backfit logistic", cfg: Config{Variant: BackFit, Loss: Logistic, Kernels: rbf, N: 8, Bias: true}}, bin},
		{shardCase{name: "ovr maxabs", cfg: Config{Variant: BackFit, Kernels: rbf, N: 8, Scale: data.ScaleMaxAbs}, ovr: true}, three},
		{shardCase{name: "stochastic", cfg: Config{Variant: Basic, Kernels: rbf, N: 10, Bias: true, Seed: 3, Stochastic: &Stochastic{ActiveSet: 20}}}, bin},
	}
	var worst float64
	for _, c := range cases {
		t.Run(c.tc.name, func(t *testing.T) {
			ref, err := trainCase(single, xd, c.y, c.tc)
			if err != nil {
				t.Fatal(err)
			}
			l := xd.Rows
			for _, run := range []struct {
				name   string
				bounds []int
				rows   func(r, r0, r1 int) pursuit.Matrix
			}{
				{"3 sparse ranks", shardBounds(3, l), func(_, r0, r1 int) pursuit.Matrix { return xs.Slice(r0, r1, 0, xs.Cols) }},
				{"dense and sparse ranks", shardBounds(2, l), func(r, r0, r1 int) pursuit.Matrix {
					if r == 0 {
						return xd.Slice(r0, r1, 0, xd.Cols)
					}
					return xs.Slice(r0, r1, 0, xs.Cols)
				}},
			} {
				n := len(run.bounds) - 1
				models, errs := runRanks(n, func(r int) (pursuit.Matrix, []float64, shardCase, []engine.Option) {
					r0, r1 := run.bounds[r], run.bounds[r+1]
					return run.rows(r, r0, r1), c.y[r0:r1], c.tc, nil
				})
				for r, m := range models {
					if errs[r] != nil {
						t.Fatalf("%s: rank %d: %v", run.name, r, errs[r])
					}
					if !m.Support.IsSparse() {
						t.Errorf("%s: rank %d: the model's support vectors are dense", run.name, r)
					}
					w, err := sameModel(single, m, ref, testD, 1e-5)
					if err != nil {
						t.Fatalf("%s: rank %d: %v", run.name, r, err)
					}
					worst = math.Max(worst, w)
				}
			}
		})
	}
	t.Logf("largest relative decision difference %.3g", worst)
}

// sameRows reports whether a and b hold the same values, dense or sparse.
func sameRows(a, b pursuit.Matrix) bool {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return false
	}
	for i := range a.Rows {
		for j := range a.Cols {
			if a.At(i, j) != b.At(i, j) {
				return false
			}
		}
	}
	return true
}
