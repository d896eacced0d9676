package svm

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/engine"
)

// ExactRows gives pursuit.Kernel.EvalRows's float64 value, bit for bit, for
// every pair, dense or sparse, for each kernel; the diagonal is the same.
func TestExactRowsMatchEvalRows(t *testing.T) {
	e := testEngine(t)
	x, _, _ := shardData(40, 7, 2, 5)
	x = sparseOf(x, 0.5)
	for _, k := range []pursuit.Kernel{pursuit.NewRBF(0.7), pursuit.NewLinear(), pursuit.NewPoly(0.3, 1, 3), pursuit.NewSigmoid(0.1, -0.2)} {
		for _, m := range []pursuit.Matrix{x, denseOf(x)} {
			r, err := NewExactRows(e, m, k)
			if err != nil {
				t.Fatal(err)
			}
			idx := []int{3, 0, 39, 17}
			dst := make([]float64, len(idx)*m.Rows)
			if err := r.Rows64(dst, idx); err != nil {
				t.Fatal(err)
			}
			for t0, i := range idx {
				for j := range m.Rows {
					want := k.EvalRows(m, i, m, j)
					if got := dst[t0*m.Rows+j]; got != want {
						t.Fatalf("%v sparse=%v: K(%d,%d) = %v, want %v", k.Kind, m.IsSparse(), i, j, got, want)
					}
				}
			}
			for i, d := range r.Diag() {
				if want := k.EvalRows(m, i, m, i); d != want {
					t.Fatalf("%v: diag %d = %v, want %v", k.Kind, i, d, want)
				}
			}
		}
	}
	r, err := NewExactRows(e, x, pursuit.NewRBF(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Rows64(make([]float64, x.Rows), []int{x.Rows}); err == nil {
		t.Error("an index past the last row was accepted")
	}
	if err := r.Rows64(make([]float64, 3), []int{0}); err == nil {
		t.Error("a short destination was accepted")
	}
}

// Params.Exact: the same model bits on dense and sparse storage of the
// same rows and on the go and avx2 backends (C-SVC binary and one-vs-one,
// ε-SVR), and its decisions match the float64 reference; without Exact the
// storages' models differ in their last bits, which is what the option is
// for. One-vs-rest and a budget below the float64 copy refuse it.
func TestExactSameModelsEverywhere(t *testing.T) {
	x, y3, z := shardData(240, 8, 3, 31)
	_, y2, _ := shardData(240, 8, 2, 31)
	x = sparseOf(x, 0.6)
	xd := denseOf(x)
	cases := []struct {
		name string
		y    []float64
		p    Params
	}{
		{"binary RBF", y2, Params{Kernel: pursuit.NewRBF(0.3), C: 10, Exact: true}},
		{"three classes RBF", y3, Params{Kernel: pursuit.NewRBF(0.3), C: 1, Exact: true}},
		{"ε-SVR RBF", z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 1, Epsilon: 0.05, Exact: true}},
		{"binary polynomial", y2, Params{Kernel: pursuit.NewPoly(0.2, 1, 2), C: 0.5, Exact: true}},
	}
	same := func(a, b *Model) bool {
		if !slices.Equal(a.SVIndex, b.SVIndex) || !slices.Equal(a.Rho, b.Rho) || len(a.Coef) != len(b.Coef) {
			return false
		}
		for i := range a.Coef {
			if !slices.Equal(a.Coef[i], b.Coef[i]) {
				return false
			}
		}
		return true
	}
	engines := backendEngines(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ref *Model
			for _, be := range []string{"go", "avx2"} {
				e := engines[be]
				if e == nil {
					continue
				}
				for _, m := range []pursuit.Matrix{x, xd} {
					got, err := Train(e, m, c.y, c.p)
					if err != nil {
						t.Fatal(err)
					}
					if ref == nil {
						ref = got
						continue
					}
					if !same(ref, got) {
						t.Errorf("%s, sparse=%v: the model differs from the go backend's on sparse rows", be, m.IsSparse())
					}
				}
			}
			if c.p.Type == EpsilonSVR || len(ref.Coef) == 1 {
				want := refDecision64(ref, x)
				got, err := ref.Decision(engines["go"], x)
				if err != nil {
					t.Fatal(err)
				}
				if err := closeRel("decisions", got, want, 1e-5); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// Without Exact the float32 rows of the two storages round apart: the
	// check above could not pass by accident of the data.
	e := engines["go"]
	p := cases[0].p
	p.Exact = false
	a, err := Train(e, x, y2, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(e, xd, y2, p)
	if err != nil {
		t.Fatal(err)
	}
	if same(a, b) {
		t.Error("without Exact the two storages gave the same model bits: this data does not show what Exact is for")
	}
	if _, err := TrainOneVsRest(e, x, y3, Params{Kernel: pursuit.NewRBF(0.3), C: 1, Exact: true}); !errors.Is(err, ErrBadInput) {
		t.Errorf("one-vs-rest with Exact: %v, want ErrBadInput", err)
	}
	ck := cases[0].p
	ck.Checkpoint = &checkpoint.Options{Path: filepath.Join(t.TempDir(), "ck")}
	if _, err := Train(e, x, y2, ck); !errors.Is(err, pursuit.ErrConfig) {
		t.Errorf("a checkpoint with Exact: %v, want ErrConfig", err)
	}
	small, err := engine.New(engine.WithMemoryBudget(1000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Train(small, x, y2, cases[0].p); err == nil {
		t.Error("a 1,000-byte budget trained with a float64 copy of the data")
	}
}
