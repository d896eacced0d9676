package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestSLMCBPDNSparseCLI: --algo slmc (every --method) and --algo bpdn
// train on sparse rows through the CLI (issue 28) without a warning, and
// their model files save and load. A model predicts sparse and dense test
// rows alike (1e-5 relative). Models trained with --storage sparse and
// --storage dense give the same decisions within 1e-5 relative for bpdn
// and for every slmc --method: package slmc computes every value its
// training reads with the same bits for both storages, and the SVM that rs
// and mrs reduce (and that sizes Nz when --nz is not given) is trained on
// exact float64 kernel rows (svm.Params.Exact), whose bits depend on
// neither; the difference left is the float32 prediction of dense and
// sparse test rows.
func TestSLMCBPDNSparseCLI(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "text.svm"), filepath.Join(dir, "text.test.svm")
	cfg := data.TextLikeConfig{Rows: 150, Dim: 60, NNZPerRow: 8, Seed: 5}
	if _, err := data.WriteTextLike(train, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Rows, cfg.Seed = 60, 6
	if _, err := data.WriteTextLike(test, cfg); err != nil {
		t.Fatal(err)
	}
	// The same rows with real-valued targets, for bpdn.
	regTrain, regTest := filepath.Join(dir, "reg.svm"), filepath.Join(dir, "reg.test.svm")
	writeRegression(t, train, regTrain)
	writeRegression(t, test, regTest)

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
	type run struct {
		name        string
		train, test string
		args        []string
	}
	runs := []run{{"bpdn", regTrain, regTest, []string{"--algo", "bpdn", "--epsilon", "0.01", "--c", "10"}}}
	for _, m := range learn.SLMCMethods {
		runs = append(runs, run{"slmc " + m, train, test, []string{"--algo", "slmc", "--method", m, "--nz", "5", "--c", "10"}})
	}
	// Nz from the SVM's support vectors (--nz-frac's default).
	runs = append(runs, run{"slmc default nz", train, test, []string{"--algo", "slmc", "--c", "10"}})
	for _, c := range runs {
		t.Run(c.name, func(t *testing.T) {
			common := append([]string{"train", "--data", c.train, "--kernel", "rbf", "--gamma", "0.5", "--scale", "none", "--threads", "1", "--quiet"}, c.args...)
			r := mustRun(t, dir, append(common, "--storage", "sparse", "--model", "s.model")...)
			if r.stderr != "" {
				t.Errorf("sparse training warned: %q", r.stderr)
			}
			mustRun(t, dir, append(common, "--storage", "dense", "--model", "d.model")...)
			// within is the largest |a_i − b_i| relative to max(1, max |a_i|).
			within := func(what string, a, b []float64) float64 {
				t.Helper()
				if len(a) != len(b) {
					t.Fatalf("%s: %d decisions, want %d", what, len(b), len(a))
				}
				var worst, scale float64
				for i := range a {
					scale = math.Max(scale, math.Abs(a[i]))
					worst = math.Max(worst, math.Abs(a[i]-b[i]))
				}
				return worst / math.Max(1, scale)
			}
			for _, m := range []string{"d.model", "s.model"} {
				dense := decisions(m, c.test, "--storage", "dense")
				if d := within(m, dense, decisions(m, c.test, "--storage", "sparse")); d > 1e-5 {
					t.Errorf("%s: sparse and dense test rows differ by %.3g relative", m, d)
				}
			}
			// The two models on the same (dense) test rows: what training
			// on either storage changed.
			ref, got := decisions("d.model", c.test, "--storage", "dense"), decisions("s.model", c.test, "--storage", "dense")
			d := within("models", ref, got)
			t.Logf("models trained on dense and sparse rows: decisions within %.3g relative", d)
			if d > 1e-5 {
				t.Errorf("models trained on dense and sparse rows: decisions differ by %.3g relative, want 1e-5", d)
			}
		})
	}
}

// writeRegression writes the rows of the LIBSVM file in to out with a
// real-valued target: Σ_j x_j cos(j).
func writeRegression(t *testing.T, in, out string) {
	t.Helper()
	d, err := data.Load(in, data.WithStorage(data.StorageDense))
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Y {
		d.Y[i] = 0
		for j, v := range d.X.Row(i) {
			d.Y[i] += float64(v) * math.Cos(float64(j))
		}
	}
	if err := data.WriteFile(out, d); err != nil {
		t.Fatal(err)
	}
}
