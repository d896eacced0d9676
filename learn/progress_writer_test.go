package learn

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestProgressWriterBar(t *testing.T) {
	var buf bytes.Buffer
	// A terminal: one self-overwriting line, cleared at the end.
	now := time.Unix(0, 0)
	b := NewProgressWriter(&buf, "train kmp", ProgressBar)
	b.Start, b.Now = now, func() time.Time { return now }
	now = now.Add(10 * time.Second)
	b.Update(Progress{Step: 25, Total: 100, Metric: "residual", Value: 0.5, ValErr: 0.042})
	out := buf.String()
	for _, w := range []string{"\rtrain kmp [", "] 25/100", "residual 0.5", "val 4.20%", "00:10", "ETA 00:30"} {
		if !strings.Contains(out, w) {
			t.Errorf("bar %q lacks %q", out, w)
		}
	}
	// Updates within 100 ms are not redrawn, except the last step.
	n := buf.Len()
	b.Update(Progress{Step: 26, Total: 100, ValErr: math.NaN()})
	if buf.Len() != n {
		t.Error("redrawn within 100 ms")
	}
	b.Update(Progress{Step: 100, Total: 100, ValErr: math.NaN()})
	if buf.Len() == n {
		t.Error("final step not drawn")
	}
	b.Done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Errorf("Done does not clear the line: %q", buf.String())
	}
	// Unknown total: a bouncing marker, no ETA.
	s := b.Render(Progress{Step: 7, Metric: "W", Value: -3, ValErr: math.NaN()}, 3*time.Second)
	if !strings.Contains(s, "step 7") || strings.Contains(s, "ETA") {
		t.Errorf("render without total: %q", s)
	}
}

func TestProgressWriterLines(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	p := NewProgressWriter(&buf, "train kmp", ProgressLines)
	p.Start, p.Now = now, func() time.Time { return now }
	// Nothing in the first second.
	p.Update(Progress{Step: 0, Total: 100, ValErr: math.NaN()})
	if buf.Len() != 0 {
		t.Fatalf("printed within the first second: %q", buf.String())
	}
	now = now.Add(time.Second)
	// One line per 10% mark crossed, none in between within 5 s.
	for step := 1; step <= 100; step++ {
		now = now.Add(10 * time.Millisecond)
		p.Update(Progress{Step: step, Total: 100, Metric: "residual", Value: 1 / float64(step), ValErr: math.NaN()})
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
	p.SetLabel("train kmp 2/2")
	p.Update(Progress{Step: 1, Total: 1000, ValErr: math.NaN()})
	for step := 2; step <= 5; step++ {
		now = now.Add(3 * time.Second)
		p.Update(Progress{Step: step, Total: 1000, ValErr: math.NaN()})
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 { // the first, then at 6 s and 12 s
		t.Errorf("%d lines over 12 s of slow steps, want 3:\n%s", n, buf.String())
	}
	// A note (SLMC's stop reason) is always printed.
	buf.Reset()
	p.Update(Progress{Step: 6, Total: 1000, ValErr: math.NaN(), Note: "stop: converged after 6 iterations"})
	if !strings.Contains(buf.String(), "stop: converged after 6 iterations\n") {
		t.Errorf("note not printed: %q", buf.String())
	}
}

// The heartbeat prints the last update again after ProgressLineEvery, or
// that the job runs when there is none; Clock formats past an hour.
func TestProgressWriterTick(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgressWriter(&buf, "svm", ProgressLines)
	now := p.Start
	p.Now = func() time.Time { return now }
	p.Tick()
	if buf.Len() != 0 {
		t.Fatalf("heartbeat before %v: %q", ProgressLineEvery, buf.String())
	}
	now = now.Add(ProgressLineEvery)
	p.Tick()
	if got := buf.String(); got != "svm: running 00:05\n" {
		t.Errorf("heartbeat %q", got)
	}
	if got := Clock(3723 * time.Second); got != "1:02:03" {
		t.Errorf("Clock(3723 s) = %q", got)
	}
	var nilW *ProgressWriter
	nilW.Update(Progress{Step: 1})
	nilW.Done()
	nilW.SetLabel("x")
}

// TestParseProgressMode checks auto on and off a terminal, quiet, the
// modes by name, and the refusal of another name.
func TestParseProgressMode(t *testing.T) {
	for _, c := range []struct {
		s               string
		terminal, quiet bool
		want            ProgressMode
	}{
		{"auto", true, false, ProgressBar}, {"", false, false, ProgressLines}, {"auto", false, false, ProgressLines},
		{"bar", false, false, ProgressBar}, {"lines", true, false, ProgressLines}, {"off", true, false, ProgressOff},
		{"bar", true, true, ProgressOff},
	} {
		if got, err := ParseProgressMode(c.s, c.terminal, c.quiet); err != nil || got != c.want {
			t.Errorf("%q terminal %v quiet %v: %q, %v; want %q", c.s, c.terminal, c.quiet, got, err, c.want)
		}
	}
	var se *SettingError
	if _, err := ParseProgressMode("loud", false, true); !errors.As(err, &se) || se.Text(dashes) != `--progress "loud": want auto, bar, lines or off` {
		t.Errorf("loud: %v", err)
	}
}
