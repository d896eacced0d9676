package kmp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// blobsK returns n points in d dimensions around k overlapping centres,
// labelled 0…k−1 (labels 10·class so that they are not the ±1 of a binary
// problem).
func blobsK(n, d, k int, seed uint64) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 14))
	centres := make([][]float64, k)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range d {
			centres[c][j] = rng.NormFloat64()
		}
	}
	x := pursuit.NewMatrix(n, d)
	y := make([]float64, n)
	for i := range n {
		c := i % k
		y[i] = float64(10 * c)
		for j := range d {
			x.Set(i, j, float32(centres[c][j]+1.2*rng.NormFloat64()))
		}
	}
	return x, y
}

// TestOneVsRestLockstepMatchesBinary: every output of one-vs-rest, trained
// in lock-step with the others (one dictionary pass per step for all
// classes), chooses the same atoms in the same order and gets the same
// coefficients, bias, kept step and stop reason as a separate binary run
// of that class against the rest — for every variant, squared and other
// losses, with and without early stopping (outputs leave the batch at
// different steps), on the pure-Go and the automatically chosen backend.
func TestOneVsRestLockstepMatchesBinary(t *testing.T) {
	all, ally := blobsK(210, 3, 4, 1)
	x, y := all.Slice(0, 150, 0, 3), ally[:150]
	vx, vy := all.Slice(150, 210, 0, 3), ally[150:]
	auto, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		variant   Variant
		loss      Loss
		deflation Deflation
		val       bool
	}{
		{PreFit, Squared, 0, false}, {PreFit, Squared, 0, true},
		{BackFit, Squared, 0, false}, {Basic, Squared, 0, true},
		{PreFit, Squared, Explicit, false},
		{BackFit, Logistic, 0, true}, {Basic, Tanh, 0, false},
	}
	for _, e := range []*engine.Engine{goEngine(t), auto} {
		for _, c := range cases {
			name := fmt.Sprintf("%s/%s/%s/explicit=%v/val=%v", e.BackendName(), c.variant, c.loss, c.deflation == Explicit, c.val)
			t.Run(name, func(t *testing.T) {
				cfg := Config{Variant: c.variant, Loss: c.loss, Task: Classification, Deflation: c.deflation,
					Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5)}, Bias: true, N: 30}
				if c.val {
					cfg.ValX, cfg.ValY, cfg.Patience = vx, vy, 6
				}
				type call = struct{ output, step int }
				var calls []call
				ovrCfg := cfg
				ovrCfg.Progress = func(s Step) { calls = append(calls, call{s.Output, s.Step}) }
				ovr, err := TrainOneVsRest(e, x, y, ovrCfg)
				if err != nil {
					t.Fatal(err)
				}
				if c.deflation != Explicit && len(ovr.Outputs[0].Curve) > 1 && !interleaved(calls) {
					t.Errorf("the outputs' steps did not interleave (not trained in lock-step): %v", calls[:min(len(calls), 12)])
				}
				stops := map[int]bool{}
				for o, class := range ovr.Classes {
					bcfg := cfg
					if c.val {
						bcfg.ValY = data.Signs(vy, class)
					}
					bin, err := Train(e, x, data.Signs(y, class), bcfg)
					if err != nil {
						t.Fatal(err)
					}
					sameOutput(t, fmt.Sprintf("class %v", class), ovr, o, bin, 0)
					stops[len(ovr.Outputs[o].Curve)] = true
				}
				if c.val && len(stops) < 2 {
					t.Fatalf("every output ran %d steps: none left the batch early, the test misses that case", len(ovr.Outputs[0].Curve))
				}
			})
		}
	}
}

// interleaved reports whether some output's first step came before
// another's second (the sequential loop runs each output to its end).
func interleaved(calls []struct{ output, step int }) bool {
	for i, c := range calls {
		if c.step == 2 {
			for _, d := range calls[:i] {
				if d.output != c.output {
					return true
				}
			}
			return false
		}
	}
	return false
}

