package kmp

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// moonsData is the two interleaved half circles problem, labels ±1
// alternating, with Gaussian noise.
func moonsData(n int, noise float64, seed uint64) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := pursuit.NewMatrix(n, 2)
	y := make([]float64, n)
	for i := range n {
		t := math.Pi * rng.Float64()
		a, b := math.Cos(t), math.Sin(t)
		y[i] = 1
		if i%2 == 1 {
			a, b, y[i] = 1-a, 0.5-b, -1
		}
		x.Set(i, 0, float32(a+noise*rng.NormFloat64()))
		x.Set(i, 1, float32(b+noise*rng.NormFloat64()))
	}
	return x, y
}

// repeatRows returns every row of x (and its target) k times in a row.
func repeatRows(x pursuit.Matrix, y []float64, k int) (pursuit.Matrix, []float64) {
	xr := pursuit.NewMatrix(k*x.Rows, x.Cols)
	yr := make([]float64, k*x.Rows)
	for i := range xr.Rows {
		copy(xr.Row(i), x.Row(i/k))
		yr[i] = y[i/k]
	}
	return xr, yr
}

// dependentCase is one variant and loss the dependent-atom tests run.
type dependentCase struct {
	variant Variant
	loss    Loss
}

func (c dependentCase) String() string { return c.variant.String() + "/" + c.loss.String() }

// dependentCases are every variant with every loss it accepts.
var dependentCases = []dependentCase{
	{PreFit, Squared}, {BackFit, Squared}, {Basic, Squared},
	{BackFit, Tanh}, {BackFit, Logistic}, {BackFit, Exponential},
	{Basic, Tanh}, {Basic, Logistic}, {Basic, Exponential},
}

// distinctAtoms counts the distinct dictionary atoms of an output's curve
// up to its kept step.
func distinctAtoms(c []Step, kept int) int {
	seen := map[int]bool{}
	for _, s := range c[:kept] {
		seen[s.Atom] = true
	}
	return len(seen)
}

// TestIdenticalRowsOneAtom: when every training row is the same point every
// kernel function is the same vector (and, for the RBF kernel, the constant
// one too), so after the first atom every other is dependent on it.
// Training must keep one basis function (plus the bias, when it is chosen
// and is not itself that vector) and stop early, saying so, for every
// variant and loss; before the fix the non-squared losses kept N of them.
func TestIdenticalRowsOneAtom(t *testing.T) {
	e := goEngine(t)
	const l, n = 40, 100
	x := pursuit.NewMatrix(l, 3)
	y := make([]float64, l)
	for i := range l {
		copy(x.Row(i), []float32{0.3, -1.2, 2})
		y[i] = 1
		if i%3 == 0 {
			y[i] = -1
		}
	}
	kernels := map[string]pursuit.Kernel{"rbf": pursuit.NewRBF(0.5), "linear": pursuit.NewLinear()}
	for _, c := range dependentCases {
		for kn, k := range kernels {
			for _, bias := range []bool{false, true} {
				for _, active := range []int{0, 5} { // full search; stochastic
					name := fmt.Sprintf("%v/%s/bias=%v/active=%d", c, kn, bias, active)
					cfg := Config{Variant: c.variant, Loss: c.loss, Kernels: []pursuit.Kernel{k}, Bias: bias, N: n}
					if active > 0 {
						cfg.Stochastic = &Stochastic{ActiveSet: active}
					}
					m, err := Train(e, x, y, cfg)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					checkOneAtom(t, name, m, n)
				}
			}
		}
	}
}

