package kmp

import (
	"bytes"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
)

// TestPrefixDecisions checks the one-pass learning curve (one kernel block
// for the union of the truncations' support vectors) against predicting
// each truncated model in full (Truncate + DecisionAll), for a binary
// model with early stopping (steps past the kept one), a one-vs-rest
// model, one with feature scaling and two kernels, and one with a custom
// kernel.
func TestPrefixDecisions(t *testing.T) {
	e := goEngine(t)
	mx, my := moonsData(240, 0.25, 5)
	tr, trY := mx.Slice(0, 160, 0, 2), my[:160]
	val, valY := mx.Slice(160, 200, 0, 2), my[160:200]
	test := mx.Slice(200, 240, 0, 2)
	bx, by := blobs(150, 1)
	cases := []struct {
		name string
		x    pursuit.Matrix
		y    []float64
		cfg  Config
		ovr  bool
		test pursuit.Matrix
	}{
		{"binary, early stopping", tr, trY, Config{Variant: PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(4)}, Bias: true, N: 40, ValX: val, ValY: valY, Patience: 5, Seed: 1}, false, test},
		{"one-vs-rest", bx, by, Config{Variant: PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, Bias: true, N: 13, Seed: 1}, true, bx},
		{"scaled, two kernels", tr, trY, Config{Variant: BackFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(4), pursuit.NewRBF(0.5)}, Bias: true, N: 15, Scale: data.ScaleStandard, Seed: 1}, false, test},
		{"basic, custom kernel", tr, trY, Config{Variant: Basic, Custom: &CustomKernel{Func: func(a, b []float32) float64 {
			d := float64(a[0]-b[0])*float64(a[0]-b[0]) + float64(a[1]-b[1])*float64(a[1]-b[1])
			return math.Exp(-2 * d)
		}}, Bias: true, N: 10, Seed: 1}, false, test},
	}
	for _, c := range cases {
		var m *Model
		var err error
		if c.ovr {
			m, err = TrainOneVsRest(e, c.x, c.y, c.cfg)
		} else {
			m, err = Train(e, c.x, c.y, c.cfg)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !m.CanTruncate() {
			t.Fatalf("%s: a freshly trained model cannot truncate", c.name)
		}
		steps := 0
		for _, out := range m.Outputs {
			steps = max(steps, len(out.Curve))
		}
		if c.cfg.ValX.Rows > 0 && m.Outputs[0].Steps >= steps {
			t.Logf("%s: early stopping kept all %d steps; the test still compares every step", c.name, steps)
		}
		var ns []int
		for n := 1; n <= steps; n++ {
			ns = append(ns, n)
		}
		fast, err := m.PrefixDecisions(e, c.test, ns)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sizes, err := m.PrefixSizes(ns)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, n := range ns {
			tm, err := m.Truncate(n)
			if err != nil {
				t.Fatal(err)
			}
			if sizes[i] != tm.Size().SupportVectors {
				t.Fatalf("%s n=%d: PrefixSizes %d, Truncate %d", c.name, n, sizes[i], tm.Size().SupportVectors)
			}
			slow, err := tm.DecisionAll(e, c.test)
			if err != nil {
				t.Fatal(err)
			}
			if len(fast[i]) != len(slow) {
				t.Fatalf("%s n=%d: %d outputs, want %d", c.name, n, len(fast[i]), len(slow))
			}
			for o := range slow {
				for r := range slow[o] {
					if d := math.Abs(fast[i][o][r] - slow[o][r]); d > 1e-4*(1+math.Abs(slow[o][r])) {
						t.Fatalf("%s n=%d output %d row %d: PrefixDecisions %v, Truncate+DecisionAll %v", c.name, n, o, r, fast[i][o][r], slow[o][r])
					}
				}
			}
		}
		// The model as trained is one of the prefixes when early stopping
		// kept every step.
		if m.Outputs[0].Steps == steps {
			full, _ := m.DecisionAll(e, c.test)
			for o := range full {
				for r := range full[o] {
					if d := math.Abs(fast[len(ns)-1][o][r] - full[o][r]); d > 1e-4*(1+math.Abs(full[o][r])) {
						t.Fatalf("%s: last step %v, model %v", c.name, fast[len(ns)-1][o][r], full[o][r])
					}
				}
			}
		}
	}
	// A loaded model keeps no path.
	m, err := Train(e, tr, trY, Config{Variant: PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(4)}, N: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	l, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if l.CanTruncate() {
		t.Fatal("a loaded model says it can truncate")
	}
	if _, err := l.PrefixDecisions(e, test, []int{1}); err == nil {
		t.Fatal("PrefixDecisions on a loaded model: no error")
	}
}
