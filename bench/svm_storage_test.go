package bench

// The SVM's training time in sparse storage (kernel rows one at a time, by
// columns: the rows it asks for only) against dense storage (a tile of
// rows a miss), on generated data of several shapes and on mushrooms and
// the covtype-like set: whether StorageAuto should hold sparse-ish data
// sparse for the SVM, whose cache holds fewer rows that way. For each set
// it prints the training time of each storage (the fastest of three
// alternated runs, one thread), their ratio, the kernel rows each computed
// and the support vectors.
//
//	PURSUIT_SVM_STORAGE=1 go test ./bench -run TestSVMStorageSingleRows -v

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// storageSet is one data set of the comparison, its rows held sparse.
type storageSet struct {
	name  string
	x     pursuit.Matrix
	y     []float64
	gamma float64
}

// genSparse returns rows of `on` numeric columns followed by groups of
// one-hot columns (one non-zero a group, skewed categories) when groups >
// 0, else rows of about density·cols non-zeros at random columns with
// normal values; the labels are the sign of a random linear function with
// 10% of them flipped.
func genSparse(rng *rand.Rand, rows, cols int, density float64, on, groups, group int) (pursuit.Matrix, []float64) {
	if groups > 0 {
		cols = on + groups*group
	}
	w := make([]float64, cols)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	off := []int64{0}
	var idx []int32
	var val []float32
	y := make([]float64, rows)
	for i := range rows {
		var s float64
		add := func(c int, v float32) {
			idx = append(idx, int32(c))
			val = append(val, v)
			s += w[c] * float64(v)
		}
		if groups > 0 {
			for c := range on {
				add(c, float32(rng.Float64()))
			}
			for g := range groups {
				add(on+g*group+min(group-1, int(rng.ExpFloat64()*float64(group)/3)), 1)
			}
		} else {
			per := max(1, int(density*float64(cols)+0.5))
			cs := rng.Perm(cols)[:per]
			slices.Sort(cs)
			for _, c := range cs {
				add(c, float32(rng.NormFloat64()/math.Sqrt(float64(per))))
			}
		}
		y[i] = 1
		if s < 0 {
			y[i] = -1
		}
		if rng.Float64() < 0.1 {
			y[i] = -y[i]
		}
		off = append(off, int64(len(idx)))
	}
	x, err := pursuit.SparseFrom(rows, cols, off, idx, val)
	if err != nil {
		panic(err)
	}
	return x, y
}

func TestSVMStorageSingleRows(t *testing.T) {
	if os.Getenv("PURSUIT_SVM_STORAGE") == "" {
		t.Skip("set PURSUIT_SVM_STORAGE=1 to time the SVM in both storages")
	}
	e, err := engine.New(engine.WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(28, 1))
	var sets []storageSet
	for _, cols := range []int{54, 112, 300} {
		for _, dens := range []float64{0.05, 0.1, 0.2} {
			x, y := genSparse(rng, 6000, cols, dens, 0, 0, 0)
			sets = append(sets, storageSet{"uniform", x, y, 1})
		}
	}
	for _, g := range [][3]int{{0, 22, 5}, {5, 20, 5}, {10, 2, 22}} {
		x, y := genSparse(rng, 6000, 0, 0, g[0], g[1], g[2])
		sets = append(sets, storageSet{"one-hot", x, y, 0.05})
	}
	if path, err := data.SharedFile("mushrooms", "mushrooms.gz"); err == nil {
		ds, err := data.Load(path, data.WithStorage(data.StorageSparse))
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, storageSet{"mushrooms", ds.X, ds.Y, 0.05})
	}
	cov := data.Sparsify(data.CovtypeLike(6000, 1))
	sets = append(sets, storageSet{"covtype-like", cov.X, cov.Y, 0.125})
	for _, s := range sets {
		dense := pursuit.Densified(s.x)
		p := svm.Params{Kernel: pursuit.NewRBF(s.gamma), C: 1}
		best := map[string]time.Duration{}
		rows := map[string]int{}
		nsv := 0
		for range 3 {
			for _, st := range []struct {
				name string
				x    pursuit.Matrix
			}{{"dense", dense}, {"sparse", s.x}} {
				t0 := time.Now()
				m, err := svm.Train(e, st.x, s.y, p)
				if err != nil {
					t.Fatal(err)
				}
				d := time.Since(t0)
				if b, ok := best[st.name]; !ok || d < b {
					best[st.name] = d
				}
				rows[st.name], nsv = m.Stats[0].RowsComputed, m.Stats[0].NumSV
			}
		}
		t.Logf("%-12s %5d×%-4d density %.3f  %5d SVs  dense %6.3f s (%5d rows)  sparse %6.3f s (%5d rows)  sparse/dense %.2f",
			s.name, s.x.Rows, s.x.Cols, data.Density(s.x.Rows, s.x.Cols, data.CountNonZeros(s.x)), nsv,
			best["dense"].Seconds(), rows["dense"], best["sparse"].Seconds(), rows["sparse"], best["sparse"].Seconds()/best["dense"].Seconds())
	}
}
