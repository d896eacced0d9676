package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/learn"
)

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	// Not a terminal: nothing is drawn, whatever happens.
	p := newProgressBar(&env{stderr: &buf, stderrTTY: false}, "train kmp", false)
	p.Update(learn.Progress{Step: 1, Total: 10, Metric: "residual", Value: 1, ValErr: math.NaN()})
	p.Done()
	// A terminal with --quiet: nothing either.
	q := newProgressBar(&env{stderr: &buf, stderrTTY: true}, "train kmp", true)
	q.Update(learn.Progress{Step: 1, Total: 10, Metric: "residual", Value: 1, ValErr: math.NaN()})
	q.Done()
	if buf.Len() != 0 {
		t.Fatalf("progress drawn without a terminal or with --quiet: %q", buf.String())
	}
	// A terminal: one self-overwriting line, cleared at the end.
	now := time.Unix(0, 0)
	b := newProgressBar(&env{stderr: &buf, stderrTTY: true}, "train kmp", false)
	b.start, b.now = now, func() time.Time { return now }
	now = now.Add(10 * time.Second)
	b.Update(learn.Progress{Step: 25, Total: 100, Metric: "residual", Value: 0.5, ValErr: 0.042})
	out := buf.String()
	for _, w := range []string{"\rtrain kmp [", "] 25/100", "residual 0.5", "val 4.20%", "00:10", "ETA 00:30"} {
		if !strings.Contains(out, w) {
			t.Errorf("bar %q lacks %q", out, w)
		}
	}
	// Updates within 100 ms are not redrawn, except the last step.
	n := buf.Len()
	b.Update(learn.Progress{Step: 26, Total: 100, ValErr: math.NaN()})
	if buf.Len() != n {
		t.Error("redrawn within 100 ms")
	}
	b.Update(learn.Progress{Step: 100, Total: 100, ValErr: math.NaN()})
	if buf.Len() == n {
		t.Error("final step not drawn")
	}
	b.Done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Errorf("Done does not clear the line: %q", buf.String())
	}
	// Unknown total: a bouncing marker, no ETA.
	s := b.render(learn.Progress{Step: 7, Metric: "W", Value: -3, ValErr: math.NaN()}, 3*time.Second)
	if !strings.Contains(s, "step 7") || strings.Contains(s, "ETA") {
		t.Errorf("render without total: %q", s)
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
	p, err = planLabels(multi, &dataFlags{positive: "2"})
	if err != nil || p.Positive == nil || !equal(p.Truth(multi), []float64{-1, 1, -1, 1}) {
		t.Fatalf("--positive 2: %+v, %v", p, err)
	}
	p, err = planLabels(multi, &dataFlags{oneVsRest: true})
	if err != nil || p.NumModels() != 3 {
		t.Fatalf("one-vs-rest: %+v, %v", p, err)
	}
	if got := p.Decide([][]float64{{1, 0}, {2, -1}, {0, 3}}); !equal(got, []float64{2, 3}) {
		t.Errorf("one-vs-rest decide %v", got)
	}
	if _, err := planLabels([]float64{1, 1}, &dataFlags{}); err == nil {
		t.Error("one class: no error")
	}
	p, err = planLabels([]float64{0.5, 1.5}, &dataFlags{regression: true})
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

func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgressMode(&env{stderr: &buf}, "train kmp", progressLines)
	p.start, p.now = now, func() time.Time { return now }
	// Nothing in the first second.
	p.Update(learn.Progress{Step: 0, Total: 100, ValErr: math.NaN()})
	if buf.Len() != 0 {
		t.Fatalf("printed within the first second: %q", buf.String())
	}
	now = now.Add(time.Second)
	// One line per 10% mark crossed, none in between within 5 s.
	for step := 1; step <= 100; step++ {
		now = now.Add(10 * time.Millisecond)
		p.Update(learn.Progress{Step: step, Total: 100, Metric: "residual", Value: 1 / float64(step), ValErr: math.NaN()})
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 11 { // 0%…, 10%, …, 100%
		t.Fatalf("%d lines for 100 quick steps, want 11:\n%s", len(lines), buf.String())
	}
	if strings.ContainsAny(buf.String(), "\r\x1b") {
		t.Errorf("control characters in lines mode: %q", buf.String())
	}
	if !strings.HasPrefix(lines[5], "train kmp: 50/100 (50%) residual 0.02 ") {
		t.Errorf("line %q", lines[5])
	}
	// Slow steps: a line every 5 s even between marks.
	buf.Reset()
	p.setLabel("train kmp 2/2")
	p.Update(learn.Progress{Step: 1, Total: 1000, ValErr: math.NaN()})
	for step := 2; step <= 5; step++ {
		now = now.Add(3 * time.Second)
		p.Update(learn.Progress{Step: step, Total: 1000, ValErr: math.NaN()})
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 { // the first, then at 6 s and 12 s
		t.Errorf("%d lines over 12 s of slow steps, want 3:\n%s", n, buf.String())
	}
	// A note (SLMC's stop reason) is always printed.
	buf.Reset()
	p.Update(learn.Progress{Step: 6, Total: 1000, ValErr: math.NaN(), Note: "stop: converged after 6 iterations"})
	if !strings.Contains(buf.String(), "stop: converged after 6 iterations\n") {
		t.Errorf("note not printed: %q", buf.String())
	}
	// auto resolves to lines without a terminal, to the bar with one.
	if m := newProgress(&env{stderr: &buf}, "x", progressAuto, false); m.mode != progressLines {
		t.Errorf("auto without a terminal is %q", m.mode)
	} else {
		m.Close()
	}
	if m := newProgress(&env{stderr: &buf, stderrTTY: true}, "x", progressAuto, false); m.mode != progressBarM {
		t.Errorf("auto on a terminal is %q", m.mode)
	} else {
		m.Close()
	}
	if m := newProgress(&env{stderr: &buf, stderrTTY: true}, "x", progressBarM, true); m.enabled {
		t.Error("--quiet does not silence --progress bar")
	}
}

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
