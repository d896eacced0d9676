package backendtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Run runs the conformance suite on be as subtests of t: SqNorms,
// KernelBlock, KernelGather, DictProducts, RankUpdate, ScoredArgMax, Errors,
// SMOScans (backend.SMOScanner's references, and be's scans when it
// implements it), Sparse (the kernel operations on sparse operands; see
// sparse.go) and, when be implements them, Prepared (backend.Preparer)
// and SetProducts (backend.SetProducts). be is used from one goroutine at a
// time. The suite costs about
// 0.2 s of CPU on the pure-Go backend (about 2.5 s under -race). See the
// package documentation for the tolerances.
func Run(t *testing.T, be backend.Backend) {
	t.Run("SqNorms", func(t *testing.T) { testSqNorms(t, be) })
	t.Run("KernelBlock", func(t *testing.T) { testKernelBlock(t, be) })
	t.Run("KernelGather", func(t *testing.T) { testKernelGather(t, be) })
	t.Run("DictProducts", func(t *testing.T) { testDictProducts(t, be) })
	t.Run("RankUpdate", func(t *testing.T) { testRankUpdate(t, be) })
	t.Run("ScoredArgMax", func(t *testing.T) { testScoredArgMax(t, be) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, be) })
	t.Run("SMOScans", func(t *testing.T) { testSMOScans(t, be) })
	t.Run("Sparse", func(t *testing.T) { testSparse(t, be) })
	t.Run("Offset", func(t *testing.T) { testOffset(t, be) })
	if _, ok := be.(backend.Preparer); ok {
		t.Run("Prepared", func(t *testing.T) { testPrepared(t, be) })
	}
	if _, ok := be.(backend.SetProducts); ok {
		t.Run("SetProducts", func(t *testing.T) { testSetProducts(t, be) })
	}
}

// sizes are the awkward dimensions every operation is tried with.
var sizes = []int{0, 1, 2, 3, 7, 13, 17, 31, 33, 64, 100, 257}

// kernels returns the kernels tried for feature dimension d.
func kernels(d int) []pursuit.Kernel {
	g := 1 / float64(max(d, 1))
	return []pursuit.Kernel{
		{Kind: pursuit.Linear},
		{Kind: pursuit.Polynomial, Gamma: 0.5 * g, Coef0: 1, Degree: 2},
		{Kind: pursuit.Polynomial, Gamma: g, Coef0: 0.5, Degree: 3},
		{Kind: pursuit.RBF, Gamma: 0.5 * g},
		{Kind: pursuit.Sigmoid, Gamma: g, Coef0: -0.3},
	}
}

// maxReports bounds the element mismatches reported per call.
const maxReports = 5