// sameOutput fails unless output oa of a and output ob of b took the same
// steps (atoms and training losses) and have the same expansion.
func sameOutput(t *testing.T, what string, a *Model, oa int, b *Model, ob int) {
	t.Helper()
	ca, cb := a.Outputs[oa], b.Outputs[ob]
	if len(ca.Curve) != len(cb.Curve) || ca.Steps != cb.Steps || ca.Stop != cb.Stop {
		t.Fatalf("%s: %d steps (kept %d, stop %q) in one-vs-rest, %d (kept %d, stop %q) alone",
			what, len(ca.Curve), ca.Steps, ca.Stop, len(cb.Curve), cb.Steps, cb.Stop)
	}
	for i := range ca.Curve {
		sa, sb := ca.Curve[i], cb.Curve[i]
		if sa.Support != sb.Support || sa.Kernel != sb.Kernel || sa.TrainLoss != sb.TrainLoss {
			t.Fatalf("%s step %d: support %d kernel %d loss %v in one-vs-rest, support %d kernel %d loss %v alone",
				what, i+1, sa.Support, sa.Kernel, sa.TrainLoss, sb.Support, sb.Kernel, sb.TrainLoss)
		}
	}
	coef := func(m *Model, o int) map[int]float64 {
		c := map[int]float64{}
		for s, v := range m.Outputs[o].Coef {
			if v != 0 {
				c[m.SupportIndex[s]] = v
			}
		}
		return c
	}
	wa, wb := coef(a, oa), coef(b, ob)
	if len(wa) != len(wb) {
		t.Fatalf("%s: %d support vectors in one-vs-rest, %d alone", what, len(wa), len(wb))
	}
	scale := math.Abs(ca.Bias)
	for _, v := range wb {
		scale = math.Max(scale, math.Abs(v))
	}
	tol := 1e-12 * scale
	for row, v := range wb {
		if math.Abs(wa[row]-v) > tol {
			t.Fatalf("%s: coefficient of row %d is %v in one-vs-rest, %v alone", what, row, wa[row], v)
		}
	}
	if math.Abs(ca.Bias-cb.Bias) > tol {
		t.Fatalf("%s: bias %v in one-vs-rest, %v alone", what, ca.Bias, cb.Bias)
	}
}

// TestLockstepProgressOrder: with several fitters running at once, the
// Progress callback still sees the steps one output after another, step
// by step (output 0's step s, output 1's step s, …), exactly as with one
// fitter at a time, and never from two goroutines at once (the race
// detector would see the unguarded append).
func TestLockstepProgressOrder(t *testing.T) {
	all, ally := blobsK(210, 3, 4, 3)
	x, y := all.Slice(0, 150, 0, 3), ally[:150]
	var runs [][]Step
	for _, threads := range []int{1, 4} {
		e, err := engine.New(engine.WithBackend(engine.BackendGo), engine.WithThreads(threads))
		if err != nil {
			t.Fatal(err)
		}
		var got []Step
		cfg := Config{Variant: PreFit, Task: Classification, Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5)}, N: 12, Bias: true,
			ValX: all.Slice(150, 210, 0, 3), ValY: ally[150:], Patience: 4,
			Progress: func(s Step) { got = append(got, s) }}
		if _, err := TrainOneVsRest(e, x, y, cfg); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, got)
	}
	one, many := runs[0], runs[1]
	if len(one) != len(many) || len(one) == 0 {
		t.Fatalf("%d steps reported with one fitter at a time, %d with four", len(one), len(many))
	}
	last := map[int]int{}
	for i := range one {
		a, b := one[i], many[i]
		a.Elapsed, b.Elapsed = 0, 0
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("report %d: %+v with one fitter at a time, %+v with four", i, a, b)
		}
		if i > 0 && a.Step == one[i-1].Step && a.Output <= one[i-1].Output {
			t.Fatalf("report %d: output %d after output %d at step %d", i, a.Output, one[i-1].Output, a.Step)
		}
		if a.Step != last[a.Output]+1 {
			t.Fatalf("report %d: output %d step %d after its step %d", i, a.Output, a.Step, last[a.Output])
		}
		last[a.Output] = a.Step
	}
}
