package kmp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

func goEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// randomData returns n points in d dimensions uniform in [-1,1] and smooth
// real targets plus noise.
func randomData(n, d int, seed uint64) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := pursuit.NewMatrix(n, d)
	y := make([]float64, n)
	for i := range n {
		var s float64
		for j := range d {
			v := rng.Float64()*2 - 1
			x.Set(i, j, float32(v))
			s += math.Sin(2*v + float64(j))
		}
		y[i] = s + 0.3*rng.NormFloat64()
	}
	return x, y
}

// circleData is a binary problem: inside/outside a circle, with label noise.
func circleData(n int, seed uint64) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := pursuit.NewMatrix(n, 2)
	y := make([]float64, n)
	for i := range n {
		a, b := rng.Float64()*2-1, rng.Float64()*2-1
		x.Set(i, 0, float32(a))
		x.Set(i, 1, float32(b))
		y[i] = -1
		if a*a+b*b < 0.45 {
			y[i] = 1
		}
		if rng.Float64() < 0.05 {
			y[i] = -y[i]
		}
	}
	return x, y
}

// denseDict rebuilds the training dictionary of cfg on x (no scaling, no
// validation split) as a float64 M×l matrix, row k = atom k.
func denseDict(t testing.TB, e *engine.Engine, x pursuit.Matrix, cfg Config) ([]atom, *mat.Dense) {
	t.Helper()
	tr := resolvedTrainSet(t, e, &cfg, x)
	atoms := dictAtoms(&cfg, chooseCandidates(x.Rows, cfg.Candidates, cfg.Seed))
	dc, err := buildDictionary(e, &cfg, &dictionary{atoms: listed(atoms), tr: tr})
	if err != nil {
		t.Fatal(err)
	}
	d := mat.NewDense(len(atoms), x.Rows, nil)
	for k := range atoms {
		for j, v := range dc.d.Row(k) {
			d.Set(k, j, float64(v))
		}
	}
	return atoms, d
}

// lsSolve fits y by least squares on the dictionary rows cols (gonum QR):
// it returns the l×|cols| design matrix and the coefficients.
func lsSolve(d *mat.Dense, cols []int, y []float64) (*mat.Dense, *mat.Dense, error) {
	l := len(y)
	a := mat.NewDense(l, len(cols), nil)
	for c, k := range cols {
		for i := range l {
			a.Set(i, c, d.At(k, i))
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var coef mat.Dense
	err := qr.SolveTo(&coef, false, mat.NewDense(l, 1, append([]float64(nil), y...)))
	return a, &coef, err
}

// lsResidual returns ‖y − P y‖² for P the projection on the span of the
// dictionary rows cols.
func lsResidual(d *mat.Dense, cols []int, y []float64) float64 {
	a, coef, err := lsSolve(d, cols, y)
	if err != nil {
		return math.Inf(1)
	}
	var fit mat.Dense
	fit.Mul(a, coef)
	var s float64
	for i := range y {
		r := y[i] - fit.At(i, 0)
		s += r * r
	}
	return s
}

// lsCoef returns the least-squares coefficients of y on the dictionary rows
// cols.
func lsCoef(t testing.TB, d *mat.Dense, cols []int, y []float64) []float64 {
	_, coef, err := lsSolve(d, cols, y)
	if err != nil {
		t.Fatal(err)
	}
	return mat.Col(nil, 0, coef)
}

func curveAtoms(c []Step) []int {
	out := make([]int, len(c))
	for i, s := range c {
		out[i] = s.Atom
	}
	return out
}

// TestPreFitIsGreedyLeastSquares: at every step pre-fitting picks the atom
// whose addition minimises the least-squares residual over basis ∪ {k},
// checked by brute force over all candidates with gonum's QR, on a
// dictionary mixing two RBF widths, a polynomial kernel and the constant.
func TestPreFitIsGreedyLeastSquares(t *testing.T) {
	e := goEngine(t)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"rbf", Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(1.5)}}},
		{"mixed+bias", Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5), pursuit.NewRBF(4), pursuit.NewPoly(0.7, 1, 2)}, Bias: true}},
		{"subset", Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(2)}, Candidates: 23, Seed: 5, Bias: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := randomData(50, 3, 1)
			cfg := tc.cfg
			cfg.Variant, cfg.Task, cfg.N = PreFit, Regression, 14
			m, err := Train(e, x, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, d := denseDict(t, e, x, cfg)
			chosen := curveAtoms(m.Outputs[0].Curve)
			if len(chosen) != cfg.N {
				t.Fatalf("%d steps, want %d", len(chosen), cfg.N)
			}
			yy := floats.Dot(y, y)
			var basis []int
			for step, g := range chosen {
				in := map[int]bool{}
				for _, b := range basis {
					in[b] = true
				}
				best, bestK := math.Inf(1), -1
				for k := range d.RawMatrix().Rows {
					if in[k] {
						continue
					}
					r := lsResidual(d, append(append([]int(nil), basis...), k), y)
					if r < best {
						best, bestK = r, k
					}
				}
				got := lsResidual(d, append(append([]int(nil), basis...), g), y)
				if got > best+1e-9*yy {
					t.Fatalf("step %d: chose atom %d with residual %.12g, atom %d gives %.12g", step+1, g, got, bestK, best)
				}
				// The curve's residual norm is the least-squares residual.
				if r := m.Outputs[0].Curve[step].Residual; math.Abs(r*r-got) > 1e-8*yy {
					t.Fatalf("step %d: curve residual² %.12g, least squares %.12g", step+1, r*r, got)
				}
				basis = append(basis, g)
			}
			// The final coefficients are the least-squares fit on the basis.
			checkLSCoef(t, m, d, basis, y, cfg)
		})
	}
}

