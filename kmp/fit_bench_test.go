package kmp

import (
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// benchCases are the fitters BenchmarkTrain times: each variant with the
// squared loss (in memory, streamed, stochastic), a non-squared loss, and
// one-vs-rest in lock-step, with a validation split so that the
// early-stopping path runs too.
func benchCases() []struct {
	name   string
	cfg    Config
	budget int64 // 0: the default
	ovr    bool
} {
	rbf := []pursuit.Kernel{pursuit.NewRBF(0.5)}
	cls := func(v Variant, loss Loss) Config {
		return Config{Variant: v, Loss: loss, Task: Classification, Kernels: rbf, N: 60, ValFrac: 0.2, Seed: 3, Scale: data.ScaleStandard}
	}
	return []struct {
		name   string
		cfg    Config
		budget int64
		ovr    bool
	}{
		{name: "basic", cfg: cls(Basic, Squared)},
		{name: "backfit", cfg: cls(BackFit, Squared)},
		{name: "prefit", cfg: cls(PreFit, Squared)},
		{name: "prefit-streamed", cfg: func() Config { c := cls(PreFit, Squared); c.N = 15; return c }(), budget: 2 << 20},
		{name: "prefit-stochastic", cfg: func() Config { c := cls(PreFit, Squared); c.Stochastic = &Stochastic{ActiveSet: 100}; return c }()},
		{name: "backfit-logistic", cfg: func() Config { c := cls(BackFit, Logistic); c.N, c.RefitEvery = 25, 5; return c }()},
		{name: "basic-tanh", cfg: cls(Basic, Tanh)},
		{name: "ovr-backfit", cfg: cls(BackFit, Squared), ovr: true},
	}
}

// BenchmarkTrain times whole trainings of 1,500 points on the go backend,
// with allocations: a guard for the fitters' step loops (fitSquared,
// fitGeneral), which must not allocate per step beyond what they record.
func BenchmarkTrain(b *testing.B) {
	x, y := blobsK(1500, 8, 3, 5)
	for _, c := range benchCases() {
		b.Run(c.name, func(b *testing.B) {
			e := benchEngine(b, c.budget)
			yy := y
			if !c.ovr {
				yy = make([]float64, len(y))
				for i, v := range y {
					yy[i] = sign(v - 0.5)
				}
			}
			b.ReportAllocs()
			for range b.N {
				var err error
				if c.ovr {
					_, err = TrainOneVsRest(e, x, yy, c.cfg)
				} else {
					_, err = Train(e, x, yy, c.cfg)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchEngine is a go-backend engine with the given memory budget (0: the
// default).
func benchEngine(tb testing.TB, budget int64) *engine.Engine {
	tb.Helper()
	opts := []engine.Option{engine.WithBackend("go")}
	if budget > 0 {
		opts = append(opts, engine.WithMemoryBudget(budget))
	}
	e, err := engine.New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}
