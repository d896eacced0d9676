package enginetest

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
)

// Vectors checks the engine's float64 vectors (engine.NewVectors and the
// operations on them, backend.ResidentVectors on a backend that has it, the
// engine's host fallback otherwise) against a float64 reference computed on
// the host from the block's values, on shapes that do not fill a device's
// blocks evenly, and checks that bad rows and released handles give errors
// wrapping pursuit.ErrShape and backend.ErrPrepared.
func Vectors(t *testing.T, e *engine.Engine) {
	t.Helper()
	for _, sh := range []struct{ l, d, nb, nv int }{{1, 1, 1, 2}, {37, 3, 5, 4}, {1000, 7, 23, 9}, {5003, 4, 59, 12}} {
		checkVectors(t, e, sh.l, sh.d, sh.nb, sh.nv)
	}
	checkVectorErrors(t, e)
}

// near reports whether got is within a float64 rounding bound of want,
// whose terms have absolute sum mag over n terms.
func near(got, want, mag float64, n int) bool {
	return math.Abs(got-want) <= 4*float64(n+1)*0x1p-52*mag+1e-300
}

func checkVectors(t *testing.T, e *engine.Engine, l, d, nb, nv int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(l), uint64(nv)))
	x := pursuit.NewMatrix(l, d)
	for i := range x.Data {
		x.Data[i] = float32(2*rng.Float64() - 1)
	}
	p, err := e.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	idx := make([]int, nb)
	for i := range idx {
		idx[i] = rng.IntN(l)
	}
	blk, err := e.GatherBlock(nil, pursuit.NewRBF(0.5), x, p.Norms(), idx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Release()
	bm := pursuit.NewMatrix(nb, l)
	if err := e.BlockRows(bm, blk, 0); err != nil {
		t.Fatal(err)
	}
	vs, err := e.NewVectors(nv, l)
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Release()
	if vs.Rows() != nv || vs.Cols() != l || vs.Resident() != e.ResidentVectors() {
		t.Fatalf("NewVectors(%d, %d): %d×%d, resident %v (engine: %v)", nv, l, vs.Rows(), vs.Cols(), vs.Resident(), e.ResidentVectors())
	}
	ref := make([]float64, nv*l)
	for i := range ref {
		ref[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
	}
	// Written in two pieces, read back whole and in part.
	split := (nv / 2) * l
	if err := e.WriteVectors(vs, 0, ref[:split]); err != nil {
		t.Fatal(err)
	}
	if err := e.WriteVectors(vs, nv/2, ref[split:]); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, nv*l)
	if err := e.ReadVectors(got, vs, 0); err != nil {
		t.Fatal(err)
	}
	for i := range ref {
		if got[i] != ref[i] {
			t.Fatalf("l=%d: element %d read back as %v, wrote %v", l, i, got[i], ref[i])
		}
	}
	row := func(r int) []float64 { return ref[r*l : (r+1)*l] }

	// Block products with rows 1…nv−1.
	prod := make([]float64, nb*(nv-1))
	if err := e.BlockVectorProducts(prod, blk, vs, 1, nv); err != nil {
		t.Fatal(err)
	}
	for j := 1; j < nv; j++ {
		for i := range nb {
			var s, mag float64
			for c, v := range row(j) {
				s += float64(bm.At(i, c)) * v
				mag += math.Abs(float64(bm.At(i, c)) * v)
			}
			if g := prod[(j-1)*nb+i]; !near(g, s, mag, l) {
				t.Fatalf("l=%d: ⟨block_%d, v_%d⟩ = %v, float64 reference %v", l, i, j, g, s)
			}
		}
	}
	// Float64 norms of the block's rows.
	n64 := make([]float64, nb)
	if err := e.BlockSqNorms64(n64, blk); err != nil {
		t.Fatal(err)
	}
	for i := range nb {
		var s float64
		for _, v := range bm.Row(i) {
			s += float64(v) * float64(v)
		}
		if !near(n64[i], s, s, l) {
			t.Fatalf("l=%d: ‖block_%d‖² = %v, float64 reference %v", l, i, n64[i], s)
		}
	}
	// Dots of rows 0…nv−2 with the last row.
	dots := make([]float64, nv-1)
	if err := e.VectorDots(dots, vs, 0, nv-1, vs, nv-1); err != nil {
		t.Fatal(err)
	}
	for i := range nv - 1 {
		var s, mag float64
		for c, v := range row(i) {
			s += v * row(nv - 1)[c]
			mag += math.Abs(v * row(nv - 1)[c])
		}
		if !near(dots[i], s, mag, l) {
			t.Fatalf("l=%d: ⟨v_%d, v_%d⟩ = %v, float64 reference %v", l, i, nv-1, dots[i], s)
		}
	}
	// y_0 ← β y_0 + Σ coef_i v_i over all rows (y among them), then β = 0
	// into the last row.
	for _, beta := range []float64{0.75, 0} {
		ry := 0
		if beta == 0 {
			ry = nv - 1
		}
		coef := make([]float64, nv)
		for i := range coef {
			coef[i] = rng.NormFloat64()
		}
		want := make([]float64, l)
		mags := make([]float64, l)
		for c := range want {
			if beta != 0 {
				want[c] = beta * row(ry)[c]
				mags[c] = math.Abs(want[c])
			}
			for i, w := range coef {
				want[c] += w * row(i)[c]
				mags[c] += math.Abs(w * row(i)[c])
			}
		}
		if beta == 0 {
			// The old contents must not matter, NaN included.
			nan := make([]float64, l)
			for c := range nan {
				nan[c] = math.NaN()
			}
			if err := e.WriteVectors(vs, ry, nan); err != nil {
				t.Fatal(err)
			}
			coef[ry] = 0 // and y is not among the terms
			want, mags = make([]float64, l), make([]float64, l)
			for c := range want {
				for i, w := range coef[:ry] {
					want[c] += w * row(i)[c]
					mags[c] += math.Abs(w * row(i)[c])
				}
			}
			coef = coef[:ry]
		}
		if err := e.CombineVectors(vs, ry, beta, coef, vs, 0); err != nil {
			t.Fatal(err)
		}
		if err := e.ReadVectors(row(ry), vs, ry); err != nil {
			t.Fatal(err)
		}
		for c := range want {
			if !near(row(ry)[c], want[c], mags[c], nv) {
				t.Fatalf("l=%d β=%v: combined element %d = %v, float64 reference %v", l, beta, c, row(ry)[c], want[c])
			}
		}
	}
	// A block row into a vector, exactly.
	br := nb - 1
	if err := e.CopyBlockRow(vs, 1%nv, blk, br); err != nil {
		t.Fatal(err)
	}
	if err := e.ReadVectors(got[:l], vs, 1%nv); err != nil {
		t.Fatal(err)
	}
	for c := range l {
		if got[c] != float64(bm.At(br, c)) {
			t.Fatalf("l=%d: block row %d element %d copied as %v, want %v", l, br, c, got[c], bm.At(br, c))
		}
	}
	copy(row(1%nv), got[:l])
	// Sign mismatches, with zeros and a NaN planted.
	a, b := make([]float64, l), make([]float64, l)
	for c := range l {
		a[c], b[c] = float64(1-2*rng.IntN(2)), rng.NormFloat64()
		switch rng.IntN(10) {
		case 0:
			b[c] = 0
		case 1:
			b[c] = math.NaN()
		}
	}
	want := 0
	for c := range l {
		if !(a[c]*b[c] > 0) {
			want++
		}
	}
	if err := e.WriteVectors(vs, 0, a); err != nil {
		t.Fatal(err)
	}
	if err := e.WriteVectors(vs, nv-1, b); err != nil {
		t.Fatal(err)
	}
	n, err := e.SignMismatches(vs, 0, vs, nv-1)
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("l=%d: %d sign mismatches, want %d", l, n, want)
	}
}

