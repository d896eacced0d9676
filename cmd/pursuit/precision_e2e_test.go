package main

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// predictFlagClasses classifies every flag of predict (issue 29's
// --precision among them): a new flag goes into one class, and
// TestPredictFlagsClassified fails until it does.
var predictFlagClasses = map[string][]string{
	"input":       {"model", "data", "format", "label-column", "header", "storage"},
	"output":      {"out", "decision", "quiet", "json"},
	"computation": {"backend", "threads", "mem-budget", "precision"},
}

// TestPredictFlagsClassified checks that every predict flag is in exactly
// one class of predictFlagClasses and every classified flag exists.
func TestPredictFlagsClassified(t *testing.T) {
	fs, _ := newPredictFlags()
	seen := map[string]int{}
	for _, names := range predictFlagClasses {
		for _, n := range names {
			seen[n]++
			if fs.Lookup(n) == nil {
				t.Errorf("predict has no --%s, but predictFlagClasses lists it", n)
			}
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if seen[f.Name] != 1 {
			t.Errorf("predict --%s is in %d classes of predictFlagClasses, want 1", f.Name, seen[f.Name])
		}
	})
}

// predictDecisions runs pursuit predict --decision with extra arguments and
// returns each line's decision values (the label dropped).
func predictDecisions(t *testing.T, dir, model, file, name string, extra ...string) []float64 {
	t.Helper()
	out := filepath.Join(dir, "pred."+name)
	args := append([]string{"predict", "--model", model, "--data", file, "--out", out, "--decision", "--quiet"}, extra...)
	mustRun(t, dir, args...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var d []float64
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("%s: %q is not a label and a decision", out, line)
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("%s: %q is not a number", out, f[1])
		}
		d = append(d, v)
	}
	return d
}

// TestPredictPrecision (issue 29): predict --precision float64 gives the
// float32 decisions of a model to 1e-5 relative on Boston min-max scaled
// and unscaled (where the engine already takes cancelling RBF distances in
// float64), the default is float64, and an unknown precision is refused
// with one line.
func TestPredictPrecision(t *testing.T) {
	dir := t.TempDir()
	reg, cls := bostonFiles(t, dir)
	for _, c := range []struct{ algo, file, scale string }{
		{"bpdn", reg, "none"}, {"kmp", cls, "none"}, {"slmc", cls, "minmax"}, {"bpdn", reg, "minmax"},
	} {
		t.Run(c.algo+"/"+c.scale, func(t *testing.T) {
			model := filepath.Join(dir, c.algo+"."+c.scale+".model")
			args := []string{"train", "--algo", c.algo, "--gamma", "0.5", "--scale", c.scale, "--data", c.file, "--model", model, "--quiet"}
			if c.algo == "bpdn" {
				// C = 10: bpdn's default C = ∞ gives large coefficients
				// that cancel, and float32 kernel errors of 1e-7 become
				// 3e-4 of the decision (scaled) — the models
				// --precision float64 is for.
				args = append(args, "--epsilon", "2", "--c", "10")
			}
			mustRun(t, dir, args...)
			d32 := predictDecisions(t, dir, model, c.file, "f32", "--precision", "float32")
			d64 := predictDecisions(t, dir, model, c.file, "f64", "--precision", "float64")
			def := predictDecisions(t, dir, model, c.file, "default")
			var scale, diff float64
			for i := range d32 {
				if math.Float64bits(def[i]) != math.Float64bits(d64[i]) {
					t.Fatalf("row %d: default %g, --precision float64 %g", i, def[i], d64[i])
				}
				scale = math.Max(scale, math.Abs(d64[i]))
				diff = math.Max(diff, math.Abs(d64[i]-d32[i]))
			}
			t.Logf("float32 within %.3g relative of float64", diff/scale)
			if diff > 1e-5*scale {
				t.Errorf("float32 and float64 decisions differ by %.3g relative", diff/scale)
			}
		})
	}
	wantFail(t, dir, []string{"--precision", "double"}, "predict", "--model", filepath.Join(dir, "bpdn.none.model"), "--data", reg, "--precision", "double")
}
