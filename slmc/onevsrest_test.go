package slmc

import (
	"errors"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// threeBlobs returns n points around three centres, labelled 3, 1 and 2 in
// turn (unsorted, to check the class order).
func threeBlobs(n int, seed uint64) (pursuit.Matrix, []float64) {
	rng := newRand(seed)
	centres := [][2]float64{{0, 2}, {-2, -1}, {2, -1}}
	labels := []float64{3, 1, 2}
	x := pursuit.NewMatrix(n, 2)
	y := make([]float64, n)
	for i := range n {
		c := i % 3
		y[i] = labels[c]
		x.Set(i, 0, float32(centres[c][0]+0.6*rng.NormFloat64()))
		x.Set(i, 1, float32(centres[c][1]+0.6*rng.NormFloat64()))
	}
	return x, y
}

func TestTrainOneVsRest(t *testing.T) {
	x, y := threeBlobs(150, 5)
	e := goEngine(t)
	cfg := Config{Kernel: pursuit.NewRBF(0.5), C: 10, NumXV: 3, Seed: 2, Optim: OptimOptions{MaxIter: 40}}
	train := func(tg []float64) (*Model, error) {
		r, err := Train(e, x, tg, cfg)
		if err != nil {
			return nil, err
		}
		return r.Model, nil
	}
	o, err := TrainOneVsRest(y, train)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Classes) != 3 || o.Classes[0] != 1 || o.Classes[1] != 2 || o.Classes[2] != 3 || len(o.Models) != 3 {
		t.Fatalf("classes %v, %d models; want [1 2 3] and 3", o.Classes, len(o.Models))
	}
	// Each model is the binary model of its class against the rest,
	// trained alone (training is deterministic for a seed).
	for c, cl := range o.Classes {
		tg := make([]float64, len(y))
		for i, v := range y {
			tg[i] = -1
			if v == cl {
				tg[i] = 1
			}
		}
		ref, err := train(tg)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := o.Models[c].Decision(e, x)
		want, _ := ref.Decision(e, x)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("class %v, row %d: decision %v, binary model alone %v", cl, i, got[i], want[i])
			}
		}
	}
	// The argmax classifies the well-separated blobs.
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
	if rate := float64(wrong) / float64(len(y)); rate > 0.05 || math.IsNaN(rate) {
		t.Fatalf("one-vs-rest training error %.3f on three separated blobs", rate)
	}
}

func TestTrainOneVsRestBadInput(t *testing.T) {
	boom := errors.New("boom")
	if _, err := TrainOneVsRest([]float64{1, 1, 1}, func([]float64) (*Model, error) { return nil, boom }); err == nil {
		t.Fatal("one class accepted")
	}
	if _, err := TrainOneVsRest([]float64{1, 2}, nil); err == nil {
		t.Fatal("nil trainer accepted")
	}
	_, err := TrainOneVsRest([]float64{1, 2, 1}, func([]float64) (*Model, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("trainer's error not wrapped: %v", err)
	}
}
