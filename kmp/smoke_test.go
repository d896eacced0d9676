package kmp

import (
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
)

func TestSmoke(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 200, 2
	x := backend.NewMatrix(n, d)
	y := make([]float64, n)
	for i := range n {
		a, b := rng.Float64()*2-1, rng.Float64()*2-1
		x.Set(i, 0, float32(a))
		x.Set(i, 1, float32(b))
		if a*a+b*b < 0.5 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	for _, v := range []Variant{Basic, BackFit, PreFit} {
		m, err := Train(e, x, y, Config{Variant: v, Kernels: []backend.Kernel{engine.RBF(2)}, N: 20, Bias: true})
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(e, x)
		if err != nil {
			t.Fatal(err)
		}
		errs := 0
		for i := range p {
			if p[i] != y[i] {
				errs++
			}
		}
		t.Logf("%v: %d train errors, %d SV, last %+v", v, errs, m.Support.Rows, m.Outputs[0].Curve[len(m.Outputs[0].Curve)-1])
	}
	for _, l := range []Loss{Tanh, Logistic, Exponential} {
		m, err := Train(e, x, y, Config{Loss: l, Kernels: []backend.Kernel{engine.RBF(2)}, N: 20, Bias: true, RefitEvery: 5})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: last %+v", l, m.Outputs[0].Curve[len(m.Outputs[0].Curve)-1])
	}
}
