//go:build cuda

package cuda_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/cuda"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

// End to end: stochastic KMP (Popovici, Bengio & Thiran: a random active set
// searched each step) as package kmp runs it, through the engine, on this
// backend and on the pure-Go backend. kmp names neither backend: on CUDA
// the engine prepares X on the device once and keeps each step's kernel
// block there (backend.Preparer, backend.ResidentBlock).

// skmpData is a two-class problem: the label is the sign of a smooth
// function of the first two features, with label noise.
func skmpData(l, d int, seed uint64) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := pursuit.NewMatrix(l, d)
	y := make([]float64, l)
	for i := range l {
		for j := range d {
			x.Set(i, j, float32(2*rng.Float64()-1))
		}
		f := math.Sin(3*float64(x.At(i, 0))) + float64(x.At(i, 1))
		y[i] = 1
		if f < 0 {
			y[i] = -1
		}
		if rng.Float64() < 0.05 {
			y[i] = -y[i]
		}
	}
	return x, y
}

func newEngine(t testing.TB, name string) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.WithBackend(name), engine.WithThreads(runtime.NumCPU()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// emulatedBackend opens the backend on the emulated driver of
// scripts/cuda-check.sh (closed when the test ends), for the tests that set
// its FAKECUDA_MAX_ALLOC; it skips on a real device.
func emulatedBackend(t *testing.T) *cuda.Backend {
	t.Helper()
	be, err := cuda.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close() })
	if !strings.Contains(be.Device(), "emulator") {
		t.Skipf("needs the emulated driver's allocation limit; device %s", be.Device())
	}
	return be
}

// traffic returns the bytes the engine's CUDA backend has copied each way.
func traffic(t testing.TB, e *engine.Engine) (up, down int64) {
	c, ok := e.Backend().(interface{ Traffic() (int64, int64) })
	if !ok {
		t.Fatalf("backend %s does not count its copies", e.BackendName())
	}
	return c.Traffic()
}

func TestStochasticKMPEndToEnd(t *testing.T) {
	const l, d, s, steps = 4000, 4, 59, 25
	x, y := skmpData(l, d, 1)
	cfg := kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{{Kind: pursuit.RBF, Gamma: 1}}, N: steps, Seed: 42}
	sc := kmp.Stochastic{ActiveSet: s}
	want, err := kmp.TrainStochastic(newEngine(t, "go"), x, y, cfg, sc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := kmp.TrainStochastic(newEngine(t, "cuda"), x, y, cfg, sc)
	if err != nil {
		t.Fatal(err)
	}
	wc, gc := want.Outputs[0].Curve, got.Outputs[0].Curve
	if len(wc) != steps || len(gc) != steps {
		t.Fatalf("%d steps on go, %d on cuda, want %d", len(wc), len(gc), steps)
	}
	// Pre-fitting projects y on a growing subspace: 25 RBF functions must
	// explain a good part of this y.
	if ny := math.Sqrt(float64(l)); !(wc[steps-1].Residual < 0.9*ny) {
		t.Fatalf("reference run did not fit: ‖y‖ = %v, residual %v after %d steps", ny, wc[steps-1].Residual, steps)
	}
	for i := range wc {
		if gc[i].Support != wc[i].Support {
			// Float32 norms on the device against float64 sums on the
			// host: a different choice is accepted only where the two
			// residuals agree (a near tie), and ends the comparison.
			if math.Abs(gc[i].Residual-wc[i].Residual) > 1e-4*wc[0].Residual {
				t.Fatalf("step %d: cuda chose point %d (residual %v), go %d (residual %v)", i, gc[i].Support, gc[i].Residual, wc[i].Support, wc[i].Residual)
			}
			t.Logf("step %d: near tie (%d vs %d); stopping the comparison", i, gc[i].Support, wc[i].Support)
			return
		}
		if math.Abs(gc[i].Residual-wc[i].Residual) > 1e-4*wc[0].Residual {
			t.Errorf("step %d: residual %v on cuda, %v on go", i, gc[i].Residual, wc[i].Residual)
		}
	}
	t.Logf("residual ‖R‖: %.4g after 1 step, %.4g after %d (same choices on cuda and go)", wc[0].Residual, wc[steps-1].Residual, steps)
}

