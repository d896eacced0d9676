package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestSignalStop(t *testing.T) {
	s := WatchSignals()
	defer s.Close()
	stopped := fmt.Errorf("kmp: %w", &StoppedError{Info: Info{Path: "x.ckpt"}})
	var ee *ExitError
	if err := s.Stopped(stopped); !errors.As(err, &ee) || ee.Code != 143 {
		t.Fatalf("stopped with no signal (the deadline): %v, want status 143", err)
	}
	select {
	case <-s.Stop():
		t.Fatal("stop closed before any signal")
	default:
	}
	if !s.signal(os.Interrupt) {
		t.Fatal("the first signal was not taken")
	}
	select {
	case <-s.Stop():
	case <-time.After(time.Second):
		t.Fatal("stop not closed by the first signal")
	}
	if s.signal(syscall.SIGTERM) {
		t.Fatal("a second signal was taken as the first")
	}
	if err := s.Stopped(stopped); !errors.As(err, &ee) || ee.ExitCode() != 130 || !errors.Is(err, ErrStopped) || err.Error() != stopped.(interface{ Unwrap() error }).Unwrap().Error() {
		t.Fatalf("after SIGINT: %v", err)
	}
	other := errors.New("other")
	if s.Stopped(other) != other || (*SignalStop)(nil).Stopped(stopped) != stopped {
		t.Fatal("errors that are not stops, or a nil SignalStop, should pass unchanged")
	}
	if SignalStatus(syscall.SIGTERM) != 143 || SignalStatus(os.Interrupt) != 130 {
		t.Fatal("signal statuses")
	}
	s.Close()
	s.Close() // twice is fine
}
