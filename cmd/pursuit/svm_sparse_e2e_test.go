package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
)

// TestSVMSparseCLI: --algo svm trains on sparse rows (storage auto), its
// model predicts a sparse test file, including one with a feature beyond
// the model's, and gives the decisions of the same model trained on dense
// rows; with svm-train installed, the exported LIBSVM model's decisions
// are svm-predict's on the widened test file too.
func TestSVMSparseCLI(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "text.svm"), filepath.Join(dir, "text.test.svm")
	if _, err := data.WriteTextLike(train, data.TextLikeConfig{Rows: 300, Dim: 2000, NNZPerRow: 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := data.WriteTextLike(test, data.TextLikeConfig{Rows: 80, Dim: 2000, NNZPerRow: 20, Seed: 6}); err != nil {
		t.Fatal(err)
	}
	// The test file with a feature beyond the training set's last.
	raw, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(raw), "\n"), "\n")
	lines[0] = strings.TrimRight(lines[0], "\n") + " 2500:0.5\n"
	wide := filepath.Join(dir, "wide.test.svm")
	os.WriteFile(wide, []byte(strings.Join(lines, "")+"\n"), 0o644)

	common := []string{"--algo", "svm", "--kernel", "rbf", "--gamma", "1", "--c", "10", "--scale", "none", "--quiet"}
	var res resultJSON
	r := mustRun(t, dir, append([]string{"train", "--data", train, "--model", "s.model", "--export-libsvm", "s.libsvm", "--json"}, common...)...)
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if res.Storage == nil || res.Storage.Kind != "sparse" {
		t.Fatalf("storage %+v, want sparse", res.Storage)
	}
	mustRun(t, dir, append([]string{"train", "--data", train, "--model", "d.model", "--storage", "dense"}, common...)...)
	decisions := func(model, data string, extra ...string) []float64 {
		t.Helper()
		out := filepath.Join(dir, "pred.txt")
		mustRun(t, dir, append([]string{"predict", "--model", model, "--data", data, "--out", out, "--decision", "--quiet"}, extra...)...)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var d []float64
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(l)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatalf("prediction line %q", l)
			}
			d = append(d, v)
		}
		return d
	}
	near := func(what string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d decisions, want %d", what, len(got), len(want))
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-5*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("%s: decision %d = %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	sparse := decisions("s.model", test)
	near("dense model, dense test rows", decisions("d.model", test, "--storage", "dense"), sparse)
	near("sparse model, dense test rows", decisions("s.model", test, "--storage", "dense"), sparse)
	// A feature beyond the model's: accepted in sparse rows; it changes
	// the RBF value of the first row only.
	w := decisions("s.model", wide)
	near("rows without the extra feature", w[1:], sparse[1:])
	if w[0] == sparse[0] {
		t.Errorf("the extra feature left the RBF decision %v unchanged", w[0])
	}
	// Dense rows must stay within the model's features.
	wantFail(t, dir, []string{"wide.test.svm", "2500", "2000 features"}, "predict", "--model", "s.model", "--data", wide, "--storage", "dense")
	if _, err := exec.LookPath("svm-predict"); err != nil {
		t.Log("svm-predict not installed: not compared with it")
		return
	}
	// svm-predict on the exported model and the widened file: the same
	// decision values (its RBF counts the extra feature as pursuit does).
	lib := decisions("s.libsvm", wide)
	near("LIBSVM export, widened file", lib, w)
	out, err := exec.Command("svm-predict", wide, filepath.Join(dir, "s.libsvm"), filepath.Join(dir, "lib.pred")).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "lib.pred"))
	labels := strings.Fields(string(b))
	for i, l := range labels {
		v, _ := strconv.ParseFloat(l, 64)
		if want := math.Copysign(1, w[i]); v != want && math.Abs(w[i]) > 1e-6 {
			t.Fatalf("row %d: svm-predict says %v, pursuit's decision %v", i, v, w[i])
		}
	}
}