// TestDeterministicKMPOnDevice: on CUDA a deterministic search keeps its
// dictionary on the device (kmp.Plan: one resident kernel block, gathered
// once) rather than in host memory, where every pass over it would cross
// the bus; explicit deflation
// keeps its copy in memory, and the stochastic search is resident as
// before. Trained with pre-fitting, it chooses what the pure-Go backend
// chooses (up to near ties of float32 norms), and no step moves a tenth of
// the dictionary's bytes.
func TestDeterministicKMPOnDevice(t *testing.T) {
	const l, d, steps = 2000, 4, 20
	x, y := skmpData(l, d, 3)
	e := newEngine(t, "cuda")
	kern := []pursuit.Kernel{{Kind: pursuit.RBF, Gamma: 1}}
	for _, c := range []struct {
		name     string
		cfg      kmp.Config
		mode     kmp.Mode
		resident bool
	}{
		{"pre-fitting", kmp.Config{Variant: kmp.PreFit, Kernels: kern, N: steps}, kmp.Streamed, true},
		{"explicit deflation", kmp.Config{Variant: kmp.PreFit, Kernels: kern, N: steps, Deflation: kmp.Explicit}, kmp.InMemory, false},
		{"stochastic", kmp.Config{Variant: kmp.PreFit, Kernels: kern, N: steps, Stochastic: &kmp.Stochastic{ActiveSet: 59}}, kmp.StochasticSearch, true},
	} {
		p, err := kmp.PlanTraining(e, l, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if p.Mode != c.mode || p.Resident != c.resident {
			t.Errorf("%s: plan %v (resident %v), want %v (resident %v): %v", c.name, p.Mode, p.Resident, c.mode, c.resident, p)
		}
		if c.mode == kmp.Streamed && p.Block < p.Atoms {
			t.Errorf("%s: the %d-byte dictionary is not kept on the device as one block: %v", c.name, p.DictBytes, p)
		}
	}
	dictBytes := int64(l+1) * l * 4
	var last [2]int64
	var worst int64
	cfg := kmp.Config{Variant: kmp.PreFit, Kernels: kern, N: steps, Seed: 1, Progress: func(st kmp.Step) {
		u, d := traffic(t, e)
		if st.Step > 1 {
			worst = max(worst, u-last[0]+d-last[1])
		}
		last = [2]int64{u, d}
	}}
	got, err := kmp.Train(e, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Progress = nil
	want, err := kmp.Train(newEngine(t, "go"), x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the most bytes a step moved: %d (the dictionary is %d)", worst, dictBytes)
	if worst > dictBytes/10 {
		t.Errorf("a step moved %d bytes over the bus: the dictionary (%d bytes) crosses it", worst, dictBytes)
	}
	wc, gc := want.Outputs[0].Curve, got.Outputs[0].Curve
	if len(wc) != steps || len(gc) != steps {
		t.Fatalf("%d steps on go, %d on cuda, want %d", len(wc), len(gc), steps)
	}
	for i := range wc {
		if math.Abs(gc[i].Residual-wc[i].Residual) > 1e-4*wc[0].Residual {
			t.Fatalf("step %d: residual %v on cuda (point %d), %v on go (point %d)", i, gc[i].Residual, gc[i].Support, wc[i].Residual, wc[i].Support)
		}
		if gc[i].Support != wc[i].Support {
			t.Logf("step %d: near tie (%d vs %d); stopping the comparison", i, gc[i].Support, wc[i].Support)
			return
		}
	}
}

// TestKeptDictionaryOutOfMemory: where the dictionary the plan keeps on the
// device cannot be allocated after all (memory taken by others since the
// plan), the allocation error wraps backend.ErrDeviceMemory and training
// halves the blocks until they fit, choosing what it chooses otherwise. It
// needs the emulated driver's FAKECUDA_MAX_ALLOC and skips on a real device.
func TestKeptDictionaryOutOfMemory(t *testing.T) {
	be := emulatedBackend(t)
	const l, d, steps = 1000, 4, 12
	x, y := skmpData(l, d, 6)
	cfg := kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{{Kind: pursuit.RBF, Gamma: 1}}, N: steps, Seed: 1}
	want, err := kmp.Train(newEngine(t, "cuda"), x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// 1.5 MB: the kept block (1,000 × 1,000, 4 MB) and halves of 2 MB fail,
	// quarters of 1 MB fit.
	t.Setenv("FAKECUDA_MAX_ALLOC", "1500000")
	if _, err := be.NewBlock(l, l); !errors.Is(err, backend.ErrDeviceMemory) {
		t.Fatalf("a 4 MB block under a 1.5 MB limit: %v, want an error wrapping ErrDeviceMemory", err)
	}
	e := newEngine(t, "cuda")
	if p, err := kmp.PlanTraining(e, l, cfg); err != nil || p.Block < p.Atoms {
		t.Fatalf("plan %v (%v): the dictionary is not kept", p, err)
	}
	got, err := kmp.Train(e, x, y, cfg)
	if err != nil {
		t.Fatalf("training where the kept block does not fit: %v", err)
	}
	if !slices.Equal(got.SupportIndex, want.SupportIndex) {
		t.Errorf("support %v in halved blocks, %v kept", got.SupportIndex, want.SupportIndex)
	}
}

// TestOneVsRestKMPOnDevice: one-vs-rest pre-fitting on CUDA trains its
// outputs in lock-step over the resident blocks (each block gathered once
// per step for every output), and each output chooses, step by step, the
// points and the residuals of a binary run of its class against the rest
// on CUDA.
func TestOneVsRestKMPOnDevice(t *testing.T) {
	const l, d, steps = 1500, 4, 12
	x, _ := skmpData(l, d, 4)
	y := make([]float64, l)
	for i := range l {
		y[i] = float64(int(3 * (math.Sin(3*float64(x.At(i, 0)))*float64(x.At(i, 1)) + 1) / 2))
	}
	e := newEngine(t, "cuda")
	var order []int
	cfg := kmp.Config{Variant: kmp.PreFit, Task: kmp.Classification, Kernels: []pursuit.Kernel{{Kind: pursuit.RBF, Gamma: 1}}, N: steps}
	ovrCfg := cfg
	ovrCfg.Progress = func(st kmp.Step) { order = append(order, st.Output) }
	ovr, err := kmp.TrainOneVsRest(e, x, y, ovrCfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ovr.Classes) != 3 {
		t.Fatalf("classes %v, want 3", ovr.Classes)
	}
	// Progress delivers each pass's steps output by output: in lock-step
	// the outputs alternate (0 1 2 0 1 2 …), one after another they do not.
	if len(order) < 6 || order[1] == order[0] {
		t.Errorf("steps by output %v: not trained in lock-step", order[:min(len(order), 9)])
	}
	for o, class := range ovr.Classes {
		yb := make([]float64, l)
		for i := range yb {
			yb[i] = -1
			if y[i] == class {
				yb[i] = 1
			}
		}
		bin, err := kmp.Train(e, x, yb, cfg)
		if err != nil {
			t.Fatal(err)
		}
		gc, wc := ovr.Outputs[o].Curve, bin.Outputs[0].Curve
		if len(gc) != len(wc) {
			t.Fatalf("class %v: %d steps one-vs-rest, %d alone", class, len(gc), len(wc))
		}
		for i := range wc {
			if gc[i].Support != wc[i].Support || gc[i].Residual != wc[i].Residual {
				t.Fatalf("class %v, step %d: point %d, residual %v one-vs-rest; %d, %v alone", class, i, gc[i].Support, gc[i].Residual, wc[i].Support, wc[i].Residual)
			}
		}
	}
}

// stepBytes trains stochastic KMP (variant v) at l points and returns the
// bytes each way of every step after the first, and those moved before the
// second step (X uploaded, the first step).
func stepBytes(t *testing.T, v kmp.Variant, l, s, steps int) (up, down []int64, before [2]int64) {
	e := newEngine(t, "cuda")
	x, y := skmpData(l, 2, 2)
	var last [2]int64
	cfg := kmp.Config{Variant: v, Kernels: []pursuit.Kernel{{Kind: pursuit.RBF, Gamma: 1}}, N: steps, Seed: 3,
		Progress: func(st kmp.Step) {
			u, d := traffic(t, e)
			if st.Step == 1 {
				before = [2]int64{u, d}
			} else {
				up, down = append(up, u-last[0]), append(down, d-last[1])
			}
			last = [2]int64{u, d}
		}}
	m, err := kmp.TrainStochastic(e, x, y, cfg, kmp.Stochastic{ActiveSet: s})
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Outputs[0].Curve; len(c) != steps {
		t.Fatalf("%v at l = %d: %d steps, want %d", v, l, len(c), steps)
	}
	return up, down, before
}

// TestStochasticKMPStepBytes counts the bytes a stochastic-KMP step moves
// over the bus for basic matching pursuit, back-fitting and pre-fitting at
// two sizes l. X is uploaded once (prepared, with its norms) before the
// first step; then the fitter's vectors (targets, residual, chosen kernel
// rows, orthonormal basis) stay on the device beside the kernel block, and
// a step moves the s sampled indices, the s candidates' products and norms,
// the n values of each projection pass and their coefficients and a few
// scalars: the same bytes at l = 20000 and 200000, step for step (about
// 2.5 minutes for the three variants under the CPU stand-in for libcuda on
// a loaded 2-core machine).
func TestStochasticKMPStepBytes(t *testing.T) {
	const s, steps = 59, 3
	sizes := []int{20000, 200000}
	for _, v := range []kmp.Variant{kmp.Basic, kmp.BackFit, kmp.PreFit} {
		t.Run(v.String(), func(t *testing.T) { checkStepBytes(t, v, sizes, s, steps) })
	}
}

// checkStepBytes measures variant v at the sizes and checks the counts.
func checkStepBytes(t *testing.T, v kmp.Variant, sizes []int, s, steps int) {
	// The bytes of each step after the first at each size (up, down).
	var perStep [][2][]int64
	for _, l := range sizes {
		up, down, before := stepBytes(t, v, l, s, steps)
		for i := range up {
			t.Logf("%-8v l = %6d, step %d: %5d bytes to the device, %5d back (before step 2: %d up, %d down)", v, l, i+2, up[i], down[i], before[0], before[1])
		}
		if x := int64(l * 2 * 4); before[0] < x || before[0] > x+int64(l)*4*4+1<<16 {
			t.Errorf("%v at l = %d: %d bytes uploaded before the second step; X is %d bytes, and the targets %d", v, l, before[0], x, 8*l)
		}
		for i := range up {
			// O(s + n): indices, products and norms of s candidates,
			// projection values and coefficients of n ≤ steps basis
			// vectors, a few scalars.
			if bound := int64(64*s + 256*steps); up[i]+down[i] > bound {
				t.Errorf("%v at l = %d, step %d: %d bytes, more than %d: l-length data crosses the bus", v, l, i+2, up[i]+down[i], bound)
			}
		}
		perStep = append(perStep, [2][]int64{up, down})
	}
	if len(perStep) == 2 && !(slices.Equal(perStep[0][0], perStep[1][0]) && slices.Equal(perStep[0][1], perStep[1][1])) {
		t.Errorf("%v: bytes per step (up, down) %v at l = %d and %v at l = %d differ", v, perStep[0], sizes[0], perStep[1], sizes[1])
	}
}

// BenchmarkStochasticKMP200k times stochastic-KMP steps at l = 200000
// (d = 64, s = 228, RBF, pre-fitting) through the engine on CUDA and on the
// pure-Go backend over all cores, and reports both and the speed-up. Run
// with -benchtime 1x.
func BenchmarkStochasticKMP200k(b *testing.B) {
	const l, d, s, steps = 200000, 64, 228, 10
	x, y := skmpData(l, d, 3)
	cfg := kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{{Kind: pursuit.RBF, Gamma: 1.0 / d}}, N: steps, Seed: 1}
	perStep := func(name string) time.Duration {
		m, err := kmp.TrainStochastic(newEngine(b, name), x, y, cfg, kmp.Stochastic{ActiveSet: s})
		if err != nil {
			b.Fatal(err)
		}
		c := m.Outputs[0].Curve
		return (c[len(c)-1].Elapsed - c[0].Elapsed) / time.Duration(len(c)-1)
	}
	var gpuStep, cpuStep time.Duration
	for b.Loop() {
		gpuStep, cpuStep = perStep("cuda"), perStep("go")
	}
	b.ReportMetric(float64(gpuStep.Microseconds())/1e3, "ms/step-cuda")
	b.ReportMetric(float64(cpuStep.Microseconds())/1e3, "ms/step-go")
	b.ReportMetric(float64(cpuStep)/float64(gpuStep), "speedup")
}

// TestSMORowBatchBytes counts the bytes of SMO kernel-row batches through
// svm's row source (X prepared once by the engine): each batch sends its
// indices and receives exactly the rows it returns.
func TestSMORowBatchBytes(t *testing.T) {
	const l, d, batch = 3000, 8, 16
	e := newEngine(t, "cuda")
	x, _ := skmpData(l, d, 4)
	k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.5}
	up0, down0 := traffic(t, e)
	rows, err := svm.NewEngineRows(e, x, k)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Release()
	up1, down1 := traffic(t, e)
	t.Logf("preparing X (%d×%d): %d bytes to the device, %d back", l, d, up1-up0, down1-down0)
	ref := backend.NewGo(0)
	rng := rand.New(rand.NewPCG(6, 6))
	for b := range 3 {
		idx := make([]int, batch)
		for i := range idx {
			idx[i] = rng.IntN(l)
		}
		dst := pursuit.NewMatrix(batch, l)
		u0, d0 := traffic(t, e)
		if err := rows.Rows(dst, idx); err != nil {
			t.Fatal(err)
		}
		u1, d1 := traffic(t, e)
		t.Logf("SMO batch %d of %d kernel rows at l = %d: %d bytes to the device, %d back (the rows: %d bytes)", b, batch, l, u1-u0, d1-d0, batch*l*4)
		if u1-u0 != 8*batch || d1-d0 != int64(4*batch*l) {
			t.Errorf("batch %d moved %d bytes up and %d down, want %d (indices) and %d (rows)", b, u1-u0, d1-d0, 8*batch, 4*batch*l)
		}
		want := pursuit.NewMatrix(batch, l)
		if err := ref.KernelGather(want, k, x, nil, idx, x, nil); err != nil {
			t.Fatal(err)
		}
		for i := range want.Data {
			if math.Abs(float64(dst.Data[i]-want.Data[i])) > 1e-5 {
				t.Fatalf("batch %d element %d: %v, go backend %v", b, i, dst.Data[i], want.Data[i])
			}
		}
	}
}

// TestAccurateRBFOnDevice (issue 29): the engine on this backend passes
// backendtest's accuracy case (unscaled and offset data, where float32
// distances cancel), and bpdn (C = ∞, ε = 2) on Boston-like unscaled data
// at γ = 1 keeps every training residual within ε(1 + 1e-6) on its float64
// path (bpdn trains on a float64 Gram matrix and its models predict in
// float64), its engine predictions (float32 kernel values, computed in
// float64 where they would cancel) equal to the go backend's to 1e-5
// relative.
func TestAccurateRBFOnDevice(t *testing.T) {
	dev, host := newEngine(t, "cuda"), newEngine(t, "go")
	backendtest.RunAccurate(t, dev)
	c := backendtest.OffsetCases()[0] // Boston-like: 13 features, 0.01 … 400
	x := c.A
	y := make([]float64, x.Rows)
	for i := range y {
		y[i] = 10 + 5*float64(i%7) + math.Sin(float64(x.At(i, 5)))
	}
	const eps = 2.0
	k := pursuit.NewRBF(1)
	var preds [2][]float64
	for n, e := range []*engine.Engine{dev, host} {
		m, sol, err := bpdn.Train(e, x, y, k, bpdn.Params{Epsilon: eps, C: math.Inf(1)})
		if err != nil {
			t.Fatal(err)
		}
		if len(sol.Support) < x.Rows/2 {
			t.Errorf("%s: %d support vectors of %d: the case tests little", e.BackendName(), len(sol.Support), x.Rows)
		}
		p, err := m.Predict(e, x)
		if err != nil {
			t.Fatal(err)
		}
		p64, err := m.Decision64(e, svm.Rows64Of(x))
		if err != nil {
			t.Fatal(err)
		}
		for i := range p64 {
			if r := math.Abs(p64[i] - y[i]); r > eps*(1+1e-6) {
				t.Errorf("%s: residual %d is %.9g, outside ε(1+1e-6)", e.BackendName(), i, r)
			}
		}
		preds[n] = p
	}
	for i := range preds[0] {
		if d := math.Abs(preds[0][i] - preds[1][i]); d > 1e-5*math.Abs(preds[1][i]) {
			t.Errorf("prediction %d: cuda %.9g, go %.9g", i, preds[0][i], preds[1][i])
		}
	}
}

// TestBatchedSVMOnDevice (issue 32): on this backend the batched
// working-set solver reaches SMO's dual objective to 1e-6 relative at
// tolerance 1e-6, and at the default tolerance keeps SMO's support vectors
// within ±0.5% and its test accuracy within ±0.1 point, on a generated
// covtype-like set small enough for the emulated driver; the batched
// model's objective also equals the go backend's to 1e-6.
func TestBatchedSVMOnDevice(t *testing.T) {
	dev, host := newEngine(t, "cuda"), newEngine(t, "go")
	d := data.CovtypeLike(900, 3)
	const l = 600
	xtr, ytr := d.X.Slice(0, l, 0, d.X.Cols), d.Y[:l]
	xte, yte := d.X.Slice(l, d.X.Rows, 0, d.X.Cols), d.Y[l:]
	train := func(e *engine.Engine, solver svm.SolverKind, tol float64) *svm.Model {
		t.Helper()
		m, err := svm.Train(e, xtr, ytr, svm.Params{Kernel: pursuit.NewRBF(0.5), C: 1, Solver: solver, Tol: tol})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Stats[0].Converged {
			t.Fatalf("%s, %v: not converged", e.BackendName(), solver)
		}
		return m
	}
	rel := func(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300) }
	ms, mb, mh := train(dev, svm.SolverSMO, 1e-6), train(dev, svm.SolverBatched, 1e-6), train(host, svm.SolverBatched, 1e-6)
	if r := rel(mb.Stats[0].Obj, ms.Stats[0].Obj); r > 1e-6 {
		t.Errorf("tolerance 1e-6: batched objective %.12g, SMO %.12g (rel %.2g)", mb.Stats[0].Obj, ms.Stats[0].Obj, r)
	}
	if r := rel(mb.Stats[0].Obj, mh.Stats[0].Obj); r > 1e-6 {
		t.Errorf("tolerance 1e-6: batched objective %.12g on the device, %.12g on the go backend (rel %.2g)", mb.Stats[0].Obj, mh.Stats[0].Obj, r)
	}
	if mb.Stats[0].OuterIter == 0 {
		t.Error("the batched model reports no outer iteration")
	}
	// Every subproblem ran on the device (smo_sub), none on the go backend.
	if d, o := mb.Stats[0].DeviceSubproblems, mb.Stats[0].OuterIter; d != o {
		t.Errorf("%d of %d subproblems solved on the device", d, o)
	}
	if d := mh.Stats[0].DeviceSubproblems; d != 0 {
		t.Errorf("the go backend reports %d subproblems solved on a device", d)
	}
	// The rows kept on the device (engine.NewSVMPool) and the rows brought
	// to the host (Params.HostRows) give the same model, bit for bit, for
	// C-SVC, for ε-SVR (two variables a point) and for C-SVC with instance
	// weights and Platt probabilities (whose cross-validation trains five
	// more machines).
	iw := make([]float64, len(ytr)) // instance weights
	for i := range iw {
		iw[i] = 0.5 + float64(i%4)/2
	}
	for _, p := range []svm.Params{
		{Kernel: pursuit.NewRBF(0.5), C: 1, Solver: svm.SolverBatched, Tol: 1e-6},
		{Type: svm.EpsilonSVR, Kernel: pursuit.NewRBF(0.5), C: 2, Epsilon: 0.1, Solver: svm.SolverBatched},
		{Kernel: pursuit.NewRBF(0.5), C: 1, Solver: svm.SolverBatched, InstanceWeights: iw, Probability: true, Seed: 3},
	} {
		hp := p
		hp.HostRows = true
		md, err := svm.Train(dev, xtr, ytr, p)
		if err != nil {
			t.Fatal(err)
		}
		mhr, err := svm.Train(dev, xtr, ytr, hp)
		if err != nil {
			t.Fatal(err)
		}
		if md.Stats[0].DeviceRows == 0 || mhr.Stats[0].DeviceRows != 0 {
			t.Errorf("%v: %d rows computed on the device with the pool, %d with HostRows (want some, then none)", p.Type, md.Stats[0].DeviceRows, mhr.Stats[0].DeviceRows)
		}
		if !reflect.DeepEqual(md.Coef, mhr.Coef) || !reflect.DeepEqual(md.Rho, mhr.Rho) || !reflect.DeepEqual(md.SVIndex, mhr.SVIndex) || md.Stats[0].Iter != mhr.Stats[0].Iter ||
			!reflect.DeepEqual(md.ProbA, mhr.ProbA) || !reflect.DeepEqual(md.ProbB, mhr.ProbB) {
			t.Errorf("%v: the device pool's model differs from the host rows' (%d SVs, %d iterations; host rows %d, %d)",
				p.Type, len(md.SVIndex), md.Stats[0].Iter, len(mhr.SVIndex), mhr.Stats[0].Iter)
			continue
		}
		t.Logf("%v (instance weights and Platt probabilities: %v): %d SVs, %d outer iterations, the same bits with the rows on the device and on the host", p.Type, p.Probability, len(md.SVIndex), md.Stats[0].OuterIter)
	}
	// Three classes with class weights, one-vs-one and one-vs-rest.
	y3 := slices.Clone(ytr)
	for i := range y3 {
		if xtr.At(i, 0) > 0.6 {
			y3[i] = 2
		}
	}
	p3 := svm.Params{Kernel: pursuit.NewRBF(0.5), C: 1, Solver: svm.SolverBatched, Weights: map[float64]float64{2: 1.5}}
	h3 := p3
	h3.HostRows = true
	for _, ovr := range []bool{false, true} {
		// The machines: one model with every pair, or one per class.
		train3 := func(p svm.Params) []*svm.Model {
			t.Helper()
			if ovr {
				m, err := svm.TrainOneVsRest(dev, xtr, y3, p)
				if err != nil {
					t.Fatal(err)
				}
				return m.Machines
			}
			m, err := svm.Train(dev, xtr, y3, p)
			if err != nil {
				t.Fatal(err)
			}
			return []*svm.Model{m}
		}
		md, mhr := train3(p3), train3(h3)
		rows, same := 0, len(md) == len(mhr)
		for i := range md {
			for _, st := range md[i].Stats {
				rows += st.DeviceRows
			}
			same = same && reflect.DeepEqual(md[i].Coef, mhr[i].Coef) && reflect.DeepEqual(md[i].Rho, mhr[i].Rho)
		}
		if rows == 0 || !same {
			t.Errorf("three classes, one-vs-rest %v: %d rows on the device; the same models with host rows: %v", ovr, rows, same)
		}
	}
	ms, mb = train(dev, svm.SolverSMO, 0), train(dev, svm.SolverBatched, 0)
	acc := func(m *svm.Model) float64 {
		p, err := m.Predict(dev, xte)
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for i := range p {
			if p[i] == yte[i] {
				ok++
			}
		}
		return 100 * float64(ok) / float64(len(p))
	}
	svS, svB, accS, accB := ms.TotalSV(), mb.TotalSV(), acc(ms), acc(mb)
	if math.Abs(float64(svB-svS)) > 0.005*float64(svS) {
		t.Errorf("%d support vectors, SMO %d (more than ±0.5%%)", svB, svS)
	}
	if math.Abs(accB-accS) > 0.1 {
		t.Errorf("test accuracy %.3f%%, SMO %.3f%% (more than ±0.1 point)", accB, accS)
	}
	t.Logf("batched on the device: %d SVs (SMO %d), accuracy %.2f%% (SMO %.2f%%), %d outer iterations, %d rows (SMO %d)",
		svB, svS, accB, accS, mb.Stats[0].OuterIter, mb.Stats[0].RowsComputed, ms.Stats[0].RowsComputed)
}

