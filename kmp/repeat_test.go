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
	r.add(0, row(a), 0, false)
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

// TestRepeatsChains: many atoms, named by their row or with their
// coordinates copied, are all found and nothing else is; keys sharing a
// hash are told apart along their chain; and looking up keeps no
// coordinates.
func TestRepeatsChains(t *testing.T) {
	r := newRepeats()
	x := pursuit.NewMatrix(500, 3)
	for i := range 500 {
		x.Set(i, 0, float32(i))
		x.Set(i, 2, float32(i%7))
	}
	for i := 0; i < 500; i += 2 {
		if r.has(1, x, i) {
			t.Fatalf("row %d found before it was added", i)
		}
		r.add(1, x, i, i%4 == 0) // named rows and copied coordinates
	}
	for i := range 500 {
		if got := r.has(1, x, i); got != (i%2 == 0) {
			t.Fatalf("row %d: has %v, want %v", i, got, i%2 == 0)
		}
	}
	if n := len(r.idx); n > 2*125+2 {
		t.Errorf("%d coordinates held for 125 copied keys of 2 non-zeros (and one looked up)", n)
	}
	// Key 0 put behind key 1 in key 1's hash: has walks the chain to it.
	h0, h1 := r.key(1, x, 0), r.key(1, x, 2)
	delete(r.set, h0)
	r.keys[1].next = 0
	r.set[h0] = 1
	if !r.has(1, x, 0) {
		t.Error("a key second in its chain is not found")
	}
	if r.set[h1] != 1 || !r.has(1, x, 2) || r.has(1, x, 1) {
		t.Error("the chain's first key is not found, or a key never added is")
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
		best, refused := bruteChoose(smp, s, l0, member, score)
		refusals += refused
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
	checkAgainstBrute(t, m, coef, l0, refusals)
	t.Logf("%d steps, %d support vectors, %d copies refused", steps, len(coef), refusals)
}

func floatsNorm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestBasicKeepsNoBasis: basic matching pursuit keeps nothing of the size
// of the training points times the steps, with the squared loss and with
// the others (the orthonormal basis it once kept only to detect dependent
// atoms was l × n float64, and with a non-squared loss the chosen atoms'
// values as much again). Under a memory budget a quarter of such a basis,
// stochastic basic KMP trains all its steps; with the squared loss it
// allocates less than a quarter of one in all, and with the logistic loss
// (whose line searches make it slow, so it runs on fewer points, where the
// fixed buffers weigh more and pooled ones make the total vary by about
// 0.8 MB from run to run) its steps past the first third allocate less
// than half of the values of as many functions at the training points.
func TestBasicKeepsNoBasis(t *testing.T) {
	train := func(loss Loss, x pursuit.Matrix, y []float64, n int, budget int64) (*Model, uint64) {
		t.Helper()
		e := skmpEngine(t, engine.WithMemoryBudget(budget))
		cfg := Config{Variant: Basic, Loss: loss, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, N: n, Seed: 2, Stochastic: &Stochastic{ActiveSet: 16}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := Train(e, x, y, cfg)
		runtime.ReadMemStats(&after)
		if errors.Is(err, engine.ErrBudget) {
			t.Fatalf("%v: basic KMP asked for more than a quarter of an l×n float64 basis (%d B): %v", loss, 4*budget, err)
		}
		if err != nil {
			t.Fatalf("%v: %v", loss, err)
		}
		if out := m.Outputs[0]; len(out.Curve) != n {
			t.Fatalf("%v: %d steps, want %d (stop %q)", loss, len(out.Curve), n, out.Stop)
		}
		return m, after.TotalAlloc - before.TotalAlloc
	}
	t.Run("squared", func(t *testing.T) {
		const l, n = 20000, 300
		x, y := skmpData(l, 5, 31)
		basis := int64(l) * n * 8
		m, alloc := train(Squared, x, y, n, basis/4)
		t.Logf("%d steps on %d points: %d support vectors, allocated %.2f MB in all; an l×n float64 basis is %.1f MB", n, l, m.Support.Rows, float64(alloc)/1e6, float64(basis)/1e6)
		if int64(alloc) > basis/4 && !raceEnabled { // under -race sync.Pool drops buffers at random
			t.Errorf("training allocated %d B in all, more than a quarter of an l×n float64 basis (%d B)", alloc, basis)
		}
	})
	t.Run("logistic", func(t *testing.T) {
		const l, n = 12000, 60
		x, y := skmpData(l, 5, 31)
		basis := int64(l) * n * 8
		_, a1 := train(Logistic, x, y, n/3, basis/4)
		m, a := train(Logistic, x, y, n, basis/4)
		grown := int64(a) - int64(a1)
		later := int64(l) * (n - n/3) * 8
		t.Logf("%d steps on %d points: %d support vectors, allocated %.2f MB in all, %.2f MB in the last %d steps; %d functions at the training points are %.1f MB", n, l, m.Support.Rows, float64(a)/1e6, float64(grown)/1e6, n-n/3, n-n/3, float64(later)/1e6)
		if grown > later/2 && !raceEnabled {
			t.Errorf("the last %d steps allocated %d B, more than half of %d functions at %d points (%d B)", n-n/3, grown, n-n/3, l, later)
		}
	})
}

// TestStochasticBasicLogisticRepeatsBruteForce is
// TestStochasticBasicRepeatsBruteForce with the logistic loss: at every
// step stochastic basic KMP chooses what a float64 reference chooses over
// the same active sets (the atom most collinear with the negative gradient,
// a copy of an atom in the expansion refused and out of the draw), its
// coefficient comes from an exact line search, an atom chosen again adds
// to its coefficient, and the model ends with one function per distinct
// point.
func TestStochasticBasicLogisticRepeatsBruteForce(t *testing.T) {
	e := skmpEngine(t)
	const l0, copies, s, steps = 50, 3, 12, 40
	x0, y0 := skmpData(l0, 3, 23)
	l := l0 * copies
	x := pursuit.NewMatrix(l, 3)
	y := make([]float64, l)
	for i := range l {
		copy(x.Row(i), x0.Row(i%l0))
		y[i] = y0[i%l0]
	}
	k := pursuit.NewRBF(2)
	cfg := Config{Variant: Basic, Loss: Logistic, Kernels: []pursuit.Kernel{k}, N: steps, Seed: 5}
	m, err := TrainStochastic(e, x, y, cfg, Stochastic{ActiveSet: s})
	if err != nil {
		t.Fatal(err)
	}
	col := dictColumns(t, e, k, x)
	curve := m.Outputs[0].Curve
	if len(curve) != steps {
		t.Fatalf("%d steps, want %d (stop %q)", len(curve), steps, m.Outputs[0].Stop)
	}
	// The logistic loss log(1 + e^{−y f}) by hand: its negative gradient
	// y σ(−y f) and the derivative along d of the loss at f + a d.
	sigmoid := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	f := make([]float64, l)
	g := make([]float64, l)
	gradient := func() {
		for i := range l {
			g[i] = y[i] * sigmoid(-y[i]*f[i])
		}
	}
	slope := func(d []float64, a float64) (d1, d2 float64) {
		for i := range l {
			p := sigmoid(-y[i] * (f[i] + a*d[i]))
			d1 -= y[i] * p * d[i]
			d2 += p * (1 - p) * d[i] * d[i]
		}
		return d1, d2
	}
	gradient()
	smp := newSampler(l, cfg.Seed, 0)
	coef := map[int]float64{}
	member := map[int]int{}
	score := func(c int) float64 {
		d := col(c)
		var dg, dd float64
		for i := range l {
			dg += d[i] * g[i]
			dd += d[i] * d[i]
		}
		return math.Abs(dg) / math.Sqrt(dd)
	}
	refusals, again := 0, 0
	for n, st := range curve {
		best, refused := bruteChoose(smp, s, l0, member, score)
		refusals += refused
		if st.Atom != best {
			t.Fatalf("step %d chose atom %d (point %d), brute force %d (point %d)", n+1, st.Atom, st.Atom%l0, best, best%l0)
		}
		// The loss is convex along d: Newton's method from 0 to its
		// minimum, the root of the slope.
		d := col(best)
		a := 0.0
		for range 100 {
			d1, d2 := slope(d, a)
			step := d1 / d2
			a -= step
			if math.Abs(step) <= 1e-14*math.Max(1, math.Abs(a)) {
				break
			}
		}
		for i := range l {
			f[i] += a * d[i]
		}
		gradient()
		if _, in := coef[best]; in {
			again++
		}
		coef[best] += a
		member[best%l0] = best
		if got, want := st.Residual, floatsNorm(g); math.Abs(got-want) > 1e-6*want {
			t.Errorf("step %d ‖negative gradient‖ %v, reference %v", n+1, got, want)
		}
	}
	checkAgainstBrute(t, m, coef, l0, refusals)
	t.Logf("%d steps, %d support vectors, %d copies refused, %d atoms chosen again", steps, len(coef), refusals, again)
}

// bruteChoose is the brute-force references' choice of a step: the best
// scored atom of the sampler's next draw of s, where an atom whose point
// is already in the expansion under another atom (member: point → atom;
// atoms are point + l0·kernel) is refused and leaves the draw, and a draw
// refused whole is followed by another. It returns the atom and the
// number of refusals.
func bruteChoose(smp *sampler, s, l0 int, member map[int]int, score func(int) float64) (best, refusals int) {
	for {
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
				smp.remove(c)
				eligible = slices.Delete(eligible, bi, bi+1)
				refusals++
				continue
			}
			return c, refusals
		}
	}
}

// checkAgainstBrute checks a basic-MP model against its brute-force
// reference's coefficients (atom → coefficient; atoms are point + l0·kernel):
// some copy was refused, no point is kept twice, and every support
// vector's coefficient is the reference's to 1e-5 relative.
func checkAgainstBrute(t *testing.T, m *Model, coef map[int]float64, l0, refusals int) {
	t.Helper()
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
}
