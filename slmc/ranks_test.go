package slmc

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
			"Train":           func() error { _, err := Train(e, x, y, Config{Kernel: k}); return err },
			"TrainSKFD":       func() error { _, err := TrainSKFD(e, x, y, Config{Kernel: k}, 1); return err },
			"FitCoefficients": func() error { _, err := FitCoefficients(e, x, y, k, x, 1, FitOptions{}); return err },
			"ModifiedRS":      func() error { _, err := ModifiedRS(e, x, y, nil, 1, FitOptions{}); return err },
			"ModifiedRSVM":    func() error { _, err := ModifiedRSVM(e, x, y, k, x, 1, FitOptions{}); return err },
			"ReducedSVM":      func() error { _, err := ReducedSVM(e, x, y, k, x, 1, FitOptions{}); return err },
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
