package kmp

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

func TestRepeatsSet(t *testing.T) {
	r := newRepeats()
	row := func(v []float32) pursuit.Matrix {
		return pursuit.Matrix{Rows: 1, Cols: len(v), Stride: len(v), Data: v}
	}
	a := []float32{1, 0, -2}
	r.add(0, row(a), 0)
	a[0] = 7 // add copies
	for _, c := range []struct {
		kernel int
		x      []float32
		want   bool
	}{
		{0, []float32{1, 0, -2}, true},
		{0, []float32{1, float32(math.Copysign(0, -1)), -2}, true}, // −0 == 0
		{1, []float32{1, 0, -2}, false},                            // another kernel
		{0, []float32{1, 0, -2.0000002}, false},
		{0, []float32{7, 0, -2}, false},
		{CustomKernelIndex, []float32{1, 0, -2}, false},
	} {
		if got := r.has(c.kernel, row(c.x), 0); got != c.want {
			t.Errorf("has(%d, %v) = %v, want %v", c.kernel, c.x, got, c.want)
		}
		// The same point held sparse is the same key.
		sp := pursuit.Matrix{Rows: 1, Cols: len(c.x), Sparse: &pursuit.CSR{Offsets: []int64{0, 0}}}
		for j, v := range c.x {
			if v != 0 {
				sp.Sparse.Indices = append(sp.Sparse.Indices, int32(j))
				sp.Sparse.Values = append(sp.Sparse.Values, v)
				sp.Sparse.Offsets[1]++
			}
		}
		if got := r.has(c.kernel, sp, 0); got != c.want {
			t.Errorf("has(%d, sparse %v) = %v, want %v", c.kernel, c.x, got, c.want)
		}
	}
}

// TestStochasticBasicRepeatsBruteForce: on data whose points come in copies,
// stochastic basic KMP chooses at every step what float64 basic matching
// pursuit chooses over the same active sets when a copy of an atom in the
// expansion is refused (and leaves the draw), and ends with the same
// coefficients, one per distinct point.
func TestStochasticBasicRepeatsBruteForce(t *testing.T) {
	e := skmpEngine(t)
	const l0, copies, s, steps = 50, 3, 12, 40
	x0, y0 := skmpData(l0, 3, 21)
	l := l0 * copies
	x := pursuit.NewMatrix(l, 3)
	y := make([]float64, l)
	for i := range l {
		// Copies spread over the rows: point i%l0.
		copy(x.Row(i), x0.Row(i%l0))
		y[i] = y0[i%l0]
	}
	k := pursuit.NewRBF(2)
	cfg := Config{Variant: Basic, Kernels: []pursuit.Kernel{k}, N: steps, Seed: 5}
	m, err := TrainStochastic(e, x, y, cfg, Stochastic{ActiveSet: s})
	if err != nil {
		t.Fatal(err)
	}
	col := dictColumns(t, e, k, x)
	curve := m.Outputs[0].Curve
	if len(curve) != steps {
		t.Fatalf("%d steps, want %d (stop %q)", len(curve), steps, m.Outputs[0].Stop)
	}
	smp := newSampler(l, cfg.Seed, 0)
	r := slices.Clone(y)
	coef := map[int]float64{} // atom → coefficient
	member := map[int]int{}   // point → its atom in the expansion
	score := func(c int) float64 {
		d := col(c)
		var dr, dd float64
		for i := range l {
			dr += d[i] * r[i]
			dd += d[i] * d[i]
		}
		return math.Abs(dr) / math.Sqrt(dd)
	}
	refusals := 0
	for n, st := range curve {
		best := -1
		for best < 0 {
			// Every sampled atom refused: the fitter draws again.
			eligible := slices.Clone(smp.next(s))
			for len(eligible) > 0 {
				bi, bestS := -1, -1.0
				for i, c := range eligible {
					if sc := score(c); sc > bestS {
						bi, bestS = i, sc
					}
				}
				c := eligible[bi]
				if a, in := member[c%l0]; in && a != c {
					// A copy of a point in the expansion: refused, and it
					// leaves the draw.
					smp.remove(c)
					eligible = slices.Delete(eligible, bi, bi+1)
					refusals++
					continue
				}
				best = c
				break
			}
		}
		if st.Atom != best {
			t.Fatalf("step %d chose atom %d (point %d), brute force %d (point %d)", n+1, st.Atom, st.Atom%l0, best, best%l0)
		}
		d := col(best)
		var dr, dd float64
		for i := range l {
			dr += d[i] * r[i]
			dd += d[i] * d[i]
		}
		a := dr / dd
		for i := range l {
			r[i] -= a * d[i]
		}
		coef[best] += a
		member[best%l0] = best
		if got, want := st.Residual, floatsNorm(r); math.Abs(got-want) > 1e-6*want {
			t.Errorf("step %d residual %v, reference %v", n+1, got, want)
		}
	}
	if refusals == 0 {
		t.Errorf("no copy was ever refused: the test does not exercise the check")
	}
	if m.Support.Rows != len(coef) {
		t.Fatalf("%d support vectors, reference %d atoms", m.Support.Rows, len(coef))
	}
	seen := map[int]bool{}
	for j, row := range m.SupportIndex {
		if seen[row%l0] {
			t.Errorf("point %d kept twice", row%l0)
		}
		seen[row%l0] = true
		want, ok := coef[row]
		if got := m.Outputs[0].Coef[j]; !ok || math.Abs(got-want) > 1e-5*math.Abs(want) {
			t.Errorf("coefficient of row %d: %v, reference %v (in the reference: %v)", row, got, want, ok)
		}
	}
	t.Logf("%d steps, %d support vectors, %d copies refused", steps, len(coef), refusals)
}

func floatsNorm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestBasicKeepsNoBasis: squared-loss basic matching pursuit keeps nothing
// of the size of the training points times the steps (the orthonormal basis
// it once kept only to detect dependent atoms was l × n float64). Under a
// memory budget a quarter of such a basis, stochastic basic KMP trains all
// its steps, and it allocates less than a quarter of one in all.
func TestBasicKeepsNoBasis(t *testing.T) {
	const l, n = 20000, 300
	x, y := skmpData(l, 5, 31)
	basis := int64(l) * n * 8
	e := skmpEngine(t, engine.WithMemoryBudget(basis/4))
	cfg := Config{Variant: Basic, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, N: n, Seed: 2, Stochastic: &Stochastic{ActiveSet: 16}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Train(e, x, y, cfg)
	runtime.ReadMemStats(&after)
	if errors.Is(err, engine.ErrBudget) {
		t.Fatalf("basic KMP asked for more than a quarter of an l×n float64 basis (%d B): %v", basis, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	out := m.Outputs[0]
	if len(out.Curve) != n {
		t.Fatalf("%d steps, want %d (stop %q)", len(out.Curve), n, out.Stop)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d steps on %d points: %d support vectors, allocated %.2f MB in all; an l×n float64 basis is %.1f MB", n, l, m.Support.Rows, float64(alloc)/1e6, float64(basis)/1e6)
	if int64(alloc) > basis/4 && !raceEnabled { // under -race sync.Pool drops buffers at random
		t.Errorf("training allocated %d B in all, more than a quarter of an l×n float64 basis (%d B)", alloc, basis)
	}
}
