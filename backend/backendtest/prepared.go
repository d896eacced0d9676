package backendtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// testPrepared checks the backend.Preparer capability: kernel blocks and
// gathers against a prepared b match the float64 reference; every gathered
// row has the same bits alone and among other rows in any place; blocks of
// 16 rows or more match, bit for bit, the plain KernelBlock/KernelGather
// on the same b with the handle's norms; one handle serves many calls; the
// handle's norms match the reference; and unusable handles give errors
// wrapping backend.ErrPrepared.
func testPrepared(t *testing.T, be backend.Backend) {
	p, ok := be.(backend.Preparer)
	if !ok {
		t.Skipf("%s does not implement backend.Preparer", be.Name())
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for ci, c := range blockCases() {
		// b compact and a unaligned, or the other way round, by turns
		li := ci % 2
		l := layouts[li]
		b := newView(c.m, c.d, l, uniform(rng, -1, 1))
		a := newView(c.n, c.d, layouts[1-li], uniform(rng, -1, 1))
		bs := b.snapshot()
		h, err := p.Prepare(b.m)
		if err != nil {
			t.Errorf("Prepare %d×%d %s: %v", c.m, c.d, l.name, err)
			continue
		}
		checkPreparedNorms(t, fmt.Sprintf("Prepare %d×%d %s", c.m, c.d, l.name), h, b.m)
		stats := statsGrid(a.m, seq(c.n), b.m)
		for _, k := range kernels(c.d) {
			var an []float32
			if k.Kind == pursuit.RBF && c.n%2 == 1 {
				an = norms(a.m, 1)
			}
			name := fmt.Sprintf("KernelBlockPrepared %s n=%d m=%d d=%d b %s", k, c.n, c.m, c.d, l.name)
			dst := newView(c.n, c.m, l, nil)
			if err := callErr(func() error { return p.KernelBlockPrepared(dst.m, k, a.m, an, h) }); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkBlock(t, name, k, dst, stats)
			if c.n < 16 {
				continue
			}
			plain := newView(c.n, c.m, layouts[0], nil)
			if err := be.KernelBlock(plain.m, k, a.m, an, b.m, h.Norms()); err != nil {
				t.Errorf("%s: plain call: %v", name, err)
				continue
			}
			sameBits(t, name, dst.m, plain.m)
		}
		// The SMO pattern: one handle, many gathers of rows of b itself.
		for call, r := range []int{1, 5, 16, 3} {
			if c.m == 0 {
				break
			}
			idx := make([]int, r)
			for i := range idx {
				idx[i] = rng.IntN(c.m)
			}
			k := kernels(c.d)[(call*2+li)%5]
			var bn []float32
			if call%2 == 1 {
				bn = norms(b.m, 2)
			}
			name := fmt.Sprintf("KernelGatherPrepared %s K(B[idx],B) call %d m=%d d=%d %s idx=%v", k, call, c.m, c.d, l.name, idx)
			dst := newView(r, c.m, layouts[1-li], nil)
			if err := callErr(func() error { return p.KernelGatherPrepared(dst.m, k, b.m, bn, idx, h) }); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkBlock(t, name, k, dst, statsGrid(b.m, idx, b.m))
			checkRowInvariance(t, name, p, k, b.m, bn, idx, h, dst.m, rng)
			if r < 16 {
				continue
			}
			plain := newView(r, c.m, layouts[0], nil)
			if err := be.KernelGather(plain.m, k, b.m, bn, idx, b.m, h.Norms()); err != nil {
				t.Errorf("%s: plain call: %v", name, err)
				continue
			}
			sameBits(t, name, dst.m, plain.m)
		}
		if err := b.unchanged(bs); err != nil {
			t.Errorf("Prepared %d×%d %s: b: %v", c.m, c.d, l.name, err)
		}
		if err := h.Release(); err != nil {
			t.Errorf("Release: %v", err)
		}
	}
	// Several kc blocks of features and several column blocks of b, with
	// more rows than one tile, gathered as in SMO.
	for _, sh := range [][3]int{{20, 1100, 300}, {40, 2100, 54}} {
		n, m, d := sh[0], sh[1], sh[2]
		x := newView(m, d, layouts[1], uniform(rng, -1, 1))
		h, err := p.Prepare(x.m)
		if err != nil {
			t.Fatalf("Prepare %d×%d: %v", m, d, err)
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = rng.IntN(m)
		}
		k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1 / float64(d)}
		name := fmt.Sprintf("KernelGatherPrepared %s %d rows of %d×%d", k, n, m, d)
		dst := newView(n, m, layouts[0], nil)
		if err := callErr(func() error { return p.KernelGatherPrepared(dst.m, k, x.m, nil, idx, h) }); err != nil {
			t.Errorf("%s: %v", name, err)
		} else {
			checkBlock(t, name, k, dst, statsGrid(x.m, idx, x.m))
			checkRowInvariance(t, name, p, k, x.m, nil, idx, h, dst.m, rng)
		}
		_ = h.Release()
	}
	testPreparedErrors(t, p)
}

