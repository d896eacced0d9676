package svm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// shardData returns l points in d dimensions with k overlapping classes
// (labels 1…k, or ±1 for k = 2), and a regression target.
func shardData(l, d, k int, seed uint64) (pursuit.Matrix, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x5a4d))
	x := pursuit.NewMatrix(l, d)
	y := make([]float64, l)
	z := make([]float64, l)
	for i := range l {
		c := rng.IntN(k)
		s := 0.0
		for j := range d {
			v := rng.NormFloat64()
			if j == c%d {
				v += 1.5
			}
			x.Row(i)[j] = float32(v)
			s += v * float64(j+1) / float64(d)
		}
		y[i] = float64(c + 1)
		if k == 2 {
			y[i] = float64(2*c - 1)
		}
		z[i] = math.Sin(s) + 0.1*rng.NormFloat64()
	}
	return x, y, z
}

// sameSVM reports how got differs from the one-process model want: the
// support vectors must be the same training rows, and the coefficients, the
// offsets and the decision values on xt equal to 1e-6 relative (to the
// largest magnitude of each).
func sameSVM(e *engine.Engine, got, want *Model, xt pursuit.Matrix) error {
	if !slices.Equal(got.SVIndex, want.SVIndex) {
		return fmt.Errorf("support vectors %v, one process %v", got.SVIndex, want.SVIndex)
	}
	if !slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.NumSV, want.NumSV) {
		return fmt.Errorf("labels %v (%v SVs), one process %v (%v)", got.Labels, got.NumSV, want.Labels, want.NumSV)
	}
	if err := sameRows(got.SV, want.SV); err != nil {
		return fmt.Errorf("the support vectors' features differ: %w", err)
	}
	if len(got.Coef) != len(want.Coef) {
		return fmt.Errorf("%d coefficient rows, one process %d", len(got.Coef), len(want.Coef))
	}
	for q := range want.Coef {
		if err := close6("coefficient row "+fmt.Sprint(q), got.Coef[q], want.Coef[q]); err != nil {
			return err
		}
	}
	if err := close6("ρ", got.Rho, want.Rho); err != nil {
		return err
	}
	gd, err := got.Decision(e, xt)
	if err != nil {
		return err
	}
	wd, err := want.Decision(e, xt)
	if err != nil {
		return err
	}
	return close6("decision", gd, wd)
}

// sameRows reports how the rows of a and b (dense or sparse) differ in
// shape or in any non-zero.
func sameRows(a, b pursuit.Matrix) error {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return fmt.Errorf("%d×%d, want %d×%d", a.Rows, a.Cols, b.Rows, b.Cols)
	}
	for i := range a.Rows {
		ja, va := nonZeros(a, i)
		jb, vb := nonZeros(b, i)
		if !slices.Equal(ja, jb) || !slices.Equal(va, vb) {
			return fmt.Errorf("row %d: features %v values %v, want %v %v", i, ja, va, jb, vb)
		}
	}
	return nil
}

// sparseOf returns the non-zeros of x (dense or sparse) of magnitude at
// least cut as sparse rows (the rest dropped): data with real zeros, for the sparse paths.
func sparseOf(x pursuit.Matrix, cut float32) pursuit.Matrix {
	off := []int64{0}
	var ind []int32
	var val []float32
	row := make([]float32, x.Cols)
	for i := range x.Rows {
		for j, v := range x.RowTo(row, i) {
			if v != 0 && (v >= cut || v <= -cut) {
				ind = append(ind, int32(j))
				val = append(val, v)
			}
		}
		off = append(off, int64(len(ind)))
	}
	return pursuit.Matrix{Rows: x.Rows, Cols: x.Cols, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
}

// close6 checks got against want to 1e-6 of want's largest magnitude.
func close6(what string, got, want []float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, one process %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6*scale {
			return fmt.Errorf("%s %d = %v, one process %v", what, i, got[i], want[i])
		}
	}
	return nil
}