// checkOneAtom requires m, trained for n steps on identical rows, to keep
// one basis function, to have stopped early saying why, and to keep the
// reason through Save and Load.
func checkOneAtom(t *testing.T, name string, m *Model, n int) {
	t.Helper()
	out := m.Outputs[0]
	if m.Support.Rows > 1 {
		t.Errorf("%s: %d support vectors of one repeated point, want 1", name, m.Support.Rows)
	}
	if got := distinctAtoms(out.Curve, out.Steps); got > 1 {
		// The constant and a kernel function of identical rows are the
		// same vector: only one of them can be kept.
		t.Errorf("%s: %d distinct atoms kept, want 1", name, got)
	}
	if len(out.Curve) >= n {
		t.Errorf("%s: ran all %d steps on a dictionary of rank 1", name, len(out.Curve))
	}
	if out.Stop != StopExhausted && out.Stop != StopOrthogonal {
		t.Errorf("%s: stopped after %d of %d steps with reason %q, want %q or %q", name, len(out.Curve), n, out.Stop, StopExhausted, StopOrthogonal)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatalf("%s: save: %v", name, err)
	}
	l, err := Load(&buf)
	if err != nil {
		t.Fatalf("%s: load: %v", name, err)
	}
	if l.Outputs[0].Stop != out.Stop {
		t.Errorf("%s: stop reason %q saved, %q loaded", name, out.Stop, l.Outputs[0].Stop)
	}
}

// TestRepeatedRowsNoDuplicateSupport: with every row of the two-moons set
// repeated three times, the copies of a point give the same kernel function;
// no variant may keep two copies (before the fix kmp-tanh kept 9 duplicates
// among 60 support points).
func TestRepeatedRowsNoDuplicateSupport(t *testing.T) {
	e := goEngine(t)
	x0, y0 := moonsData(200, 0.15, 3)
	x, y := repeatRows(x0, y0, 3)
	for _, c := range dependentCases {
		m, err := Train(e, x, y, Config{Variant: c.variant, Loss: c.loss, Kernels: []pursuit.Kernel{pursuit.NewRBF(4)}, Bias: true, N: 60})
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		seen := map[int]int{}
		dup := 0
		for s, r := range m.SupportIndex {
			if _, ok := seen[r/3]; ok {
				dup++
			}
			seen[r/3] = s
		}
		if dup > 0 {
			t.Errorf("%v: %d of %d support points are copies of another", c, dup, m.Support.Rows)
		}
		if m.Support.Rows < 20 {
			t.Errorf("%v: only %d support points (training stopped too early?)", c, m.Support.Rows)
		}
		if err := m.Outputs[0].Curve[len(m.Outputs[0].Curve)-1].TrainErr; err > 0.1 {
			t.Errorf("%v: training error %.3f", c, err)
		}
	}
}

// TestStochasticGivesUpOnDependentDictionary: when every atom left is
// dependent on the expansion, the stochastic search stops after 10·59
// dependent atoms in a row instead of computing every atom of the
// dictionary (each costs a kernel row): on l identical rows, a few kernel
// rows per atom given up on, far below the l² of examining them all.
func TestStochasticGivesUpOnDependentDictionary(t *testing.T) {
	e := goEngine(t)
	const l, giveUp = 5000, 10 * 59
	x := pursuit.NewMatrix(l, 2)
	y := make([]float64, l)
	for i := range l {
		copy(x.Row(i), []float32{0.5, -0.25})
		y[i] = 1
		if i%3 == 0 {
			y[i] = -1
		}
	}
	var calls atomic.Int64
	gauss := &CustomKernel{Name: "counted-gauss", Func: func(a, c []float32) float64 {
		calls.Add(1)
		var s float64
		for i := range a {
			d := float64(a[i] - c[i])
			s += d * d
		}
		return math.Exp(-s)
	}}
	for _, c := range dependentCases {
		if raceEnabled && c.loss != Squared {
			// One case per variant: the other losses run the same
			// goroutines, and all nine took 27 s of CI's race step.
			continue
		}
		calls.Store(0)
		cfg := Config{Variant: c.variant, Loss: c.loss, Custom: gauss, N: 50, Stochastic: &Stochastic{ActiveSet: 5}}
		m, err := Train(e, x, y, cfg)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		out := m.Outputs[0]
		if m.Support.Rows != 1 || out.Stop != StopExhausted {
			t.Errorf("%v: %d support vectors, stop %q, want 1 and %q", c, m.Support.Rows, out.Stop, StopExhausted)
		}
		if n := calls.Load(); n > 4*giveUp*l {
			t.Errorf("%v: %d kernel evaluations (%.1f rows per atom given up on); examining every atom takes %d", c, n, float64(n)/l/giveUp, l*l)
		}
	}
}
