package main

import (
	"math"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/data"
)

// checkBound asserts a --bound object against the formula of its theorem
// and against the training error it must be consistent with: t counts the
// training errors outside the k basis points, so errors − k ≤ t ≤ errors.
func checkBound(t *testing.T, r resultJSON, theorem string) {
	t.Helper()
	b := r.Bound
	if b == nil {
		t.Fatal("no bound object in the JSON")
	}
	if b.Theorem != theorem || b.M != r.NTrain || b.K != r.NBasis || b.Delta != 0.05 {
		t.Errorf("bound %+v: want %s, m = %d, k = %d, δ = 0.05", *b, theorem, r.NTrain, r.NBasis)
	}
	errs := int(math.Round(*r.TrainError * float64(r.NTrain)))
	if b.T > errs || b.T < errs-b.K {
		t.Errorf("t = %d with %d training errors and k = %d", b.T, errs, b.K)
	}
	f := bound.KMP
	if theorem == "Theorem 2" {
		f = bound.Compression
	}
	want, err := f(b.M, b.K, b.T, 0.05)
	if err != nil || math.Abs(b.Value-want) > 1e-12 || b.Trivial != (want >= 1) {
		t.Errorf("bound value %v (trivial %v), formula %v (%v)", b.Value, b.Trivial, want, err)
	}
}

func TestBoundFlag(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	for algo, theorem := range map[string]string{"kmp": "Theorem 4", "kmp-backfit": "Theorem 4", "kmp-basic": "Theorem 4", "skmp": "Theorem 4", "mpkfda": "Theorem 4", "svm": "Theorem 2"} {
		args := []string{"train", "--data", train, "--algo", algo, "--bound", "--json", "--quiet"}
		if algo != "svm" {
			args = append(args, "--basis", "8")
		}
		r := mustRun(t, dir, args...)
		var out resultJSON
		decodeJSON(t, r.stdout, &out)
		checkBound(t, out, theorem)
	}
	// The human line.
	r := mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--basis", "5", "--bound", "--delta", "0.1", "--quiet")
	line := regexp.MustCompile(`bound      with probability ≥ 90%, the true error is at most [0-9]+\.[0-9]% \(Theorem 4, k = 5, t = [0-9]+\)`)
	if !line.MatchString(r.stdout) {
		t.Errorf("no bound line in the output:\n%s", r.stdout)
	}
	// Regression needs --alpha and bounds P(|f − y| > α).
	reg := filepath.Join(dir, "reg.train")
	d := twoMoons(120, 0.1, 3)
	for i := range d.Y {
		d.Y[i] = float64(d.X.At(i, 0)) * 2
	}
	writeData(t, reg, d)
	r = mustRun(t, dir, "train", "--data", reg, "--regression", "--algo", "kmp", "--basis", "10", "--bound", "--alpha", "0.2", "--json", "--quiet")
	var out resultJSON
	decodeJSON(t, r.stdout, &out)
	if out.Bound == nil || out.Bound.Alpha == nil || *out.Bound.Alpha != 0.2 {
		t.Fatalf("regression bound %+v: want α = 0.2", out.Bound)
	}
	if want, _ := bound.KMP(out.Bound.M, out.Bound.K, out.Bound.T, 0.05); out.Bound.Value != want {
		t.Errorf("regression bound %v, formula %v", out.Bound.Value, want)
	}
	// bpdn (ε-SVR): Theorem 2 over its support vectors.
	r = mustRun(t, dir, "train", "--data", reg, "--algo", "bpdn", "--epsilon", "0.1", "--c", "10", "--bound", "--alpha", "0.2", "--json", "--quiet")
	var sv resultJSON
	decodeJSON(t, r.stdout, &sv)
	if sv.Bound == nil || sv.Bound.Theorem != "Theorem 2" || sv.Bound.K != sv.NBasis {
		t.Fatalf("bpdn bound %+v with %d support vectors", sv.Bound, sv.NBasis)
	}
	if want, _ := bound.Compression(sv.Bound.M, sv.Bound.K, sv.Bound.T, 0.05); sv.Bound.Value != want {
		t.Errorf("bpdn bound %v, Theorem 2 formula %v", sv.Bound.Value, want)
	}
}