// TestFloat64PredictionsOnDevice (issue 29): predictions on the float64
// path (svm.Model.DecisionValues64, learn.Expansion64: `pursuit predict`'s
// default) give the same bits with the CUDA engine as with the go engine,
// for an SVM and a KMP expansion trained on the device; the float32 paths'
// differences are logged.
func TestFloat64PredictionsOnDevice(t *testing.T) {
	dev, host := newEngine(t, "cuda"), newEngine(t, "go")
	d := data.CovtypeLike(700, 5)
	xtr, ytr := d.X.Slice(0, 500, 0, d.X.Cols), d.Y[:500]
	xte := d.X.Slice(500, d.X.Rows, 0, d.X.Cols)
	k := pursuit.NewRBF(0.5)
	sm, err := svm.Train(dev, xtr, ytr, svm.Params{Kernel: k, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	km, err := kmp.Train(dev, xtr, ytr, kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{k}, N: 40})
	if err != nil {
		t.Fatal(err)
	}
	ex := &learn.Expansion64{Kernels: []pursuit.Kernel{k}, Vectors: km.Support, Coef: [][]float64{km.Outputs[0].Coef}, Bias: []float64{km.Outputs[0].Bias}}
	for _, c := range []struct {
		name     string
		f64, f32 func(e *engine.Engine) ([]float64, error)
	}{
		{"svm", func(e *engine.Engine) ([]float64, error) { return sm.DecisionValues64(e, xte) },
			func(e *engine.Engine) ([]float64, error) { return sm.Decision(e, xte) }},
		{"kmp", func(e *engine.Engine) ([]float64, error) {
			d, err := ex.Decision(e, xte)
			if err != nil {
				return nil, err
			}
			return d[0], nil
		}, func(e *engine.Engine) ([]float64, error) { return km.Decision(e, xte) }},
	} {
		a, err := c.f64(dev)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.f64(host)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s row %d: float64 decision %v on cuda, %v on go", c.name, i, a[i], b[i])
			}
		}
		a32, err := c.f32(dev)
		if err != nil {
			t.Fatal(err)
		}
		b32, err := c.f32(host)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for i := range a32 {
			worst = max(worst, math.Abs(a32[i]-b32[i]))
		}
		t.Logf("%s: float64 decisions equal on cuda and go (%d rows); float32 decisions differ by up to %.3g", c.name, len(a), worst)
	}
}

