package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pursuit-ml/pursuit/learn"
)

// Progress modes (--progress).
const (
	progressAuto  = "auto"  // bar on a terminal, lines otherwise
	progressBarM  = "bar"   // the self-overwriting bar, even to a file
	progressLines = "lines" // one plain line every few seconds or 10%
	progressOff   = "off"
)

var progressModes = []string{progressAuto, progressBarM, progressLines, progressOff}

// progressLineEvery is how often lines mode prints while a job runs
// without crossing a 10% mark (a heartbeat for the SVM, whose solver
// reports nothing until it is done).
const progressLineEvery = 5 * time.Second

// progressLinesAfter is how long a job runs before lines mode prints
// anything: a job done within it leaves stderr to its result or its error.
const progressLinesAfter = time.Second

// progressBar reports training progress on stderr, in one of two forms.
// The bar draws one self-overwriting line on a terminal:
//
//	train kmp [=========>          ] 45/100 residual 0.1234 val 4.5% 00:03 ETA 00:04
//
// redrawn at most every 100 ms. Lines mode, for logs and pipes, prints the
// same figures as plain lines, one whenever a 10% mark is crossed or every
// 5 s, with no control characters, once the job has run for a second. While it is active, an interrupt
// (Ctrl-C, SIGTERM) ends the bar's line before the process exits.
type progressBar struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	mode    string // progressBarM, progressLines or progressOff
	enabled bool
	start   time.Time
	last    time.Time
	drawn   bool // bar: a line is on screen; lines: at least one printed
	lastU   learn.Progress
	haveU   bool
	shown   bool // lines: lastU has been printed
	decile  int  // lines: the last 10% mark printed
	now     func() time.Time

	stop chan struct{} // closes the heartbeat and signal goroutine
	once sync.Once
	// deferred: a signal is left to the checkpoint's stopper
	// (checkpoint.go), which stops training at the next step.
	deferred bool
}

// deferSignals makes an interrupt end the line and leave the exit to
// training, which stops at its next step and writes its checkpoint.
func (p *progressBar) deferSignals() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.deferred = true
	p.mu.Unlock()
}

// newProgressBar is the bar on a terminal and nothing otherwise or with
// quiet (the demo's behaviour).
func newProgressBar(ev *env, label string, quiet bool) *progressBar {
	mode := progressBarM
	if quiet || !ev.stderrTTY {
		mode = progressOff
	}
	return newProgressMode(ev, label, mode)
}

// newProgress resolves --progress (auto: the bar on a terminal, lines
// otherwise) and --quiet (off).
func newProgress(ev *env, label, mode string, quiet bool) *progressBar {
	switch {
	case quiet:
		mode = progressOff
	case mode == progressAuto || mode == "":
		mode = progressLines
		if ev.stderrTTY {
			mode = progressBarM
		}
	}
	p := newProgressMode(ev, label, mode)
	if p.enabled {
		p.watch()
	}
	return p
}

func newProgressMode(ev *env, label, mode string) *progressBar {
	t := time.Now()
	return &progressBar{w: ev.stderr, label: label, mode: mode, enabled: mode != progressOff, start: t, last: t, now: time.Now, decile: -1}
}

// watch starts the goroutine that prints the lines-mode heartbeat and ends
// the line on an interrupt.
func (p *progressBar) watch() {
	p.stop = make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	tick := time.NewTicker(time.Second)
	go func() {
		defer tick.Stop()
		defer signal.Stop(sig)
		for {
			select {
			case <-p.stop:
				return
			case s := <-sig:
				p.mu.Lock()
				if p.mode == progressBarM && p.drawn {
					fmt.Fprint(p.w, "\n")
				}
				if p.deferred {
					fmt.Fprintf(p.w, "%s: interrupted (%v): stopping after the current step\n", p.label, s)
					p.drawn = false
					p.mu.Unlock()
					continue
				}
				fmt.Fprintf(p.w, "%s: interrupted (%v)\n", p.label, s)
				p.mu.Unlock()
				os.Exit(130)
			case <-tick.C:
				p.mu.Lock()
				if t := p.now(); p.mode == progressLines && t.Sub(p.last) >= progressLineEvery {
					if p.haveU {
						p.printLine(p.lastU)
					} else {
						// No figures yet (an SVM solving, a reduced
						// set searching): say it is alive.
						p.last = t
						fmt.Fprintf(p.w, "%s: running %s\n", p.label, clock(t.Sub(p.start)))
					}
				}
				p.mu.Unlock()
			}
		}
	}()
}

