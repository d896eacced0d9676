package main

import (
	"bufio"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/svm"
)

// export --format libsvm writes a model svm-predict reads (issue 29, first
// part). On two-moons and a regression problem, for every algorithm that
// is one kernel expansion, svm-scale with the range file and svm-predict
// on the export give pursuit predict's labels and values. The kernel
// values differ by float32 rounding (pursuit) against double (LIBSVM), and
// svm-scale prints the scaled features to 6 digits: a difference is allowed
// only where the decision is within Σ|coef|·1e-5 of it (the bound those
// roundings give), and is counted in the log.
func TestExportLIBSVMRoundTrip(t *testing.T) {
	svmScale, err1 := exec.LookPath("svm-scale")
	svmPredict, err2 := exec.LookPath("svm-predict")
	if err1 != nil || err2 != nil {
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
		cdir := t.TempDir() // each case's files apart (a range file must not outlive its case)
		model := filepath.Join(cdir, "m.model")
		lib := filepath.Join(cdir, "m.libsvm")
		mustRun(t, dir, append([]string{"train", "--data", tr, "--gamma", "2", "--model", model, "--export-libsvm", lib, "--quiet"}, c.args...)...)
		// The export command writes the same file.
		again := filepath.Join(dir, "again.libsvm")
		mustRun(t, dir, "export", "--model", model, "--out", again)
		if string(readFile(t, lib)) != string(readFile(t, again)) {
			t.Errorf("%s: train --export-libsvm and export wrote different files", c.name)
		}
		pp := filepath.Join(dir, "p.pred")
		mustRun(t, dir, "predict", "--model", model, "--data", te, "--out", pp, "--decision", "--quiet")
		scaled := te
		if _, err := os.Stat(lib + ".range"); err == nil {
			scaled = filepath.Join(dir, "scaled")
			out, err := exec.Command("sh", "-c", `"$0" -r "$1" "$2" > "$3"`, svmScale, lib+".range", te, scaled).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: svm-scale: %v\n%s", c.name, err, out)
			}
		} else if !strings.Contains(c.name, "unscaled") {
			t.Errorf("%s: no range file beside the export of a scaled model", c.name)
		}
		sp := filepath.Join(dir, "s.pred")
		if out, err := exec.Command(svmPredict, scaled, lib, sp).CombinedOutput(); err != nil {
			t.Fatalf("%s: svm-predict: %v\n%s", c.name, err, out)
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
			t.Fatalf("%s: %d predictions against svm-predict's %d", c.name, len(ours), len(theirs))
		}
		flips, worst := 0, 0.0
		for i := range ours {
			label, dec, lib := ours[i][0], ours[i][len(ours[i])-1], theirs[i][0]
			if c.regression {
				worst = max(worst, math.Abs(label-lib)/max(1, math.Abs(label)))
				if math.Abs(label-lib) > 1e-5*max(1, math.Abs(label))+1e-5*mass {
					t.Errorf("%s row %d: pursuit %v, svm-predict %v", c.name, i+1, label, lib)
				}
				continue
			}
			if label != lib {
				flips++
				if math.Abs(dec) > 1e-5*mass {
					t.Errorf("%s row %d: pursuit label %v (decision %v), svm-predict %v", c.name, i+1, label, dec, lib)
				}
			}
		}
		t.Logf("%s: %d rows, %d labels within rounding of the boundary differ, largest relative difference %.2g (Σ|coef| %.3g)", c.name, len(ours), flips, worst, mass)
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
