package engine

import (
	"testing"

	"github.com/pursuit-ml/pursuit/engine/comm"
)

func TestEngineComm(t *testing.T) {
	e, err := New(WithBackend(BackendGo))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Comm().(*comm.Single); !ok || e.Comm().Size() != 1 {
		t.Fatalf("default communicator is %s, want a single process", e.Comm().Describe())
	}
	err = comm.Run(3, func(c comm.Comm) error {
		e, err := New(WithBackend(BackendGo), WithComm(c))
		if err != nil {
			return err
		}
		if e.Comm() != c {
			t.Errorf("rank %d: the engine holds %s, not the communicator it was given", c.Rank(), e.Comm().Describe())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
