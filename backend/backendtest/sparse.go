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

// Sparse operands: SqNorms, KernelBlock, KernelGather and the Preparer
// methods take a sparse a and/or b (pursuit.CSR rows) with the results and
// tolerances of dense ones, computed by the reference on the densified
// rows. The sparse matrices are row views whose offsets do not start at 0,
// between rows whose values are the guard NaN (a backend that reads outside
// the view gets NaN into its results), with rows of every kind: empty, one
// non-zero, random, only the last columns (beyond every column of the
// other operand's low rows) and only the first ones.
//
// A backend that does not take sparse operands (backend.ErrSparse) must
// reject every such call with an error wrapping ErrSparse and
// pursuit.ErrShape, without writing dst; the suite then checks that and
// nothing else.

// sparseMat is a sparse row view and its dense twin (the reference's rows).
type sparseMat struct {
	m, dense pursuit.Matrix
}

// newSparse returns a rows×cols sparse view, row i of kind (i+shift) mod 5.
func newSparse(rng *rand.Rand, rows, cols, shift int) sparseMat {
	dense := pursuit.NewMatrix(rows, cols)
	// one guard row before and after the view, its values NaN
	offsets := []int64{0}
	var indices []int32
	var values []float32
	guardRow := func() {
		for c := 0; c < min(cols, 3); c++ {
			indices = append(indices, int32(c))
			values = append(values, guard32)
		}
		offsets = append(offsets, int64(len(indices)))
	}
	guardRow()
	for i := range rows {
		if cols > 0 {
			var keep func(c int) bool
			switch (i + shift) % 5 {
			case 0: // empty
				keep = func(int) bool { return false }
			case 1: // one non-zero
				one := rng.IntN(cols)
				keep = func(c int) bool { return c == one }
			case 2:
				keep = func(int) bool { return rng.Float64() < 0.3 }
			case 3: // the last columns only
				keep = func(c int) bool { return 4*c >= 3*cols && rng.Float64() < 0.7 }
			default: // the first columns only
				keep = func(c int) bool { return 4*c < cols && rng.Float64() < 0.7 }
			}
			for c := range cols {
				if keep(c) {
					v := float32(2*rng.Float64() - 1)
					indices = append(indices, int32(c))
					values = append(values, v)
					dense.Set(i, c, v)
				}
			}
		}
		offsets = append(offsets, int64(len(indices)))
	}
	guardRow()
	full, err := pursuit.SparseFrom(rows+2, cols, offsets, indices, values)
	if err != nil {
		panic(err) // the suite's own construction
	}
	return sparseMat{m: full.Slice(1, rows+1, 0, cols), dense: dense}
}

// sparseOperand is one operand of a sparse case: the matrix a backend
// gets and the dense rows the reference reads.
type sparseOperand struct {
	name     string
	m, dense pursuit.Matrix
}

func operand(rng *rand.Rand, sparse bool, rows, cols, shift int) sparseOperand {
	if sparse {
		s := newSparse(rng, rows, cols, shift)
		return sparseOperand{"sparse", s.m, s.dense}
	}
	v := newView(rows, cols, layouts[1], uniform(rng, -1, 1))
	return sparseOperand{"dense", v.m, v.m}
}

// isSparseRejection reports whether err is a backend's refusal of sparse
// operands.
func isSparseRejection(err error) bool {
	return errors.Is(err, backend.ErrSparse) && errors.Is(err, pursuit.ErrShape)
}

