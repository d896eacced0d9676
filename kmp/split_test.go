package kmp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// TestScanSplitSameBits: a host stream's scan with the residual's hi/lo
// pair made a chunk at a time (basic MP's scanSplit) gives the products and
// norms of the scan with the whole pair, bit for bit, over several chunks
// and a last short one; and row64, which computes an atom a slice of the
// points at a time, gives the values of the whole row computed at once.
func TestScanSplitSameBits(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	const l, d, s = 9000, 3, 1000
	rng := rand.New(rand.NewPCG(8, 9))
	x := uniformPoints(rng, l, d)
	cfg := Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(0.7)}, N: 5, Stochastic: &Stochastic{ActiveSet: s}}
	tr := resolvedTrainSet(t, e, &cfg, x)
	dc, err := newDictionary(e, &cfg, &dictionary{atoms: everyPoint(&cfg, l), tr: tr})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dc.release(e) }()
	st := dc.stream
	if st == nil || st.resident || st.chunk >= l || l%st.chunk == 0 {
		t.Fatalf("want a host stream in several chunks and a short last one, got chunk %d of %d points", st.chunk, l)
	}
	r := make([]float64, l)
	for i := range r {
		r[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
	}
	pair := pursuit.NewAlignedMatrix(2, l)
	splitHiLo(r, pair.Row(0), pair.Row(1))
	cand := newSampler(dc.atoms.len(), 3, 0).next(s)
	type got struct{ prod, nrm []float64 }
	collect := func(scan func(each func(b0, nb int, prod, nrm []float64)) error) got {
		var g got
		if err := scan(func(_, _ int, prod, nrm []float64) {
			g.prod = append(g.prod, prod...)
			g.nrm = append(g.nrm, nrm...)
		}); err != nil {
			t.Fatal(err)
		}
		return g
	}
	want := collect(func(each func(b0, nb int, prod, nrm []float64)) error { return st.scan(dc, cand, pair, true, each) })
	have := collect(func(each func(b0, nb int, prod, nrm []float64)) error { return st.scanSplit(dc, cand, r, true, each) })
	if len(have.prod) != 2*s || len(have.prod) != len(want.prod) || len(have.nrm) != len(want.nrm) {
		t.Fatalf("%d products and %d norms, want %d and %d", len(have.prod), len(have.nrm), len(want.prod), len(want.nrm))
	}
	for i := range want.prod {
		if math.Float64bits(have.prod[i]) != math.Float64bits(want.prod[i]) {
			t.Fatalf("product %d: %v split a chunk at a time, %v with the whole pair", i, have.prod[i], want.prod[i])
		}
	}
	for i := range want.nrm {
		if have.nrm[i] != want.nrm[i] {
			t.Fatalf("norm %d: %v, %v", i, have.nrm[i], want.nrm[i])
		}
	}
	whole := pursuit.NewMatrix(1, l)
	for _, k := range cand[:5] {
		if err := dc.fill(e, &cfg, []atom{dc.atoms.at(k)}, tr, whole, []int{0}); err != nil {
			t.Fatal(err)
		}
		var scratch pursuit.Matrix
		row := make([]float64, l)
		if err := st.row64(dc, k, row, &scratch); err != nil {
			t.Fatal(err)
		}
		if scratch.Cols >= l {
			t.Fatalf("row64's scratch holds %d points of %d: want a slice", scratch.Cols, l)
		}
		for j, v := range whole.Row(0) {
			if row[j] != float64(v) {
				t.Fatalf("atom %d at point %d: %v a slice at a time, %v at once", k, j, row[j], v)
			}
		}
	}
}