func checkVectorErrors(t *testing.T, e *engine.Engine) {
	t.Helper()
	const l = 64
	x := pursuit.NewMatrix(l, 2)
	p, err := e.Prepare(x)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	blk, err := e.GatherBlock(nil, pursuit.NewLinear(), x, p.Norms(), []int{0, 1}, p)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Release()
	vs, err := e.NewVectors(3, l)
	if err != nil {
		t.Fatal(err)
	}
	short, err := e.NewVectors(1, l-1)
	if err != nil {
		t.Fatal(err)
	}
	defer short.Release()
	buf := make([]float64, 4*l)
	_, mis := e.SignMismatches(vs, 0, short, 0)
	shape := map[string]error{
		"write past the last row":    e.WriteVectors(vs, 2, buf[:2*l]),
		"write a partial row":        e.WriteVectors(vs, 0, buf[:l+1]),
		"read past the last row":     e.ReadVectors(buf[:2*l], vs, 2),
		"products past the rows":     e.BlockVectorProducts(buf, blk, vs, 1, 4),
		"products of other length":   e.BlockVectorProducts(buf, blk, short, 0, 1),
		"products into a short dst":  e.BlockVectorProducts(buf[:3], blk, vs, 0, 2),
		"norms into a short dst":     e.BlockSqNorms64(buf[:1], blk),
		"dots of other length":       e.VectorDots(buf, vs, 0, 1, short, 0),
		"dots past the rows":         e.VectorDots(buf, vs, 2, 4, vs, 0),
		"combine past the rows":      e.CombineVectors(vs, 0, 0, []float64{1, 1, 1}, vs, 1),
		"combine of other length":    e.CombineVectors(short, 0, 0, []float64{1}, vs, 0),
		"copy a row past the block":  e.CopyBlockRow(vs, 0, blk, 2),
		"copy into another length":   e.CopyBlockRow(short, 0, blk, 0),
		"mismatches of other length": mis,
	}
	for name, err := range shape {
		if !errors.Is(err, pursuit.ErrShape) {
			t.Errorf("%s: error %v, want one wrapping ErrShape", name, err)
		}
	}
	if err := vs.Release(); err != nil {
		t.Fatal(err)
	}
	if err := vs.Release(); err != nil {
		t.Errorf("releasing twice: %v", err)
	}
	_, mis = e.SignMismatches(vs, 0, vs, 1)
	for name, err := range map[string]error{
		"write":      e.WriteVectors(vs, 0, buf[:l]),
		"read":       e.ReadVectors(buf[:l], vs, 0),
		"products":   e.BlockVectorProducts(buf, blk, vs, 0, 1),
		"dots":       e.VectorDots(buf, vs, 0, 1, vs, 1),
		"combine":    e.CombineVectors(vs, 0, 0, []float64{1}, vs, 1),
		"copy":       e.CopyBlockRow(vs, 0, blk, 0),
		"mismatches": mis,
	} {
		if !errors.Is(err, backend.ErrPrepared) {
			t.Errorf("%s on released vectors: error %v, want one wrapping ErrPrepared", name, err)
		}
	}
}
