package svm

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/cputime"
)

// batchedSet is one of issue 32's comparison sets: training and test rows
// and the SVM parameters.
type batchedSet struct {
	name     string
	xtr, xte pursuit.Matrix
	ytr, yte []float64
	p        Params
}

// batchedSets returns the sets of issue 32 that are named in want (all of
// them when want is empty): USPS 8 vs rest and the 10 classes one-vs-one
// (γ = 1/128, C = 10), mushrooms (two thirds to train, γ = 1/112, C = 1),
// the generated covtype-like 15k (5k test, raw features, γ = 0.5, C = 1,
// as BenchmarkCovtypeLike15k) and 50k (30k test, min-max scaled on the
// training rows, γ = 0.125, C = 1, as the README's 50k figures). Shared
// files that are missing skip their sets.
func batchedSets(t testing.TB, want []string) []batchedSet {
	t.Helper()
	use := func(name string) bool { return len(want) == 0 || slices.Contains(want, name) }
	var sets []batchedSet
	if use("usps8") || use("usps10") {
		tr := loadShared(t, "usps", "usps.train.gz")
		te := loadShared(t, "usps", "usps.test.gz")
		if use("usps8") {
			ytr, err := data.BinaryLabels(tr.Y, 8)
			if err != nil {
				t.Fatal(err)
			}
			yte, err := data.BinaryLabels(te.Y, 8)
			if err != nil {
				t.Fatal(err)
			}
			sets = append(sets, batchedSet{"usps8", tr.X, te.X, ytr, yte, uspsParams()})
		}
		if use("usps10") {
			sets = append(sets, batchedSet{"usps10", tr.X, te.X, tr.Y, te.Y, uspsParams()})
		}
	}
	if use("mushrooms") {
		tr, te := splitThirds(t, loadShared(t, "mushrooms", "mushrooms.gz"))
		sets = append(sets, batchedSet{"mushrooms", tr.X, te.X, tr.Y, te.Y, Params{Kernel: pursuit.NewRBF(1.0 / 112), C: 1}})
	}
	if use("cov15k") {
		x, y := covtypeLike(20000, 1)
		const l = 15000
		sets = append(sets, batchedSet{"cov15k", x.Slice(0, l, 0, x.Cols), x.Slice(l, x.Rows, 0, x.Cols), y[:l], y[l:], Params{Kernel: pursuit.NewRBF(0.5), C: 1}})
	}
	if use("cov50k") {
		x, y := covtypeLike(80000, 1)
		const l = 50000
		xtr, xte := x.Slice(0, l, 0, x.Cols), x.Slice(l, x.Rows, 0, x.Cols)
		sc, err := data.FitScaler(data.ScaleMinMax, xtr)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Apply(x); err != nil {
			t.Fatal(err)
		}
		sets = append(sets, batchedSet{"cov50k", xtr, xte, y[:l], y[l:], Params{Kernel: pursuit.NewRBF(0.125), C: 1}})
	}
	return sets
}

