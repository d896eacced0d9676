package svm

import (
	"fmt"
	"github.com/pursuit-ml/pursuit/internal/cputime"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// uspsParams are the SLMC paper's USPS settings: γ = 1/128, C = 10
// (features already in [−1, 1]).
func uspsParams() Params { return Params{Kernel: pursuit.NewRBF(1.0 / 128), C: 10} }

func errorRate(pred, y []float64) float64 {
	bad := 0
	for i := range y {
		if pred[i] != y[i] {
			bad++
		}
	}
	return 100 * float64(bad) / float64(len(y))
}

// The benchmarks here train with svm-train in the same run and report
// time/libsvm, our training time over svm-train's (which includes its
// process start and its reading of the sparse data file), in wall time and,
// as cpu/libsvm, in CPU time (user + system), which a machine shared with
// other jobs disturbs far less. svm-train is single-threaded; run with
// -cpu 1 to compare one core each, e.g.
//
//	go test ./svm -run '^$' -bench . -cpu 1 -benchtime 1x

// BenchmarkUSPS8VsRest trains USPS digit 8 against the rest here and with
// svm-train, and reports the time ratio, the test errors and the
// support-vector counts.
func BenchmarkUSPS8VsRest(b *testing.B) {
	tr := loadShared(b, "usps", "usps.train.gz")
	te := loadShared(b, "usps", "usps.test.gz")
	ytr, _ := data.BinaryLabels(tr.Y, 8)
	yte, _ := data.BinaryLabels(te.Y, 8)
	benchBinary(b, tr.X, ytr, te.X, yte, uspsParams())
}

// BenchmarkMushrooms trains the mushrooms set (two thirds for training, one
// for testing) with γ = 1/112 (LIBSVM's default 1/features) and C = 1.
func BenchmarkMushrooms(b *testing.B) {
	d := loadShared(b, "mushrooms", "mushrooms.gz")
	tr, te := splitThirds(b, d)
	benchBinary(b, tr.X, tr.Y, te.X, te.Y, Params{Kernel: pursuit.NewRBF(1.0 / 112), C: 1})
}

// BenchmarkCovtypeLike15k trains 15,000 generated covtype-like points
// (covtypeLike, seed 1) and tests on 5,000 more, with γ = 0.5 and C = 1:
// the classes overlap, and both sides keep about 6,800 support vectors.
func BenchmarkCovtypeLike15k(b *testing.B) {
	x, y := covtypeLike(20000, 1)
	const l = 15000
	benchBinary(b, x.Slice(0, l, 0, x.Cols), y[:l], x.Slice(l, x.Rows, 0, x.Cols), y[l:], Params{Kernel: pursuit.NewRBF(0.5), C: 1})
}

// reportCPURatio reports cpu/libsvm, our CPU time over svm-train's, when
// both were measured.
func reportCPURatio(b *testing.B, ours, theirs time.Duration) {
	if ours > 0 && theirs > 0 {
		b.ReportMetric(ours.Seconds()/theirs.Seconds(), "cpu/libsvm")
	}
}

// benchBinary trains one binary C-SVC problem here and with svm-train in
// the same run and reports the time ratio, the support-vector counts, the
// test errors and the objectives.
func benchBinary(b *testing.B, xtr pursuit.Matrix, ytr []float64, xte pursuit.Matrix, yte []float64, p Params) {
	trainBin, predictBin := libsvmTools(b)
	e := testEngine(b)
	dir := b.TempDir()
	trainPath, testPath, model := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "model")
	writeData(b, trainPath, xtr, ytr)
	writeData(b, testPath, xte, yte)
	args := append(libsvmKernelArgs(p.Kernel), "-c", fmt.Sprint(p.C), trainPath, model)
	var ours, theirs, oursCPU, theirsCPU time.Duration
	var m *Model
	var ref libsvmRun
	for b.Loop() {
		start := time.Now()
		cpu0, _ := cputime.Used()
		var err error
		m, err = Train(e, xtr, ytr, p)
		if err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		cpu1, _ := cputime.Used()
		oursCPU += cpu1 - cpu0
		ref = runSVMTrain(b, trainBin, args...)
		theirs += ref.elapsed
		theirsCPU += ref.cpu
	}
	pred, err := m.Predict(e, xte)
	if err != nil {
		b.Fatal(err)
	}
	theirPred := runSVMPredict(b, predictBin, testPath, model, dir)
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "time/libsvm")
	reportCPURatio(b, oursCPU, theirsCPU)
	b.ReportMetric(float64(m.TotalSV()), "SVs")
	b.ReportMetric(float64(ref.totalSV), "libsvm-SVs")
	b.ReportMetric(errorRate(pred, yte), "test-err%")
	b.ReportMetric(errorRate(theirPred, yte), "libsvm-test-err%")
	b.ReportMetric(m.Stats[0].Obj, "obj")
	b.ReportMetric(ref.objs[0], "libsvm-obj")
	b.Logf("backend %s, %d threads, GOMAXPROCS %d: ours %v (CPU %v), svm-train %v (CPU %v); rows computed %d, cache hits %d misses %d, iterations %d",
		e.BackendName(), e.Threads(), runtime.GOMAXPROCS(0), ours/time.Duration(b.N), oursCPU/time.Duration(b.N),
		theirs/time.Duration(b.N), theirsCPU/time.Duration(b.N), m.Stats[0].RowsComputed, m.Stats[0].CacheHits, m.Stats[0].CacheMisses, m.Stats[0].Iter)
}