// TestBatchedSVMDeviceMemory (issue 32): where the batched solver's row
// pool does not fit the device beside X, training brings its rows to the
// host instead of failing, with the same model; where X itself does not
// fit, it streams through the device in slabs, with the same model again.
// It needs the emulated driver's FAKECUDA_MAX_ALLOC and skips on a real
// device.
func TestBatchedSVMDeviceMemory(t *testing.T) {
	emulatedBackend(t)
	d := data.CovtypeLike(600, 4)
	p := svm.Params{Kernel: pursuit.NewRBF(0.5), C: 1, Solver: svm.SolverBatched}
	want, err := svm.Train(newEngine(t, "cuda"), d.X, d.Y, p)
	if err != nil {
		t.Fatal(err)
	}
	if want.Stats[0].DeviceRows == 0 {
		t.Fatal("without a limit the rows did not stay on the device: the test tests nothing")
	}
	// 1 MB: X (130 KB) and the working set's scratch fit, the pool of 600
	// rows of 600 values (1.4 MB) does not.
	t.Setenv("FAKECUDA_MAX_ALLOC", "1000000")
	got, err := svm.Train(newEngine(t, "cuda"), d.X, d.Y, p)
	if err != nil {
		t.Fatalf("training where the row pool does not fit: %v", err)
	}
	if got.Stats[0].DeviceRows != 0 {
		t.Errorf("%d rows on the device under a limit the pool exceeds", got.Stats[0].DeviceRows)
	}
	if !reflect.DeepEqual(got.Coef, want.Coef) || !reflect.DeepEqual(got.Rho, want.Rho) {
		t.Errorf("host rows after the pool did not fit: %d SVs, ρ %v; with the pool %d, %v", len(got.SVIndex), got.Rho, len(want.SVIndex), want.Rho)
	}
	// 60 KB: not even X (130 KB) fits. It is not prepared on the device,
	// and every kernel-row batch streams it through in slabs; SMO and the
	// batched solver train, the batched solver to the same model.
	t.Setenv("FAKECUDA_MAX_ALLOC", "60000")
	for _, solver := range []svm.SolverKind{svm.SolverBatched, svm.SolverSMO} {
		q := p
		q.Solver = solver
		got, err := svm.Train(newEngine(t, "cuda"), d.X, d.Y, q)
		if err != nil {
			t.Fatalf("%v, where X does not fit the device: %v", solver, err)
		}
		if solver == svm.SolverBatched && (!reflect.DeepEqual(got.Coef, want.Coef) || !reflect.DeepEqual(got.Rho, want.Rho)) {
			t.Errorf("X streamed: %d SVs, ρ %v; with X and the pool on the device %d, %v", len(got.SVIndex), got.Rho, len(want.SVIndex), want.Rho)
		}
		t.Logf("%v with X streamed through a 60 KB device: %d SVs", solver, got.TotalSV())
	}
}