// checkLSCoef compares the model's coefficients with gonum's least squares
// on the atoms basis.
func checkLSCoef(t *testing.T, m *Model, d *mat.Dense, basis []int, y []float64, cfg Config) {
	t.Helper()
	want := lsCoef(t, d, basis, y)
	atoms := dictAtoms(&cfg, chooseCandidates(len(y), cfg.Candidates, cfg.Seed))
	// The model's coefficient of each basis atom.
	got := make([]float64, len(basis))
	for i, a := range basis {
		at := atoms[a]
		if at.kernel == biasKernel {
			got[i] = m.Outputs[0].Bias
			continue
		}
		for s := range m.Support.Rows {
			if m.SupportIndex[s] == int(at.center) && m.SupportKernel[s] == int(at.kernel) {
				got[i] = m.Outputs[0].Coef[s]
			}
		}
	}
	scale := floats.Norm(want, math.Inf(1))
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6*scale {
			t.Fatalf("coefficient %d (atom %d): got %.10g, least squares %.10g", i, basis[i], got[i], want[i])
		}
	}
}

// TestBackFitIsOMP: back-fitting chooses the atom most collinear with the
// least-squares residual of the previous basis (brute force), and its
// coefficients are the least-squares fit on its atoms.
func TestBackFitIsOMP(t *testing.T) {
	e := goEngine(t)
	x, y := randomData(60, 2, 3)
	cfg := Config{Variant: BackFit, Task: Regression, N: 12, Kernels: []pursuit.Kernel{pursuit.NewRBF(1), pursuit.NewRBF(6)}, Bias: true}
	m, err := Train(e, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, d := denseDict(t, e, x, cfg)
	chosen := curveAtoms(m.Outputs[0].Curve)
	var basis []int
	for step, g := range chosen {
		// Residual of the least-squares fit on the basis so far.
		r := append([]float64(nil), y...)
		if len(basis) > 0 {
			c := lsCoef(t, d, basis, y)
			for i, k := range basis {
				floats.AddScaled(r, -c[i], d.RawRowView(k))
			}
		}
		best, bestK := -1.0, -1
		scores := make([]float64, d.RawMatrix().Rows)
		for k := range scores {
			row := d.RawRowView(k)
			scores[k] = math.Abs(floats.Dot(row, r)) / floats.Norm(row, 2)
			if scores[k] > best {
				best, bestK = scores[k], k
			}
		}
		if scores[g] < best*(1-1e-9) {
			t.Fatalf("step %d: chose %d (score %.12g), best is %d (%.12g)", step+1, g, scores[g], bestK, best)
		}
		basis = append(basis, g)
	}
	checkLSCoef(t, m, d, basis, y, cfg)
}

// figure1 is the float64 reference of basic matching pursuit (the paper's
// Figure 1) on the dictionary rows of d: it returns the chosen atoms and
// the coefficient increments step by step.
func figure1(d *mat.Dense, y []float64, n int) ([]int, []float64) {
	r := append([]float64(nil), y...)
	m := d.RawMatrix().Rows
	var gs []int
	var as []float64
	for range n {
		best, g := -1.0, -1
		for k := range m {
			row := d.RawRowView(k)
			nn := floats.Dot(row, row)
			if nn == 0 {
				continue
			}
			sc := math.Abs(floats.Dot(row, r)) / math.Sqrt(nn)
			if sc > best {
				best, g = sc, k
			}
		}
		row := d.RawRowView(g)
		a := floats.Dot(row, r) / floats.Dot(row, row)
		floats.AddScaled(r, -a, row)
		gs = append(gs, g)
		as = append(as, a)
	}
	return gs, as
}

// TestBasicMatchesFigure1 compares basic MP step by step with the float64
// reference: same atom at every step, same coefficients.
func TestBasicMatchesFigure1(t *testing.T) {
	e := goEngine(t)
	x, y := randomData(45, 2, 4)
	cfg := Config{Variant: Basic, Task: Regression, N: 40, Kernels: []pursuit.Kernel{pursuit.NewRBF(3)}}
	m, err := Train(e, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	atoms, d := denseDict(t, e, x, cfg)
	gs, as := figure1(d, y, cfg.N)
	chosen := curveAtoms(m.Outputs[0].Curve)
	repeats := 0
	seen := map[int]bool{}
	for i := range gs {
		if chosen[i] != gs[i] {
			t.Fatalf("step %d: chose %d, Figure 1 chooses %d", i+1, chosen[i], gs[i])
		}
		if seen[gs[i]] {
			repeats++
		}
		seen[gs[i]] = true
	}
	// Coefficients: Figure 1's increments summed per atom.
	want := map[int]float64{}
	for i, g := range gs {
		want[int(atoms[g].center)] += as[i]
	}
	if len(want) != m.Support.Rows {
		t.Fatalf("%d support vectors, Figure 1 uses %d atoms", m.Support.Rows, len(want))
	}
	for s := range m.Support.Rows {
		w := want[m.SupportIndex[s]]
		if got := m.Outputs[0].Coef[s]; math.Abs(got-w) > 1e-9*(1+math.Abs(w)) {
			t.Fatalf("support %d: coefficient %.12g, Figure 1 %.12g", m.SupportIndex[s], got, w)
		}
	}
	t.Logf("%d steps, %d distinct atoms (%d re-chosen)", len(gs), len(want), repeats)
}

// TestExplicitDeflationSameChoices: pre-fitting with the explicitly deflated
// dictionary (D ← D − (Dq)qᵀ through RankUpdate) chooses the same atoms as
// the implicit one-pass form, with the same coefficients.
func TestExplicitDeflationSameChoices(t *testing.T) {
	e := goEngine(t)
	x, y := circleData(120, 6)
	for _, bias := range []bool{false, true} {
		base := Config{Variant: PreFit, N: 25, Kernels: []pursuit.Kernel{pursuit.NewRBF(3), pursuit.NewRBF(12)}, Bias: bias}
		mi, err := Train(e, x, y, base)
		if err != nil {
			t.Fatal(err)
		}
		ex := base
		ex.Deflation = Explicit
		me, err := Train(e, x, y, ex)
		if err != nil {
			t.Fatal(err)
		}
		ai, ae := curveAtoms(mi.Outputs[0].Curve), curveAtoms(me.Outputs[0].Curve)
		if len(ai) != len(ae) {
			t.Fatalf("bias %v: %d vs %d steps", bias, len(ai), len(ae))
		}
		for i := range ai {
			if ai[i] != ae[i] {
				t.Fatalf("bias %v: step %d: implicit chose %d, explicit %d", bias, i+1, ai[i], ae[i])
			}
		}
		for s := range mi.Outputs[0].Coef {
			a, b := mi.Outputs[0].Coef[s], me.Outputs[0].Coef[s]
			if math.Abs(a-b) > 1e-6*(1+math.Abs(a)) {
				t.Fatalf("bias %v: coefficient %d: %g vs %g", bias, s, a, b)
			}
		}
	}
}

// TestDependentAtomsSkipped: duplicated training points make atoms exactly
// dependent; pre-fitting and back-fitting must skip them instead of dividing
// by ~0, and still fit exactly when the dictionary spans y.
func TestDependentAtomsSkipped(t *testing.T) {
	e := goEngine(t)
	x0, y0 := randomData(10, 2, 8)
	// Each point three times.
	x := pursuit.NewMatrix(30, 2)
	y := make([]float64, 30)
	for i := range 30 {
		copy(x.Row(i), x0.Row(i%10))
		y[i] = y0[i%10]
	}
	for _, v := range []Variant{PreFit, BackFit} {
		m, err := Train(e, x, y, Config{Variant: v, Task: Regression, N: 30, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}})
		if err != nil {
			t.Fatal(err)
		}
		c := m.Outputs[0].Curve
		if len(c) > 10 {
			t.Fatalf("%v: %d steps on a dictionary of rank 10", v, len(c))
		}
		for _, s := range c {
			if math.IsNaN(s.Residual) {
				t.Fatalf("%v: NaN residual", v)
			}
		}
		seen := map[int]bool{}
		for _, s := range m.SupportIndex {
			if seen[s%10] {
				t.Fatalf("%v: chose a copy of point %d twice", v, s%10)
			}
			seen[s%10] = true
		}
		t.Logf("%v: %d steps, final residual %.3g", v, len(c), c[len(c)-1].Residual)
	}
}

// TestOrthogonalize: both Gram–Schmidt forms give v ⊥ Q with d = v + Qᵀrc.
func TestOrthogonalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n, l = 7, 40
	flat, rows := randomOrthonormal(rng, n, l)
	d := make([]float64, l)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	for name, f := range map[string]func(v []float64) []float64{
		"cgs2":   func(v []float64) []float64 { rc, _ := cgs2(nil, v, d, flat, l, len(flat)/l, 1, nil); return rc },
		"cgs2x3": func(v []float64) []float64 { rc, _ := cgs2(nil, v, d, flat, l, len(flat)/l, 3, nil); return rc },
		"mgs2":   func(v []float64) []float64 { return orthogonalize(v, d, rows) },
	} {
		v := make([]float64, l)
		rc := f(v)
		back := append([]float64(nil), v...)
		for j, q := range rows {
			if dot := floats.Dot(q, v); math.Abs(dot) > 1e-13 {
				t.Fatalf("%s: <q_%d, v> = %g", name, j, dot)
			}
			floats.AddScaled(back, rc[j], q)
		}
		if !floats.EqualApprox(back, d, 1e-12) {
			t.Fatalf("%s: v + Qᵀrc ≠ d", name)
		}
	}
}

