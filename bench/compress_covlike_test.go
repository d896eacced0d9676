package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestCompressCovlike is issue 35's large-model trade-off: the covtype-like
// set (covtypeLike(80000, 1): 50,000 training and 30,000 test points, as
// TestWriteCovtypeLike writes them), max-abs scaled as `pursuit train`
// scales its sparse rows, an SVM with γ = 0.125 and C = 1 (tens of
// thousands of support vectors), compressed by slmc.Compress (through
// learn.Compress, what `pursuit compress` runs) to each fraction of
// $PURSUIT_COMPRESS_FRACS (default 0.005,0.01,0.02,0.05), smallest first.
// It logs, per model, the vectors, test error, compress seconds,
// prediction milliseconds per 1,000 test rows (the fastest of several
// runs) and the process's peak RSS after it (VmHWM, which only grows: with
// the fractions in increasing order it is the peak of the largest so far).
// $PURSUIT_COMPRESS_MAXITER bounds SLMC's L-BFGS iterations (default: the
// package's 200), and $PURSUIT_COMPRESS_ROWS keeps the first rows of the
// training set (default all 50,000) for a smaller trial, and
// $PURSUIT_COMPRESS_METHOD picks slmc (default), mrs or rs. Hours on two
// cores; run alone:
//
//	PURSUIT_COMPRESS_COVLIKE=1 go test ./bench -run TestCompressCovlike -v -timeout 24h
func TestCompressCovlike(t *testing.T) {
	if os.Getenv("PURSUIT_COMPRESS_COVLIKE") == "" {
		t.Skip("hours of CPU: set PURSUIT_COMPRESS_COVLIKE=1 to run it")
	}
	fracs := []float64{0.005, 0.01, 0.02, 0.05}
	if v := os.Getenv("PURSUIT_COMPRESS_FRACS"); v != "" {
		fracs = fracs[:0]
		for _, f := range strings.Split(v, ",") {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil || !(x > 0 && x <= 1) {
				t.Fatalf("PURSUIT_COMPRESS_FRACS = %q", v)
			}
			fracs = append(fracs, x)
		}
	}
	maxIter := 0
	if v := os.Getenv("PURSUIT_COMPRESS_MAXITER"); v != "" {
		var err error
		if maxIter, err = strconv.Atoi(v); err != nil || maxIter < 1 {
			t.Fatalf("PURSUIT_COMPRESS_MAXITER = %q", v)
		}
	}
	method := slmc.MethodSLMC
	if v := os.Getenv("PURSUIT_COMPRESS_METHOD"); v != "" {
		switch v {
		case slmc.MethodSLMC, slmc.MethodMRS, slmc.MethodRS:
			method = v
		default:
			t.Fatalf("PURSUIT_COMPRESS_METHOD = %q (slmc, mrs or rs)", v)
		}
	}
	nTrain := 50000
	if v := os.Getenv("PURSUIT_COMPRESS_ROWS"); v != "" {
		var err error
		if nTrain, err = strconv.Atoi(v); err != nil || nTrain < 100 || nTrain > 50000 {
			t.Fatalf("PURSUIT_COMPRESS_ROWS = %q (100 to 50000)", v)
		}
	}
	d := data.CovtypeLike(80000, 1)
	train := &data.Dataset{Name: "covlike.train", X: d.X.Slice(0, nTrain, 0, d.X.Cols), Y: d.Y[:nTrain]}
	test := &data.Dataset{Name: "covlike.test", X: d.X.Slice(50000, d.X.Rows, 0, d.X.Cols), Y: d.Y[50000:]}
	sc, err := data.FitScaler(data.ScaleMaxAbs, train.X)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	xs := dense(train.X)
	if err := sc.Apply(xs); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	sm, err := svm.Train(e, xs, train.Y, svm.Params{Kernel: pursuit.NewRBF(0.125), C: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SVM on %d rows: %d support vectors, trained in %.1f s, peak RSS %.0f MB", nTrain, sm.TotalSV(), time.Since(t0).Seconds(), float64(peakRSS())/1e6)
	src := learn.LIBSVMSource(sm)
	src.Scaler = sc
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %8s %8s %14s %12s %10s %12s\n", "model", "vectors", "error", "ms/1000 rows", "compress s", "speedup", "peak RSS MB")
	for i, f := range fracs {
		progress := func(line string) { t.Log(line) }
		c := learn.Compress{Config: slmc.CompressConfig{Method: method, Seed: 1, Optim: slmc.OptimOptions{MaxIter: maxIter}, Progress: progress},
			Fractions: []float64{f}}
		// Run scales in place: fresh copies each time.
		tr := &data.Dataset{Name: train.Name, X: dense(train.X), Y: train.Y}
		te := &data.Dataset{Name: test.Name, X: dense(test.X), Y: test.Y}
		table, err := c.Run(e, src, tr, te)
		if err != nil {
			t.Fatal(err)
		}
		rss := float64(peakRSS()) / 1e6
		for j, r := range table.Rows {
			if j == 0 && i > 0 {
				continue
			}
			name := "svm"
			if j > 0 {
				name = strconv.FormatFloat(f, 'g', -1, 64)
			}
			fmt.Fprintf(&b, "%-8s %8d %7.2f%% %14.2f %12.1f %9.1fx %12.0f\n", name, r.Vectors, 100*r.Error,
				r.PredictSeconds*1e6/float64(test.Len()), r.CompressSeconds, r.Speedup, rss)
		}
	}
	fmt.Fprintf(&b, "backend %s, %d threads, load average %s at the end", e.BackendName(), e.Threads(), loadAvg())
	t.Log("\n" + b.String())
}

// dense returns a dense copy of m.
func dense(m pursuit.Matrix) pursuit.Matrix {
	out := pursuit.NewMatrix(m.Rows, m.Cols)
	for i := range m.Rows {
		m.RowTo(out.Row(i), i)
	}
	return out
}