func TestBoundBadInput(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	multi := filepath.Join(dir, "blobs.train")
	writeData(t, multi, threeClass(90))
	reg := filepath.Join(dir, "reg.train")
	d := twoMoons(60, 0.1, 3)
	writeData(t, reg, d)
	for _, c := range []struct {
		want []string
		args []string
	}{
		{[]string{"--bound", "slmc"}, []string{"--algo", "slmc", "--bound"}},
		{[]string{"--delta", "(0, 1)"}, []string{"--algo", "kmp", "--bound", "--delta", "0"}},
		{[]string{"--delta", "(0, 1)"}, []string{"--algo", "kmp", "--bound", "--delta", "1.5"}},
		{[]string{"--delta", "only with --bound"}, []string{"--algo", "kmp", "--delta", "0.1"}},
		{[]string{"--alpha", "regression"}, []string{"--algo", "kmp", "--bound", "--alpha", "0.1"}},
		{[]string{"--basis", "more than"}, []string{"--algo", "mpkfda", "--basis", "100000"}},
	} {
		wantFail(t, dir, c.want, append([]string{"train", "--data", train, "--quiet"}, c.args...)...)
	}
	wantFail(t, dir, []string{"--bound", "--positive"}, "train", "--data", multi, "--one-vs-rest", "--algo", "kmp", "--basis", "3", "--bound", "--quiet")
	wantFail(t, dir, []string{"--alpha", "α > 0"}, "train", "--data", reg, "--regression", "--algo", "kmp", "--bound", "--quiet")
}

// On USPS 8 vs the rest, pre-fitting KMP with 274 basis functions: the
// printed bound is Theorem 4's value for the model's k and t.
func TestBoundUSPS(t *testing.T) {
	if testing.Short() {
		t.Skip("trains KMP on the whole USPS training set")
	}
	trainPath, err := data.SharedFile("usps", "usps.train.gz")
	if err != nil {
		t.Skipf("shared USPS data not available (%v)", err)
	}
	dir := t.TempDir()
	r := mustRun(t, dir, "train", "--data", trainPath, "--positive", "8", "--algo", "kmp", "--gamma", "0.0078125",
		"--basis", "274", "--bound", "--json", "--quiet")
	var out resultJSON
	decodeJSON(t, r.stdout, &out)
	checkBound(t, out, "Theorem 4")
	t.Logf("USPS 8 vs rest, KMP, 274 basis functions: %s", out.Bound.String())
	if th2, err := bound.Compression(out.Bound.M, out.Bound.K, out.Bound.T, 0.05); err == nil {
		t.Logf("Theorem 2 at the same k and t (not justified for KMP, whose coefficients use every label): %.4f", th2)
	}
}

// pursuit bound on a saved model gives the bound train --bound printed.
func TestBoundCommand(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	model := filepath.Join(dir, "m.model")
	for _, algo := range []string{"kmp", "svm", "mpkfda"} {
		r := mustRun(t, dir, "train", "--data", train, "--algo", algo, "--bound", "--model", model, "--json", "--quiet")
		var tr resultJSON
		decodeJSON(t, r.stdout, &tr)
		r = mustRun(t, dir, "bound", "--model", model, "--data", train, "--json")
		var b boundJSON
		decodeJSON(t, r.stdout, &b)
		if tr.Bound == nil || b != *tr.Bound {
			t.Errorf("%s: pursuit bound gave %+v, train --bound %+v", algo, b, tr.Bound)
		}
	}
	wantFail(t, dir, []string{"--data", "trained on 200"}, "bound", "--model", model, "--data", test)
	wantFail(t, dir, []string{"--delta"}, "bound", "--model", model, "--data", train, "--delta", "0")
}
