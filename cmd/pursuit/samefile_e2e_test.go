package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output that is one of the command's inputs — by name, through a
// symlink or as a hard link — is refused with exit status 2, and the input
// is left as it was (issue 30, item 1).
func TestOutputIsAnInputRefused(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	model := filepath.Join(dir, "keep.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--basis", "5", "--gamma", "2", "--curve", "--model", model, "--quiet")
	link := filepath.Join(dir, "link.model")
	if err := os.Symlink(model, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.train")
	if err := os.Link(train, hard); err != nil {
		t.Fatal(err)
	}
	plotDir := filepath.Join(dir, "plots")
	if err := os.Mkdir(plotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A data file where `plot` would write its learning curve.
	curveData := filepath.Join(plotDir, "keep-curve.png")
	raw, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(curveData, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		input string // the file that must survive
		args  []string
	}{
		{"predict --out = --model", model, []string{"predict", "--model", model, "--data", test, "--out", model}},
		{"predict --out = --data", test, []string{"predict", "--model", model, "--data", test, "--out", test}},
		{"predict --out through a symlink to --model", model, []string{"predict", "--model", model, "--data", test, "--out", link}},
		{"predict --model through a symlink, --out the file", model, []string{"predict", "--model", link, "--data", test, "--out", model}},
		{"train --model = --data", train, []string{"train", "--data", train, "--model", train}},
		{"train --model a hard link of --data", train, []string{"train", "--data", train, "--model", hard}},
		{"train --model = --test", test, []string{"train", "--data", train, "--test", test, "--model", test}},
		{"cv --model = --data", train, []string{"cv", "--data", train, "--grid-gamma", "1,2", "--model", train}},
		{"subspace --out = --data", train, []string{"subspace", "--data", train, "--out", train}},
		{"plot writes over --data", curveData, []string{"plot", "--model", model, "--data", curveData, "--out", plotDir}},
	} {
		before, err := os.ReadFile(c.input)
		if err != nil {
			t.Fatal(err)
		}
		wantFail(t, dir, []string{"same file", "refusing to overwrite an input"}, c.args...)
		after, err := os.ReadFile(c.input)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("%s: the input %s was changed", c.name, c.input)
		}
	}
	// Standard output and a new file are fine.
	mustRun(t, dir, "predict", "--model", link, "--data", test, "--out", "-", "--quiet")
	mustRun(t, dir, "predict", "--model", model, "--data", test, "--out", filepath.Join(dir, "new.pred"), "--quiet")
}

// train --plot names its pictures after the model file, or after the data
// and the algorithm, so that a second run into the same folder does not
// overwrite the first (issue 30, item 12).
func TestTrainPlotNames(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	plots := filepath.Join(dir, "plots")
	a := mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--basis", "5", "--gamma", "2", "--plot", plots, "--model", filepath.Join(dir, "first.model"))
	b := mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--basis", "5", "--gamma", "2", "--plot", plots)
	for _, want := range []string{"first-curve.png", "first-surface.png", "moons-kmp-curve.png", "moons-kmp-surface.png"} {
		if _, err := os.Stat(filepath.Join(plots, want)); err != nil {
			t.Errorf("%s was not written (outputs:\n%s\n%s)", want, a.stdout, b.stdout)
		}
	}
	if got := plotPrefix("", "usps.train.gz", "svm"); got != "usps-svm" {
		t.Errorf("plotPrefix of usps.train.gz: %q", got)
	}
	if got := plotPrefix("out/m.model", "x", "svm"); got != "m" {
		t.Errorf("plotPrefix of out/m.model: %q", got)
	}
	if strings.Contains(plotPrefix("", ".hidden", "kmp"), "/") {
		t.Error("a prefix with a slash")
	}
}
