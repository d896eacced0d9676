package kmp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
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
	x := uniformPoints(rng, l, d)
	cfg := Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(0.7), pursuit.NewPoly(0.3, 1, 2)}, Bias: true, N: 5, Stochastic: &Stochastic{ActiveSet: s}}
	tr := resolvedTrainSet(t, e, &cfg, x)
	atoms := dictAtoms(&cfg, chooseCandidates(l, 0, 1))
	chunked, err := newDictionary(e, &cfg, &dictionary{atoms: listed(atoms), tr: tr})
	if err != nil {
		t.Fatal(err)
	}
	resident, err := newDictionary(e, &cfg, &dictionary{atoms: listed(atoms), tr: tr})
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

	vecs := pursuit.NewMatrix(3, l)
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
			var scratch pursuit.Matrix
			if err := chunked.stream.row64(chunked, k, a, &scratch); err != nil {
				t.Fatal(err)
			}
			if err := st.row64(resident, k, b, &scratch); err != nil {
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

// TestDeviceFitMatchesHost runs the squared-loss fitters of a stochastic
// search with their l-length vectors in engine.Vectors (deviceFit: the path
// a GPU takes, where they stay on the device) on the pure-Go backend, where
// the engine keeps them in host memory, and compares the atoms, the
// coefficients and the learning curve with the host fitter's. The
// dictionary has two kernels and the constant (a host atom among resident
// ones), the targets are a classification's and a regression's.
func TestDeviceFitMatchesHost(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	const l, d, s = 600, 4, 31
	rng := rand.New(rand.NewPCG(8, 9))
	x := uniformPoints(rng, l, d)
	ycls, yreg := make([]float64, l), make([]float64, l)
	for i := range l {
		yreg[i] = math.Sin(3*float64(x.At(i, 0))) + float64(x.At(i, 1)*x.At(i, 2)) + 0.1*rng.NormFloat64()
		ycls[i] = 1
		if yreg[i] < 0 {
			ycls[i] = -1
		}
	}
	norms, err := e.SqNorms(x)
	if err != nil {
		t.Fatal(err)
	}
	tr := trainSet{x: x, norms: norms}
	for _, v := range []Variant{Basic, BackFit, PreFit} {
		for _, task := range []Task{Classification, Regression} {
			y := ycls
			if task == Regression {
				y = yreg
			}
			cfg := Config{Task: task, Variant: v, Kernels: []pursuit.Kernel{pursuit.NewRBF(2), pursuit.NewPoly(0.5, 1, 2)}, Bias: true, N: 15, Seed: 4,
				Stochastic: &Stochastic{ActiveSet: s}}
			if err := cfg.resolve(); err != nil {
				t.Fatal(err)
			}
			atoms := dictAtoms(&cfg, chooseCandidates(l, 0, 1))
			name := fmt.Sprintf("%s %v", v, task)
			want, got := fitHostAndResident(t, name, e, &cfg, atoms, tr, y, StochasticSearch)
			for i, w := range want.curve {
				g := got.curve[i]
				// The resident scan's norms are float32 sums (BlockSqNorms),
				// the host's float64: basic MP's coefficients differ in the
				// 8th digit. The classification error counts exactly.
				errTol := 1e-6 * want.curve[0].TrainErr
				if task == Classification {
					errTol = 0
				}
				if math.Abs(g.Residual-w.Residual) > 1e-6*want.curve[0].Residual ||
					math.Abs(g.TrainLoss-w.TrainLoss) > 1e-6*want.curve[0].TrainLoss || math.Abs(g.TrainErr-w.TrainErr) > errTol {
					t.Errorf("%s: step %d: residual %v, loss %v, error %v with engine vectors; %v, %v, %v on the host",
						name, i+1, g.Residual, g.TrainLoss, g.TrainErr, w.Residual, w.TrainLoss, w.TrainErr)
				}
			}
		}
	}
}

// TestStreamedResidentMatchesHost trains a full search with its kernel
// blocks resident (the Streamed path a GPU takes even when the dictionary
// would fit in memory: every block of atoms gathered over all points
// against X prepared by the engine, reduced by engine.BlockProducts) on the
// pure-Go backend, where the engine keeps the blocks in host memory, and
// compares the atoms, the coefficients and the learning curve with the
// chunked host stream's, for every variant and a non-squared loss. The
// fitters keep their vectors on the host (a full search updates
// pre-fitting's deflated norms with the newest q alone).
func TestStreamedResidentMatchesHost(t *testing.T) {
	// 1 MB: the dictionary (1,201 functions × 600 points, 2.9 MB) streams.
	e, err := engine.New(engine.WithBackend("go"), engine.WithMemoryBudget(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	const l = 600
	tr, f := waveProblem(t, e, 10, l, 4)
	y := make([]float64, l)
	for i, v := range f {
		y[i] = 1
		if v < 0 {
			y[i] = -1
		}
	}
	for _, c := range []struct {
		v    Variant
		loss Loss
	}{{Basic, Squared}, {BackFit, Squared}, {PreFit, Squared}, {BackFit, Tanh}} {
		cfg := Config{Variant: c.v, Loss: c.loss, Kernels: []pursuit.Kernel{pursuit.NewRBF(2), pursuit.NewPoly(0.5, 1, 2)}, Bias: true, N: 15, Seed: 4}
		if err := cfg.resolve(); err != nil {
			t.Fatal(err)
		}
		atoms := dictAtoms(&cfg, chooseCandidates(l, 0, 1))
		name := fmt.Sprintf("%s %s", c.v, c.loss)
		want, got := fitHostAndResident(t, name, e, &cfg, atoms, tr, y, Streamed)
		for i, w := range want.curve {
			g := got.curve[i]
			if math.Abs(g.Residual-w.Residual) > 1e-6*want.curve[0].Residual || g.TrainErr != w.TrainErr {
				t.Errorf("%s: step %d: residual %v, error %v resident; %v, %v on the host", name, i+1, g.Residual, g.TrainErr, w.Residual, w.TrainErr)
			}
		}
	}
}

// TestResidentLockstepMatchesAlone trains three one-vs-rest outputs in
// lock-step on a full search with resident blocks (the go backend keeps
// them in host memory; the path is forced as above): the fitters run
// concurrently between passes and each pass gathers every block once for
// all of them. Each output must get exactly the atoms, coefficients and
// curve of its class trained alone on the same path (the fitters share the
// streamer: run under -race).
func TestResidentLockstepMatchesAlone(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"), engine.WithThreads(3), engine.WithMemoryBudget(1<<19))
	if err != nil {
		t.Fatal(err)
	}
	const l, d = 500, 3
	rng := rand.New(rand.NewPCG(12, 13))
	x := uniformPoints(rng, l, d)
	classes := make([]float64, l)
	for i := range l {
		classes[i] = float64(int(1.5 * (math.Sin(3*float64(x.At(i, 0)))*float64(x.At(i, 1)) + 1)))
	}
	norms, err := e.SqNorms(x)
	if err != nil {
		t.Fatal(err)
	}
	tr := trainSet{x: x, norms: norms}
	for _, v := range []Variant{PreFit, Basic} {
		cfg := Config{Variant: v, Task: Classification, Kernels: []pursuit.Kernel{pursuit.NewRBF(2)}, Bias: true, N: 12}
		if err := cfg.resolve(); err != nil {
			t.Fatal(err)
		}
		atoms := dictAtoms(&cfg, chooseCandidates(l, 0, 1))
		residentDict := func() *dictionary { return newTestDictionary(t, e, &cfg, atoms, tr, Streamed, true) }
		probs := make([]*problem, 3)
		alone := make([]*result, 3)
		for c := range probs {
			y := data.Signs(classes, float64(c))
			probs[c] = &problem{e: e, cfg: &cfg, y: y, output: c, n: l}
			dc := residentDict()
			if alone[c], err = (&problem{e: e, cfg: &cfg, dict: dc, y: y, output: c, n: l}).fit(); err != nil {
				t.Fatal(err)
			}
			if err := dc.release(e); err != nil {
				t.Fatal(err)
			}
		}
		dc := residentDict()
		ls := newLockstep(e, &cfg, dc, len(probs), l, l)
		if ls == nil {
			t.Fatal("no lock-step on a resident full search")
		}
		together := make([]*result, 3)
		for _, p := range probs {
			p.dict, p.batch = dc, ls
		}
		errs := ls.run(len(probs), func(o int) error {
			var err error
			together[o], err = probs[o].fit()
			return err
		}, nil)
		if err := errors.Join(append(errs, dc.release(e))...); err != nil {
			t.Fatal(err)
		}
		for c := range probs {
			a, b := alone[c], together[c]
			if !slices.Equal(a.atoms, b.atoms) || !slices.Equal(a.coef, b.coef) || len(a.curve) != len(b.curve) || len(a.atoms) < 5 {
				t.Fatalf("%s, class %d: atoms %v, coefficients %v in lock-step; %v, %v alone", v, c, b.atoms, b.coef, a.atoms, a.coef)
			}
			for i := range a.curve {
				a.curve[i].Elapsed, b.curve[i].Elapsed = 0, 0
				if fmt.Sprint(a.curve[i]) != fmt.Sprint(b.curve[i]) { // the validation fields are NaN
					t.Fatalf("%s, class %d, step %d: %+v in lock-step, %+v alone", v, c, i, b.curve[i], a.curve[i])
				}
			}
		}
	}
}

// resolvedTrainSet resolves cfg and returns the training points x with
// their squared norms, as training sets them up.
func resolvedTrainSet(t testing.TB, e *engine.Engine, cfg *Config, x pursuit.Matrix) trainSet {
	t.Helper()
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	norms, err := e.SqNorms(x)
	if err != nil {
		t.Fatal(err)
	}
	return trainSet{x: x, norms: norms}
}

// newTestDictionary builds the dictionary of atoms as training does,
// checks that it is held in mode on the host, and with resident set forces
// the path a GPU takes on it: X prepared by the engine, each run of atoms
// gathered over all points at once into a block the engine keeps.
func newTestDictionary(t *testing.T, e *engine.Engine, cfg *Config, atoms []atom, tr trainSet, mode Mode, resident bool) *dictionary {
	t.Helper()
	dc, err := newDictionary(e, cfg, &dictionary{atoms: listed(atoms), tr: tr})
	if err != nil {
		t.Fatal(err)
	}
	if dc.stream == nil || dc.stream.plan.Mode != mode || dc.stream.resident {
		t.Fatalf("the dictionary is not %v on the host: %+v", mode, dc.stream)
	}
	if resident {
		if dc.stream.tr.prep, err = e.Prepare(tr.x); err != nil {
			t.Fatal(err)
		}
		dc.stream.resident = true
	}
	return dc
}

// fitHostAndResident fits y on the dictionary of atoms (held in mode) on
// the host and on the resident path, checks that both choose the same
// atoms (at least 10), stop alike and get coefficients within 1e-6, and
// returns both results.
func fitHostAndResident(t *testing.T, name string, e *engine.Engine, cfg *Config, atoms []atom, tr trainSet, y []float64, mode Mode) (host, resident *result) {
	t.Helper()
	fit := func(resident bool) *result {
		dc := newTestDictionary(t, e, cfg, atoms, tr, mode, resident)
		defer dc.release(e)
		res, err := (&problem{e: e, cfg: cfg, dict: dc, y: y, n: tr.x.Rows}).fit()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want, got := fit(false), fit(true)
	if !slices.Equal(got.atoms, want.atoms) || got.stop != want.stop {
		t.Fatalf("%s: atoms %v (stop %v) resident, %v (stop %v) on the host", name, got.atoms, got.stop, want.atoms, want.stop)
	}
	if len(got.atoms) < 10 {
		t.Fatalf("%s: only %d atoms", name, len(got.atoms))
	}
	for i := range want.coef {
		if math.Abs(got.coef[i]-want.coef[i]) > 1e-6*(1+math.Abs(want.coef[i])) {
			t.Errorf("%s: coefficient %d: %v resident, %v on the host", name, i, got.coef[i], want.coef[i])
		}
	}
	return want, got
}

// uniformPoints returns l points drawn uniformly from [−1, 1]^d.
func uniformPoints(rng *rand.Rand, l, d int) pursuit.Matrix {
	x := pursuit.NewMatrix(l, d)
	for i := range x.Data {
		x.Data[i] = float32(2*rng.Float64() - 1)
	}
	return x
}

// TestKeptDictionaryGatheredOnce: a resident full search whose dictionary
// is one block (a GPU's plan when it fits keptDictBytes; forced here on the
// pure-Go backend, which keeps the block in host memory) gathers that block
// once and takes every later pass's products from it, choosing the atoms
// and coefficients of the host stream; with several blocks every pass
// gathers each of them again, and blocks that do not fit are halved.
func TestKeptDictionaryGatheredOnce(t *testing.T) {
	// 512 KB: the dictionary (401 functions × 400 points, 642 KB) streams;
	// the fits then run on an engine with room for the one-block plan's
	// block, which the pure-Go backend holds in host memory.
	small, err := engine.New(engine.WithBackend("go"), engine.WithMemoryBudget(1<<19))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	// 300 KB holds a block of 100 atoms (160 KB) but not of 200 (320 KB).
	tight, err := engine.New(engine.WithBackend("go"), engine.WithMemoryBudget(300<<10))
	if err != nil {
		t.Fatal(err)
	}
	const l = 400
	tr, y := waveProblem(t, e, 14, l, 3)
	for _, v := range []Variant{PreFit, BackFit, Basic} {
		cfg := Config{Variant: v, Kernels: []pursuit.Kernel{pursuit.NewRBF(2)}, Bias: true, N: 12}
		if err := cfg.resolve(); err != nil {
			t.Fatal(err)
		}
		atoms := dictAtoms(&cfg, chooseCandidates(l, 0, 1))
		fit := func(e *engine.Engine, resident bool, block int) (*result, *streamer) {
			dc := newTestDictionary(t, small, &cfg, atoms, tr, Streamed, false)
			defer dc.release(e)
			st := dc.stream
			st.e = e
			if resident {
				if st.tr.prep, err = e.Prepare(tr.x); err != nil {
					t.Fatal(err)
				}
				st.resident = true
			}
			if block > 0 {
				st.plan.Block, st.idx = block, make([]int, block)
			}
			res, err := (&problem{e: e, cfg: &cfg, dict: dc, y: y, n: l}).fit()
			if err != nil {
				t.Fatal(err)
			}
			return res, st
		}
		host, _ := fit(e, false, 0)
		kept, st := fit(e, true, len(atoms))
		gathered := st.gathered
		if !slices.Equal(kept.atoms, host.atoms) || len(kept.atoms) < 10 {
			t.Fatalf("%s: atoms %v from the kept block, %v on the host", v, kept.atoms, host.atoms)
		}
		for i, c := range host.coef {
			if math.Abs(kept.coef[i]-c) > 1e-6*(1+math.Abs(c)) {
				t.Errorf("%s: coefficient %d: %v from the kept block, %v on the host", v, i, kept.coef[i], c)
			}
		}
		if gathered != 1 {
			t.Errorf("%s: the one-block dictionary was gathered %d times in %d steps, want once", v, gathered, len(kept.atoms))
		}
		// In blocks of 100 atoms the 400 kernel atoms are gathered as 4
		// blocks at every pass.
		if _, st := fit(e, true, 100); st.gathered < 4*len(kept.atoms) {
			t.Errorf("%s: blocks of 100 atoms were gathered %d times in %d steps, want at least 4 a step", v, st.gathered, len(kept.atoms))
		}
		// Where the one block does not fit (a device whose memory went to
		// others since the plan), the blocks are halved until they do, and
		// the fit is the same.
		halved, st := fit(tight, true, len(atoms))
		if !slices.Equal(halved.atoms, host.atoms) || st.plan.Block != 100 {
			t.Errorf("%s: atoms %v in blocks of %d where the one block does not fit, %v on the host", v, halved.atoms, st.plan.Block, host.atoms)
		}
	}
}

// waveProblem returns l points drawn uniformly from [−1, 1]^d (seed seed)
// with their squared norms, and the noisy target sin(3x₀) + x₁x₂ + 0.1ε.
func waveProblem(t *testing.T, e *engine.Engine, seed uint64, l, d int) (trainSet, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	x := uniformPoints(rng, l, d)
	f := make([]float64, l)
	for i := range l {
		f[i] = math.Sin(3*float64(x.At(i, 0))) + float64(x.At(i, 1)*x.At(i, 2)) + 0.1*rng.NormFloat64()
	}
	norms, err := e.SqNorms(x)
	if err != nil {
		t.Fatal(err)
	}
	return trainSet{x: x, norms: norms}, f
}
