package svm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestBatchedShardedMatchesOneProcess: the batched solver on N = 1…4
// in-process ranks with uneven shards (one of a single row, one empty)
// gives, on every rank, the one-process batched model bit for bit,
// statistics included (outer iterations, inner steps, rows computed), for
// two-class and three-class C-SVC, one-vs-rest and ε-SVR, dense and sparse,
// on the go backend and the default choice.
func TestBatchedShardedMatchesOneProcess(t *testing.T) {
	const l = 190
	x, y3, z := shardData(l, 5, 3, 7)
	_, y2, _ := shardData(l, 5, 2, 7)
	xt, _, _ := shardData(50, 5, 2, 8)
	bt := func(p Params) Params {
		p.Solver = SolverBatched
		return p
	}
	cases := []struct {
		name string
		x    pursuit.Matrix
		y    []float64
		p    Params
	}{
		{"binary", x, y2, bt(Params{Kernel: pursuit.NewRBF(0.4), C: 3})},
		{"binary, q=16, tight", x, y2, bt(Params{Kernel: pursuit.NewRBF(0.4), C: 3, Tol: 1e-6, WorkingSet: 16})},
		{"three classes, weighted", x, y3, bt(Params{Kernel: pursuit.NewRBF(0.4), C: 1, Weights: map[float64]float64{2: 1.5}})},
		{"ε-SVR, instance weights", x, z, bt(Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 1, Epsilon: 0.05, InstanceWeights: weightsFor(l)})},
		{"binary, sparse rows", sparseOf(x, 0.7), y2, bt(Params{Kernel: pursuit.NewRBF(0.4), C: 3, WorkingSet: 32})},
		{"ε-SVR, sparse rows", sparseOf(x, 0.7), z, bt(Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 1, Epsilon: 0.05})},
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
			if want.Stats[0].OuterIter == 0 {
				t.Fatalf("%s: the one-process model was not trained by the batched solver", tc.name)
			}
			for n := 1; n <= 4; n++ {
				t.Run(fmt.Sprintf("%s/%s/N=%d", e.BackendName(), tc.name, n), func(t *testing.T) {
					models := runRanks(t, n, be, tc.x, func(e *engine.Engine, xs pursuit.Matrix, lo, hi int) (*Model, error) {
						p := tc.p
						if p.InstanceWeights != nil {
							p.InstanceWeights = p.InstanceWeights[lo:hi]
						}
						return Train(e, xs, tc.y[lo:hi], p)
					})
					for r, m := range models {
						if err := sameSVM(e, m, want, xt); err != nil {
							t.Fatalf("rank %d of %d: %v", r, n, err)
						}
						if err := identical(m, want); err != nil {
							t.Fatalf("rank %d of %d: not bit-identical to the one-process batched model: %v", r, n, err)
						}
					}
				})
			}
		}
	}
	t.Run("one-vs-rest", func(t *testing.T) {
		e := testEngine(t)
		for _, xx := range []pursuit.Matrix{x, sparseOf(x, 0.7)} {
			shardedOneVsRest(t, e, xx, y3, xt, bt(Params{Kernel: pursuit.NewRBF(0.4), C: 2}))
		}
	})
}

// TestBatchedShardedCommunication counts the batched solver's collectives
// across 3 ranks: two per outer iteration (the selection exchange and the
// working-set gather), plus the final selection exchange and a few at the
// start and the end, whatever q; it logs them per outer iteration beside
// SMO's per iteration on the same problem.
func TestBatchedShardedCommunication(t *testing.T) {
	x, y, _ := shardData(190, 5, 2, 7)
	const n = 3
	run := func(p Params) (*Model, *countingComm) {
		models, counts := trainCounted(t, n, x, y, p)
		for r, c := range counts {
			if c.calls != counts[0].calls || c.values != counts[0].values {
				t.Errorf("rank %d made %d collectives receiving %d values, rank 0 %d and %d", r, c.calls, c.values, counts[0].calls, counts[0].values)
			}
		}
		return models[0], counts[0]
	}
	p := Params{Kernel: pursuit.NewRBF(0.4), C: 3, Tol: 1e-5}
	ms, cs := run(p)
	p.Solver, p.WorkingSet = SolverBatched, 16
	mb, cb := run(p)
	outer := mb.Stats[0].OuterIter
	// Outside the solver: the same collectives as SMO's training makes
	// outside its loop; bound them by a small constant.
	const setup = 20
	if cb.calls < 2*outer+1 || cb.calls > 2*outer+1+setup {
		t.Errorf("batched: %d collectives for %d outer iterations, want between %d and %d", cb.calls, outer, 2*outer+1, 2*outer+1+setup)
	}
	t.Logf("SMO: %d iterations, %d collectives (%.2f per iteration), %d float64 received",
		ms.Stats[0].Iter, cs.calls, float64(cs.calls)/float64(ms.Stats[0].Iter), cs.values)
	t.Logf("batched q=16: %d outer iterations (%d inner steps), %d collectives (%.2f per outer iteration), %d float64 received (%.0f per outer iteration)",
		outer, mb.Stats[0].Iter, cb.calls, float64(cb.calls)/float64(outer), cb.values, float64(cb.values)/float64(outer))
}

