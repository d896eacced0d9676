package checkpoint

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// SignalStop turns SIGINT and SIGTERM into a request to stop at the next
// step boundary: the first signal closes the channel Stop returns (for
// Options.Stop); a second one exits the process at once with the signal's
// status (SignalStatus). Close stops watching.
type SignalStop struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	sig  os.Signal
}

// WatchSignals starts watching SIGINT and SIGTERM.
func WatchSignals() *SignalStop {
	s := &SignalStop{stop: make(chan struct{}), done: make(chan struct{})}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-s.done:
				return
			case sig := <-ch:
				if !s.signal(sig) {
					os.Exit(SignalStatus(sig))
				}
			}
		}
	}()
	return s
}

// signal records sig and closes the stop channel; it reports whether sig
// was the first.
func (s *SignalStop) signal(sig os.Signal) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sig != nil {
		return false
	}
	s.sig = sig
	close(s.stop)
	return true
}

// Stop is closed by the first signal: Options.Stop.
func (s *SignalStop) Stop() <-chan struct{} { return s.stop }

// Close stops watching the signals (nil: nothing).
func (s *SignalStop) Close() {
	if s != nil {
		s.once.Do(func() { close(s.done) })
	}
}

// SignalStatus is the shell's exit status of a process sig ended: 130 for
// SIGINT, 143 (SIGTERM's) otherwise.
func SignalStatus(sig os.Signal) int {
	if sig == os.Interrupt {
		return 130
	}
	return 143
}

// ExitError is a run stopped by a signal or its deadline: its message is
// the *StoppedError's, and ExitCode the status a command exits with (the
// signal's, 143 for the deadline as for SIGTERM).
type ExitError struct {
	Err  *StoppedError
	Code int
}

func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the *StoppedError.
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the process's exit status.
func (e *ExitError) ExitCode() int { return e.Code }

// Stopped wraps a training error holding a *StoppedError in an *ExitError
// with the status of the signal that stopped it (143 when none did: the
// deadline); other errors, and any error with a nil s, are returned as
// they are.
func (s *SignalStop) Stopped(err error) error {
	var se *StoppedError
	if s == nil || !errors.As(err, &se) {
		return err
	}
	code := 143
	s.mu.Lock()
	if s.sig != nil {
		code = SignalStatus(s.sig)
	}
	s.mu.Unlock()
	return &ExitError{Err: se, Code: code}
}
