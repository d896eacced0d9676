package slmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/approx"
)

// sparseFixture returns a text-like binary problem with real zeros held
// dense and sparse, and test rows dense and sparse.
func sparseFixture(t *testing.T) (xd, xs pursuit.Matrix, y []float64, td, ts pursuit.Matrix) {
	t.Helper()
	d, err := data.TextLike(data.TextLikeConfig{Rows: 200, Dim: 60, NNZPerRow: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := data.Densify(d, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 200)
	for i := range idx {
		idx[i] = i
	}
	tr, te := dd.Subset(idx[:150]), dd.Subset(idx[150:])
	return tr.X, data.Sparsify(tr).X, tr.Y, te.X, data.Sparsify(te).X
}

// sameSLMC checks that models trained on dense and sparse rows are the
// same (expansion vectors, coefficients and bias, bit for bit: every value
// the training reads has the same bits for both storages) and decide alike
// (within 1e-5 relative) on dense and sparse test rows, and returns the
// largest relative difference of the decisions.
func sameSLMC(t *testing.T, e *engine.Engine, md, ms *Model, td, ts pursuit.Matrix) float64 {
	t.Helper()
	if md.XV.Rows != ms.XV.Rows || md.XV.Cols != ms.XV.Cols {
		t.Fatalf("%d×%d expansion vectors dense, %d×%d sparse", md.XV.Rows, md.XV.Cols, ms.XV.Rows, ms.XV.Cols)
	}
	for u := range md.XV.Rows {
		for j := range md.XV.Cols {
			if a, b := md.XV.At(u, j), ms.XV.At(u, j); math.Float32bits(a) != math.Float32bits(b) {
				t.Fatalf("expansion vector %d, feature %d: %v dense, %v sparse", u, j, a, b)
			}
		}
		if md.Beta[u] != ms.Beta[u] {
			t.Errorf("coefficient %d: %v dense, %v sparse", u, md.Beta[u], ms.Beta[u])
		}
	}
	if md.Bias != ms.Bias {
		t.Errorf("bias %v dense, %v sparse", md.Bias, ms.Bias)
	}
	ref, err := md.Decision(e, td)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for _, c := range []struct {
		name string
		m    *Model
		x    pursuit.Matrix
	}{{"dense model, sparse rows", md, ts}, {"sparse model, dense rows", ms, td}, {"sparse model, sparse rows", ms, ts}} {
		got, err := c.m.Decision(e, c.x)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d := approx.RelDiff(ref, got)
		worst = math.Max(worst, d)
		if d > 1e-5 {
			t.Errorf("%s: decisions differ by %.3g relative", c.name, d)
		}
	}
	t.Logf("%d expansion vectors, decisions within %.3g relative", md.XV.Rows, worst)
	return worst
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

// mostlyDenseFixture returns rows with a third of their values zero, held
// dense and sparse (dense rows this full hand the kernel whole rows, zeros
// included), with labels and test rows.
func mostlyDenseFixture() (xd, xs pursuit.Matrix, y []float64, td, ts pursuit.Matrix) {
	rng := rand.New(rand.NewPCG(7, 8))
	all := pursuit.NewMatrix(160, 21)
	labels := make([]float64, 160)
	for i := range all.Rows {
		var s float32
		for j := range all.Cols {
			if rng.IntN(3) > 0 {
				v := float32(rng.NormFloat64())
				all.Set(i, j, v)
				s += v * float32(j%3-1)
			}
		}
		labels[i] = 1
		if s < 0 {
			labels[i] = -1
		}
	}
	tr := &data.Dataset{X: all.Slice(0, 120, 0, 21), Y: labels[:120]}
	te := &data.Dataset{X: all.Slice(120, 160, 0, 21), Y: labels[120:]}
	return tr.X, data.Sparsify(tr).X, tr.Y, te.X, data.Sparsify(te).X
}

func sparseSameModels(t *testing.T, e *engine.Engine) {
	xd, xs, y, td, ts := sparseFixture(t)
	k := pursuit.NewRBF(0.5)
	fo := FitOptions{}
	// The defaults: the inner SVM at its KKT tolerance 1e-4, L-BFGS over Z
	// up to 200 iterations (it stopped at 200 on these rows before the
	// storage-independent Ψ, 3.7% of the decisions apart).
	base := Config{Kernel: k, C: 10, NumXV: 5, Seed: 3}
	short := base
	short.Optim.MaxIter = 20
	for _, c := range []struct {
		name string
		cfg  func(Config) Config
	}{
		{"random init, 200 iterations", func(c Config) Config { return c }},
		{"mostly dense rows", func(c Config) Config { return short }},
		{"kmeans init", func(c Config) Config { c = short; c.Init = InitKMeans; return c }},
		{"float64 kernels", func(c Config) Config { c = short; c.Float64Kernels = true; return c }},
		{"keep duplicates", func(c Config) Config { c = short; c.KeepDuplicates = true; return c }},
		{"float64 keep duplicates", func(c Config) Config {
			c = short
			c.KeepDuplicates = true
			c.Float64Kernels = true
			return c
		}},
	} {
		t.Run("slmc "+c.name, func(t *testing.T) {
			cfg := c.cfg(base)
			xd, xs, y, td, ts := xd, xs, y, td, ts
			if c.name == "mostly dense rows" {
				xd, xs, y, td, ts = mostlyDenseFixture()
			}
			rd, err := Train(e, xd, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := Train(e, xs, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d iterations (%s)", rd.Iterations, rd.Stop)
			if rd.Iterations != rs.Iterations || rd.Duplicates != rs.Duplicates {
				t.Errorf("dense: %d iterations, %d duplicates; sparse: %d, %d", rd.Iterations, rd.Duplicates, rs.Iterations, rs.Duplicates)
			}
			sameSLMC(t, e, rd.Model, rs.Model, td, ts)
		})
	}
	t.Run("skfd", func(t *testing.T) {
		rd, err := TrainSKFD(e, xd, y, base, 1e-3) // up to 200 iterations
		if err != nil {
			t.Fatal(err)
		}
		rs, err := TrainSKFD(e, xs, y, base, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		sameSLMC(t, e, rd.Model, rs.Model, td, ts)
	})
	t.Run("rsvm and mrsvm", func(t *testing.T) {
		vd, err := RandomXV(xd, 8, 4)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := RandomXV(xs, 8, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !vs.IsSparse() {
			t.Errorf("RandomXV of sparse rows is dense")
		}
		md, err := ReducedSVM(e, xd, y, k, vd, 10, fo)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := ReducedSVM(e, xs, y, k, vs, 10, fo)
		if err != nil {
			t.Fatal(err)
		}
		sameSLMC(t, e, md, ms, td, ts)
		md, err = ModifiedRSVM(e, xd, y, k, vd, 10, fo)
		if err != nil {
			t.Fatal(err)
		}
		ms, err = ModifiedRSVM(e, xs, y, k, vs, 10, fo)
		if err != nil {
			t.Fatal(err)
		}
		sameSLMC(t, e, md, ms, td, ts)
	})
	t.Run("rs and mrs", func(t *testing.T) {
		// An expansion over 30 training rows (their labels as coefficients),
		// its vectors dense and sparse.
		coef := make([]float64, 30)
		for i := range coef {
			coef[i] = y[i]
		}
		idx := make([]int, 30)
		for i := range idx {
			idx[i] = i
		}
		ed := &Expansion{Kernel: k, Vectors: pursuit.RowsOf(xd, idx), Coef: coef, Bias: 0.1}
		es := &Expansion{Kernel: k, Vectors: pursuit.RowsOf(xs, idx), Coef: coef, Bias: 0.1}
		opt := RSOptions{Starts: 3, MaxIter: 30}
		rd, err := ReducedSet(ed, 4, opt)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ReducedSet(es, 4, opt)
		if err != nil {
			t.Fatal(err)
		}
		sameSLMC(t, e, rd.Model, rs.Model, td, ts)
		md, err := ModifiedRS(e, xd, y, rd.Model, 10, fo)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := ModifiedRS(e, xs, y, rs.Model, 10, fo)
		if err != nil {
			t.Fatal(err)
		}
		sameSLMC(t, e, md, ms, td, ts)
	})
}