// TestBatchedTrainWorld trains with the batched solver across comm.World
// (one rank under plain go test; every rank of the job under mpirun:
// scripts/mpi-check.sh runs it at -np 2, 3 and 4): every rank must build
// the one-process batched model bit for bit, for C-SVC (three classes) and
// ε-SVR. It logs the collectives per outer iteration of the binary
// machines, counted on this rank.
func TestBatchedTrainWorld(t *testing.T) {
	w, err := comm.World()
	if err != nil {
		t.Fatal(err)
	}
	const l = 173
	x, y, z := shardData(l, 4, 3, 21)
	single := testEngine(t)
	n, r := w.Size(), w.Rank()
	bound := func(r int) int { return l * r * (r + 1) / (n * (n + 1)) }
	r0, r1 := bound(r), bound(r+1)
	cc := &countingComm{Comm: w}
	e, err := engine.New(engine.WithComm(cc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		y    []float64
		p    Params
	}{
		{"C-SVC", y, Params{Kernel: pursuit.NewRBF(0.5), C: 2, Solver: SolverBatched, WorkingSet: 16}},
		{"ε-SVR", z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.3), C: 1, Epsilon: 0.05, Solver: SolverBatched}},
	} {
		want, err := Train(single, x, tc.y, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		c0 := cc.calls
		got, err := Train(e, x.Slice(r0, r1, 0, x.Cols), tc.y[r0:r1], tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if err := identical(got, want); err != nil {
			t.Fatalf("%s, %s, rows [%d, %d): not bit-identical to the one-process batched model: %v", tc.name, w.Describe(), r0, r1, err)
		}
		outer := 0
		for _, s := range got.Stats {
			outer += s.OuterIter
		}
		calls := cc.calls - c0
		// In the solvers' loops: two per outer iteration and the last
		// selection exchange (the one that finds the gap small enough) of
		// each machine.
		loop := 2*outer + len(got.Stats)
		if outer == 0 || (n > 1 && calls < loop) {
			t.Fatalf("%s: %d collectives for %d outer iterations of %d machines", tc.name, calls, outer, len(got.Stats))
		}
		if n == 1 {
			loop = 0
		}
		t.Logf("%s, %s: rows [%d, %d) of %d, %d support vectors, %d machines, %d outer iterations: %d collectives, %d in the solver loops (%.2f per outer iteration), %d to set up and gather the model",
			tc.name, w.Describe(), r0, r1, l, got.TotalSV(), len(got.Stats), outer, calls, loop, float64(loop)/float64(outer), calls-loop)
	}
}

// TestTopCands checks topCands against a full sort, with ties in value
// broken by variable, for every k.
func TestTopCands(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{0, 1, 5, 17, 40, 300} {
		cs := make([]cand, n)
		for i := range cs {
			cs[i] = cand{v: float64(rng.IntN(7)), a: rng.IntN(1000)*1000 + i}
		}
		want := slices.Clone(cs)
		slices.SortFunc(want, byValueThenVar)
		for k := 0; k <= n+1; k++ {
			got := topCands(slices.Clone(cs), k)
			if !slices.Equal(got, want[:min(k, n)]) {
				t.Fatalf("n=%d k=%d: %v, want %v", n, k, got, want[:min(k, n)])
			}
		}
	}
}
