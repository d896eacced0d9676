package greedy

import (
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
)

// TestTrainKFDAOneVsRest: one discriminant per class in increasing label
// order, each the binary MP-KFDA of its class against the rest, and the
// argmax classifies three separated blobs.
func TestTrainKFDAOneVsRest(t *testing.T) {
	e := newEngine(t)
	rng := rand.New(rand.NewPCG(4, 2))
	centres := [][2]float64{{0, 3}, {-3, -1}, {3, -1}}
	labels := []float64{9, 2, 5}
	x := pursuit.NewMatrix(120, 2)
	y := make([]float64, 120)
	for i := range 120 {
		c := i % 3
		y[i] = labels[c]
		x.Set(i, 0, float32(centres[c][0]+0.7*rng.NormFloat64()))
		x.Set(i, 1, float32(centres[c][1]+0.7*rng.NormFloat64()))
	}
	cfg := KFDAConfig{Kernel: pursuit.NewRBF(0.5), Steps: 8, Seed: 1}
	o, err := TrainKFDAOneVsRest(e, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Classes) != 3 || o.Classes[0] != 2 || o.Classes[1] != 5 || o.Classes[2] != 9 || len(o.Models) != 3 {
		t.Fatalf("classes %v, %d models; want [2 5 9] and 3", o.Classes, len(o.Models))
	}
	for c, cl := range o.Classes {
		ref, err := TrainKFDA(e, x, data.Signs(y, cl), cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := o.Models[c].Decision(e, x)
		want, _ := ref.Decision(e, x)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("class %v row %d: %v, binary MP-KFDA alone %v", cl, i, got[i], want[i])
			}
		}
	}
	pred, err := o.Predict(e, x)
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i := range y {
		if pred[i] != y[i] {
			wrong++
		}
	}
	if wrong > 6 {
		t.Fatalf("%d of %d wrong on three separated blobs", wrong, len(y))
	}
	if _, err := TrainKFDAOneVsRest(e, x, make([]float64, 120), cfg); err == nil {
		t.Fatal("one class accepted")
	}
}
