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

// mixedData returns rows×cols data of `on` always-present columns (numeric
// features) followed by groups of one-hot columns, one non-zero a group, in
// groups of size group (categorical features), held dense and sparse.
func mixedData(rng *rand.Rand, rows, on, groups, group int) (dense, sparse pursuit.Matrix) {
	cols := on + groups*group
	dense = pursuit.NewMatrix(rows, cols)
	off := make([]int64, 1, rows+1)
	var idx []int32
	var val []float32
	for i := range rows {
		for c := range on {
			v := float32(rng.Float64())
			dense.Row(i)[c] = v
			idx = append(idx, int32(c))
			val = append(val, v)
		}
		for g := range groups {
			// skewed categories: the first ones most frequent
			c := on + g*group + min(group-1, int(rng.ExpFloat64()*float64(group)/3))
			dense.Row(i)[c] = 1
			idx = append(idx, int32(c))
			val = append(val, 1)
		}
		off = append(off, int64(len(idx)))
	}
	sparse = pursuit.Matrix{Rows: rows, Cols: cols, Sparse: &pursuit.CSR{Offsets: off, Indices: idx, Values: val}}
	return dense, sparse
}

// BenchmarkSVMRowStorage times what the SVM pays for its kernel rows in
// each storage on the avx2 backend, one thread: a gather of one tile of
// rows against dense X (TileRowsOf: the rows a dense miss computes
// together) and a gather of one row against sparse X (its tile 1: the
// column path), for random data at densities 0.05–0.4 and for numeric
// columns mixed with one-hot groups (mushrooms-like: 22 groups of about 5
// categories; covtype-like: 10 numeric columns and groups of 4 and 40).
// It reports the two times, their ratio (sparse-row/dense-tile), the
// column work of a row (Σ over columns of their non-zeros squared, over
// the rows: the entries the column path meets for a row of average
// columns) and rows·cols. It runs with PURSUIT_STORAGE_BENCH=1.
func BenchmarkSVMRowStorage(b *testing.B) {
	if os.Getenv("PURSUIT_STORAGE_BENCH") == "" {
		b.Skip("set PURSUIT_STORAGE_BENCH=1 to time the SVM's rows in both storages")
	}
	e, err := New(WithBackend("avx2"), WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	if e.BackendName() != "avx2" {
		b.Skip("the avx2 backend is not available")
	}
	k := pursuit.NewRBF(0.05)
	type shape struct {
		name   string
		xd, xs pursuit.Matrix
	}
	var shapes []shape
	const rows = 6000
	for _, cols := range []int{54, 112, 300} {
		for _, dens := range []float64{0.05, 0.1, 0.2, 0.3, 0.4} {
			rng := rand.New(rand.NewPCG(uint64(cols), uint64(dens*1000)))
			xd, xs := storageData(rng, rows, cols, dens)
			shapes = append(shapes, shape{fmt.Sprintf("uniform/cols=%d/density=%g", cols, dens), xd, xs})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	xd, xs := mixedData(rng, rows, 0, 22, 5)
	shapes = append(shapes, shape{"onehot/22x5", xd, xs})
	xd, xs = mixedData(rng, rows, 10, 2, 22)
	shapes = append(shapes, shape{"mixed/10+2x22", xd, xs})
	xd, xs = mixedData(rng, rows, 5, 20, 5)
	shapes = append(shapes, shape{"mixed/5+20x5", xd, xs})
	for _, s := range shapes {
		pd, err := e.Prepare(s.xd)
		if err != nil {
			b.Fatal(err)
		}
		ps, err := e.Prepare(s.xs)
		if err != nil {
			b.Fatal(err)
		}
		tile := e.TileRowsOf(pd)
		colNZ := make([]int64, s.xs.Cols)
		for _, c := range s.xs.Sparse.Indices {
			colNZ[c]++
		}
		var sq int64
		for _, n := range colNZ {
			sq += n * n
		}
		b.Run(s.name, func(b *testing.B) {
			dd, ds := pursuit.NewMatrix(tile, rows), pursuit.NewMatrix(1, rows)
			var td, ts time.Duration
			for b.Loop() {
				idx := []int{rng.IntN(rows)}
				tiles := make([]int, tile)
				for r := range tiles {
					tiles[r] = rng.IntN(rows)
				}
				c0, _ := backendtest.CPUTime()
				if err := e.KernelGatherPrepared(dd, k, s.xd, pd.Norms(), tiles, pd); err != nil {
					b.Fatal(err)
				}
				c1, _ := backendtest.CPUTime()
				if err := e.KernelGatherPrepared(ds, k, s.xs, ps.Norms(), idx, ps); err != nil {
					b.Fatal(err)
				}
				c2, _ := backendtest.CPUTime()
				td += c1 - c0
				ts += c2 - c1
			}
			n := float64(b.N)
			b.ReportMetric(float64(td.Nanoseconds())/n, "dense-tile-ns")
			b.ReportMetric(float64(ts.Nanoseconds())/n, "sparse-row-ns")
			b.ReportMetric(float64(ts)/float64(td), "row/tile")
			b.ReportMetric(float64(sq)/rows, "column-work")
			b.ReportMetric(float64(rows*s.xs.Cols), "rows·cols")
		})
		_ = pd.Release()
		_ = ps.Release()
	}
}