// checkRowInvariance checks that each row r of got, gathered for idx,
// has the bits of the same row gathered alone and of the same row gathered
// among 20 others in another place (the rows of idx reversed, after four
// random rows).
func checkRowInvariance(t testing.TB, name string, p backend.Preparer, k pursuit.Kernel, a pursuit.Matrix, an []float32, idx []int, h backend.Prepared, got pursuit.Matrix, rng *rand.Rand) {
	m := got.Cols
	mixed := make([]int, 4, 4+len(idx)+20)
	for i := range mixed {
		mixed[i] = rng.IntN(a.Rows)
	}
	for r := len(idx) - 1; r >= 0; r-- {
		mixed = append(mixed, idx[r])
	}
	for len(mixed) < 24 {
		mixed = append(mixed, rng.IntN(a.Rows))
	}
	all := pursuit.NewMatrix(len(mixed), m)
	if err := callErr(func() error { return p.KernelGatherPrepared(all, k, a, an, mixed, h) }); err != nil {
		t.Errorf("%s: gathering %d rows: %v", name, len(mixed), err)
		return
	}
	one := pursuit.NewMatrix(1, m)
	for r, i := range idx {
		if err := callErr(func() error { return p.KernelGatherPrepared(one, k, a, an, []int{i}, h) }); err != nil {
			t.Errorf("%s: gathering row %d alone: %v", name, i, err)
			return
		}
		mr := 4 + len(idx) - 1 - r
		for j := range m {
			g := math.Float32bits(got.At(r, j))
			if w := math.Float32bits(one.At(0, j)); g != w {
				t.Errorf("%s: dst[%d][%d] = %v, gathered alone %v", name, r, j, got.At(r, j), one.At(0, j))
				return
			}
			if w := math.Float32bits(all.At(mr, j)); g != w {
				t.Errorf("%s: dst[%d][%d] = %v, gathered as row %d of %d: %v", name, r, j, got.At(r, j), mr, len(mixed), all.At(mr, j))
				return
			}
		}
	}
}

// checkPreparedNorms checks the handle's view and norms against b.
func checkPreparedNorms(t testing.TB, name string, h backend.Prepared, b pursuit.Matrix) {
	if got := h.Matrix(); got.Rows != b.Rows || got.Cols != b.Cols {
		t.Errorf("%s: Matrix() is %d×%d, want %d×%d", name, got.Rows, got.Cols, b.Rows, b.Cols)
	}
	n := h.Norms()
	if len(n) != b.Rows {
		t.Errorf("%s: %d norms for %d rows", name, len(n), b.Rows)
		return
	}
	for i := range b.Rows {
		want, tol := refSqNorm(b.Row(i))
		if !within(float64(n[i]), want, tol) {
			t.Errorf("%s: norm %d = %v, want %v ± %.3g", name, i, n[i], want, tol)
			return
		}
	}
}

// sameBits checks that two results are identical bit for bit.
func sameBits(t testing.TB, name string, got, want pursuit.Matrix) {
	for i := range got.Rows {
		for j := range got.Cols {
			if g, w := got.At(i, j), want.At(i, j); math.Float32bits(g) != math.Float32bits(w) {
				t.Errorf("%s: dst[%d][%d] = %v with the prepared b, %v without", name, i, j, g, w)
				return
			}
		}
	}
}

// foreignPrepared is a handle no backend made.
type foreignPrepared struct{ m pursuit.Matrix }

func (f foreignPrepared) Matrix() pursuit.Matrix { return f.m }
func (f foreignPrepared) Norms() []float32       { return make([]float32, f.m.Rows) }
func (f foreignPrepared) Release() error         { return nil }

