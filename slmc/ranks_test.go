package slmc

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
		"Train":           func(e *engine.Engine) error { _, err := Train(e, x, y, Config{Kernel: k}); return err },
		"TrainSKFD":       func(e *engine.Engine) error { _, err := TrainSKFD(e, x, y, Config{Kernel: k}, 1); return err },
		"FitCoefficients": func(e *engine.Engine) error { _, err := FitCoefficients(e, x, y, k, x, 1, FitOptions{}); return err },
		"ModifiedRS":      func(e *engine.Engine) error { _, err := ModifiedRS(e, x, y, nil, 1, FitOptions{}); return err },
		"ModifiedRSVM":    func(e *engine.Engine) error { _, err := ModifiedRSVM(e, x, y, k, x, 1, FitOptions{}); return err },
		"ReducedSVM":      func(e *engine.Engine) error { _, err := ReducedSVM(e, x, y, k, x, 1, FitOptions{}); return err },
	})
}
