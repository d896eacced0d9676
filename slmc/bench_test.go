package slmc

import (
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// benchUSPS returns the first n rows of USPS's training set (dense,
// 256 features) as digit 0 (+1) against the rest (−1), or skips.
func benchUSPS(b *testing.B, n int) (pursuit.Matrix, []float64) {
	b.Helper()
	path, err := data.SharedFile("usps", "usps.train.gz")
	if err != nil {
		b.Skipf("shared data set not available, skipping: %v", err)
	}
	ds, err := data.Load(path, data.WithStorage(data.StorageDense))
	if err != nil {
		b.Fatal(err)
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = -1
		if ds.Y[i] == 0 {
			y[i] = 1
		}
	}
	return ds.X.Slice(0, n, 0, ds.X.Cols), y
}

// BenchmarkTrainDenseUSPS times SLMC (10 L-BFGS iterations, 20 expansion
// vectors) and SKFD and MRSVM on 2,000 dense USPS rows, one thread: the
// cost of Ψ = K(Z, X) and the gradient against the inner solves.
func BenchmarkTrainDenseUSPS(b *testing.B) {
	x, y := benchUSPS(b, 2000)
	e, err := engine.New(engine.WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	k := pursuit.NewRBF(1.0 / 64)
	cfg := Config{Kernel: k, C: 10, NumXV: 20, Seed: 1, Optim: OptimOptions{MaxIter: 10}}
	b.Run("slmc", func(b *testing.B) {
		evals := 0
		for b.Loop() {
			r, err := Train(e, x, y, cfg)
			if err != nil {
				b.Fatal(err)
			}
			evals += r.Evaluations
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(evals), "ns/eval")
	})
	b.Run("skfd", func(b *testing.B) {
		evals := 0
		for b.Loop() {
			r, err := TrainSKFD(e, x, y, cfg, 1e-3)
			if err != nil {
				b.Fatal(err)
			}
			evals += r.Evaluations
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(evals), "ns/eval")
	})
	b.Run("mrsvm", func(b *testing.B) {
		xv, err := RandomXV(x, 100, 1)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := ModifiedRSVM(e, x, y, k, xv, 10, FitOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