// Update records an update and redraws when due.
func (p *progressBar) Update(u learn.Progress) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastU, p.haveU, p.shown = u, true, false
	t := p.now()
	final := u.Total > 0 && u.Step >= u.Total
	if p.mode == progressLines {
		if t.Sub(p.start) < progressLinesAfter {
			return
		}
		d := -1
		if u.Total > 0 {
			d = int(10 * math.Min(1, float64(u.Step)/float64(u.Total)))
		}
		if u.Note != "" || final || (d > p.decile) || t.Sub(p.last) >= progressLineEvery {
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
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.render(u, t.Sub(p.start)))
}

// printLine writes u as one plain line (lines mode; p.mu held).
func (p *progressBar) printLine(u learn.Progress) {
	t := p.now()
	p.last = t
	p.drawn = true
	p.shown = true
	fmt.Fprintln(p.w, p.renderLine(u, t.Sub(p.start)))
}

// setLabel names what the next updates are about (the next class of
// one-vs-rest), starting its 10% marks afresh.
func (p *progressBar) setLabel(label string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.label, p.decile, p.haveU = label, -1, false
	p.mu.Unlock()
}

// Done clears the bar's line. Updates may follow (cv's next fold).
func (p *progressBar) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.enabled && p.mode == progressLines && p.haveU && !p.shown && p.drawn {
		p.printLine(p.lastU) // where the job ended, between 10% marks
	}
	p.haveU = false
	if p.enabled && p.mode == progressBarM && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// Close ends the reporting: Done, and the heartbeat and the interrupt
// handler stop.
func (p *progressBar) Close() {
	if p == nil {
		return
	}
	p.Done()
	if p.stop != nil {
		p.once.Do(func() { close(p.stop) })
	}
}

// render formats the bar for update u after elapsed time el.
func (p *progressBar) render(u learn.Progress, el time.Duration) string {
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
	b.WriteString(p.figures(u, el))
	return b.String()
}

// renderLine formats update u as a plain line:
//
//	train kmp: 45/100 (45%) residual 0.1234 val 4.50% 00:03 ETA 00:04
func (p *progressBar) renderLine(u learn.Progress, el time.Duration) string {
	var b strings.Builder
	b.WriteString(p.label)
	b.WriteString(":")
	if u.Total > 0 {
		fmt.Fprintf(&b, " %d/%d (%d%%)", u.Step, u.Total, int(100*math.Min(1, math.Max(0, float64(u.Step)/float64(u.Total)))))
	} else {
		fmt.Fprintf(&b, " step %d", u.Step)
	}
	b.WriteString(p.figures(u, el))
	return b.String()
}

// figures formats the metric, validation error, clock, ETA and note.
func (p *progressBar) figures(u learn.Progress, el time.Duration) string {
	var b strings.Builder
	if u.Metric != "" && !math.IsNaN(u.Value) {
		fmt.Fprintf(&b, " %s %.4g", u.Metric, u.Value)
	}
	if !math.IsNaN(u.ValErr) {
		fmt.Fprintf(&b, " val %.2f%%", 100*u.ValErr)
	}
	fmt.Fprintf(&b, " %s", clock(el))
	if u.Total > 0 && u.Step > 0 && u.Step < u.Total && u.Note == "" {
		eta := time.Duration(float64(el) * float64(u.Total-u.Step) / float64(u.Step))
		fmt.Fprintf(&b, " ETA %s", clock(eta))
	}
	if u.Note != "" {
		fmt.Fprintf(&b, " %s", u.Note)
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
