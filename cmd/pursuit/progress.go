package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// progressUpdate is one report from a training algorithm: step Step of
// Total (Total ≤ 0 when unknown), an objective or residual value named
// Metric, and the validation error when there is one (NaN otherwise).
type progressUpdate struct {
	Step, Total int
	Metric      string
	Value       float64
	ValErr      float64
}

// progressBar draws one self-overwriting line on a terminal:
//
//	train kmp [=========>          ] 45/100 residual 0.1234 val 4.5% 00:03 ETA 00:04
//
// It draws nothing when disabled (stderr not a terminal, or --quiet), so
// scripts and logs never see control characters. It redraws at most every
// 100 ms.
type progressBar struct {
	w       io.Writer
	label   string
	enabled bool
	start   time.Time
	last    time.Time
	drawn   bool
	now     func() time.Time
}

func newProgressBar(ev *env, label string, quiet bool) *progressBar {
	return &progressBar{w: ev.stderr, label: label, enabled: ev.stderrTTY && !quiet, start: time.Now(), now: time.Now}
}

// Update records an update and redraws when due.
func (p *progressBar) Update(u progressUpdate) {
	if p == nil || !p.enabled {
		return
	}
	t := p.now()
	if p.drawn && t.Sub(p.last) < 100*time.Millisecond && (u.Total <= 0 || u.Step < u.Total) {
		return
	}
	p.last = t
	p.drawn = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.render(u, t.Sub(p.start)))
}

// Done clears the line.
func (p *progressBar) Done() {
	if p == nil || !p.enabled || !p.drawn {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.drawn = false
}

// render formats the bar for update u after elapsed time el.
func (p *progressBar) render(u progressUpdate, el time.Duration) string {
	const width = 24
	var b strings.Builder
	b.WriteString(p.label)
	b.WriteString(" [")
	if u.Total > 0 {
		frac := math.Min(1, math.Max(0, float64(u.Step)/float64(u.Total)))
		fill := int(frac * width)
		b.WriteString(strings.Repeat("=", fill))
		if fill < width {
			b.WriteString(">")
			b.WriteString(strings.Repeat(" ", width-fill-1))
		}
		fmt.Fprintf(&b, "] %d/%d", u.Step, u.Total)
	} else {
		pos := u.Step % width
		b.WriteString(strings.Repeat(" ", pos) + "*" + strings.Repeat(" ", width-pos-1))
		fmt.Fprintf(&b, "] step %d", u.Step)
	}
	if u.Metric != "" && !math.IsNaN(u.Value) {
		fmt.Fprintf(&b, " %s %.4g", u.Metric, u.Value)
	}
	if !math.IsNaN(u.ValErr) {
		fmt.Fprintf(&b, " val %.2f%%", 100*u.ValErr)
	}
	fmt.Fprintf(&b, " %s", clock(el))
	if u.Total > 0 && u.Step > 0 && u.Step < u.Total {
		eta := time.Duration(float64(el) * float64(u.Total-u.Step) / float64(u.Step))
		fmt.Fprintf(&b, " ETA %s", clock(eta))
	}
	return b.String()
}

// clock formats a duration as mm:ss (h:mm:ss past an hour).
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}
