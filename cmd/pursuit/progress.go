package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/pursuit-ml/pursuit/learn"
)

// Progress modes (--progress): auto is the bar on a terminal, lines
// otherwise.
const (
	progressAuto  = "auto"
	progressBarM  = string(learn.ProgressBar)
	progressLines = string(learn.ProgressLines)
	progressOff   = string(learn.ProgressOff)
)

// progressBar is the command's progress report on stderr
// (learn.ProgressWriter), with the lines-mode heartbeat and the interrupt
// handling: while it is active, an interrupt (Ctrl-C, SIGTERM) ends the
// bar's line before the process exits with status 130.
type progressBar struct {
	*learn.ProgressWriter
	stop chan struct{} // closes the heartbeat and signal goroutine
	once sync.Once
	mu   sync.Mutex
	// deferred: a signal is left to checkpoint.SignalStop
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
	mode := learn.ProgressBar
	if quiet || !ev.stderrTTY {
		mode = learn.ProgressOff
	}
	return &progressBar{ProgressWriter: learn.NewProgressWriter(ev.stderr, label, mode)}
}

// newProgress resolves --progress (auto: the bar on a terminal, lines
// otherwise) and --quiet (off).
func newProgress(ev *env, label, mode string, quiet bool) *progressBar {
	m, _ := learn.ParseProgressMode(mode, ev.stderrTTY, quiet) // checked by modelFlags.validate
	p := &progressBar{ProgressWriter: learn.NewProgressWriter(ev.stderr, label, m)}
	if p.Enabled() {
		p.watch()
	}
	return p
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
				deferred := p.deferred
				p.mu.Unlock()
				p.Interrupted(s, deferred)
				if !deferred {
					os.Exit(130)
				}
			case <-tick.C:
				p.Tick()
			}
		}
	}()
}

// Update reports u (nil: nothing).
func (p *progressBar) Update(u learn.Progress) {
	if p != nil {
		p.ProgressWriter.Update(u)
	}
}

// Done clears the bar's line (nil: nothing).
func (p *progressBar) Done() {
	if p != nil {
		p.ProgressWriter.Done()
	}
}

// setLabel names what the next updates are about (nil: nothing).
func (p *progressBar) setLabel(label string) {
	if p != nil {
		p.SetLabel(label)
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
