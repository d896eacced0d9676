package kmp

import (
	"errors"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestRefusesSeveralRanks: the training functions that do not split their
// rows across ranks refuse a multi-rank engine instead of training each
// rank on its own rows alone.
func TestRefusesSeveralRanks(t *testing.T) {
	x := backend.NewMatrix(4, 2)
	y := []float64{1, -1, 1, -1}
	k := backend.NewRBF(1)
	err := comm.Run(2, func(c comm.Comm) error {
		e, err := engine.New(engine.WithBackend("go"), engine.WithComm(c))
		if err != nil {
			return err
		}
		for name, call := range map[string]func() error{
			"Train": func() error { _, err := Train(e, x, y, Config{Kernels: []backend.Kernel{k}, N: 1}); return err },
			"TrainOneVsRest": func() error {
				_, err := TrainOneVsRest(e, x, y, Config{Kernels: []backend.Kernel{k}, N: 1})
				return err
			},
			"TrainStochastic": func() error {
				_, err := TrainStochastic(e, x, y, Config{Kernels: []backend.Kernel{k}, N: 1}, Stochastic{ActiveSet: 2})
				return err
			},
		} {
			if err := call(); !errors.Is(err, comm.ErrNotDistributed) {
				t.Errorf("%s with 2 ranks: got %v, want an error wrapping comm.ErrNotDistributed", name, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
