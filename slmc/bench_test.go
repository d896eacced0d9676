package slmc

import (
	"fmt"
	"github.com/pursuit-ml/pursuit/internal/cputime"
	"testing"

	"gonum.org/v1/gonum/mat"

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
// cost of Ψ = K(Z, X) and the gradient against the inner solves. Besides
// wall time each reports cpu-ms/op, the process's CPU time (user + system) per run
// (steadier on a loaded machine; run with GOMAXPROCS=1 to keep the
// runtime's own threads out of it).
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
		defer reportCPU(b, &evals)()
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
		defer reportCPU(b, &evals)()
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
		defer reportCPU(b, nil)()
		for b.Loop() {
			if _, err := ModifiedRSVM(e, x, y, k, xv, 10, FitOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU starts a CPU-time clock (user + system); the function it returns, called once
// b's loop has run, reports cpu-ms/op and, when evals is not nil (the
// evaluations of W the runs made), cpu-ms/eval.
func reportCPU(b *testing.B, evals *int) func() {
	start, ok := cputime.Used()
	return func() {
		end, _ := cputime.Used()
		if !ok || b.N == 0 {
			return
		}
		b.ReportMetric(float64(end-start)/1e6/float64(b.N), "cpu-ms/op")
		if evals != nil && *evals > 0 {
			b.ReportMetric(float64(end-start)/1e6/float64(*evals), "cpu-ms/eval")
		}
	}
}

// BenchmarkPsiGradUSPS times the two pieces of an SLMC evaluation that
// read the training rows, on the same 2,000 dense USPS rows, one thread:
// Ψ = K(Z, X) for Nz = 20 and 100 expansion vectors (SLMC's and MRSVM's
// sizes in BenchmarkTrainDenseUSPS), and the gradient's first term for
// Nz = 20 with every training row's weight non-zero (SKFD's case).
func BenchmarkPsiGradUSPS(b *testing.B) {
	x, y := benchUSPS(b, 2000)
	e, err := engine.New(engine.WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	p, err := newProblem(e, pursuit.NewRBF(1.0/64), x, y)
	if err != nil {
		b.Fatal(err)
	}
	for _, nz := range []int{20, 100} {
		xv, err := RandomXV(x, nz, 1)
		if err != nil {
			b.Fatal(err)
		}
		z := toDense(xv)
		b.Run(fmt.Sprintf("psi/nz=%d", nz), func(b *testing.B) {
			defer reportCPU(b, nil)()
			for b.Loop() {
				if _, err := p.psi(z); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	xv, err := RandomXV(x, 20, 1)
	if err != nil {
		b.Fatal(err)
	}
	z := toDense(xv)
	bs, err := p.newBasis(z)
	if err != nil {
		b.Fatal(err)
	}
	beta := make([]float64, 20)
	for u := range beta {
		beta[u] = float64(u%5) - 2
	}
	c := make([]float64, p.n())
	for i := range c {
		c[i] = y[i] * float64(1+i%3)
	}
	g := mat.NewDense(20, p.d(), nil)
	b.Run("grad/nz=20", func(b *testing.B) {
		defer reportCPU(b, nil)()
		for b.Loop() {
			p.rbfGrad(g, bs, beta, c, 1)
		}
	})
}
