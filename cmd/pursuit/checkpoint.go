package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/pursuit-ml/pursuit/checkpoint"
)

// checkpointAlgos are the algorithms whose training checkpoints and
// resumes (issue 33): a binary or regression machine of each, and
// one-vs-rest of the KMP ones.
var checkpointAlgos = []string{"kmp", "kmp-backfit", "skmp", "svm", "slmc"}

// checkpointRankAlgos are those that checkpoint when training across ranks
// (rank 0 writes; every rank resumes).
var checkpointRankAlgos = []string{"kmp", "kmp-backfit", "skmp", "svm"}

// ckFlags are train's checkpoint flags.
type ckFlags struct {
	checkpoint string
	every      time.Duration
	resume     string
	timeLimit  time.Duration
}

func addCheckpointFlags(fs *flag.FlagSet, c *ckFlags) {
	fs.StringVar(&c.checkpoint, "checkpoint", "", "write the training state to `FILE` every --checkpoint-every and when stopped (SIGTERM, SIGINT, --time-limit); resume with --resume FILE")
	fs.DurationVar(&c.every, "checkpoint-every", checkpoint.DefaultEvery, "interval between checkpoints (with --checkpoint)")
	fs.StringVar(&c.resume, "resume", "", "continue the training saved in the checkpoint `FILE` (same data and flags); ends with the model an uninterrupted run gives")
	fs.DurationVar(&c.timeLimit, "time-limit", 0, "stop training after this long (e.g. 2h), writing the checkpoint as on SIGTERM, and exit 143")
}

// active reports whether any checkpoint flag asks for something.
func (c *ckFlags) active() bool { return c.checkpoint != "" || c.resume != "" || c.timeLimit > 0 }

func (c *ckFlags) validate(set map[string]bool) error {
	switch {
	case set["checkpoint-every"] && c.checkpoint == "":
		return errors.New("--checkpoint-every needs --checkpoint FILE")
	case c.every <= 0:
		return fmt.Errorf("--checkpoint-every must be positive, got %v", c.every)
	case set["time-limit"] && c.timeLimit <= 0:
		return fmt.Errorf("--time-limit must be positive, got %v", c.timeLimit)
	}
	if c.resume != "" {
		if _, err := os.Stat(c.resume); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
	}
	return nil
}

// stopper turns SIGTERM and SIGINT into a request to stop at the next
// step boundary; a second signal exits at once.
type stopper struct {
	stop chan struct{}
	mu   sync.Mutex
	sig  os.Signal
	done chan struct{}
}

// options returns the library's checkpoint options of these flags (nil
// when none is set) and starts watching the signals; close stops that.
func (c *ckFlags) options(bar *progressBar) (*checkpoint.Options, *stopper) {
	if !c.active() {
		return nil, nil
	}
	st := &stopper{stop: make(chan struct{}), done: make(chan struct{})}
	o := &checkpoint.Options{Path: c.checkpoint, Every: c.every, Resume: c.resume, Stop: st.stop}
	if c.timeLimit > 0 {
		o.Deadline = time.Now().Add(c.timeLimit)
	}
	bar.deferSignals()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(sig)
		for {
			select {
			case <-st.done:
				return
			case s := <-sig:
				st.mu.Lock()
				first := st.sig == nil
				if first {
					st.sig = s
					close(st.stop)
				}
				st.mu.Unlock()
				if !first {
					os.Exit(signalStatus(s))
				}
			}
		}
	}()
	return o, st
}

func (st *stopper) close() {
	if st != nil {
		close(st.done)
	}
}

// signalStatus is the shell's exit status of a process a signal ended.
func signalStatus(s os.Signal) int {
	if s == os.Interrupt {
		return 130
	}
	return 143
}

// stoppedError is a training stopped by a signal or the time limit: its
// message says where and what was written, its status is the signal's
// (143 for the time limit, as SIGTERM).
type stoppedError struct {
	err  error
	code int
}

func (e *stoppedError) Error() string { return e.err.Error() }
func (e *stoppedError) Unwrap() error { return e.err }
func (e *stoppedError) ExitCode() int { return e.code }

// stopped wraps a training error that is a stop in its exit status.
func (st *stopper) stopped(err error) error {
	var se *checkpoint.StoppedError
	if st == nil || !errors.As(err, &se) {
		return err
	}
	code := 143
	st.mu.Lock()
	if st.sig != nil {
		code = signalStatus(st.sig)
	}
	st.mu.Unlock()
	return &stoppedError{err: se, code: code}
}