func testSparse(t testing.TB, be backend.Backend) {
	rng := rand.New(rand.NewPCG(21, 22))
	probe := newSparse(rng, 3, 5, 1)
	if err := callErr(func() error { return be.SqNorms(make([]float32, 3), probe.m) }); isSparseRejection(err) {
		testSparseRejected(t, be, probe.m)
		return
	}
	testSparseNorms(t, be, rng)
	type sc struct{ n, m, d int }
	cases := []sc{{0, 5, 7}, {3, 0, 7}, {1, 1, 1}, {4, 6, 0}, {3, 13, 17}, {13, 7, 100}, {37, 41, 257}, {20, 70, 1000}, {9, 300, 33}}
	for ci, c := range cases {
		for _, pair := range [][2]bool{{true, true}, {true, false}, {false, true}} {
			a := operand(rng, pair[0], c.n, c.d, ci)
			b := operand(rng, pair[1], c.m, c.d, ci+2)
			if pair[0] && pair[1] && c.n > 2 && c.m > 2 {
				// an equal pair of rows: the RBF clamp must keep K ≤ 1
				b.m = sparseWithRow(b, a, 1, 2)
				b.dense = densify(b.m)
			}
			stats := statsGrid(a.dense, seq(c.n), b.dense)
			for ki, k := range kernels(c.d) {
				var an, bn []float32
				if k.Kind == pursuit.RBF && ki%2 == ci%2 {
					an, bn = norms(a.dense, 1), norms(b.dense, 2)
				}
				dst := newView(c.n, c.m, layouts[ci%2], nil)
				name := fmt.Sprintf("KernelBlock %s a %s %d×%d, b %s %d rows", k, a.name, c.n, c.d, b.name, c.m)
				if err := callErr(func() error { return be.KernelBlock(dst.m, k, a.m, an, b.m, bn) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkBlock(t, name, k, dst, stats)
			}
			if c.n == 0 {
				continue
			}
			// a gather with repeated rows, K(A[idx], B)
			idx := make([]int, 2*c.n+1)
			for r := range idx {
				idx[r] = rng.IntN(c.n)
			}
			idx[len(idx)-1] = idx[0]
			gstats := statsGrid(a.dense, idx, b.dense)
			for ki, k := range kernels(c.d) {
				var an []float32
				if k.Kind == pursuit.RBF && ki%2 == 0 {
					an = norms(a.dense, 1)
				}
				dst := newView(len(idx), c.m, layouts[1-ci%2], nil)
				name := fmt.Sprintf("KernelGather %s a %s %d×%d idx=%v, b %s %d rows", k, a.name, c.n, c.d, idx, b.name, c.m)
				if len(name) > 200 {
					name = name[:200] + "…"
				}
				if err := callErr(func() error { return be.KernelGather(dst.m, k, a.m, an, idx, b.m, nil) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkBlock(t, name, k, dst, gstats)
			}
		}
	}
	// K(X[idx], X) on a sparse X of rows of every kind.
	x := newSparse(rng, 60, 45, 0)
	idx := []int{59, 0, 7, 7, 20, 31, 1, 2, 3, 4}
	stats := statsGrid(x.dense, idx, x.dense)
	for _, k := range kernels(45) {
		dst := newView(len(idx), 60, layouts[1], nil)
		name := fmt.Sprintf("KernelGather %s K(X[idx],X) sparse", k)
		if err := callErr(func() error { return be.KernelGather(dst.m, k, x.m, nil, idx, x.m, nil) }); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBlock(t, name, k, dst, stats)
	}
	testSparseDenseOnly(t, be, x.m)
	testSparseInvalid(t, be)
	if p, ok := be.(backend.Preparer); ok {
		testSparsePrepared(t, be, p, rng)
	}
}

// sparseWithRow returns b's sparse view with row i replaced by a's row j
// (a dense copy rebuilt as CSR).
func sparseWithRow(b, a sparseOperand, i, j int) pursuit.Matrix {
	d := b.m.Cols
	offsets := []int64{0}
	var indices []int32
	var values []float32
	for r := range b.m.Rows {
		src, row := b.dense, r
		if r == i {
			src, row = a.dense, j
		}
		for c := range d {
			if v := src.At(row, c); v != 0 {
				indices = append(indices, int32(c))
				values = append(values, v)
			}
		}
		offsets = append(offsets, int64(len(indices)))
	}
	m, err := pursuit.SparseFrom(b.m.Rows, d, offsets, indices, values)
	if err != nil {
		panic(err)
	}
	return m
}

// densify returns the dense copy of m.
func densify(m pursuit.Matrix) pursuit.Matrix {
	out := pursuit.NewMatrix(m.Rows, m.Cols)
	for i := range m.Rows {
		m.RowTo(out.Row(i), i)
	}
	return out
}

func testSparseNorms(t testing.TB, be backend.Backend, rng *rand.Rand) {
	for _, sh := range [][2]int{{0, 5}, {7, 0}, {1, 1}, {13, 17}, {70, 1000}} {
		x := newSparse(rng, sh[0], sh[1], 3)
		dst := newGuardedF32(sh[0], 2)
		name := fmt.Sprintf("SqNorms sparse %d×%d", sh[0], sh[1])
		if err := callErr(func() error { return be.SqNorms(dst.s, x.m) }); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for i := range sh[0] {
			want, tol := refSqNorm(x.dense.Row(i))
			if got := float64(dst.s[i]); !within(got, want, tol) {
				t.Errorf("%s: row %d: got %v, want %v ± %.3g", name, i, got, want, tol)
				break
			}
		}
		if err := dst.checkGuards(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// testSparseDenseOnly checks that DictProducts and RankUpdate reject a
// sparse operand with an error wrapping pursuit.ErrShape.
func testSparseDenseOnly(t testing.TB, be backend.Backend, x pursuit.Matrix) {
	d := x.Cols
	vecs, dm := pursuit.NewMatrix(2, d), pursuit.NewMatrix(x.Rows, d)
	calls := map[string]func() error{
		"DictProducts sparse dict": func() error { return be.DictProducts(make([]float64, 2*x.Rows), x, vecs) },
		"DictProducts sparse vecs": func() error { return be.DictProducts(make([]float64, 2*x.Rows), dm, x.Slice(0, 2, 0, d)) },
		"RankUpdate sparse v": func() error {
			return be.RankUpdate(dm, -1, pursuit.NewMatrix(2, x.Rows), x.Slice(0, 2, 0, d))
		},
		"RankUpdate sparse d": func() error {
			return be.RankUpdate(x, -1, pursuit.NewMatrix(1, x.Rows), pursuit.NewMatrix(1, d))
		},
	}
	for name, call := range calls {
		err := callErr(call)
		switch {
		case err == nil:
			t.Errorf("%s: no error", name)
		case strings.HasPrefix(err.Error(), "panic"):
			t.Errorf("%s: %v", name, err)
		case !errors.Is(err, pursuit.ErrShape):
			t.Errorf("%s: error %q does not wrap pursuit.ErrShape", name, err)
		}
	}
}

// testSparsePrepared checks the Preparer methods with a sparse b (and a
// sparse or dense a) and with a dense prepared b and a sparse a: values
// against the reference, the same bits for a row in any gather, and blocks
// of 16 rows or more equal to the plain calls.
func testSparsePrepared(t testing.TB, be backend.Backend, p backend.Preparer, rng *rand.Rand) {
	for ci, sh := range [][3]int{{5, 1, 3}, {17, 40, 33}, {24, 130, 300}, {40, 257, 1500}} {
		n, m, d := sh[0], sh[1], sh[2]
		for _, pair := range [][2]bool{{true, true}, {false, true}, {true, false}} {
			a := operand(rng, pair[0], n, d, ci)
			b := operand(rng, pair[1], m, d, ci+1)
			h, err := p.Prepare(b.m)
			if err != nil {
				t.Errorf("Prepare %s %d×%d: %v", b.name, m, d, err)
				continue
			}
			checkPreparedNorms(t, fmt.Sprintf("Prepare %s %d×%d", b.name, m, d), h, b.dense)
			stats := statsGrid(a.dense, seq(n), b.dense)
			for ki, k := range kernels(d) {
				name := fmt.Sprintf("KernelBlockPrepared %s a %s %d, b %s %d×%d", k, a.name, n, b.name, m, d)
				dst := newView(n, m, layouts[ki%2], nil)
				if err := callErr(func() error { return p.KernelBlockPrepared(dst.m, k, a.m, nil, h) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkBlock(t, name, k, dst, stats)
				// A sparse b takes the same path prepared or not at any
				// number of rows (the CPU driver's column index gives the
				// streamed bits); a dense one from 16 rows.
				if n >= 16 || pair[1] {
					plain := newView(n, m, layouts[0], nil)
					if err := be.KernelBlock(plain.m, k, a.m, nil, b.m, h.Norms()); err != nil {
						t.Errorf("%s: plain call: %v", name, err)
						continue
					}
					sameBits(t, name, dst.m, plain.m)
				}
			}
			if !pair[0] || !pair[1] || m == 0 {
				_ = h.Release()
				continue
			}
			// The SMO pattern on a sparse X: gathers of rows of b itself.
			for call, r := range []int{1, 5, 16} {
				idx := make([]int, r)
				for i := range idx {
					idx[i] = rng.IntN(m)
				}
				k := kernels(d)[(call*2+ci)%5]
				name := fmt.Sprintf("KernelGatherPrepared %s K(B[idx],B) sparse m=%d d=%d idx=%v", k, m, d, idx)
				if len(name) > 200 {
					name = name[:200] + "…"
				}
				dst := newView(r, m, layouts[call%2], nil)
				if err := callErr(func() error { return p.KernelGatherPrepared(dst.m, k, b.m, nil, idx, h) }); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkBlock(t, name, k, dst, statsGrid(b.dense, idx, b.dense))
				checkRowInvariance(t, name, p, k, b.m, nil, idx, h, dst.m, rng)
				{
					plain := newView(r, m, layouts[0], nil)
					if err := be.KernelGather(plain.m, k, b.m, nil, idx, b.m, h.Norms()); err != nil {
						t.Errorf("%s: plain call: %v", name, err)
						continue
					}
					sameBits(t, name, dst.m, plain.m)
				}
			}
			_ = h.Release()
		}
	}
}

// testSparseRejected checks a backend without sparse operands: every
// kernel operation with one fails with an error wrapping backend.ErrSparse
// and pursuit.ErrShape and leaves dst alone.
func testSparseRejected(t testing.TB, be backend.Backend, x pursuit.Matrix) {
	t.Logf("%s does not take sparse operands (backend.ErrSparse): checking that it rejects them", be.Name())
	d := x.Cols
	dense := pursuit.NewMatrix(x.Rows, d)
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.5}
	dst := pursuit.NewMatrix(x.Rows, x.Rows)
	calls := map[string]func() error{
		"SqNorms":              func() error { return be.SqNorms(make([]float32, x.Rows), x) },
		"KernelBlock sparse a": func() error { return be.KernelBlock(dst, rbf, x, nil, dense, nil) },
		"KernelBlock sparse b": func() error { return be.KernelBlock(dst, rbf, dense, nil, x, nil) },
		"KernelGather sparse":  func() error { return be.KernelGather(dst, rbf, x, nil, []int{0, 2, 2}, x, nil) },
	}
	if p, ok := be.(backend.Preparer); ok {
		calls["Prepare sparse"] = func() error {
			h, err := p.Prepare(x)
			if err == nil {
				_ = h.Release()
			}
			return err
		}
		if h, err := p.Prepare(dense); err == nil {
			defer h.Release()
			calls["KernelGatherPrepared sparse a"] = func() error { return p.KernelGatherPrepared(dst, rbf, x, nil, []int{0, 1, 2}, h) }
			calls["KernelBlockPrepared sparse a"] = func() error { return p.KernelBlockPrepared(dst, rbf, x, nil, h) }
		}
	}
	for name, call := range calls {
		for i := range dst.Data {
			dst.Data[i] = float32(math.Pi)
		}
		err := callErr(call)
		if !isSparseRejection(err) {
			t.Errorf("%s: got %v, want an error wrapping backend.ErrSparse and pursuit.ErrShape", name, err)
		}
		for i, v := range dst.Data {
			if v != float32(math.Pi) {
				t.Errorf("%s: wrote dst.Data[%d] = %v before failing", name, i, v)
				break
			}
		}
	}
}

// testSparseInvalid checks that malformed sparse operands give errors
// wrapping pursuit.ErrShape, not panics or reads out of range: a gathered
// row whose columns decrease or leave [0, Cols), offsets past the arrays.
func testSparseInvalid(t testing.TB, be backend.Backend) {
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.5}
	good := pursuit.Matrix{Rows: 2, Cols: 4, Sparse: &pursuit.CSR{Offsets: []int64{0, 1, 2}, Indices: []int32{0, 3}, Values: []float32{1, 1}}}
	bad := map[string]pursuit.Matrix{
		"columns decrease": {Rows: 2, Cols: 4, Sparse: &pursuit.CSR{Offsets: []int64{0, 1, 3}, Indices: []int32{0, 3, 1}, Values: []float32{1, 1, 1}}},
		"column ≥ Cols":    {Rows: 2, Cols: 4, Sparse: &pursuit.CSR{Offsets: []int64{0, 1, 2}, Indices: []int32{0, 9}, Values: []float32{1, 1}}},
		"column < 0":       {Rows: 2, Cols: 4, Sparse: &pursuit.CSR{Offsets: []int64{0, 1, 2}, Indices: []int32{0, -1}, Values: []float32{1, 1}}},
		"offsets past end": {Rows: 2, Cols: 4, Sparse: &pursuit.CSR{Offsets: []int64{0, 1, 5}, Indices: []int32{0, 3}, Values: []float32{1, 1}}},
		"short offsets":    {Rows: 2, Cols: 4, Sparse: &pursuit.CSR{Offsets: []int64{0, 1}, Indices: []int32{0, 3}, Values: []float32{1, 1}}},
	}
	for name, m := range bad {
		calls := map[string]func() error{
			"KernelGather a": func() error { return be.KernelGather(pursuit.NewMatrix(1, 2), rbf, m, nil, []int{1}, good, nil) },
			"KernelGather b": func() error { return be.KernelGather(pursuit.NewMatrix(1, 2), rbf, good, nil, []int{1}, m, nil) },
			"KernelBlock a":  func() error { return be.KernelBlock(pursuit.NewMatrix(2, 2), rbf, m, nil, good, nil) },
			"SqNorms":        func() error { return be.SqNorms(make([]float32, 2), m) },
		}
		if p, ok := be.(backend.Preparer); ok {
			calls["Prepare"] = func() error {
				h, err := p.Prepare(m)
				if err == nil {
					_ = h.Release()
				}
				return err
			}
			calls["KernelGatherPrepared a"] = func() error {
				h, err := p.Prepare(good)
				if err != nil {
					return nil // reported by the other cases
				}
				defer h.Release()
				return p.KernelGatherPrepared(pursuit.NewMatrix(1, 2), rbf, m, nil, []int{1}, h)
			}
		}
		for call, f := range calls {
			err := callErr(f)
			switch {
			case err == nil:
				t.Errorf("%s with %s: no error", call, name)
			case strings.HasPrefix(err.Error(), "panic"):
				t.Errorf("%s with %s: %v", call, name, err)
			case !errors.Is(err, pursuit.ErrShape):
				t.Errorf("%s with %s: error %q does not wrap pursuit.ErrShape", call, name, err)
			}
		}
	}
}
