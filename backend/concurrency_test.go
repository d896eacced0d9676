package backend_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

func randMatrix(rng *rand.Rand, rows, cols int) pursuit.Matrix {
	m := pursuit.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(2*rng.Float64() - 1)
	}
	return m
}

// TestGoConcurrent calls one multi-threaded Go backend from several
// goroutines at once (run it with -race) and checks every result bit for bit
// against the single-threaded backend: the work split must not change the
// arithmetic, and concurrent calls must not share scratch memory.
func TestGoConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, z := randMatrix(rng, 130, 40), randMatrix(rng, 2000, 40)
	dict, vecs := randMatrix(rng, 700, 300), randMatrix(rng, 5, 300)
	u, v := randMatrix(rng, 3, 700), randMatrix(rng, 3, 300)
	idx := []int{5, 129, 0, 5, 77}
	kernels := []pursuit.Kernel{
		{Kind: pursuit.RBF, Gamma: 0.05},
		{Kind: pursuit.Polynomial, Gamma: 0.1, Coef0: 1, Degree: 3},
		{Kind: pursuit.Sigmoid, Gamma: 0.02, Coef0: 0.1},
		{Kind: pursuit.Linear},
	}

	type result struct {
		block, gather []float32
		prods         []float64
		updated       []float32
		norms         []float32
	}
	compute := func(be backend.Backend, k pursuit.Kernel) (r result, err error) {
		blk := pursuit.NewMatrix(x.Rows, z.Rows)
		if err = be.KernelBlock(blk, k, x, nil, z, nil); err != nil {
			return
		}
		gat := pursuit.NewMatrix(len(idx)+2, z.Rows)
		if err = be.KernelGather(gat.Slice(0, len(idx), 0, z.Rows), k, x, nil, idx, z, nil); err != nil {
			return
		}
		// two single rows: the few-row path, split over columns
		if err = be.KernelGather(gat.Slice(len(idx), len(idx)+2, 0, z.Rows), k, x, nil, idx[:2], z, nil); err != nil {
			return
		}
		prods := make([]float64, dict.Rows*vecs.Rows)
		if err = be.DictProducts(prods, dict, vecs); err != nil {
			return
		}
		d := pursuit.NewMatrix(dict.Rows, dict.Cols)
		copy(d.Data, dict.Data)
		if err = be.RankUpdate(d, -1, u, v); err != nil {
			return
		}
		norms := make([]float32, dict.Rows)
		if err = be.SqNorms(norms, dict); err != nil {
			return
		}
		return result{blk.Data, gat.Data, prods, d.Data, norms}, nil
	}

	want := make([]result, len(kernels))
	for i, k := range kernels {
		var err error
		if want[i], err = compute(backend.NewGo(1), k); err != nil {
			t.Fatal(err)
		}
	}
	shared := backend.NewGo(2)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % len(kernels)
			for range 2 {
				got, err := compute(shared, kernels[i])
				switch {
				case err != nil:
					errs <- err.Error()
				case !slices.Equal(got.block, want[i].block):
					errs <- kernels[i].String() + ": KernelBlock differs from the single-threaded result"
				case !slices.Equal(got.gather, want[i].gather):
					errs <- kernels[i].String() + ": KernelGather differs"
				case !slices.Equal(got.prods, want[i].prods):
					errs <- "DictProducts differs"
				case !slices.Equal(got.updated, want[i].updated):
					errs <- "RankUpdate differs"
				case !slices.Equal(got.norms, want[i].norms):
					errs <- "SqNorms differs"
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