// BenchmarkUSPS10ClassOneVsOne trains the full 10-class USPS problem by
// LIBSVM's one-vs-one decomposition here and with svm-train (which does the
// same) in the same run.
func BenchmarkUSPS10ClassOneVsOne(b *testing.B) {
	trainBin, predictBin := libsvmTools(b)
	tr := loadShared(b, "usps", "usps.train.gz")
	te := loadShared(b, "usps", "usps.test.gz")
	e := testEngine(b)
	dir := b.TempDir()
	trainPath, testPath, model := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "model")
	writeData(b, trainPath, tr.X, tr.Y)
	writeData(b, testPath, te.X, te.Y)
	var ours, theirs, oursCPU, theirsCPU time.Duration
	var m *Model
	var ref libsvmRun
	for b.Loop() {
		start := time.Now()
		cpu0, _ := cputime.Used()
		var err error
		m, err = Train(e, tr.X, tr.Y, uspsParams())
		if err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		cpu1, _ := cputime.Used()
		oursCPU += cpu1 - cpu0
		ref = runSVMTrain(b, trainBin, "-c", "10", "-g", fmt.Sprint(1.0/128), trainPath, model)
		theirs += ref.elapsed
		theirsCPU += ref.cpu
	}
	pred, err := m.Predict(e, te.X)
	if err != nil {
		b.Fatal(err)
	}
	theirPred := runSVMPredict(b, predictBin, testPath, model, dir)
	worst := 0.0
	for q, st := range m.Stats {
		worst = max(worst, relDiff(st.Obj, ref.objs[q]))
	}
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "time/libsvm")
	reportCPURatio(b, oursCPU, theirsCPU)
	b.ReportMetric(float64(m.TotalSV()), "SVs")
	b.ReportMetric(float64(ref.totalSV), "libsvm-SVs")
	b.ReportMetric(errorRate(pred, te.Y), "test-err%")
	b.ReportMetric(errorRate(theirPred, te.Y), "libsvm-test-err%")
	b.ReportMetric(worst, "max-obj-reldiff")
	b.Logf("backend %s: ours %v, svm-train %v", e.BackendName(), ours/time.Duration(b.N), theirs/time.Duration(b.N))
}

