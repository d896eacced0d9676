package kmp_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
)

// Stochastic KMP searches s = ⌈log ε / log q⌉ random candidates per step
// (59 for ε = 0.05, q = 0.95) instead of the whole dictionary.
func ExampleTrainStochastic() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		panic(err)
	}
	// Two classes: inside or outside a circle.
	rng := rand.New(rand.NewPCG(1, 2))
	x := pursuit.NewMatrix(1000, 2)
	y := make([]float64, 1000)
	for i := range 1000 {
		a, b := rng.Float64()*2-1, rng.Float64()*2-1
		x.Set(i, 0, float32(a))
		x.Set(i, 1, float32(b))
		y[i] = -1
		if a*a+b*b < 0.5 {
			y[i] = 1
		}
	}
	cfg := kmp.Config{Variant: kmp.Basic, Kernels: []pursuit.Kernel{pursuit.NewRBF(4)}, Bias: true, N: 100, Seed: 7}
	sc := kmp.Stochastic{Eps: 0.05, Q: 0.95}
	cfg.Stochastic = &sc
	plan, err := kmp.PlanTraining(e, x.Rows, cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(plan)
	m, err := kmp.TrainStochastic(e, x, y, cfg, sc)
	if err != nil {
		panic(err)
	}
	curve := m.Outputs[0].Curve
	fmt.Printf("%d steps, training error below 10%%: %v\n", len(curve), curve[len(curve)-1].TrainErr < 0.1)
	// Output:
	// stochastic search: 59 of 1001 functions sampled per step over 1000 points, kernel blocks of 59 × 1000 (234.4 KiB)
	// 100 steps, training error below 10%: true
}
