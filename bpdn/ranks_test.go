package bpdn

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
		"Train": func(e *engine.Engine) error { _, _, err := Train(e, x, y, k, Params{C: 1}); return err },
		"Gram":  func(e *engine.Engine) error { _, err := Gram(e, x, k); return err },
	})
}