// BenchmarkUSPSOneVsRest trains the ten one-vs-rest USPS machines here
// (sharing one kernel cache) and with ten svm-train runs, in the same run.
// The SLMC paper reports 2683 SVs summed over the ten machines and 4.3%
// error.
func BenchmarkUSPSOneVsRest(b *testing.B) {
	trainBin, predictBin := libsvmTools(b)
	tr := loadShared(b, "usps", "usps.train.gz")
	te := loadShared(b, "usps", "usps.test.gz")
	e := testEngine(b)
	dir := b.TempDir()
	classes, targets := data.OneVsRest(tr.Y)
	_, testTargets := data.OneVsRest(te.Y)
	trainPaths := make([]string, len(classes))
	testPaths := make([]string, len(classes))
	for c := range classes {
		trainPaths[c] = filepath.Join(dir, fmt.Sprintf("train%d", c))
		testPaths[c] = filepath.Join(dir, fmt.Sprintf("test%d", c))
		writeData(b, trainPaths[c], tr.X, targets[c])
		writeData(b, testPaths[c], te.X, testTargets[c])
	}
	var ours, theirs, oursCPU, theirsCPU time.Duration
	var m *OneVsRestModel
	refSV := 0
	for b.Loop() {
		start := time.Now()
		cpu0, _ := cputime.Used()
		var err error
		m, err = TrainOneVsRest(e, tr.X, tr.Y, uspsParams())
		if err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		cpu1, _ := cputime.Used()
		oursCPU += cpu1 - cpu0
		refSV = 0
		for c := range classes {
			ref := runSVMTrain(b, trainBin, "-c", "10", "-g", fmt.Sprint(1.0/128), trainPaths[c], filepath.Join(dir, fmt.Sprintf("model%d", c)))
			theirs += ref.elapsed
			theirsCPU += ref.cpu
			refSV += ref.totalSV
		}
	}
	pred, err := m.Predict(e, te.X)
	if err != nil {
		b.Fatal(err)
	}
	// Per-machine test errors, ours and LIBSVM's.
	var oursBin, theirsBin int
	for c := range classes {
		pc, err := m.Machines[c].Predict(e, te.X)
		if err != nil {
			b.Fatal(err)
		}
		tc := runSVMPredict(b, predictBin, testPaths[c], filepath.Join(dir, fmt.Sprintf("model%d", c)), dir)
		for i := range pc {
			if pc[i] != testTargets[c][i] {
				oursBin++
			}
			if tc[i] != testTargets[c][i] {
				theirsBin++
			}
		}
	}
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "time/libsvm")
	reportCPURatio(b, oursCPU, theirsCPU)
	b.ReportMetric(float64(m.TotalSV()), "SVs")
	b.ReportMetric(float64(refSV), "libsvm-SVs")
	b.ReportMetric(errorRate(pred, te.Y), "test-err%")
	b.ReportMetric(float64(oursBin), "binary-errors")
	b.ReportMetric(float64(theirsBin), "libsvm-binary-errors")
	rows := 0
	distinct := map[int]bool{}
	for _, mm := range m.Machines {
		rows += mm.Stats[0].RowsComputed
		for _, i := range mm.SVIndex {
			distinct[i] = true
		}
	}
	b.ReportMetric(float64(len(distinct)), "distinct-SVs")
	b.Logf("backend %s: ours %v, ten svm-train runs %v; kernel rows computed %d over the ten machines",
		e.BackendName(), ours/time.Duration(b.N), theirs/time.Duration(b.N), rows)
}

// BenchmarkSolvers trains USPS 8 vs rest and the generated 15k
// covtype-like set by SMO and by the batched solver at 1 and 2 engine
// threads and reports the times and batched/SMO ratios, with the support
// vectors of each. Run once on a shared machine:
//
//	go test ./svm -run '^$' -bench Solvers -benchtime 1x
func BenchmarkSolvers(b *testing.B) {
	type set struct {
		name string
		x    pursuit.Matrix
		y    []float64
		p    Params
	}
	var sets []set
	if p, err := data.SharedFile("usps", "usps.train.gz"); err == nil {
		tr, err := data.Load(p)
		if err != nil {
			b.Fatal(err)
		}
		y, err := data.BinaryLabels(tr.Y, 8)
		if err != nil {
			b.Fatal(err)
		}
		sets = append(sets, set{"usps8", tr.X, y, uspsParams()})
	}
	x, y := covtypeLike(15000, 1)
	sets = append(sets, set{"cov15k", x, y, Params{Kernel: pursuit.NewRBF(0.5), C: 1}})
	for _, s := range sets {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				for _, threads := range []int{1, 2} {
					e, err := engine.New(engine.WithThreads(threads))
					if err != nil {
						b.Fatal(err)
					}
					var t [2]time.Duration
					var sv [2]int
					for k, solver := range []SolverKind{SolverSMO, SolverBatched} {
						p := s.p
						p.Solver = solver
						start := time.Now()
						m, err := Train(e, s.x, s.y, p)
						if err != nil {
							b.Fatal(err)
						}
						t[k] = time.Since(start)
						sv[k] = m.TotalSV()
						b.Logf("%s, backend %s, %d threads, %v: %v, %d SVs, obj %.8g, iterations %d (outer %d), rows %d",
							s.name, e.BackendName(), threads, solver, t[k], sv[k], m.Stats[0].Obj, m.Stats[0].Iter, m.Stats[0].OuterIter, m.Stats[0].RowsComputed)
					}
					tag := fmt.Sprintf("%dt", threads)
					b.ReportMetric(t[0].Seconds(), "smo-"+tag+"-s")
					b.ReportMetric(t[1].Seconds(), "batched-"+tag+"-s")
					b.ReportMetric(t[1].Seconds()/t[0].Seconds(), "batched/smo-"+tag)
				}
			}
		})
	}
}