// orthogonalize is the reference for cgs2: modified Gram–Schmidt,
// applied twice, for a basis held as separate vectors.
func orthogonalize(v, d []float64, qs [][]float64) []float64 {
	copy(v, d)
	rc := make([]float64, len(qs), len(qs)+1)
	for range 2 {
		for j, q := range qs {
			r := floats.Dot(q, v)
			floats.AddScaled(v, -r, q)
			rc[j] += r
		}
	}
	return rc
}

// TestTriSolve: the column back substitution against gonum's triangular
// solve, and a clear error for a zero diagonal.
func TestTriSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 40
	rcols := make([][]float64, n)
	tri := mat.NewTriDense(n, mat.Upper, nil)
	c := make([]float64, n)
	for j := range n {
		rcols[j] = make([]float64, j+1)
		for i := range j {
			rcols[j][i] = rng.NormFloat64()
		}
		rcols[j][j] = 1 + rng.Float64()
		for i := 0; i <= j; i++ {
			tri.SetTri(i, j, rcols[j][i])
		}
		c[j] = rng.NormFloat64()
	}
	var want mat.VecDense
	if err := want.SolveVec(tri, mat.NewVecDense(n, append([]float64(nil), c...))); err != nil {
		t.Fatal(err)
	}
	got, err := triSolve(rcols, c)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if w := want.AtVec(i); math.Abs(got[i]-w) > 1e-12*(1+math.Abs(w)) {
			t.Fatalf("α_%d = %v, want %v", i, got[i], w)
		}
	}
	rcols[7][7] = 0
	if _, err := triSolve(rcols, c); err == nil {
		t.Error("zero diagonal: no error")
	}
}