// setsFromEnv returns the set names listed in PURSUIT_BATCHED_SETS
// (comma-separated; empty: all).
func setsFromEnv() []string {
	var out []string
	for _, s := range strings.Split(os.Getenv("PURSUIT_BATCHED_SETS"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// compareModels checks the batched model mb against SMO's ms on the test
// rows: the support vectors within ±0.5%, the test accuracy within ±0.1
// point, every machine converged; it returns the largest relative
// difference of the machines' dual objectives, the support vectors and
// the accuracies.
func compareModels(t testing.TB, e *engine.Engine, name string, ms, mb *Model, xte pursuit.Matrix, yte []float64) (obj float64, svS, svB int, accS, accB float64) {
	t.Helper()
	for q := range ms.Stats {
		if !ms.Stats[q].Converged || !mb.Stats[q].Converged {
			t.Errorf("%s: machine %d not converged (SMO %v, batched %v)", name, q, ms.Stats[q].Converged, mb.Stats[q].Converged)
		}
		obj = max(obj, relDiff(mb.Stats[q].Obj, ms.Stats[q].Obj))
	}
	ps, err := ms.Predict(e, xte)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := mb.Predict(e, xte)
	if err != nil {
		t.Fatal(err)
	}
	svS, svB = ms.TotalSV(), mb.TotalSV()
	accS, accB = 100-errorRate(ps, yte), 100-errorRate(pb, yte)
	if math.Abs(float64(svB-svS)) > 0.005*float64(svS) {
		t.Errorf("%s: %d support vectors, SMO %d (more than ±0.5%%)", name, svB, svS)
	}
	if math.Abs(accB-accS) > 0.1 {
		t.Errorf("%s: test accuracy %.3f%%, SMO %.3f%% (more than ±0.1 point)", name, accB, accS)
	}
	return obj, svS, svB, accS, accB
}

// TestBatchedSameModelsSets compares the batched solver's models with
// SMO's on issue 32's sets (batchedSets) at the default tolerance, on the
// backends listed in PURSUIT_BATCHED_BACKENDS (comma-separated; default
// go,avx2; cuda in a -tags cuda test binary, on a GPU or on the stand-in
// driver of scripts/cuda-check.sh): the support vectors within ±0.5% and
// the test accuracy within ±0.1 point at the default tolerance, and the
// machines' dual objectives within 1e-6 relative at tolerance 1e-6
// (PURSUIT_BATCHED_OBJTOL). It takes minutes (the 50k set alone several on one core), so it runs only
// when PURSUIT_BATCHED_SETS is set ("all", or a list of usps8, usps10,
// mushrooms, cov15k, cov50k). The small sets' checks are in the default
// suite (TestBatchedSameModels*).
func TestBatchedSameModelsSets(t *testing.T) {
	env := os.Getenv("PURSUIT_BATCHED_SETS")
	if env == "" {
		t.Skip("set PURSUIT_BATCHED_SETS=all (or usps8,usps10,mushrooms,cov15k,cov50k) to compare the solvers on issue 32's sets")
	}
	var want []string
	if env != "all" {
		want = setsFromEnv()
	}
	objTol := 1e-6
	if v := os.Getenv("PURSUIT_BATCHED_OBJTOL"); v != "" {
		var err error
		if objTol, err = strconv.ParseFloat(v, 64); err != nil {
			t.Fatalf("PURSUIT_BATCHED_OBJTOL: %v", err)
		}
	}
	backends := []string{"go", "avx2"}
	if b := os.Getenv("PURSUIT_BATCHED_BACKENDS"); b != "" {
		backends = strings.Split(b, ",")
	}
	for _, s := range batchedSets(t, want) {
		for _, be := range backends {
			e, err := engine.New(engine.WithBackend(be), engine.WithThreads(1))
			if err != nil {
				t.Logf("backend %s unavailable: %v", be, err)
				continue
			}
			train := func(solver SolverKind, tol float64) (*Model, time.Duration) {
				p := s.p
				p.Solver, p.Tol = solver, tol
				start := time.Now()
				m, err := Train(e, s.xtr, s.ytr, p)
				if err != nil {
					t.Fatalf("%s, %s, %v: %v", s.name, be, solver, err)
				}
				return m, time.Since(start)
			}
			name := s.name + ", " + be
			// The objectives at a tight tolerance (at 1e-3 two solutions
			// that both meet it differ by more than 1e-6: 3.3e-6 on
			// mushrooms).
			ts, _ := train(SolverSMO, objTol)
			tb, _ := train(SolverBatched, objTol)
			obj := 0.0
			for q := range ts.Stats {
				obj = max(obj, relDiff(tb.Stats[q].Obj, ts.Stats[q].Obj))
			}
			if obj > 1e-6 {
				t.Errorf("%s: at tolerance %g the dual objectives differ by %.2g relative (more than 1e-6)", name, objTol, obj)
			}
			var m [2]*Model
			var took [2]time.Duration
			m[0], took[0] = train(SolverSMO, 0)
			m[1], took[1] = train(SolverBatched, 0)
			obj3, svS, svB, accS, accB := compareModels(t, e, name, m[0], m[1], s.xte, s.yte)
			t.Logf("%s: objective rel. diff %.2g at tolerance %g (%.2g at 1e-3); SVs %d (SMO %d); accuracy %.3f%% (SMO %.3f%%); %d machines; one thread at 1e-3: batched %.2fs, SMO %.2fs; kernel rows %d (SMO %d; %d kept on a device), outer iterations %d",
				name, obj, objTol, obj3, svB, svS, accB, accS, len(m[0].Stats), took[1].Seconds(), took[0].Seconds(), rowsOf(m[1]), rowsOf(m[0]), deviceRowsOf(m[1]), outerOf(m[1]))
		}
	}
}

// BenchmarkBatchedSets times SMO and the batched solver on issue 32's sets
// (batchedSets; PURSUIT_BATCHED_SETS picks some) at 1 and 2 engine threads
// on the default backend, and svm-train (one core) on the same rows
// (except the sets in PURSUIT_BATCHED_NO_LIBSVM), in wall and CPU time,
// and prints a table with the ratios and whether auto's choice (SMO) is
// within 10% of the faster solver at each thread count. The models are compared
// as in TestBatchedSameModelsSets (support vectors, test accuracy) at 1
// thread. Run once, on a quiet machine where possible:
//
//	go test ./svm -run '^$' -bench BatchedSets -benchtime 1x -timeout 60m
func BenchmarkBatchedSets(b *testing.B) {
	trainBin, _ := libsvmTools(b)
	sets := batchedSets(b, setsFromEnv())
	var noLibsvm []string // sets svm-train skips (PURSUIT_BATCHED_NO_LIBSVM: the 50k set takes it 19 minutes here)
	for _, n := range strings.Split(os.Getenv("PURSUIT_BATCHED_NO_LIBSVM"), ",") {
		noLibsvm = append(noLibsvm, strings.TrimSpace(n))
	}
	type row struct {
		name             string
		smo, bat         [2]time.Duration // wall
		smoCPU, batCPU   [2]time.Duration
		libsvm, libCPU   time.Duration
		svS, svB         int
		accS, accB, obj3 float64
	}
	var rows []row
	for b.Loop() {
		rows = rows[:0]
		for _, s := range sets {
			r := row{name: s.name}
			var ms, mb *Model
			for k, threads := range []int{1, 2} {
				e, err := engine.New(engine.WithThreads(threads))
				if err != nil {
					b.Fatal(err)
				}
				for _, solver := range []SolverKind{SolverSMO, SolverBatched} {
					p := s.p
					p.Solver = solver
					start := time.Now()
					cpu0, _ := cputime.Used()
					m, err := Train(e, s.xtr, s.ytr, p)
					if err != nil {
						b.Fatal(err)
					}
					took := time.Since(start)
					cpu1, _ := cputime.Used()
					if solver == SolverSMO {
						r.smoCPU[k] = cpu1 - cpu0
						r.smo[k] = took
						if k == 0 {
							ms = m
						}
					} else {
						r.batCPU[k] = cpu1 - cpu0
						r.bat[k] = took
						if k == 0 {
							mb = m
						}
					}
				}
				if k == 0 {
					r.obj3, r.svS, r.svB, r.accS, r.accB = compareModels(b, e, s.name, ms, mb, s.xte, s.yte)
				}
			}
			if !slices.Contains(noLibsvm, s.name) {
				dir := b.TempDir()
				path := filepath.Join(dir, "train")
				writeData(b, path, s.xtr, s.ytr)
				args := append(libsvmKernelArgs(s.p.Kernel), "-c", fmt.Sprint(s.p.C), path, filepath.Join(dir, "model"))
				ref := runSVMTrain(b, trainBin, args...)
				r.libsvm, r.libCPU = ref.elapsed, ref.cpu
			}
			b.Logf("%s: SMO %v / %v (CPU %v / %v), batched %v / %v (CPU %v / %v) at 1 / 2 threads, svm-train %v (CPU %v)",
				s.name, r.smo[0], r.smo[1], r.smoCPU[0], r.smoCPU[1], r.bat[0], r.bat[1], r.batCPU[0], r.batCPU[1], r.libsvm, r.libCPU)
			rows = append(rows, r)
		}
	}
	// The table goes to stdout: a benchmark's log is cut after ten lines.
	fmt.Printf("BenchmarkBatchedSets, backend %s: wall seconds (CPU seconds); b/s = batched/SMO in wall (CPU) time; smo/lib = SMO at 1 thread over svm-train, wall (CPU); auto = SMO within 10%% of the faster, in wall time at 1/2 threads\n", testEngine(b).BackendName())
	fmt.Printf("%-9s %15s %15s %11s %15s %15s %11s %15s %13s %7s %7s %8s %9s\n", "set", "smo-1t", "bat-1t", "b/s-1t", "smo-2t", "bat-2t", "b/s-2t", "svm-train", "smo/lib", "SVs-smo", "SVs-bat", "acc-diff", "auto-ok")
	sec := func(w, c time.Duration) string { return fmt.Sprintf("%.2f (%.2f)", w.Seconds(), c.Seconds()) }
	ratio := func(a, b, ca, cb time.Duration) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f (%.2f)", a.Seconds()/b.Seconds(), ca.Seconds()/max(cb.Seconds(), 1e-9))
	}
	for _, r := range rows {
		ok := func(k int) bool { return r.smo[k].Seconds() <= 1.1*min(r.smo[k], r.bat[k]).Seconds() }
		fmt.Printf("%-9s %15s %15s %11s %15s %15s %11s %15s %13s %7d %7d %8.2f %5v/%v\n", r.name,
			sec(r.smo[0], r.smoCPU[0]), sec(r.bat[0], r.batCPU[0]), ratio(r.bat[0], r.smo[0], r.batCPU[0], r.smoCPU[0]),
			sec(r.smo[1], r.smoCPU[1]), sec(r.bat[1], r.batCPU[1]), ratio(r.bat[1], r.smo[1], r.batCPU[1], r.smoCPU[1]),
			sec(r.libsvm, r.libCPU), ratio(r.smo[0], r.libsvm, r.smoCPU[0], r.libCPU), r.svS, r.svB, r.accB-r.accS, ok(0), ok(1))
	}
}

// rowsOf returns the kernel rows computed over the machines of m.
func rowsOf(m *Model) int {
	n := 0
	for _, s := range m.Stats {
		n += s.RowsComputed
	}
	return n
}

// deviceRowsOf returns the kernel rows the batched solver kept on the
// device over the machines of m (TrainStats.DeviceRows).
func deviceRowsOf(m *Model) int {
	n := 0
	for _, s := range m.Stats {
		n += s.DeviceRows
	}
	return n
}

// outerOf returns the outer iterations over the machines of m.
func outerOf(m *Model) int {
	n := 0
	for _, s := range m.Stats {
		n += s.OuterIter
	}
	return n
}
