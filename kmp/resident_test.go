package kmp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
)

// TestScanResident runs the stochastic search's resident scan (the path a
// GPU takes: each run of atoms gathered over all points at once against X
// prepared by the engine, reduced by engine.BlockProducts and BlockSqNorms)
// on the pure-Go backend, where the engine keeps the blocks in host memory,
// and compares its products, norms and chosen rows with the chunked scan the
// CPU takes. The dictionary has two kernels and the constant, so a block
// holds several runs.
func TestScanResident(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	const l, d, s = 700, 5, 23
	rng := rand.New(rand.NewPCG(3, 4))
	x := backend.NewMatrix(l, d)
	for i := range x.Data {
		x.Data[i] = float32(2*rng.Float64() - 1)
	}
	cfg := Config{Kernels: []backend.Kernel{backend.NewRBF(0.7), backend.NewPoly(0.3, 1, 2)}, Bias: true, N: 5, Stochastic: &Stochastic{ActiveSet: s}}
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	norms, err := e.SqNorms(x)
	if err != nil {
		t.Fatal(err)
	}
	tr := trainSet{x: x, norms: norms}
	atoms := dictAtoms(&cfg, chooseCandidates(l, 0, 1))
	chunked, err := newDictionary(e, &cfg, &dictionary{atoms: atoms, tr: tr})
	if err != nil {
		t.Fatal(err)
	}
	resident, err := newDictionary(e, &cfg, &dictionary{atoms: atoms, tr: tr})
	if err != nil {
		t.Fatal(err)
	}
	st := resident.stream
	if st.resident {
		t.Fatal("the go backend took the resident path by itself")
	}
	if st.tr.prep, err = e.Prepare(x); err != nil {
		t.Fatal(err)
	}
	st.resident = true
	defer func() {
		if err := resident.release(e); err != nil {
			t.Error(err)
		}
	}()

	vecs := backend.NewMatrix(3, l)
	for i := range vecs.Data {
		vecs.Data[i] = float32(rng.NormFloat64())
	}
	smp := newSampler(len(atoms), 5, 0)
	for step := range 4 {
		cand := smp.next(s)
		if step == 3 {
			cand = []int{0, 1, l - 1, l, l + 1, 2*l - 1, 2 * l} // runs of both kernels and the constant
		}
		type got struct{ prod, nrm []float64 }
		collect := func(dc *dictionary) got {
			var g got
			if err := dc.stream.scan(dc, cand, vecs, true, func(_, _ int, prod, nrm []float64) {
				g.prod = append(g.prod, prod...)
				g.nrm = append(g.nrm, nrm...)
			}); err != nil {
				t.Fatal(err)
			}
			return g
		}
		want, have := collect(chunked), collect(resident)
		if len(have.prod) != len(want.prod) || len(have.nrm) != len(want.nrm) {
			t.Fatalf("step %d: %d products and %d norms, want %d and %d", step, len(have.prod), len(have.nrm), len(want.prod), len(want.nrm))
		}
		for i := range want.prod {
			if math.Abs(have.prod[i]-want.prod[i]) > 1e-5*(1+math.Abs(want.prod[i])) {
				t.Fatalf("step %d: product %d: %v, chunked scan %v", step, i, have.prod[i], want.prod[i])
			}
		}
		for i := range want.nrm {
			if math.Abs(have.nrm[i]-want.nrm[i]) > 1e-6*want.nrm[i] {
				t.Fatalf("step %d: norm %d: %v, chunked scan %v", step, i, have.nrm[i], want.nrm[i])
			}
		}
		// The first atoms are gathered again; the last ones (of the last
		// run of a kernel) are read from the resident block.
		for _, k := range append(cand[:2:2], cand[len(cand)-3:len(cand)-1]...) {
			a, b := make([]float64, l), make([]float64, l)
			if err := chunked.stream.row64(chunked, k, a); err != nil {
				t.Fatal(err)
			}
			if err := st.row64(resident, k, b); err != nil {
				t.Fatal(err)
			}
			for j := range a {
				if math.Abs(a[j]-b[j]) > 1e-6*(1+math.Abs(a[j])) {
					t.Fatalf("atom %d at point %d: %v through the prepared gather, %v", k, j, b[j], a[j])
				}
			}
		}
	}
	if st.blk == nil || st.blk.Resident() {
		t.Errorf("the go backend's block should be a host block, got %+v", st.blk)
	}
}
