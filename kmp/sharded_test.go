package kmp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// shardedProblem is a small regression problem with a smooth target.
func shardedProblem(l, d int, seed uint64) (backend.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := backend.NewMatrix(l, d)
	y := make([]float64, l)
	for i := range l {
		s := 0.0
		for j := range d {
			v := rng.Float64()*2 - 1
			x.Row(i)[j] = float32(v)
			s += v * float64(j+1)
		}
		y[i] = math.Sin(s) + 0.1*rng.NormFloat64()
	}
	return x, y
}

// stepAtoms lists the training row chosen at each step.
func stepAtoms(m *Model) []int {
	var out []int
	for _, s := range m.Outputs[0].Curve {
		out = append(out, s.Support)
	}
	return out
}

// TestShardedBasicMatchesSingleProcess: on N = 1..4 in-process ranks
// (shards of uneven sizes, one of them empty for N = 4), sharded basic
// stochastic KMP chooses the atoms TrainStochastic chooses on the whole
// set, and its decisions agree to 1e-6 relative; likewise with the active
// set covering every atom.
func TestShardedBasicMatchesSingleProcess(t *testing.T) {
	const l, d, steps = 157, 5, 25
	x, y := shardedProblem(l, d, 3)
	xt, _ := shardedProblem(40, d, 4)
	k := backend.NewRBF(0.7)
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []int{13, l} {
		ref, err := TrainStochastic(e, x, y, Config{Variant: Basic, Task: Regression, Kernels: []backend.Kernel{k}, N: steps, Seed: 9}, Stochastic{ActiveSet: s})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(stepAtoms(ref)); got != steps {
			t.Fatalf("the single-process run took %d steps, want %d", got, steps)
		}
		for n := 1; n <= 4; n++ {
			t.Run(fmt.Sprintf("s=%d/N=%d", s, n), func(t *testing.T) {
				// Uneven row ranges; with four ranks the third is empty.
				bounds := map[int][]int{1: {0, l}, 2: {0, 70, l}, 3: {0, 50, 51, l}, 4: {0, 60, 100, 100, l}}[n]
				models := make([]*Model, n)
				var mu sync.Mutex
				err := comm.Run(n, func(c comm.Comm) error {
					re, err := engine.New(engine.WithComm(c))
					if err != nil {
						return err
					}
					r0, r1 := bounds[c.Rank()], bounds[c.Rank()+1]
					// Rows in chunks of 32 on odd ranks: several kernel blocks.
					sb := ShardedBasic{Kernel: k, N: steps, ActiveSet: s, Seed: 9, chunk: 32 * (c.Rank() % 2)}
					m, err := TrainShardedBasic(re, x.Slice(r0, r1, 0, d), y[r0:r1], sb)
					mu.Lock()
					models[c.Rank()] = m
					mu.Unlock()
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				for r, m := range models {
					if err := sameModel(e, m, ref, xt); err != nil {
						t.Fatalf("rank %d: %v", r, err)
					}
				}
			})
		}
	}
}

// sameModel compares a sharded model with the single-process one: the same
// atom at every step, residual norms and decisions on xt equal to 1e-6
// relative.
func sameModel(e *engine.Engine, got, want *Model, xt backend.Matrix) error {
	ga, wa := stepAtoms(got), stepAtoms(want)
	if fmt.Sprint(ga) != fmt.Sprint(wa) {
		return fmt.Errorf("chose %v, the single-process run %v", ga, wa)
	}
	for i, s := range want.Outputs[0].Curve {
		if r := got.Outputs[0].Curve[i].Residual; math.Abs(r-s.Residual) > 1e-6*s.Residual {
			return fmt.Errorf("step %d: residual norm %v, single process %v", i+1, r, s.Residual)
		}
	}
	gd, err := got.Decision(e, xt)
	if err != nil {
		return err
	}
	wd, err := want.Decision(e, xt)
	if err != nil {
		return err
	}
	scale := 0.0
	for _, v := range wd {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range gd {
		if math.Abs(gd[i]-wd[i]) > 1e-6*scale {
			return fmt.Errorf("decision %d = %v, single process %v", i, gd[i], wd[i])
		}
	}
	return nil
}

// TestShardedBasicWorld runs the sharded training on comm.World: one rank
// under plain go test, every rank of the job under mpirun (.ci/run runs the
// -tags mpi test binary with -np 2 and 3). Each rank takes an uneven
// contiguous shard and must build the single-process model.
func TestShardedBasicWorld(t *testing.T) {
	c, err := comm.World()
	if err != nil {
		t.Fatal(err)
	}
	const l, d, steps = 211, 4, 20
	x, y := shardedProblem(l, d, 11)
	xt, _ := shardedProblem(30, d, 12)
	k := backend.NewRBF(1.3)
	single, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := TrainStochastic(single, x, y, Config{Variant: Basic, Task: Regression, Kernels: []backend.Kernel{k}, N: steps, Seed: 4}, Stochastic{ActiveSet: 17})
	if err != nil {
		t.Fatal(err)
	}
	// Rank r of n owns rows [r0, r1): shards grow with the rank.
	n, r := c.Size(), c.Rank()
	bound := func(r int) int { return l * r * (r + 1) / (n * (n + 1)) }
	r0, r1 := bound(r), bound(r+1)
	e, err := engine.New(engine.WithComm(c))
	if err != nil {
		t.Fatal(err)
	}
	m, err := TrainShardedBasic(e, x.Slice(r0, r1, 0, d), y[r0:r1], ShardedBasic{Kernel: k, N: steps, ActiveSet: 17, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: rows [%d, %d) of %d", c.Describe(), r0, r1, l)
	if err := sameModel(single, m, ref, xt); err != nil {
		t.Fatal(err)
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

// Ranks started with different settings, or one rank with bad rows, stop
// together with comm.ErrConfig instead of pairing collectives wrongly or
// leaving the others waiting.
func TestShardedBasicConfigMismatch(t *testing.T) {
	x, y := shardedProblem(60, 3, 5)
	bad := append([]float64(nil), y...)
	bad[45] = math.NaN()
	cases := []struct {
		name string
		sb   func(r int) ShardedBasic
		y    func(r int) []float64
		want string
	}{
		{"rank 2 has another seed", func(r int) ShardedBasic {
			return ShardedBasic{Kernel: backend.NewRBF(1), N: 5, ActiveSet: 7, Seed: uint64(1 + r/2)}
		}, func(int) []float64 { return y }, "rank 2's seed differs"},
		{"rank 1 has another kernel width", func(r int) ShardedBasic {
			return ShardedBasic{Kernel: backend.NewRBF(1 + float64(r%2)*1e-9), N: 5, ActiveSet: 7}
		}, func(int) []float64 { return y }, "rank 1's kernel differs"},
		{"rank 2 has a NaN target", func(int) ShardedBasic {
			return ShardedBasic{Kernel: backend.NewRBF(1), N: 5, ActiveSet: 7}
		}, func(int) []float64 { return bad }, "rank 2's input differs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := make([]error, 3)
			comm.Run(3, func(c comm.Comm) error {
				e, err := engine.New(engine.WithComm(c))
				if err != nil {
					return err
				}
				r0, r1 := 20*c.Rank(), 20*c.Rank()+20
				_, errs[c.Rank()] = TrainShardedBasic(e, x.Slice(r0, r1, 0, 3), tc.y(c.Rank())[r0:r1], tc.sb(c.Rank()))
				return nil
			})
			t.Logf("rank 2 says: %v", errs[2])
			for r, err := range errs {
				if !errors.Is(err, comm.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("rank %d: %v; want ErrConfig saying %q", r, err, tc.want)
				}
			}
		})
	}
}
