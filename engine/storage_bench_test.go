package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// storageData returns rows×cols random data at the given density (each
// row's non-zeros at distinct random columns, normal values, the row
// scaled to unit norm as tf-idf rows are, which keeps RBF at γ = 1 off
// the engine's float64 path for cancelling norms) held both dense and
// sparse.
func storageData(rng *rand.Rand, rows, cols int, density float64) (dense, sparse pursuit.Matrix) {
	dense = pursuit.NewMatrix(rows, cols)
	off := make([]int64, 1, rows+1)
	var idx []int32
	var val []float32
	per := max(1, int(density*float64(cols)+0.5))
	for i := range rows {
		cs := rng.Perm(cols)[:per]
		slices.Sort(cs)
		vs := make([]float64, per)
		var sq float64
		for q := range vs {
			vs[q] = rng.NormFloat64()
			sq += vs[q] * vs[q]
		}
		for q, c := range cs {
			v := float32(vs[q] / math.Sqrt(sq))
			dense.Row(i)[c] = v
			idx = append(idx, int32(c))
			val = append(val, v)
		}
		off = append(off, int64(len(idx)))
	}
	sparse = pursuit.Matrix{Rows: rows, Cols: cols, Sparse: &pursuit.CSR{Offsets: off, Indices: idx, Values: val}}
	return dense, sparse
}

// BenchmarkStorageCrossover times the RBF kernel rows the SVM asks for,
// K(X[idx], X) for 16 and 64 gathered rows of 2,000 (KernelGatherPrepared,
// X prepared once, as svm.EngineRows does), and a 256-row kernel block,
// for the same random data held dense and sparse, at densities 0.02–0.5
// and 50–2,000 columns, on the go and avx2 backends, one thread. Each
// sub-benchmark alternates the two storages and reports their CPU time
// per kernel value (dense-ns/value, sparse-ns/value) and sparse/dense, the
// ratio data.StorageAuto's rule is fitted to. The grid takes minutes: it
// runs with PURSUIT_STORAGE_BENCH=1 (and -bench StorageCrossover).
func BenchmarkStorageCrossover(b *testing.B) {
	if os.Getenv("PURSUIT_STORAGE_BENCH") == "" {
		b.Skip("set PURSUIT_STORAGE_BENCH=1 to time the dense/sparse crossover grid (minutes)")
	}
	const rows = 2000
	for _, be := range []string{"go", "avx2"} {
		e, err := New(WithBackend(be), WithThreads(1))
		if err != nil {
			b.Fatal(err)
		}
		if e.BackendName() != be {
			b.Logf("backend %s not available (got %s), skipped", be, e.BackendName())
			continue
		}
		k := pursuit.NewRBF(1)
		for _, cols := range []int{50, 112, 150, 200, 300, 1000, 2000} {
			for _, dens := range []float64{0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5} {
				if float64(cols)*dens < 1 {
					continue
				}
				rng := rand.New(rand.NewPCG(uint64(cols), uint64(dens*1000)))
				xd, xs := storageData(rng, rows, cols, dens)
				pd, err := e.Prepare(xd)
				if err != nil {
					b.Fatal(err)
				}
				ps, err := e.Prepare(xs)
				if err != nil {
					b.Fatal(err)
				}
				for _, op := range []string{"gather16", "gather64", "block256"} {
					m := map[string]int{"gather16": 16, "gather64": 64, "block256": 256}[op]
					idx := make([]int, m)
					for r := range idx {
						idx[r] = rng.IntN(rows)
					}
					dst := pursuit.NewMatrix(m, rows)
					run := func(x pursuit.Matrix, p *Prepared) error {
						if op == "block256" {
							return e.KernelBlockPrepared(dst, k, x.Slice(0, m, 0, cols), nil, p)
						}
						return e.KernelGatherPrepared(dst, k, x, p.Norms(), idx, p)
					}
					name := fmt.Sprintf("%s/cols=%d/density=%g/%s", be, cols, dens, op)
					b.Run(name, func(b *testing.B) {
						var td, ts time.Duration
						for b.Loop() {
							for _, s := range []struct {
								x pursuit.Matrix
								p *Prepared
								t *time.Duration
							}{{xd, pd, &td}, {xs, ps, &ts}} {
								c0, _ := backendtest.CPUTime()
								if err := run(s.x, s.p); err != nil {
									b.Fatal(err)
								}
								c1, _ := backendtest.CPUTime()
								*s.t += c1 - c0
							}
						}
						vals := float64(b.N) * float64(m) * rows
						b.ReportMetric(float64(td.Nanoseconds())/vals, "dense-ns/value")
						b.ReportMetric(float64(ts.Nanoseconds())/vals, "sparse-ns/value")
						if td > 0 {
							b.ReportMetric(float64(ts)/float64(td), "sparse/dense")
						}
					})
				}
				_ = pd.Release()
				_ = ps.Release()
			}
		}
	}
}
