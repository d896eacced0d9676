package main

import (
	"bufio"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/svm"
)

// export --format libsvm writes a model svm-predict reads (issue 29). On
// two-moons and a regression problem, for every algorithm that is one
// kernel expansion, svm-scale with the range file and svm-predict on the
// export give pursuit predict's labels and values (libsvmRoundTrip).
func TestExportLIBSVMRoundTrip(t *testing.T) {
	if !libsvmTools() {
		t.Skip("svm-scale or svm-predict not installed (Debian's libsvm-tools)")
	}
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	regTrain, regTest := filepath.Join(dir, "wave.train"), filepath.Join(dir, "wave.test")
	writeData(t, regTrain, smoothRegression(150, 3))
	writeData(t, regTest, smoothRegression(80, 4))
	for _, c := range []struct {
		name       string
		args       []string
		regression bool
	}{
		{"kmp", []string{"--algo", "kmp", "--basis", "15"}, false},
		{"kmp-backfit", []string{"--algo", "kmp-backfit", "--basis", "15"}, false},
		{"kmp-basic", []string{"--algo", "kmp-basic", "--basis", "15"}, false},
		{"kmp-tanh", []string{"--algo", "kmp-tanh", "--basis", "15"}, false},
		{"skmp", []string{"--algo", "skmp", "--basis", "15"}, false},
		{"slmc", []string{"--algo", "slmc", "--nz", "8"}, false},
		{"mpkfda", []string{"--algo", "mpkfda", "--basis", "10"}, false},
		{"svm", []string{"--algo", "svm"}, false},
		{"svm, minmax", []string{"--algo", "svm", "--scale", "minmax"}, false},
		{"svm unscaled", []string{"--algo", "svm", "--scale", "none"}, false},
		{"kmp regression", []string{"--algo", "kmp", "--basis", "15", "--regression"}, true},
		{"svm regression", []string{"--algo", "svm", "--svr-epsilon", "0.05"}, true},
		{"bpdn", []string{"--algo", "bpdn", "--epsilon", "0.05", "--c", "10"}, true},
	} {
		tr, te := train, test
		if c.regression {
			tr, te = regTrain, regTest
		}
		libsvmRoundTrip(t, dir, c.name, tr, te, append([]string{"--gamma", "2"}, c.args...), c.regression)
	}
	// What LIBSVM cannot hold is refused in one line.
	ovr := filepath.Join(dir, "three.train")
	writeData(t, ovr, threeClass(90))
	model := filepath.Join(dir, "ovr.model")
	mustRun(t, dir, "train", "--data", ovr, "--algo", "svm", "--one-vs-rest", "--model", model, "--quiet")
	wantFail(t, dir, []string{"cannot be written as a LIBSVM model", "one-vs-rest"}, "export", "--model", model, "--out", filepath.Join(dir, "x.libsvm"))
	wantFail(t, dir, []string{"cannot be written as an ONNX model", "svm", "one-vs-rest"}, "export", "--model", model, "--out", filepath.Join(dir, "x.onnx"), "--format", "onnx")
	wantFail(t, dir, []string{"cannot be written as an ONNX model", "svm", "one-vs-rest"}, "train", "--data", ovr, "--algo", "svm", "--one-vs-rest", "--export-onnx", filepath.Join(dir, "y.onnx"), "--quiet")
	wantFail(t, dir, []string{"--format \"pmml\"", "svm model", "libsvm or onnx"}, "export", "--model", model, "--out", filepath.Join(dir, "x.pmml"), "--format", "pmml")
	wantFail(t, dir, []string{"same file"}, "export", "--model", model, "--out", model, "--format", "onnx")
	wantFail(t, dir, []string{"same file"}, "export", "--model", model, "--out", model)
}

// libsvmTools reports whether LIBSVM's svm-scale and svm-predict are
// installed.
func libsvmTools() bool {
	_, err1 := exec.LookPath("svm-scale")
	_, err2 := exec.LookPath("svm-predict")
	return err1 == nil && err2 == nil
}

