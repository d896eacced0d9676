package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
	"github.com/pursuit-ml/pursuit/learn"
)

func TestProgressModes(t *testing.T) {
	var buf bytes.Buffer
	// Not a terminal, or --quiet: the demo's bar draws nothing.
	p := newProgressBar(&env{stderr: &buf, stderrTTY: false}, "train kmp", false)
	p.Update(learn.Progress{Step: 1, Total: 10, Metric: "residual", Value: 1, ValErr: math.NaN()})
	p.Done()
	q := newProgressBar(&env{stderr: &buf, stderrTTY: true}, "train kmp", true)
	q.Update(learn.Progress{Step: 1, Total: 10, Metric: "residual", Value: 1, ValErr: math.NaN()})
	q.Done()
	if buf.Len() != 0 {
		t.Fatalf("progress drawn without a terminal or with --quiet: %q", buf.String())
	}
	if b := newProgressBar(&env{stderr: &buf, stderrTTY: true}, "train kmp", false); b.Mode() != learn.ProgressBar {
		t.Errorf("the demo's bar on a terminal is %q", b.Mode())
	}
	// auto resolves to lines without a terminal, to the bar with one.
	if m := newProgress(&env{stderr: &buf}, "x", progressAuto, false); m.Mode() != learn.ProgressLines {
		t.Errorf("auto without a terminal is %q", m.Mode())
	} else {
		m.Close()
	}
	if m := newProgress(&env{stderr: &buf, stderrTTY: true}, "x", progressAuto, false); m.Mode() != learn.ProgressBar {
		t.Errorf("auto on a terminal is %q", m.Mode())
	} else {
		m.Close()
	}
	if m := newProgress(&env{stderr: &buf, stderrTTY: true}, "x", progressBarM, true); m.Enabled() {
		t.Error("--quiet does not silence --progress bar")
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "8GiB": 8 << 30, "1.5G": 3 << 29, "1000": 1000, "2 KB": 2000} {
		got, err := parseBytes(in)
		if err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1GiB", "lots", "0", "1e400"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q): no error", in)
		}
	}
}

func TestLabelPlan(t *testing.T) {
	y := []float64{3, 5, 3, 5, 5}
	p, err := planLabels(y, &dataFlags{})
	if err != nil || p.Task != learn.TaskBinary || p.Classes[0] != 3 || p.Classes[1] != 5 {
		t.Fatalf("binary plan: %+v, %v", p, err)
	}
	if got := p.Targets(y, 0); !equal(got, []float64{-1, 1, -1, 1, 1}) {
		t.Errorf("targets %v", got)
	}
	if got := p.Decide([][]float64{{-0.5, 2, 0, 1, -1}}); !equal(got, []float64{3, 5, 3, 5, 3}) {
		t.Errorf("decide %v", got)
	}
	if e := p.ErrorRate([]float64{3, 5, 5, 5, 5}, y); e != 0.2 {
		t.Errorf("error rate %v", e)
	}
	multi := []float64{1, 2, 3, 2}
	if _, err := planLabels(multi, &dataFlags{}); err == nil || !strings.Contains(err.Error(), "3 classes") {
		t.Errorf("multi-class without a choice: %v", err)
	}
	p, err = planLabels(multi, &dataFlags{DataSettings: learn.DataSettings{Positive: "2"}})
	if err != nil || p.Positive == nil || !equal(p.Truth(multi), []float64{-1, 1, -1, 1}) {
		t.Fatalf("--positive 2: %+v, %v", p, err)
	}
	p, err = planLabels(multi, &dataFlags{DataSettings: learn.DataSettings{OneVsRest: true}})
	if err != nil || p.NumModels() != 3 {
		t.Fatalf("one-vs-rest: %+v, %v", p, err)
	}
	if got := p.Decide([][]float64{{1, 0}, {2, -1}, {0, 3}}); !equal(got, []float64{2, 3}) {
		t.Errorf("one-vs-rest decide %v", got)
	}
	if _, err := planLabels([]float64{1, 1}, &dataFlags{}); err == nil {
		t.Error("one class: no error")
	}
	p, err = planLabels([]float64{0.5, 1.5}, &dataFlags{DataSettings: learn.DataSettings{Regression: true}})
	if err != nil || p.ErrorRate([]float64{1, 1}, []float64{0.5, 1.5}) != 0.25 {
		t.Errorf("regression MSE: %+v %v", p, err)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRunInProcess checks the exit statuses of run itself, including the
// last-resort recovery from a panic.
func TestRunInProcess(t *testing.T) {
	var so, se bytes.Buffer
	ev := &env{stdout: &so, stderr: &se}
	if code := run(ev, []string{"version"}); code != exitOK || !strings.Contains(so.String(), version) {
		t.Errorf("version: %d %q", code, so.String())
	}
	if code := run(ev, []string{"train", "--help"}); code != exitOK {
		t.Errorf("train --help: exit %d", code)
	}
	se.Reset()
	if code := run(ev, []string{"predict", "--model"}); code != exitError || !strings.Contains(se.String(), "needs an argument") {
		t.Errorf("flag without value: %d %q", code, se.String())
	}
	se.Reset()
	if code := run(&env{stdout: panicWriter{}, stderr: &se}, []string{"version"}); code != exitError || !strings.Contains(se.String(), "internal error") || strings.Count(se.String(), "\n") != 1 {
		t.Errorf("panic not turned into one line and exit 2: %d %q", code, se.String())
	}
}

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom") }

// Flag errors name flags with two dashes, as the docs do (issue 30, item 7).
func TestFlagErrorsUseTwoDashes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"flag provided but not defined: -mem-budgt", "flag provided but not defined: --mem-budgt"},
		{`invalid value "abc" for flag -epsilon: parse error`, `invalid value "abc" for flag --epsilon: parse error`},
		{"flag needs an argument: -data", "flag needs an argument: --data"},
		{`invalid boolean value "x" for -quiet: parse error`, `invalid boolean value "x" for --quiet: parse error`},
		{"bad flag syntax: ---x", "bad flag syntax: ---x"},
	} {
		if got := twoDashes(c.in); got != c.want {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
	dir := t.TempDir()
	wantFail(t, dir, []string{"--mem-budgt", "flag provided but not defined"}, "predict", "--mem-budgt", "1GiB")
	wantFail(t, dir, []string{"for flag --epsilon"}, "train", "--epsilon", "abc")
	wantFail(t, dir, []string{"flag needs an argument: --data"}, "train", "--data")
	wantFail(t, dir, []string{"for --quiet"}, "train", "--quiet=x")
}

// planLabels decides the task from the training labels and the flags.
func planLabels(y []float64, d *dataFlags) (learn.LabelPlan, error) {
	return planLabelsOn(&comm.Single{}, y, d)
}

// planLabelsOn is learn.PlanLabels on the labels of every rank of c (a
// collective across ranks), its errors in terms of the flags.
func planLabelsOn(c comm.Comm, y []float64, d *dataFlags) (learn.LabelPlan, error) {
	s, err := d.LabelSpec()
	if err != nil {
		return learn.LabelPlan{}, flagErr(err)
	}
	plan, err := learn.PlanLabels(engine.GroupOf(c), y, s, func(err error) error { return agree(c, err) })
	return plan, labelError(err, d, "")
}
