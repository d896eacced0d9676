package enginetest

import (
	"errors"
	"testing"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// RefusesSeveralRanks checks that every training function in calls, run on
// each rank of a two-rank in-process group with the pure-Go backend,
// returns an error wrapping comm.ErrNotDistributed: a function that does
// not split its rows across ranks must refuse a multi-rank engine instead
// of training each rank on its own rows alone.
func RefusesSeveralRanks(t *testing.T, calls map[string]func(e *engine.Engine) error) {
	t.Helper()
	err := comm.Run(2, func(c comm.Comm) error {
		e, err := engine.New(engine.WithBackend("go"), engine.WithComm(c))
		if err != nil {
			return err
		}
		for name, call := range calls {
			if err := call(e); !errors.Is(err, comm.ErrNotDistributed) {
				t.Errorf("%s with 2 ranks: got %v, want an error wrapping comm.ErrNotDistributed", name, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