// TestExportLIBSVMSharedSets (issue 29): every model the ONNX test exports
// on the shared USPS (8 vs rest), mushrooms and Boston sets, exported as
// LIBSVM: svm-predict (after svm-scale with the range file where the model
// scales) gives pursuit predict's labels, and its regression values agree
// to 1e-5 relative.
func TestExportLIBSVMSharedSets(t *testing.T) {
	if !libsvmTools() {
		t.Skip("svm-scale or svm-predict not installed (Debian's libsvm-tools)")
	}
	dir := t.TempDir()
	cases, _ := sharedONNXCases(t, dir)
	if len(cases) == 0 {
		t.Skip("no shared data set available")
	}
	for _, c := range cases {
		libsvmRoundTrip(t, dir, c.name, c.train, c.test, c.args, c.regression)
	}
}

// libsvmRoundTrip trains name on train with args, exports it with train
// --export-libsvm (and export, which must write the same file), and
// compares svm-predict on the export (after svm-scale with its range file
// where the model scales) with pursuit predict on test: labels equal, and
// regression values within 1e-5 relative (issue 29; both compute in
// float64, svm-scale prints the scaled features to 6 digits). It returns
// the labels that differ and the largest relative difference of the
// values.
func libsvmRoundTrip(t *testing.T, dir, name, train, test string, args []string, regression bool) (int, float64) {
	t.Helper()
	svmScale, _ := exec.LookPath("svm-scale")
	svmPredict, _ := exec.LookPath("svm-predict")
	cdir := t.TempDir() // each case's files apart (a range file must not outlive its case)
	model := filepath.Join(cdir, "m.model")
	lib := filepath.Join(cdir, "m.libsvm")
	mustRun(t, dir, append([]string{"train", "--data", train, "--model", model, "--export-libsvm", lib, "--quiet"}, args...)...)
	// The export command writes the same file.
	again := filepath.Join(cdir, "again.libsvm")
	mustRun(t, dir, "export", "--model", model, "--out", again)
	if string(readFile(t, lib)) != string(readFile(t, again)) {
		t.Errorf("%s: train --export-libsvm and export wrote different files", name)
	}
	pp := filepath.Join(cdir, "p.pred")
	mustRun(t, dir, "predict", "--model", model, "--data", test, "--out", pp, "--decision", "--quiet")
	scaled := test
	if _, err := os.Stat(lib + ".range"); err == nil {
		scaled = filepath.Join(cdir, "scaled")
		out, err := exec.Command("sh", "-c", `"$0" -r "$1" "$2" > "$3"`, svmScale, lib+".range", test, scaled).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: svm-scale: %v\n%s", name, err, out)
		}
	} else if !strings.Contains(name, "unscaled") && !slices.Contains(args, "none") {
		t.Errorf("%s: no range file beside the export of a scaled model", name)
	}
	sp := filepath.Join(cdir, "s.pred")
	if out, err := exec.Command(svmPredict, scaled, lib, sp).CombinedOutput(); err != nil {
		t.Fatalf("%s: svm-predict: %v\n%s", name, err, out)
	}
	lm, err := svm.ReadLIBSVMModel(strings.NewReader(string(readFile(t, lib))))
	if err != nil {
		t.Fatal(err)
	}
	mass := 0.0
	for _, v := range lm.Coef[0] {
		mass += math.Abs(v)
	}
	ours, theirs := readColumns(t, pp), readColumns(t, sp)
	if len(ours) != len(theirs) {
		t.Fatalf("%s: %d predictions against svm-predict's %d", name, len(ours), len(theirs))
	}
	flips, worst := 0, 0.0
	for i := range ours {
		label, dec, lib := ours[i][0], ours[i][len(ours[i])-1], theirs[i][0]
		if regression {
			worst = max(worst, math.Abs(label-lib)/max(1, math.Abs(label)))
			if math.Abs(label-lib) > 1e-5*max(1, math.Abs(label)) {
				t.Errorf("%s row %d: pursuit %v, svm-predict %v", name, i+1, label, lib)
			}
			continue
		}
		if label != lib {
			flips++
			t.Errorf("%s row %d: pursuit label %v (decision %v), svm-predict %v", name, i+1, label, dec, lib)
		}
	}
	t.Logf("%s: %d rows, %d labels differ, largest relative difference %.2g (Σ|coef| %.3g)", name, len(ours), flips, worst, mass)
	return flips, worst
}

// readColumns reads a predictions file: one line of numbers per row.
func readColumns(t *testing.T, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row []float64
		for _, s := range strings.Fields(sc.Text()) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %q", path, sc.Text())
			}
			row = append(row, v)
		}
		out = append(out, row)
	}
	return out
}
