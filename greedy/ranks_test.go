package greedy

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
			"FitKPCA":            func() error { _, err := FitKPCA(e, x, KPCAConfig{Kernel: k, Steps: 1}); return err },
			"FitKCCA":            func() error { _, err := FitKCCA(e, x, x, KCCAConfig{KernelX: k, KernelY: k, Steps: 1}); return err },
			"TrainKFDA":          func() error { _, err := TrainKFDA(e, x, y, KFDAConfig{Kernel: k, Steps: 1}); return err },
			"TrainKFDAOneVsRest": func() error { _, err := TrainKFDAOneVsRest(e, x, y, KFDAConfig{Kernel: k, Steps: 1}); return err },
			"KernelSpectrum":     func() error { _, err := KernelSpectrum(e, k, x); return err },
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