// callErr runs f, turning a panic into an error.
func callErr(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

func testSqNorms(t testing.TB, be backend.Backend) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rows := range sizes {
		for _, cols := range []int{0, 1, 5, 17, 33, 257} {
			for _, l := range layouts {
				x := newView(rows, cols, l, uniform(rng, -2, 2))
				snap := x.snapshot()
				dst := newGuardedF32(rows, 2)
				name := fmt.Sprintf("SqNorms %d×%d %s", rows, cols, l.name)
				if err := callErr(func() error { return be.SqNorms(dst.s, x.m) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				bad := 0
				for i := range rows {
					want, tol := refSqNorm(x.m.Row(i))
					if got := float64(dst.s[i]); !within(got, want, tol) && bad < maxReports {
						bad++
						t.Errorf("%s: row %d: got %v, want %v ± %.3g", name, i, got, want, tol)
					}
				}
				if err := dst.checkGuards(); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if err := x.unchanged(snap); err != nil {
					t.Errorf("%s: x: %v", name, err)
				}
			}
		}
	}
}

// blockCase is one kernel-block shape: a is n×d, b is m×d.
type blockCase struct{ n, m, d int }

func blockCases() []blockCase {
	var cs []blockCase
	for _, s := range sizes {
		cs = append(cs, blockCase{s, 13, 17}, blockCase{7, s, 31}, blockCase{5, 9, s})
	}
	return append(cs,
		blockCase{100, 257, 33}, blockCase{257, 64, 100}, blockCase{33, 31, 257},
		blockCase{64, 64, 64}, blockCase{70, 300, 520}, blockCase{129, 17, 3},
		blockCase{3, 701, 70}) // few rows, many columns: worth splitting over threads
}

// checkBlock compares dst with the reference computed from stats (one row
// per dst row) and checks its guards; name prefixes messages.
func checkBlock(t testing.TB, name string, k pursuit.Kernel, dst *view, stats [][]pairStats) {
	bad := 0
	for r, row := range stats {
		for j, st := range row {
			want, tol := refKernel(k, st)
			got := float64(dst.m.At(r, j))
			if !within(got, want, tol) || (k.Kind == pursuit.RBF && !(got >= 0 && got <= 1)) {
				if bad < maxReports {
					t.Errorf("%s: dst[%d][%d] = %v, want %v ± %.3g (error %.3g)", name, r, j, got, want, tol, got-want)
				}
				bad++
			}
		}
	}
	if bad > maxReports {
		t.Errorf("%s: %d mismatches in all", name, bad)
	}
	if err := dst.checkGuards(); err != nil {
		t.Errorf("%s: dst: %v", name, err)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func testKernelBlock(t testing.TB, be backend.Backend) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range blockCases() {
		for li, l := range layouts {
			a := newView(c.n, c.d, l, uniform(rng, -1, 1))
			b := newView(c.m, c.d, layouts[1-li], uniform(rng, -1, 1))
			if c.n > 2 && c.m > 2 && c.d > 0 {
				// equal rows: ‖a‖²+‖b‖²−2a·b cancels to about 0 and may come
				// out negative; the clamp must keep the RBF value ≤ 1
				copy(b.m.Row(1), a.m.Row(2))
			}
			as, bs := a.snapshot(), b.snapshot()
			stats := statsGrid(a.m, seq(c.n), b.m)
			for _, k := range kernels(c.d) {
				var an, bn []float32
				if k.Kind == pursuit.RBF && li == 1 {
					an, bn = norms(a.m, 3), norms(b.m, 0)
				}
				if k.Kind == pursuit.RBF && li == 0 && c.n%2 == 1 {
					an = norms(a.m, 1) // one given, one computed
				} else if k.Kind == pursuit.RBF && li == 0 && c.m%2 == 1 {
					bn = norms(b.m, 1)
				}
				dst := newView(c.n, c.m, l, nil)
				name := fmt.Sprintf("KernelBlock %s n=%d m=%d d=%d %s norms=%v/%v", k, c.n, c.m, c.d, l.name, an != nil, bn != nil)
				if err := callErr(func() error { return be.KernelBlock(dst.m, k, a.m, an, b.m, bn) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkBlock(t, name, k, dst, stats)
			}
			if err := a.unchanged(as); err != nil {
				t.Errorf("KernelBlock n=%d m=%d d=%d: a: %v", c.n, c.m, c.d, err)
			}
			if err := b.unchanged(bs); err != nil {
				t.Errorf("KernelBlock n=%d m=%d d=%d: b: %v", c.n, c.m, c.d, err)
			}
		}
	}
	// Large rows with norms given in float64 accuracy: on the diagonal of
	// K(X, X) the float32 distance ‖x‖²+‖x‖²−2x·x comes out negative for about
	// half the rows, and only the clamp keeps the RBF values ≤ 1.
	big := newView(40, 33, layouts[1], uniform(rng, -100, 100))
	bigNorms := norms(big.m, 0)
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.5 / 33}
	dst := newView(40, 40, layouts[0], nil)
	if err := callErr(func() error { return be.KernelBlock(dst.m, rbf, big.m, bigNorms, big.m, bigNorms) }); err != nil {
		t.Errorf("KernelBlock clamp: %v", err)
	} else {
		checkBlock(t, "KernelBlock clamp (large rows, given norms)", rbf, dst, statsGrid(big.m, seq(40), big.m))
	}

	// b = a: the symmetric block K(X, X), whose RBF diagonal is 1.
	for _, n := range []int{1, 13, 70} {
		x := newView(n, 33, layouts[1], uniform(rng, -1, 1))
		stats := statsGrid(x.m, seq(n), x.m)
		for _, k := range kernels(33) {
			dst := newView(n, n, layouts[0], nil)
			name := fmt.Sprintf("KernelBlock %s K(X,X) n=%d", k, n)
			if err := callErr(func() error { return be.KernelBlock(dst.m, k, x.m, nil, x.m, nil) }); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkBlock(t, name, k, dst, stats)
		}
	}
}

func testKernelGather(t testing.TB, be backend.Backend) {
	rng := rand.New(rand.NewPCG(5, 6))
	type gatherCase struct{ n, r, m, d int }
	cases := []gatherCase{
		{1, 0, 5, 3}, {1, 1, 1, 1}, {1, 3, 7, 0}, {13, 1, 257, 17}, {13, 17, 31, 33},
		{100, 70, 13, 100}, {257, 5, 64, 257}, {31, 33, 300, 7}, {7, 2, 2, 520},
		{50, 2, 1001, 70}, {50, 1, 999, 257},
	}
	for _, c := range cases {
		idx := make([]int, c.r)
		for i := range idx {
			idx[i] = rng.IntN(c.n) // repeated and unordered
		}
		if c.r > 2 {
			idx[c.r-1] = idx[0] // certainly repeated
		}
		for li, l := range layouts {
			a := newView(c.n, c.d, l, uniform(rng, -1, 1))
			b := newView(c.m, c.d, layouts[1-li], uniform(rng, -1, 1))
			as, bs := a.snapshot(), b.snapshot()
			stats := statsGrid(a.m, idx, b.m)
			for _, k := range kernels(c.d) {
				var an, bn []float32
				if k.Kind == pursuit.RBF && li == 1 {
					an, bn = norms(a.m, 2), norms(b.m, 1)
				}
				if k.Kind == pursuit.RBF && li == 0 && c.r%2 == 1 {
					bn = norms(b.m, 0)
				}
				dst := newView(c.r, c.m, l, nil)
				name := fmt.Sprintf("KernelGather %s n=%d idx=%v m=%d d=%d %s norms=%v/%v", k, c.n, idx, c.m, c.d, l.name, an != nil, bn != nil)
				if len(name) > 200 {
					name = name[:200] + "…"
				}
				if err := callErr(func() error { return be.KernelGather(dst.m, k, a.m, an, idx, b.m, bn) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkBlock(t, name, k, dst, stats)
			}
			if err := a.unchanged(as); err != nil {
				t.Errorf("KernelGather %+v: a: %v", c, err)
			}
			if err := b.unchanged(bs); err != nil {
				t.Errorf("KernelGather %+v: b: %v", c, err)
			}
		}
	}
	// K(X[idx], X): gathered rows of X against all of X.
	x := newView(40, 17, layouts[1], uniform(rng, -1, 1))
	idx := []int{39, 0, 7, 7, 20}
	stats := statsGrid(x.m, idx, x.m)
	for _, k := range kernels(17) {
		dst := newView(len(idx), 40, layouts[1], nil)
		name := fmt.Sprintf("KernelGather %s K(X[idx],X)", k)
		if err := callErr(func() error { return be.KernelGather(dst.m, k, x.m, nil, idx, x.m, nil) }); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBlock(t, name, k, dst, stats)
	}
}

// dictCase is a DictProducts shape: dict is l×n.
type dictCase struct{ l, n int }

func testDictProducts(t testing.TB, be backend.Backend) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []dictCase{{0, 5}, {1, 1}, {3, 7}, {13, 17}, {31, 33}, {100, 257}, {257, 64}, {70, 0}, {9, 100}, {33, 2}}
	for ci, c := range cases {
		for k := 0; k <= 9; k++ {
			l := layouts[(ci+k)%2]
			dict := newView(c.l, c.n, l, uniform(rng, -1, 1))
			vecs := newView(k, c.n, layouts[(ci+k+1)%2], uniform(rng, -1, 1))
			checkDict(t, be, fmt.Sprintf("DictProducts l=%d n=%d k=%d %s", c.l, c.n, k, l.name), dict, vecs)
		}
	}
	// A long dimension: float64 accumulation is required. Rows: random signs,
	// random positive, all ones (against a constant 0.1 vector, whose plain
	// float32 running sum drifts far outside the tolerance).
	const n = 10000
	for _, k := range []int{1, 2, 3, 4, 8, 9} {
		dict := newView(6, n, layouts[1], func(i, j int) float32 {
			switch i % 3 {
			case 0:
				return float32(2*rng.Float64() - 1)
			case 1:
				return float32(rng.Float64())
			}
			return 1
		})
		vecs := newView(k, n, layouts[0], func(i, j int) float32 {
			if i == 0 {
				return 0.1
			}
			return float32(rng.Float64())
		})
		checkDict(t, be, fmt.Sprintf("DictProducts long l=6 n=%d k=%d", n, k), dict, vecs)
	}
}

func checkDict(t testing.TB, be backend.Backend, name string, dict, vecs *view) {
	ds, vs := dict.snapshot(), vecs.snapshot()
	l, k := dict.m.Rows, vecs.m.Rows
	dst := newGuarded64(l*k + 2) // longer than needed: the tail must stay untouched
	if err := callErr(func() error { return be.DictProducts(dst.s, dict.m, vecs.m) }); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	bad := 0
	for j := range k {
		for i := range l {
			want, tol := refDict(dict.m.Row(i), vecs.m.Row(j))
			if got := dst.s[j*l+i]; !within(got, want, tol) {
				if bad < maxReports {
					t.Errorf("%s: dst[%d·%d+%d] (row %d · vec %d) = %v, want %v ± %.3g (error %.3g)", name, j, l, i, i, j, got, want, tol, got-want)
				}
				bad++
			}
		}
	}
	if bad > maxReports {
		t.Errorf("%s: %d mismatches in all", name, bad)
	}
	for p := l * k; p < len(dst.s); p++ {
		if math.Float64bits(dst.s[p]) != math.Float64bits(guard64) {
			t.Errorf("%s: wrote dst[%d] beyond the %d products", name, p, l*k)
		}
	}
	if err := dst.checkGuards(); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if err := dict.unchanged(ds); err != nil {
		t.Errorf("%s: dict: %v", name, err)
	}
	if err := vecs.unchanged(vs); err != nil {
		t.Errorf("%s: vecs: %v", name, err)
	}
}

func testRankUpdate(t testing.TB, be backend.Backend) {
	rng := rand.New(rand.NewPCG(9, 10))
	shapes := [][2]int{{0, 3}, {3, 0}, {1, 1}, {3, 7}, {13, 17}, {33, 31}, {100, 257}, {257, 64}}
	for si, sh := range shapes {
		rows, cols := sh[0], sh[1]
		for _, k := range []int{0, 1, 2, 3, 5, 8} {
			for _, alpha := range []float32{-1, 0.5} {
				l := layouts[(si+k)%2]
				d := newView(rows, cols, l, uniform(rng, -1, 1))
				uu := newView(k, rows, layouts[(si+k+1)%2], uniform(rng, -1, 1))
				vv := newView(k, cols, layouts[(si+k)%2], uniform(rng, -1, 1))
				orig := make([]float32, rows*cols)
				for i := range rows {
					copy(orig[i*cols:], d.m.Row(i))
				}
				us, vs := uu.snapshot(), vv.snapshot()
				name := fmt.Sprintf("RankUpdate %d×%d k=%d alpha=%v %s", rows, cols, k, alpha, l.name)
				if err := callErr(func() error { return be.RankUpdate(d.m, alpha, uu.m, vv.m) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				bad := 0
				for i := range rows {
					for j := range cols {
						var sum, abs float64
						for q := range k {
							p := float64(uu.m.At(q, i)) * float64(vv.m.At(q, j))
							sum += p
							abs += math.Abs(p)
						}
						d0 := float64(orig[i*cols+j])
						want := d0 + float64(alpha)*sum
						tol := 2 * float64(k+4) * u * (math.Abs(d0) + math.Abs(float64(alpha))*abs)
						if got := float64(d.m.At(i, j)); !within(got, want, tol) {
							if bad < maxReports {
								t.Errorf("%s: d[%d][%d] = %v, want %v ± %.3g", name, i, j, got, want, tol)
							}
							bad++
						}
					}
				}
				if err := d.checkGuards(); err != nil {
					t.Errorf("%s: d: %v", name, err)
				}
				if err := uu.unchanged(us); err != nil {
					t.Errorf("%s: u: %v", name, err)
				}
				if err := vv.unchanged(vs); err != nil {
					t.Errorf("%s: v: %v", name, err)
				}
			}
		}
	}
}

func testScoredArgMax(t testing.TB, be backend.Backend) {
	nan, inf := math.NaN(), math.Inf(1)
	type argCase struct {
		name string
		s, n []float64
		skip []bool
	}
	cases := []argCase{
		{name: "empty"},
		{name: "single", s: []float64{-3}, n: []float64{4}},
		{name: "n<=0 ineligible", s: []float64{5, 1, 7}, n: []float64{0, 1, -2}},
		{name: "n NaN ineligible", s: []float64{5, 1}, n: []float64{nan, 4}},
		{name: "all n<=0", s: []float64{1, 2}, n: []float64{0, -1}},
		{name: "tie to smallest", s: []float64{1, 2, -2, 2}, n: []float64{1, 1, 1, 1}},
		{name: "tie across sign and scale", s: []float64{0, -6, 3, 6}, n: []float64{1, 4, 1, 4}},
		{name: "NaN score skipped", s: []float64{nan, 1, nan}, n: []float64{1, 1, 1}},
		{name: "all NaN", s: []float64{nan, nan}, n: []float64{1, 1}},
		{name: "infinite score", s: []float64{1, -inf, inf}, n: []float64{1, 1, 1}},
		{name: "inf over inf is NaN", s: []float64{inf, 1}, n: []float64{inf, 1}},
		{name: "skip", s: []float64{9, 1, 8}, n: []float64{1, 1, 1}, skip: []bool{true, false, false}},
		{name: "all skipped", s: []float64{9, 1}, n: []float64{1, 1}, skip: []bool{true, true}},
		{name: "skip nil vs false", s: []float64{2, 3}, n: []float64{1, 1}, skip: []bool{false, false}},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, m := range []int{1, 7, 100, 1000, 65537} {
		c := argCase{name: fmt.Sprintf("random %d", m), s: make([]float64, m), n: make([]float64, m), skip: make([]bool, m)}
		for i := range m {
			c.s[i] = rng.NormFloat64()
			c.n[i] = rng.Float64() * 2
			if rng.IntN(10) == 0 {
				c.n[i] = 0
			}
			c.skip[i] = rng.IntN(5) == 0
		}
		cases = append(cases, c)
		cases = append(cases, argCase{name: c.name + " no skip", s: c.s, n: c.n})
	}
	for _, c := range cases {
		wantK, wantS := refScoredArgMax(c.s, c.n, c.skip)
		var gotK int
		var gotS float64
		err := callErr(func() error { gotK, gotS = be.ScoredArgMax(c.s, c.n, c.skip); return nil })
		switch {
		case err != nil:
			t.Errorf("ScoredArgMax %s: %v", c.name, err)
		case gotK != wantK:
			t.Errorf("ScoredArgMax %s: index %d (score %v), want %d (score %v)", c.name, gotK, gotS, wantK, wantS)
		case wantK < 0 && gotS != 0:
			t.Errorf("ScoredArgMax %s: no candidate, but score %v (want 0)", c.name, gotS)
		case !within(gotS, wantS, 1e-12*math.Abs(wantS)):
			t.Errorf("ScoredArgMax %s: score %v, want %v", c.name, gotS, wantS)
		}
	}
}

// testErrors checks that every invalid argument gives an error of the right
// kind, without a panic and without writing to the output.
func testErrors(t testing.TB, be backend.Backend) {
	mat := func(r, c int) pursuit.Matrix { return pursuit.NewMatrix(r, c) }
	badStride := pursuit.Matrix{Rows: 2, Cols: 3, Stride: 2, Data: make([]float32, 10)}
	shortData := pursuit.Matrix{Rows: 2, Cols: 3, Stride: 3, Data: make([]float32, 5)}
	negative := pursuit.Matrix{Rows: -1, Cols: 3, Stride: 3}
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1}
	type errCase struct {
		name  string
		shape bool // wants errors.Is(err, pursuit.ErrShape); else a kernel error
		call  func() error
	}
	a, b := mat(4, 3), mat(5, 3)
	dst := mat(4, 5)
	kernelErrs := map[string]pursuit.Kernel{
		"unknown kind":    {Kind: 0, Gamma: 1},
		"rbf gamma 0":     {Kind: pursuit.RBF},
		"rbf gamma NaN":   {Kind: pursuit.RBF, Gamma: math.NaN()},
		"sigmoid gamma∞":  {Kind: pursuit.Sigmoid, Gamma: math.Inf(1)},
		"poly degree 0":   {Kind: pursuit.Polynomial, Gamma: 1, Degree: 0},
		"poly coef0 NaN":  {Kind: pursuit.Polynomial, Gamma: 1, Coef0: math.NaN(), Degree: 2},
		"sigmoid gamma<0": {Kind: pursuit.Sigmoid, Gamma: -1},
	}
	var cases []errCase
	for name, k := range kernelErrs {
		cases = append(cases,
			errCase{"KernelBlock " + name, false, func() error { return be.KernelBlock(dst, k, a, nil, b, nil) }},
			errCase{"KernelGather " + name, false, func() error { return be.KernelGather(dst, k, a, nil, []int{0, 1, 2, 3}, b, nil) }})
	}
	idx := []int{0, 3, 1, 1}
	cases = append(cases,
		errCase{"SqNorms short dst", true, func() error { return be.SqNorms(make([]float32, 3), a) }},
		errCase{"SqNorms bad stride", true, func() error { return be.SqNorms(make([]float32, 3), badStride) }},
		errCase{"SqNorms short data", true, func() error { return be.SqNorms(make([]float32, 3), shortData) }},
		errCase{"SqNorms negative", true, func() error { return be.SqNorms(nil, negative) }},

		errCase{"KernelBlock dst rows", true, func() error { return be.KernelBlock(mat(3, 5), rbf, a, nil, b, nil) }},
		errCase{"KernelBlock dst cols", true, func() error { return be.KernelBlock(mat(4, 6), rbf, a, nil, b, nil) }},
		errCase{"KernelBlock features", true, func() error { return be.KernelBlock(dst, rbf, a, nil, mat(5, 4), nil) }},
		errCase{"KernelBlock aNorms", true, func() error { return be.KernelBlock(dst, rbf, a, make([]float32, 3), b, nil) }},
		errCase{"KernelBlock bNorms", true, func() error { return be.KernelBlock(dst, rbf, a, nil, b, make([]float32, 4)) }},
		errCase{"KernelBlock bad a", true, func() error { return be.KernelBlock(mat(2, 5), rbf, shortData, nil, b, nil) }},
		errCase{"KernelBlock bad b", true, func() error { return be.KernelBlock(mat(4, 2), rbf, a, nil, badStride, nil) }},
		errCase{"KernelBlock bad dst", true, func() error {
			return be.KernelBlock(pursuit.Matrix{Rows: 4, Cols: 5, Stride: 5, Data: make([]float32, 19)}, rbf, a, nil, b, nil)
		}},
		errCase{"KernelBlock negative a", true, func() error { return be.KernelBlock(mat(0, 5), rbf, negative, nil, b, nil) }},

		errCase{"KernelGather idx -1", true, func() error { return be.KernelGather(dst, rbf, a, nil, []int{0, -1, 1, 1}, b, nil) }},
		errCase{"KernelGather idx = rows", true, func() error { return be.KernelGather(dst, rbf, a, nil, []int{0, 4, 1, 1}, b, nil) }},
		errCase{"KernelGather dst rows", true, func() error { return be.KernelGather(dst, rbf, a, nil, idx[:3], b, nil) }},
		errCase{"KernelGather dst cols", true, func() error { return be.KernelGather(mat(4, 4), rbf, a, nil, idx, b, nil) }},
		errCase{"KernelGather features", true, func() error { return be.KernelGather(dst, rbf, mat(4, 2), nil, idx, b, nil) }},
		errCase{"KernelGather aNorms", true, func() error { return be.KernelGather(dst, rbf, a, make([]float32, 3), idx, b, nil) }},
		errCase{"KernelGather bNorms", true, func() error { return be.KernelGather(dst, rbf, a, nil, idx, b, make([]float32, 1)) }},
		errCase{"KernelGather bad a", true, func() error { return be.KernelGather(dst, rbf, badStride, nil, idx, b, nil) }},

		errCase{"DictProducts features", true, func() error { return be.DictProducts(make([]float64, 20), mat(5, 3), mat(2, 4)) }},
		errCase{"DictProducts short dst", true, func() error { return be.DictProducts(make([]float64, 9), mat(5, 3), mat(2, 3)) }},
		errCase{"DictProducts bad dict", true, func() error { return be.DictProducts(make([]float64, 20), shortData, mat(2, 3)) }},
		errCase{"DictProducts bad vecs", true, func() error { return be.DictProducts(make([]float64, 20), mat(2, 3), badStride) }},

		errCase{"RankUpdate k mismatch", true, func() error { return be.RankUpdate(mat(4, 5), -1, mat(2, 4), mat(1, 5)) }},
		errCase{"RankUpdate u length", true, func() error { return be.RankUpdate(mat(4, 5), -1, mat(1, 5), mat(1, 5)) }},
		errCase{"RankUpdate v length", true, func() error { return be.RankUpdate(mat(4, 5), -1, mat(1, 4), mat(1, 4)) }},
		errCase{"RankUpdate bad d", true, func() error { return be.RankUpdate(shortData, -1, mat(1, 2), mat(1, 3)) }},
		errCase{"RankUpdate bad u", true, func() error { return be.RankUpdate(mat(2, 3), -1, badStride, mat(2, 3)) }},
	)
	for _, c := range cases {
		clear(dst.Data)
		err := callErr(c.call)
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case strings.HasPrefix(err.Error(), "panic"):
			t.Errorf("%s: %v", c.name, err)
		case c.shape && !errors.Is(err, pursuit.ErrShape):
			t.Errorf("%s: error %q does not wrap pursuit.ErrShape", c.name, err)
		case !c.shape && errors.Is(err, pursuit.ErrShape):
			t.Errorf("%s: invalid kernel reported as a shape mismatch: %v", c.name, err)
		}
		for i, v := range dst.Data {
			if v != 0 {
				t.Errorf("%s: wrote dst.Data[%d] = %v before failing", c.name, i, v)
				break
			}
		}
	}
}

// testSMOScans checks backend's SMO references against the definitions and,
// when be implements backend.SMOScanner, be's scans against them: equal bit
// for bit, on random state with NaN exclusions, and on state drawn from a
// few values, where ties are common (the last index attaining the extreme
// wins).
func testSMOScans(t testing.TB, be backend.Backend) {
	scanners := []struct {
		name string
		s    backend.SMOScanner
	}{{"reference", refScanner{}}}
	if sc, ok := be.(backend.SMOScanner); ok {
		scanners = append(scanners, struct {
			name string
			s    backend.SMOScanner
		}{be.Name(), sc})
	}
	nan := math.NaN()
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1001, 5416} {
		for _, ties := range []bool{false, true} {
			draw := func() float64 {
				if ties {
					return float64(rng.IntN(5)-2) / 2
				}
				return rng.NormFloat64()
			}
			g, y, up, low, qd := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
			qi, qj := make([]float32, n), make([]float32, n)
			for a := range n {
				g[a], y[a], qd[a] = draw(), float64(1-2*rng.IntN(2)), 1+draw()/4
				qi[a], qj[a] = float32(math.Abs(draw())/2), float32(math.Abs(draw())/2)
				up[a], low[a] = -y[a], y[a]
				if rng.IntN(4) == 0 {
					up[a] = nan
				}
				if rng.IntN(4) == 0 {
					low[a] = nan
				}
			}
			if n > 2 && ties { // a stretch with no I_up candidate
				for a := n / 3; a < 2*n/3; a++ {
					up[a] = nan
				}
			}
			wi, wj := draw()+0.25, draw()-0.25
			gmax, qdi := math.Abs(draw()), 1+draw()/4
			if n == 9 { // no candidate at all
				for a := range n {
					up[a], low[a] = nan, nan
				}
			}
			name := fmt.Sprintf("n=%d ties=%v", n, ties)
			wantG := append([]float64(nil), g...)
			wantK, wantV := refSMOGradient(wantG, y, up, qi, qj, wi, wj)
			wantJ, wantO, wantLow, wantObj := refSMOSelect(low, wantG, qd, qi, gmax, qdi)
			wantBar := append([]float64(nil), g...)
			refSMOAddScaled(wantBar, y, qj, wi)
			for _, sc := range scanners {
				gotG := append([]float64(nil), g...)
				var k, j, j2 int
				var v, o, lm, o2, lm2 float64
				obj := make([]float64, n)
				for a := range obj {
					obj[a] = math.NaN() // every value must be written
				}
				bar := append([]float64(nil), g...)
				err := callErr(func() error {
					k, v = sc.s.SMOGradient(gotG, y, up, qi, qj, wi, wj)
					j, o, lm = sc.s.SMOSelect(low, gotG, qd, qi, gmax, qdi, nil)
					j2, o2, lm2 = sc.s.SMOSelect(low, gotG, qd, qi, gmax, qdi, obj)
					sc.s.SMOAddScaled(bar, y, qj, wi)
					return nil
				})
				switch {
				case err != nil:
					t.Errorf("SMO scans %s, %s: %v", sc.name, name, err)
				case k != wantK || !sameFloat(v, wantV):
					t.Errorf("SMOGradient %s, %s: (%d, %v), want (%d, %v)", sc.name, name, k, v, wantK, wantV)
				case !sameFloats(gotG, wantG):
					t.Errorf("SMOGradient %s, %s: gradient differs from the definition's", sc.name, name)
				case j != wantJ || !sameFloat(o, wantO) || !sameFloat(lm, wantLow):
					t.Errorf("SMOSelect %s, %s: (%d, %v, %v), want (%d, %v, %v)", sc.name, name, j, o, lm, wantJ, wantO, wantLow)
				case j2 != wantJ || !sameFloat(o2, wantO) || !sameFloat(lm2, wantLow):
					t.Errorf("SMOSelect %s, %s, with objectives: (%d, %v, %v), want (%d, %v, %v)", sc.name, name, j2, o2, lm2, wantJ, wantO, wantLow)
				case !sameFloats(obj, wantObj):
					t.Errorf("SMOSelect %s, %s: objectives differ from the definition's", sc.name, name)
				case !sameFloats(bar, wantBar):
					t.Errorf("SMOAddScaled %s, %s: result differs from the definition's", sc.name, name)
				}
			}
		}
	}
}

// refScanner is backend's SMO references as a backend.SMOScanner.
type refScanner struct{}

func (refScanner) SMOGradient(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64) {
	return backend.SMOGradientRef(g, y, up, qi, qj, wi, wj)
}

func (refScanner) SMOSelect(low, g, qd []float64, qi []float32, gmax, qdi float64, obj []float64) (int, float64, float64) {
	return backend.SMOSelectRef(low, g, qd, qi, gmax, qdi, obj)
}

func (refScanner) SMOAddScaled(dst, y []float64, row []float32, w float64) {
	backend.SMOAddScaledRef(dst, y, row, w)
}

func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameFloat(a[i], b[i]) {
			return false
		}
	}
	return true
}
