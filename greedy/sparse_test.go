package greedy

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/approx"
)

// sparseFixture returns a text-like binary problem with real zeros, held
// dense and sparse, and test rows dense and sparse.
func sparseFixture(t *testing.T) (xd, xs pursuit.Matrix, y []float64, td, ts pursuit.Matrix) {
	t.Helper()
	d, err := data.TextLike(data.TextLikeConfig{Rows: 220, Dim: 80, NNZPerRow: 10, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := data.Densify(d, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 220)
	for i := range idx {
		idx[i] = i
	}
	tr, te := dd.Subset(idx[:160]), dd.Subset(idx[160:])
	return tr.X, data.Sparsify(tr).X, tr.Y, te.X, data.Sparsify(te).X
}

func denseRel(a, b *mat.Dense) float64 { return approx.RelDiff(a.RawMatrix().Data, b.RawMatrix().Data) }

func sparseEngines(t *testing.T, f func(t *testing.T, e *engine.Engine)) {
	for _, be := range []string{"go", "auto"} {
		t.Run(be, func(t *testing.T) {
			e, err := engine.New(engine.WithBackend(be))
			if err != nil {
				t.Skip(err)
			}
			f(t, e)
		})
	}
}

// TestSparseSameKFDA: MP-KFDA on dense and sparse storage of the same rows
// chooses the same points, its centres stay sparse (also through a save
// and load), and decisions agree within 1e-5 relative.
func TestSparseSameKFDA(t *testing.T) {
	xd, xs, y, td, ts := sparseFixture(t)
	sparseEngines(t, func(t *testing.T, e *engine.Engine) {
		cfg := KFDAConfig{Kernel: pursuit.NewRBF(1), Steps: 12, Ridge: 1e-6}
		md, err := TrainKFDA(e, xd, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := TrainKFDA(e, xs, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(md.Index, ms.Index) || !ms.Centres.IsSparse() {
			t.Fatalf("chose %v dense, %v sparse (sparse centres %v)", md.Index, ms.Index, ms.Centres.IsSparse())
		}
		var buf bytes.Buffer
		if err := ms.Save(&buf); err != nil {
			t.Fatal(err)
		}
		loaded, err := LoadKFDA(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !loaded.Centres.IsSparse() {
			t.Errorf("loaded centres are dense")
		}
		ref, err := md.Decision(e, td)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for _, c := range []struct {
			m *KFDA
			x pursuit.Matrix
		}{{md, ts}, {ms, td}, {ms, ts}, {loaded, ts}} {
			got, err := c.m.Decision(e, c.x)
			if err != nil {
				t.Fatal(err)
			}
			worst = math.Max(worst, approx.RelDiff(ref, got))
		}
		t.Logf("%d points, decisions within %.3g relative", len(md.Index), worst)
		if worst > 1e-5 {
			t.Errorf("decisions differ by %.3g relative", worst)
		}
	})
}

// TestSparseSameKPCA: sparse KPCA chooses the same points on dense and
// sparse rows; features and residuals agree within 1e-5 relative.
func TestSparseSameKPCA(t *testing.T) {
	xd, xs, _, td, ts := sparseFixture(t)
	sparseEngines(t, func(t *testing.T, e *engine.Engine) {
		cfg := KPCAConfig{Kernel: pursuit.NewRBF(1), Steps: 10}
		pd, err := FitKPCA(e, xd, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := FitKPCA(e, xs, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pd.Index, ps.Index) || !ps.Centres.IsSparse() {
			t.Fatalf("chose %v dense, %v sparse (sparse centres %v)", pd.Index, ps.Index, ps.Centres.IsSparse())
		}
		zd, rd, err := pd.Transform(e, td)
		if err != nil {
			t.Fatal(err)
		}
		zs, rs, err := ps.Transform(e, ts)
		if err != nil {
			t.Fatal(err)
		}
		dz, dr := denseRel(zd, zs), approx.RelDiff(rd, rs)
		t.Logf("%d points; features within %.3g, residuals within %.3g relative", len(pd.Index), dz, dr)
		if dz > 1e-5 || dr > 1e-5 {
			t.Errorf("features differ by %.3g, residuals by %.3g relative", dz, dr)
		}
	})
}

// TestSparseSameKCCA: sparse KCCA on two views (the rows and their
// squares), each dense or sparse, chooses the same pairs; the canonical
// features agree within 1e-5 relative.
func TestSparseSameKCCA(t *testing.T) {
	xd, xs, _, td, ts := sparseFixture(t)
	square := func(x pursuit.Matrix) pursuit.Matrix {
		out := pursuit.RowsOf(x, seqN(x.Rows))
		if out.IsSparse() {
			for i, v := range out.Sparse.Values {
				out.Sparse.Values[i] = v * v
			}
		} else {
			for i, v := range out.Data {
				out.Data[i] = v * v
			}
		}
		return out
	}
	sparseEngines(t, func(t *testing.T, e *engine.Engine) {
		cfg := KCCAConfig{KernelX: pursuit.NewRBF(1), KernelY: pursuit.NewRBF(2), Steps: 8, Ridge: 1e-3}
		fd, err := FitKCCA(e, xd, square(xd), cfg)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := FitKCCA(e, xs, square(xs), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fd.Index, fs.Index) || !fs.CentresX.IsSparse() || !fs.CentresY.IsSparse() {
			t.Fatalf("chose %v dense, %v sparse", fd.Index, fs.Index)
		}
		ad, bd, err := fd.Transform(e, td, square(td), 2)
		if err != nil {
			t.Fatal(err)
		}
		as, bs, err := fs.Transform(e, ts, square(ts), 2)
		if err != nil {
			t.Fatal(err)
		}
		da, db := denseRel(ad, as), denseRel(bd, bs)
		t.Logf("%d pairs; canonical features within %.3g and %.3g relative", len(fd.Index), da, db)
		if da > 1e-5 || db > 1e-5 {
			t.Errorf("canonical features differ by %.3g and %.3g relative", da, db)
		}
	})
}

func seqN(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
