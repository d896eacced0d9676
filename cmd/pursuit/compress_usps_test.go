package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
)

// uspsForSVMTrain writes the USPS training and test digits to dir as plain
// LIBSVM files for svm-train, with labels mapped by relabel (nil: the
// digits), and returns their paths. It skips without the shared data or
// svm-train.
func uspsForSVMTrain(t *testing.T, dir string, relabel func(float64) float64) (train, test string) {
	t.Helper()
	trainPath, err := data.SharedFile("usps", "usps.train.gz")
	if err != nil {
		t.Skipf("shared USPS data not available (%v)", err)
	}
	testPath, err := data.SharedFile("usps", "usps.test.gz")
	if err != nil {
		t.Skipf("shared USPS data not available (%v)", err)
	}
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("svm-train is not installed (Debian's libsvm-tools)")
	}
	if _, err := exec.LookPath("svm-predict"); err != nil {
		t.Skip("svm-predict is not installed (Debian's libsvm-tools)")
	}
	var out [2]string
	for i, p := range []string{trainPath, testPath} {
		ds, err := data.Load(p, data.WithDim(256))
		if err != nil {
			t.Fatal(err)
		}
		if relabel != nil {
			for r, v := range ds.Y {
				ds.Y[r] = relabel(v)
			}
		}
		out[i] = filepath.Join(dir, []string{"usps.train", "usps.test"}[i])
		writeData(t, out[i], ds)
	}
	return out[0], out[1]
}

// svmTrain runs svm-train -g 1/128 -c 10 (the paper's USPS setting).
func svmTrain(t *testing.T, train, model string) {
	t.Helper()
	if b, err := exec.Command("svm-train", "-q", "-g", "0.0078125", "-c", "10", train, model).CombinedOutput(); err != nil {
		t.Fatalf("svm-train: %v\n%s", err, b)
	}
}

// compressUSPS compresses model to 10% with SLMC (L-BFGS bounded at
// maxIter iterations per machine), checks the compressed test error against
// the SVM's (within tol), that `pursuit predict` on the compressed model and
// svm-predict on its LIBSVM export give the same labels, and returns the
// table.
func compressUSPS(t *testing.T, dir, model, train, test string, maxIter string, tol float64) learn.TradeoffReport {
	t.Helper()
	small := filepath.Join(dir, "small.model")
	var rep learn.TradeoffReport
	decodeJSON(t, mustRun(t, dir, "compress", "--model", model, "--data", train, "--test", test,
		"--nz-frac", "0.1", "--max-iter", maxIter, "--out", small, "--json", "--quiet").stdout, &rep)
	svmRow, row := rep.Rows[0], rep.Rows[1]
	t.Logf("SVM: %d vectors, test error %.2f%%, %.3f ms per 1000 rows", svmRow.Vectors, 100**svmRow.Error, svmRow.PredictMSPer1000)
	t.Logf("SLMC 10%%: %d vectors, test error %.2f%%, %.3f ms per 1000 rows (%.1fx faster), compressed in %.1f s",
		row.Vectors, 100**row.Error, row.PredictMSPer1000, row.Speedup, row.CompressSeconds)
	if *row.Error > *svmRow.Error+tol {
		t.Errorf("compressed test error %.4f, more than %.4f above the SVM's %.4f", *row.Error, tol, *svmRow.Error)
	}
	pred := filepath.Join(dir, "small.pred")
	mustRun(t, dir, "predict", "--model", small, "--data", test, "--out", pred)
	lib := filepath.Join(dir, "small.libsvm")
	mustRun(t, dir, "export", "--model", small, "--out", lib)
	sp := filepath.Join(dir, "small.svmpred")
	if b, err := exec.Command("svm-predict", test, lib, sp).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, b)
	}
	a, b := readLines(t, pred), readLines(t, sp)
	differ := 0
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			differ++
		}
	}
	if differ != 0 || len(a) != len(b) {
		t.Errorf("svm-predict on the exported model and pursuit predict disagree on %d of %d labels", differ, len(a))
	} else {
		t.Logf("svm-predict on the exported model gives pursuit predict's labels on all %d test digits", len(a))
	}
	return rep
}

// TestCompressUSPS8 is issue 35's first done-when: USPS 8 against the rest,
// svm-train's model (γ = 1/128, C = 10, 663 SVs), compressed to 10% with
// SLMC: the test error within 0.3 point of the SVM's, prediction about 5×
// faster (see below), and the exported LIBSVM file gives svm-predict pursuit
// predict's labels. SLMC's L-BFGS is bounded at 50 iterations (about 15 s
// here; the default 200 takes about a minute of CPU for the same error).
func TestCompressUSPS8(t *testing.T) {
	dir := t.TempDir()
	train, test := uspsForSVMTrain(t, dir, func(v float64) float64 {
		if v == 8 {
			return 1
		}
		return -1
	})
	model := filepath.Join(dir, "usps8.libsvm")
	svmTrain(t, train, model)
	rep := compressUSPS(t, dir, model, train, test, "50", 0.003)
	if rep.Rows[0].Vectors != 663 {
		t.Errorf("svm-train's model has %d support vectors, want 663", rep.Rows[0].Vectors)
	}
	if rep.Rows[1].Vectors != 66 {
		t.Errorf("the compressed model has %d vectors, want 66", rep.Rows[1].Vectors)
	}
	// The issue asks for 5x fewer seconds. Speed is measured, not asserted
	// in a test (machines are shared): the figure is logged above, and the
	// table of `pursuit compress` prints it. On the shared 2-core machine
	// (load 12 to 20) it measured 5.2x to 7.5x with avx2's AVX-512
	// kernels (4.2x to 4.5x before the engine's precision screen stopped
	// re-reading the rows and packing became eight rows at a time), and
	// 13x with -tags purego, whose small tiles make the product dominate.
}

// TestCompressUSPS10 is issue 35's second done-when: svm-train's ten-class
// one-vs-one USPS model compressed to 10% of each pair's vectors with SLMC
// has a test error within 0.5 point of the SVM's. It takes about a minute
// on two cores, so it runs only with PURSUIT_SLOW_TESTS=1.
func TestCompressUSPS10(t *testing.T) {
	if os.Getenv("PURSUIT_SLOW_TESTS") == "" {
		t.Skip("about a minute: set PURSUIT_SLOW_TESTS=1 to run it")
	}
	dir := t.TempDir()
	train, test := uspsForSVMTrain(t, dir, nil)
	model := filepath.Join(dir, "usps10.libsvm")
	svmTrain(t, train, model)
	rep := compressUSPS(t, dir, model, train, test, "50", 0.005)
	if rep.Task != learn.TaskOneVsOne || rep.Machines != 45 || !strings.Contains(strings.Join(rep.Classes, " "), "8") {
		t.Errorf("ten-class compress: task %s, %d machines, classes %v", rep.Task, rep.Machines, rep.Classes)
	}
}
