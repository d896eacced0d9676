package bpdn

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestTrainEngine: Train computes the Gram matrix through the engine and
// returns an ε-SVR model whose predictions (through the engine, on the
// float32 support vectors) are the solution's Σ a_j K(x, x_j) + b, keep
// every training target within the hard tube, and survive LIBSVM's text
// format.
func TestTrainEngine(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	p := newRKHS(13, 150, 2, 20, testGamma)
	x := pursuit.NewMatrix(p.m, 2)
	for i, xi := range p.x {
		x.Set(i, 0, float32(xi[0]))
		x.Set(i, 1, float32(xi[1]))
	}
	k := pursuit.NewRBF(testGamma)
	const eps = 0.05
	m, sol, err := Train(e, x, p.y, k, Params{Epsilon: eps, C: inf})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.Converged || m.Type != svm.EpsilonSVR || m.TotalSV() != len(sol.Support) {
		t.Fatalf("converged %v, model %v with %d SVs for %d", sol.Converged, m.Type, m.TotalSV(), len(sol.Support))
	}
	g, err := Gram(e, x, k)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(e, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.m {
		f := sol.B
		for j, a := range sol.A {
			f += g[i*p.m+j] * a
		}
		if math.Abs(pred[i]-f) > 1e-5*math.Max(1, math.Abs(f)) {
			t.Errorf("example %d: model predicts %v, the solution %v", i, pred[i], f)
		}
		if math.Abs(f-p.y[i]) > eps*(1+1e-9) {
			t.Errorf("example %d: residual %v outside the tube", i, p.y[i]-f)
		}
	}
	var buf bytes.Buffer
	if err := m.WriteLIBSVM(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := svm.ReadLIBSVMModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	pred2, err := back.Predict(e, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pred {
		if pred2[i] != pred[i] {
			t.Fatalf("example %d: %v after the LIBSVM round trip, %v before", i, pred2[i], pred[i])
		}
	}
	// The engine's Gram matrix is the float64 one up to float32 rounding
	// (RBF from ‖x‖² + ‖z‖² − 2x·z in float32: about γ·4·6e-8 ≈ 1e-5 here).
	var dk float64
	for i := range p.k {
		dk = math.Max(dk, math.Abs(g[i]-p.k[i]))
	}
	if dk > 1e-4 {
		t.Errorf("engine Gram matrix differs from the float64 kernel by %g", dk)
	}
	if _, _, err := Train(nil, x, p.y, k, Params{Epsilon: eps, C: inf}); !errors.Is(err, ErrBadInput) {
		t.Errorf("nil engine: %v", err)
	}
	if _, _, err := Train(e, x, p.y[:10], k, Params{Epsilon: eps, C: inf}); !errors.Is(err, ErrBadInput) {
		t.Errorf("short y: %v", err)
	}
}

// FuzzSolve: any small problem, however malformed, gives a solution or an
// error that says where it comes from — never a panic — and a solution
// satisfies Σa = 0 and the box.
func FuzzSolve(f *testing.F) {
	f.Add([]byte{3, 10, 200, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0.1, 1.0)
	f.Add([]byte{2, 0, 0, 0, 0}, 0.0, math.Inf(1))
	f.Add([]byte{4, 255, 255, 1, 1, 1, 1}, -1.0, 0.0)
	f.Fuzz(func(t *testing.T, in []byte, eps, c float64) {
		if len(in) < 2 {
			return
		}
		n := int(in[0]%6) + 1
		pts := make([][]float64, n)
		y := make([]float64, n)
		for i := range n {
			b := func(j int) float64 { return float64(in[(1+3*i+j)%len(in)]) / 64 }
			pts[i] = []float64{b(0), b(1)}
			y[i] = b(2) - 2
		}
		k := make([]float64, n*n)
		for i := range n {
			for j := range n {
				k[i*n+j] = rbf64(1, pts[i], pts[j])
			}
		}
		sol, err := Solve(n, k, y, Params{Epsilon: eps, C: c})
		if err != nil {
			if !errors.Is(err, ErrBadInput) && !errors.Is(err, ErrSingular) && (len(err.Error()) < 5 || err.Error()[:5] != "bpdn:") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
			return
		}
		if math.Abs(sol.SumA) > 1e-9*(1+maxAbs(sol.A)) {
			t.Fatalf("Σa = %g", sol.SumA)
		}
		for i, a := range sol.A {
			if math.Abs(a) > c || math.IsNaN(a) {
				t.Fatalf("a_%d = %v outside the box C = %v", i, a, c)
			}
		}
	})
}
