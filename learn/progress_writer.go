package learn

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"
)

// ProgressMode is how a ProgressWriter reports.
type ProgressMode string

// The modes of a ProgressWriter.
const (
	// ProgressBar draws one self-overwriting line (for a terminal),
	// redrawn at most every 100 ms.
	ProgressBar ProgressMode = "bar"
	// ProgressLines prints plain lines, for logs and pipes: one whenever a
	// 10% mark is crossed or every ProgressLineEvery, once the job has run
	// for ProgressLinesAfter, with no control characters.
	ProgressLines ProgressMode = "lines"
	// ProgressOff reports nothing.
	ProgressOff ProgressMode = "off"
)

// ParseProgressMode reads a progress setting ("progress"): bar, lines,
// off, or auto ("" too), which is the bar on a terminal and lines
// otherwise; quiet makes any of them off. Another name is a SettingError.
func ParseProgressMode(s string, terminal, quiet bool) (ProgressMode, error) {
	switch m := ProgressMode(s); {
	case s != "" && s != "auto" && m != ProgressBar && m != ProgressLines && m != ProgressOff:
		return "", settingErr("progress", "{progress} %q: want auto, bar, lines or off", s)
	case quiet:
		return ProgressOff, nil
	case s == "" || s == "auto":
		if terminal {
			return ProgressBar, nil
		}
		return ProgressLines, nil
	default:
		return m, nil
	}
}

// ProgressLineEvery is how often lines mode prints while a job runs
// without crossing a 10% mark (a heartbeat for a solver that reports
// nothing until it is done; see ProgressWriter.Tick).
const ProgressLineEvery = 5 * time.Second

// ProgressLinesAfter is how long a job runs before lines mode prints
// anything: a job done within it leaves the stream to its result or its
// error.
const ProgressLinesAfter = time.Second

// ProgressWriter renders the Progress updates of a training (a learner's
// Progress callback, CV.Progress) on a writer, as a bar or as lines:
//
//	train kmp [=========>          ] 45/100 residual 0.1234 val 4.5% 00:03 ETA 00:04
//	train kmp: 45/100 (45%) residual 0.1234 val 4.50% 00:03 ETA 00:04
//
// Its methods may be called from several goroutines; a nil
// *ProgressWriter ignores every call.
type ProgressWriter struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	mode  ProgressMode
	// Start is when the job started (the clock's origin) and Now the
	// clock; NewProgressWriter sets them to time.Now, tests replace them.
	Start time.Time
	Now   func() time.Time
	last  time.Time
	drawn bool // bar: a line is on screen; lines: at least one printed
	lastU Progress
	haveU bool
	shown bool // lines: lastU has been printed
	// decile is the last 10% mark printed (lines).
	decile int
}

// NewProgressWriter returns a writer of progress on w in mode, each line
// starting with label.
func NewProgressWriter(w io.Writer, label string, mode ProgressMode) *ProgressWriter {
	t := time.Now()
	return &ProgressWriter{w: w, label: label, mode: mode, Start: t, last: t, Now: time.Now, decile: -1}
}

// Mode returns the writer's mode.
func (p *ProgressWriter) Mode() ProgressMode { return p.mode }

// Enabled reports whether the writer reports anything.
func (p *ProgressWriter) Enabled() bool { return p != nil && p.mode != ProgressOff }

// Update records an update and redraws when due. Its signature is a
// learner's Progress callback.
func (p *ProgressWriter) Update(u Progress) {
	if !p.Enabled() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastU, p.haveU, p.shown = u, true, false
	t := p.Now()
	final := u.Total > 0 && u.Step >= u.Total
	if p.mode == ProgressLines {
		if t.Sub(p.Start) < ProgressLinesAfter {
			return
		}
		d := -1
		if u.Total > 0 {
			d = int(10 * math.Min(1, float64(u.Step)/float64(u.Total)))
		}
		if u.Note != "" || final || (d > p.decile) || t.Sub(p.last) >= ProgressLineEvery {
			if d > p.decile {
				p.decile = d
			}
			p.printLine(u)
		}
		return
	}
	if p.drawn && t.Sub(p.last) < 100*time.Millisecond && !final && u.Note == "" {
		return
	}
	p.last = t
	p.drawn = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.Render(u, t.Sub(p.Start)))
}