func testPreparedErrors(t *testing.T, p backend.Preparer) {
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 1}
	bm := pursuit.NewMatrix(5, 3)
	if _, err := p.Prepare(pursuit.Matrix{Rows: 2, Cols: 3, Stride: 3, Data: make([]float32, 5)}); !errors.Is(err, pursuit.ErrShape) {
		t.Errorf("Prepare of a short matrix: error %v, want one wrapping pursuit.ErrShape", err)
	}
	h, err := p.Prepare(bm)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	released, err := p.Prepare(bm)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if err := released.Release(); err != nil {
		t.Errorf("Release: %v", err)
	}
	if err := released.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	a, dst := pursuit.NewMatrix(4, 3), pursuit.NewMatrix(4, 5)
	idx := []int{0, 3, 1, 1}
	type errCase struct {
		name   string
		target error
		call   func() error
	}
	cases := []errCase{
		{"KernelBlockPrepared nil b", backend.ErrPrepared, func() error { return p.KernelBlockPrepared(dst, rbf, a, nil, nil) }},
		{"KernelGatherPrepared nil b", backend.ErrPrepared, func() error { return p.KernelGatherPrepared(dst, rbf, a, nil, idx, nil) }},
		{"KernelBlockPrepared foreign b", backend.ErrPrepared, func() error { return p.KernelBlockPrepared(dst, rbf, a, nil, foreignPrepared{bm}) }},
		{"KernelGatherPrepared foreign b", backend.ErrPrepared, func() error {
			return p.KernelGatherPrepared(dst, rbf, a, nil, idx, foreignPrepared{bm})
		}},
		{"KernelBlockPrepared released b", backend.ErrPrepared, func() error { return p.KernelBlockPrepared(dst, rbf, a, nil, released) }},
		{"KernelGatherPrepared released b", backend.ErrPrepared, func() error { return p.KernelGatherPrepared(dst, rbf, a, nil, idx, released) }},
		{"KernelBlockPrepared features", pursuit.ErrShape, func() error { return p.KernelBlockPrepared(dst, rbf, pursuit.NewMatrix(4, 2), nil, h) }},
		{"KernelBlockPrepared dst cols", pursuit.ErrShape, func() error { return p.KernelBlockPrepared(pursuit.NewMatrix(4, 4), rbf, a, nil, h) }},
		{"KernelBlockPrepared aNorms", pursuit.ErrShape, func() error { return p.KernelBlockPrepared(dst, rbf, a, make([]float32, 3), h) }},
		{"KernelGatherPrepared idx = rows", pursuit.ErrShape, func() error { return p.KernelGatherPrepared(dst, rbf, a, nil, []int{0, 4, 1, 1}, h) }},
		{"KernelGatherPrepared dst rows", pursuit.ErrShape, func() error { return p.KernelGatherPrepared(dst, rbf, a, nil, idx[:3], h) }},
		{"KernelGatherPrepared bad a", pursuit.ErrShape, func() error {
			return p.KernelGatherPrepared(dst, rbf, pursuit.Matrix{Rows: 4, Cols: 3, Stride: 2, Data: make([]float32, 12)}, nil, idx, h)
		}},
		{"KernelGatherPrepared bad kernel", nil, func() error {
			return p.KernelGatherPrepared(dst, pursuit.Kernel{Kind: pursuit.RBF}, a, nil, idx, h)
		}},
	}
	if other := otherHandle(); other != nil {
		cases = append(cases, errCase{"KernelGatherPrepared b of another backend value", backend.ErrPrepared, func() error {
			return p.KernelGatherPrepared(dst, rbf, a, nil, idx, other)
		}})
	}
	for _, c := range cases {
		clear(dst.Data)
		err := callErr(c.call)
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case c.target != nil && !errors.Is(err, c.target):
			t.Errorf("%s: error %q does not wrap %v", c.name, err, c.target)
		case c.target == nil && (errors.Is(err, pursuit.ErrShape) || errors.Is(err, backend.ErrPrepared)):
			t.Errorf("%s: invalid kernel reported as %v", c.name, err)
		}
		for i, v := range dst.Data {
			if v != 0 {
				t.Errorf("%s: wrote dst.Data[%d] = %v before failing", c.name, i, v)
				break
			}
		}
	}
	_ = h.Release()
}

// otherHandle returns a handle prepared by another backend value (a new
// pure-Go backend), which be must refuse.
func otherHandle() backend.Prepared {
	p, ok := backend.NewGo(1).(backend.Preparer)
	if !ok {
		return nil
	}
	h, err := p.Prepare(pursuit.NewMatrix(5, 3))
	if err != nil {
		return nil
	}
	return h
}