// shardBounds are uneven row ranges for n ranks of l rows: with three
// ranks one holds a single row, with four one holds none.
func shardBounds(n, l int) []int {
	return map[int][]int{1: {0, l}, 2: {0, l * 7 / 19, l}, 3: {0, l * 5 / 19, l*5/19 + 1, l}, 4: {0, l * 6 / 19, l * 10 / 19, l * 10 / 19, l}}[n]
}

// newEngine returns an engine on backend be ("" for the default choice).
func newEngine(be string, opts ...engine.Option) (*engine.Engine, error) {
	if be != "" {
		opts = append(opts, engine.WithBackend(be))
	}
	return engine.New(opts...)
}

// runRanks trains on n in-process ranks with the given backend ("" for the
// default), rank r on rows [b[r], b[r+1]), and returns every rank's result.
func runRanks[M any](t *testing.T, n int, be string, x pursuit.Matrix, train func(e *engine.Engine, x pursuit.Matrix, lo, hi int) (M, error)) []M {
	t.Helper()
	b := shardBounds(n, x.Rows)
	out := make([]M, n)
	var mu sync.Mutex
	err := comm.Run(n, func(c comm.Comm) error {
		e, err := newEngine(be, engine.WithComm(c))
		if err != nil {
			return err
		}
		lo, hi := b[c.Rank()], b[c.Rank()+1]
		m, err := train(e, x.Slice(lo, hi, 0, x.Cols), lo, hi)
		mu.Lock()
		out[c.Rank()] = m
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestShardLayoutOwner checks owner against the layout's own list of keys
// on every rank, for segments of uneven and empty parts.
func TestShardLayoutOwner(t *testing.T) {
	counts := [][]int{{3, 0, 5, 1}, {0, 4, 2, 0}, {2, 2, 0, 7}}
	owner := map[int][2]int{}
	for r := range 4 {
		lay := newShardLayout(r, 4, counts)
		for p, k := range lay.keys {
			if _, dup := owner[k]; dup {
				t.Fatalf("key %d held twice", k)
			}
			owner[k] = [2]int{r, p}
		}
		if lay.total() != 26 {
			t.Fatalf("total %d, want 26", lay.total())
		}
	}
	if len(owner) != 26 {
		t.Fatalf("%d keys held, want 26", len(owner))
	}
	lay := newShardLayout(1, 4, counts)
	for k, want := range owner {
		if r, p := lay.owner(k); r != want[0] || p != want[1] {
			t.Errorf("owner(%d) = rank %d point %d, want rank %d point %d", k, r, p, want[0], want[1])
		}
	}
}

// TestShardedOneRankIsOneProcess: the solver across ranks, run on one
// rank, takes the one-process solver's every step: the same iterations,
// cache hits, misses and rows computed, and bit-identical models — so the
// exchanges, merges and ordered sums reproduce the one-process rules
// exactly.
func TestShardedOneRankIsOneProcess(t *testing.T) {
	x, y3, z := shardData(230, 4, 3, 1)
	_, y2, _ := shardData(230, 4, 2, 1)
	e := testEngine(t)
	cases := []struct {
		name string
		y    []float64
		p    Params
	}{
		{"binary", y2, Params{Kernel: pursuit.NewRBF(0.5), C: 4}},
		{"binary, small cache, batch 5, weighted", y2, Params{Kernel: pursuit.NewRBF(0.5), C: 4, CacheMB: 0.02, Batch: 5, Weights: map[float64]float64{1: 2}}},
		{"three classes, polynomial", y3, Params{Kernel: pursuit.NewPoly(0.3, 1, 2), C: 1}},
		{"ε-SVR", z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.3), C: 2, Epsilon: 0.05}},
		{"ε-SVR, no shrinking, instance weights", z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.3), C: 2, Epsilon: 0.05, NoShrinking: true, InstanceWeights: weightsFor(230)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := Train(e, x, tc.y, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := trainSharded(e, x, tc.y, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if err := identical(got, want); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("one-vs-rest", func(t *testing.T) {
		p := Params{Kernel: pursuit.NewRBF(0.5), C: 2, CacheMB: 0.05}
		want, err := TrainOneVsRest(e, x, y3, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := trainOneVsRestSharded(e, x, y3, p)
		if err != nil {
			t.Fatal(err)
		}
		for c := range want.Machines {
			if err := identical(got.Machines[c], want.Machines[c]); err != nil {
				t.Fatalf("machine %d: %v", c, err)
			}
		}
	})
}

func weightsFor(l int) []float64 {
	w := make([]float64, l)
	for i := range w {
		w[i] = 0.5 + float64(i%4)/2
	}
	return w
}

// identical reports how two models differ in any bit, stats included.
func identical(got, want *Model) error {
	switch {
	case !slices.Equal(got.SVIndex, want.SVIndex):
		return fmt.Errorf("support vectors %v, one process %v", got.SVIndex, want.SVIndex)
	case !slices.Equal(got.Rho, want.Rho):
		return fmt.Errorf("ρ %v, one process %v", got.Rho, want.Rho)
	case !slices.EqualFunc(got.Coef, want.Coef, slices.Equal[[]float64]):
		return errors.New("coefficients differ")
	case !slices.Equal(got.Stats, want.Stats):
		return fmt.Errorf("stats %+v, one process %+v", got.Stats, want.Stats)
	case !slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.NumSV, want.NumSV):
		return fmt.Errorf("labels %v (%v SVs), one process %v (%v)", got.Labels, got.NumSV, want.Labels, want.NumSV)
	case got.SV.IsSparse() != want.SV.IsSparse():
		return fmt.Errorf("support vectors sparse %v, one process %v", got.SV.IsSparse(), want.SV.IsSparse())
	}
	if err := sameRows(got.SV, want.SV); err != nil {
		return fmt.Errorf("support vector features differ: %w", err)
	}
	return nil
}

// TestShardedMatchesOneProcess: on N = 1…4 in-process ranks with uneven
// shards (one of a single row, one empty), Train chooses the one-process
// support vectors and gives its coefficients, offsets and decisions to
// 1e-6 relative, for two-class and three-class C-SVC and ε-SVR, on every
// rank. On the CPU backends (the pure-Go kernels and the default choice)
// the models are in fact bit-identical, statistics included: the ranks take
// the one-process run's every step.
func TestShardedMatchesOneProcess(t *testing.T) {
	const l = 190
	x, y3, z := shardData(l, 5, 3, 7)
	_, y2, _ := shardData(l, 5, 2, 7)
	xt, _, _ := shardData(50, 5, 2, 8)
	tiny, tinyY, _ := shardData(25, 3, 2, 9) // shorter than a streaming kernel row
	cases := []struct {
		name string
		x    pursuit.Matrix
		y    []float64
		p    Params
	}{
		{"binary", x, y2, Params{Kernel: pursuit.NewRBF(0.4), C: 3}},
		{"three classes, weighted, small cache", x, y3, Params{Kernel: pursuit.NewRBF(0.4), C: 1, CacheMB: 0.02, Weights: map[float64]float64{2: 1.5}}},
		{"ε-SVR", x, z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 1, Epsilon: 0.05}},
		{"25 points, linear", tiny, tinyY, Params{Kernel: pursuit.NewLinear(), C: 1}},
		// Sparse rows: each rank holds its rows' non-zeros.
		{"binary, sparse rows", sparseOf(x, 0.7), y2, Params{Kernel: pursuit.NewRBF(0.4), C: 3}},
		{"three classes, sparse rows", sparseOf(x, 0.7), y3, Params{Kernel: pursuit.NewRBF(0.4), C: 1, CacheMB: 0.02}},
		{"ε-SVR, sparse rows", sparseOf(x, 0.7), z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 1, Epsilon: 0.05}},
	}
	for _, be := range []string{"go", ""} {
		e, err := newEngine(be)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			want, err := Train(e, tc.x, tc.y, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			for n := 1; n <= 4; n++ {
				t.Run(fmt.Sprintf("%s/%s/N=%d", e.BackendName(), tc.name, n), func(t *testing.T) {
					models := runRanks(t, n, be, tc.x, func(e *engine.Engine, xs pursuit.Matrix, lo, hi int) (*Model, error) {
						return Train(e, xs, tc.y[lo:hi], tc.p)
					})
					xt := xt
					if tc.x.Cols != xt.Cols {
						xt = tc.x
					}
					for r, m := range models {
						if err := sameSVM(e, m, want, xt); err != nil {
							t.Fatalf("rank %d of %d: %v", r, n, err)
						}
						if err := identical(m, want); err != nil {
							t.Fatalf("rank %d of %d: not bit-identical to the one-process model: %v", r, n, err)
						}
					}
				})
			}
		}
	}
}

func iterations(m *Model) []int {
	var it []int
	for _, s := range m.Stats {
		it = append(it, s.Iter)
	}
	return it
}

// TestShardedOneVsRestMatchesOneProcess: TrainOneVsRest (and
// TrainMulticlass with OneVsRest) across 3 ranks gives every machine of
// the one-process model.
func TestShardedOneVsRestMatchesOneProcess(t *testing.T) {
	dense, y, _ := shardData(190, 5, 3, 11)
	xt, _, _ := shardData(40, 5, 3, 12)
	e := testEngine(t)
	p := Params{Kernel: pursuit.NewRBF(0.4), C: 2}
	for _, x := range []pursuit.Matrix{dense, sparseOf(dense, 0.7)} {
		shardedOneVsRest(t, e, x, y, xt, p)
	}
}

func shardedOneVsRest(t *testing.T, e *engine.Engine, x pursuit.Matrix, y []float64, xt pursuit.Matrix, p Params) {
	t.Helper()
	want, err := TrainOneVsRest(e, x, y, p)
	if err != nil {
		t.Fatal(err)
	}
	got := runRanks(t, 3, "", x, func(e *engine.Engine, xs pursuit.Matrix, lo, hi int) (Classifier, error) {
		return TrainMulticlass(e, xs, y[lo:hi], p, OneVsRest)
	})
	for r, g := range got {
		o := g.(*OneVsRestModel)
		if !slices.Equal(o.Classes, want.Classes) {
			t.Fatalf("rank %d: classes %v, one process %v", r, o.Classes, want.Classes)
		}
		for c := range want.Machines {
			if err := sameSVM(e, o.Machines[c], want.Machines[c], xt); err != nil {
				t.Fatalf("rank %d, machine for class %v: %v", r, want.Classes[c], err)
			}
			if err := identical(o.Machines[c], want.Machines[c]); err != nil {
				t.Fatalf("rank %d, machine for class %v: not bit-identical: %v", r, want.Classes[c], err)
			}
		}
	}
}

// TestTrainWorld trains across comm.World: one rank under plain go test,
// every rank of the job under mpirun (scripts/mpi-check.sh runs the -tags
// mpi test binary with -np 2 and 3). Rank r of n holds an uneven share of
// the rows, and every rank must build the one-process model, for C-SVC
// (three classes) and ε-SVR.
func TestTrainWorld(t *testing.T) {
	c, err := comm.World()
	if err != nil {
		t.Fatal(err)
	}
	const l = 173
	x, y, z := shardData(l, 4, 3, 21)
	xt, _, _ := shardData(30, 4, 3, 22)
	single := testEngine(t)
	n, r := c.Size(), c.Rank()
	bound := func(r int) int { return l * r * (r + 1) / (n * (n + 1)) }
	r0, r1 := bound(r), bound(r+1)
	e, err := engine.New(engine.WithComm(c))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		y    []float64
		p    Params
	}{
		{"C-SVC", y, Params{Kernel: pursuit.NewRBF(0.5), C: 2}},
		{"ε-SVR", z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.3), C: 1, Epsilon: 0.05}},
	} {
		want, err := Train(single, x, tc.y, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Train(e, x.Slice(r0, r1, 0, x.Cols), tc.y[r0:r1], tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameSVM(single, got, want, xt); err != nil {
			t.Fatalf("%s, %s, rows [%d, %d): %v", tc.name, c.Describe(), r0, r1, err)
		}
		if err := identical(got, want); err != nil {
			t.Fatalf("%s, %s, rows [%d, %d): not bit-identical to the one-process model: %v", tc.name, c.Describe(), r0, r1, err)
		}
		t.Logf("%s, %s: rows [%d, %d) of %d, %d support vectors, iterations %v (one process %v)",
			tc.name, c.Describe(), r0, r1, l, got.TotalSV(), iterations(got), iterations(want))
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	// Finalize MPI when the tests ran under mpirun (a no-op otherwise).
	if c, err := comm.World(); err == nil {
		c.Close()
	}
	os.Exit(code)
}

// countingComm counts a rank's collectives and the float64 values it
// receives.
type countingComm struct {
	comm.Comm
	calls, values int
}

func (c *countingComm) Allgatherv(send []float64, counts []int, recv []float64) error {
	c.calls++
	c.values += len(recv)
	return c.Comm.Allgatherv(send, counts, recv)
}

func (c *countingComm) AllreduceSum(buf []float64) error {
	c.calls++
	c.values += len(buf)
	return c.Comm.AllreduceSum(buf)
}

func (c *countingComm) AllreduceMaxLoc(v float64, i int) (float64, int, error) {
	c.calls++
	c.values += 2
	return c.Comm.AllreduceMaxLoc(v, i)
}

func (c *countingComm) BcastBytes(buf []byte, root int) error {
	c.calls++
	c.values += (len(buf) + 7) / 8
	return c.Comm.BcastBytes(buf, root)
}

func (c *countingComm) BcastFloat64(buf []float64, root int) error {
	c.calls++
	c.values += len(buf)
	return c.Comm.BcastFloat64(buf, root)
}

// TestShardedCommunication checks the solver's communication against its
// cost model on 3 ranks: two collectives per iteration, each receiving one
// record of recWidth values per rank, plus, per batch of kernel rows, the
// prefetch exchange (on a miss) and the batch's points, plus a few
// collectives at the start, at shrinking and at the end.
func TestShardedCommunication(t *testing.T) {
	x, y, _ := shardData(190, 5, 2, 7)
	p := Params{Kernel: pursuit.NewRBF(0.4), C: 3, CacheMB: 0.03}
	const n = 3
	models, counts := trainCounted(t, n, x, y, p)
	st := models[0].Stats[0]
	iters, batches := st.Iter, st.CacheMisses
	loads := st.RowsComputed // at most one batch per row
	cc := counts[0]
	t.Logf("%d iterations, %d misses, %d rows computed: %d collectives (%.2f per iteration), %d float64 received (%.1f per iteration)",
		iters, batches, loads, cc.calls, float64(cc.calls)/float64(iters), cc.values, float64(cc.values)/float64(iters))
	if min := 2 * iters; cc.calls < min || cc.calls > min+2*loads+40 {
		t.Errorf("%d collectives for %d iterations and %d rows computed, want between %d and %d", cc.calls, iters, loads, min, min+2*loads+40)
	}
	if perIter := 2 * recWidth * n * iters; cc.values < perIter {
		t.Errorf("%d values received, fewer than the %d of the working-set records", cc.values, perIter)
	}
	for r, c := range counts {
		if c.calls != cc.calls || c.values != cc.values {
			t.Errorf("rank %d made %d collectives receiving %d values, rank 0 %d and %d", r, c.calls, c.values, cc.calls, cc.values)
		}
	}
}

// trainCounted trains p on x, y split over n in-process ranks, each rank's
// collectives counted, and returns every rank's model and counter.
func trainCounted(t *testing.T, n int, x pursuit.Matrix, y []float64, p Params) ([]*Model, []*countingComm) {
	t.Helper()
	counts := make([]*countingComm, n)
	models := make([]*Model, n)
	b := shardBounds(n, x.Rows)
	err := comm.Run(n, func(c comm.Comm) error {
		cc := &countingComm{Comm: c}
		counts[c.Rank()] = cc
		e, err := engine.New(engine.WithComm(cc))
		if err != nil {
			return err
		}
		lo, hi := b[c.Rank()], b[c.Rank()+1]
		models[c.Rank()], err = Train(e, x.Slice(lo, hi, 0, x.Cols), y[lo:hi], p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return models, counts
}
