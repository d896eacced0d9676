package greedy

import (
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/enginetest"
)

// TestRefusesSeveralRanks: the training functions that do not split their
// rows across ranks refuse a multi-rank engine instead of training each
// rank on its own rows alone.
func TestRefusesSeveralRanks(t *testing.T) {
	x := pursuit.NewMatrix(4, 2)
	y := []float64{1, -1, 1, -1}
	k := pursuit.NewRBF(1)
	enginetest.RefusesSeveralRanks(t, map[string]func(e *engine.Engine) error{
		"FitKPCA": func(e *engine.Engine) error { _, err := FitKPCA(e, x, KPCAConfig{Kernel: k, Steps: 1}); return err },
		"FitKCCA": func(e *engine.Engine) error {
			_, err := FitKCCA(e, x, x, KCCAConfig{KernelX: k, KernelY: k, Steps: 1})
			return err
		},
		"TrainKFDA": func(e *engine.Engine) error {
			_, err := TrainKFDA(e, x, y, KFDAConfig{Kernel: k, Steps: 1})
			return err
		},
		"TrainKFDAOneVsRest": func(e *engine.Engine) error {
			_, err := TrainKFDAOneVsRest(e, x, y, KFDAConfig{Kernel: k, Steps: 1})
			return err
		},
		"KernelSpectrum": func(e *engine.Engine) error { _, err := KernelSpectrum(e, k, x); return err },
	})
}
