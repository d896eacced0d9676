package bpdn

import (
	"math"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// TestSparseSameModel: BPDN on dense and sparse storage of the same rows
// (text-like, real targets) has the same support, sparse support vectors
// for sparse rows, and decisions within 1e-5 relative.
func TestSparseSameModel(t *testing.T) {
	d, err := data.TextLike(data.TextLikeConfig{Rows: 120, Dim: 50, NNZPerRow: 8, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := data.Densify(d, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	xd, xs := dd.X, d.X
	y := make([]float64, xd.Rows)
	for i := range y {
		for j, v := range xd.Row(i) {
			y[i] += float64(v) * math.Cos(float64(j))
		}
	}
	for _, be := range []string{"go", "auto"} {
		t.Run(be, func(t *testing.T) {
			e, err := engine.New(engine.WithBackend(be))
			if err != nil {
				t.Skip(err)
			}
			k := pursuit.NewRBF(1)
			p := Params{Epsilon: 0.01, C: 10}
			md, sd, err := Train(e, xd, y, k, p)
			if err != nil {
				t.Fatal(err)
			}
			ms, ss, err := Train(e, xs, y, k, p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sd.Support, ss.Support) || !ms.SV.IsSparse() {
				t.Fatalf("support %v dense, %v sparse (sparse SVs %v)", sd.Support, ss.Support, ms.SV.IsSparse())
			}
			ref, err := md.Decision(e, xd)
			if err != nil {
				t.Fatal(err)
			}
			var scale, worst float64
			for _, got := range [][]float64{mustDecision(t, e, ms.Decision, xd), mustDecision(t, e, ms.Decision, xs), mustDecision(t, e, md.Decision, xs)} {
				for i := range ref {
					scale = math.Max(scale, math.Abs(ref[i]))
					worst = math.Max(worst, math.Abs(ref[i]-got[i]))
				}
			}
			t.Logf("%d support vectors, decisions within %.3g relative", len(sd.Support), worst/scale)
			if worst > 1e-5*scale {
				t.Errorf("decisions differ by %.3g relative", worst/scale)
			}
		})
	}
}

func mustDecision(t *testing.T, e *engine.Engine, f func(*engine.Engine, pursuit.Matrix) ([]float64, error), x pursuit.Matrix) []float64 {
	t.Helper()
	out, err := f(e, x)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