// TestBatchedSVMBytes (issue 32): the bytes an outer iteration of the
// batched solver moves across the bus with its row pool on the device
// (the working set's indices and weights, its subproblem's vectors and the
// gradient each way: O(q + n)) against the rows brought to the host (every
// new row down, the q×q block up), preparing X included: printed, and the
// pool must move under a fifth. (At n = 2,000 the gradient's 16 KB each way
// is most of the pool's traffic; the rows' share, and the ratio, grow with
// n: at 50,000 points and q = 1,024 an outer iteration brings about 100 MB
// of new rows to the host against the pool's 0.8 MB of gradient.)
func TestBatchedSVMBytes(t *testing.T) {
	d := data.CovtypeLike(2000, 5)
	base := svm.Params{Kernel: pursuit.NewRBF(0.5), C: 1, Solver: svm.SolverBatched, WorkingSet: 128}
	per := map[bool]float64{}
	for _, host := range []bool{false, true} {
		e := newEngine(t, "cuda")
		p := base
		p.HostRows = host
		u0, d0 := traffic(t, e)
		m, err := svm.Train(e, d.X, d.Y, p)
		if err != nil {
			t.Fatal(err)
		}
		u1, d1 := traffic(t, e)
		st := m.Stats[0]
		per[host] = float64(u1-u0+d1-d0) / float64(st.OuterIter)
		t.Logf("host rows %v: %d outer iterations, %d rows computed (%d kept on the device): %.0f bytes up and %.0f down per outer iteration",
			host, st.OuterIter, st.RowsComputed, st.DeviceRows, float64(u1-u0)/float64(st.OuterIter), float64(d1-d0)/float64(st.OuterIter))
	}
	if !(per[false] < per[true]/5) {
		t.Errorf("the device pool moves %.0f bytes per outer iteration, the host rows %.0f: want under a fifth", per[false], per[true])
	}
	t.Logf("the device pool moves %.1f%% of the host rows' bytes per outer iteration", 100*per[false]/per[true])
}