// TestCGSSelectiveReorth: cgs2's projection, with its fused tiled pass and
// its second projection applied only when needed, against modified
// Gram–Schmidt applied twice, on a basis of many tiles and threads: a
// random atom (one pass suffices) and atoms nearly in span Q (the second
// projection must run), each orthogonal to Q to working precision and
// reconstructing d.
func TestCGSSelectiveReorth(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, l = 300, 2000
	// The default tiles, and small ones: several per thread.
	defer func(b int) { cgsTileBytes = b }(cgsTileBytes)
	for _, tb := range []int{cgsTileBytes, 64 << 10} {
		cgsTileBytes = tb
		if tb == 64<<10 && qTile(n) >= l/4 {
			t.Fatalf("tile of %d columns: the test wants several per thread", qTile(n))
		}
		cgsCases(t, n, l, rng)
	}
}

func cgsCases(t *testing.T, n, l int, rng *rand.Rand) {
	flat, rows := randomOrthonormal(rng, n, l)
	for _, c := range []struct {
		name      string
		inSpan    float64 // size of the part in span Q, against a unit part outside
		wantReort bool
	}{{"random", 1, false}, {"nearly dependent", 1e8, true}, {"very nearly dependent", 1e10, true}} {
		d := make([]float64, l)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		for _, q := range rows {
			floats.AddScaled(d, c.inSpan*rng.NormFloat64()/math.Sqrt(float64(n)), q)
		}
		want := make([]float64, l)
		orthogonalize(want, d, rows)
		dn, wn := floats.Norm(d, 2), floats.Norm(want, 2)
		for _, threads := range []int{1, 2, 3} {
			v := make([]float64, l)
			rc, reorth := cgs2(nil, v, d, flat, l, n, threads, nil)
			if reorth != c.wantReort {
				t.Errorf("%s, %d threads: second projection %v, want %v", c.name, threads, reorth, c.wantReort)
			}
			for j, q := range rows {
				if dot := floats.Dot(q, v); math.Abs(dot) > 1e-13*math.Max(wn, dn*1e-3) {
					t.Fatalf("%s, %d threads: <q_%d, v> = %g (‖v‖ %g, ‖d‖ %g)", c.name, threads, j, dot, wn, dn)
				}
			}
			diff := slices.Clone(v)
			floats.Sub(diff, want)
			if e := floats.Norm(diff, 2); e > math.Max(1e-9*wn, 1e-14*dn) { // both round d: ε·‖d‖
				t.Errorf("%s, %d threads: ‖v − v_mgs2‖ = %g, ‖v‖ = %g", c.name, threads, e, wn)
			}
			back := slices.Clone(v)
			for j, q := range rows {
				floats.AddScaled(back, rc[j], q)
			}
			floats.Sub(back, d)
			if e := floats.Norm(back, 2); e > 1e-13*dn {
				t.Errorf("%s, %d threads: ‖v + Qᵀrc − d‖ = %g, ‖d‖ = %g", c.name, threads, e, dn)
			}
		}
	}
}

// randomOrthonormal returns n random orthonormal vectors of length l (from
// the QR factor of a Gaussian matrix), side by side in flat and as rows.
func randomOrthonormal(rng *rand.Rand, n, l int) (flat []float64, rows [][]float64) {
	a := mat.NewDense(l, n, nil)
	for i := range l {
		for j := range n {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var qm mat.Dense
	qr.QTo(&qm)
	flat = make([]float64, 0, n*l)
	for j := range n {
		col := mat.Col(nil, j, &qm)
		flat = append(flat, col...)
		rows = append(rows, col)
	}
	return flat, rows
}