// Tick is the heartbeat of lines mode, to be called about every second
// while a job runs: when ProgressLineEvery has passed since the last line,
// it prints the last update again, or, before any, that the job is
// running.
func (p *ProgressWriter) Tick() {
	if !p.Enabled() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.Now()
	if p.mode != ProgressLines || t.Sub(p.last) < ProgressLineEvery {
		return
	}
	if p.haveU {
		p.printLine(p.lastU)
		return
	}
	// No figures yet (an SVM solving, a reduced set searching): say it is
	// alive.
	p.last = t
	fmt.Fprintf(p.w, "%s: running %s\n", p.label, Clock(t.Sub(p.Start)))
}

// Interrupted ends the bar's line and says that sig interrupted the job;
// with stopping, that the job stops after its current step.
func (p *ProgressWriter) Interrupted(sig os.Signal, stopping bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == ProgressBar && p.drawn {
		fmt.Fprint(p.w, "\n")
	}
	if stopping {
		fmt.Fprintf(p.w, "%s: interrupted (%v): stopping after the current step\n", p.label, sig)
		p.drawn = false
		return
	}
	fmt.Fprintf(p.w, "%s: interrupted (%v)\n", p.label, sig)
}

// printLine writes u as one plain line (lines mode; p.mu held).
func (p *ProgressWriter) printLine(u Progress) {
	t := p.Now()
	p.last = t
	p.drawn = true
	p.shown = true
	fmt.Fprintln(p.w, p.RenderLine(u, t.Sub(p.Start)))
}

// SetLabel names what the next updates are about (the next class of
// one-vs-rest), starting its 10% marks afresh.
func (p *ProgressWriter) SetLabel(label string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.label, p.decile, p.haveU = label, -1, false
	p.mu.Unlock()
}

// Done clears the bar's line (lines mode: prints where the job ended when
// that was between 10% marks). Updates may follow (the next fold).
func (p *ProgressWriter) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Enabled() && p.mode == ProgressLines && p.haveU && !p.shown && p.drawn {
		p.printLine(p.lastU)
	}
	p.haveU = false
	if p.Enabled() && p.mode == ProgressBar && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// Render formats the bar for update u after elapsed time el.
func (p *ProgressWriter) Render(u Progress, el time.Duration) string {
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
	b.WriteString(progressFigures(u, el))
	return b.String()
}

// RenderLine formats update u after elapsed time el as a plain line.
func (p *ProgressWriter) RenderLine(u Progress, el time.Duration) string {
	var b strings.Builder
	b.WriteString(p.label)
	b.WriteString(":")
	if u.Total > 0 {
		fmt.Fprintf(&b, " %d/%d (%d%%)", u.Step, u.Total, int(100*math.Min(1, math.Max(0, float64(u.Step)/float64(u.Total)))))
	} else {
		fmt.Fprintf(&b, " step %d", u.Step)
	}
	b.WriteString(progressFigures(u, el))
	return b.String()
}

// progressFigures formats the metric, validation error, clock, ETA and
// note.
func progressFigures(u Progress, el time.Duration) string {
	var b strings.Builder
	if u.Metric != "" && !math.IsNaN(u.Value) {
		fmt.Fprintf(&b, " %s %.4g", u.Metric, u.Value)
	}
	if !math.IsNaN(u.ValErr) {
		fmt.Fprintf(&b, " val %.2f%%", 100*u.ValErr)
	}
	fmt.Fprintf(&b, " %s", Clock(el))
	if u.Total > 0 && u.Step > 0 && u.Step < u.Total && u.Note == "" {
		eta := time.Duration(float64(el) * float64(u.Total-u.Step) / float64(u.Step))
		fmt.Fprintf(&b, " ETA %s", Clock(eta))
	}
	if u.Note != "" {
		fmt.Fprintf(&b, " %s", u.Note)
	}
	return b.String()
}

// Clock formats a duration as mm:ss (h:mm:ss past an hour).
func Clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}
