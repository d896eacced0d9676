package kmp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// shardedProblem is a small problem with a smooth target: regression
// targets, and the same points labelled ±1 and with three classes.
func shardedProblem(l, d int, seed uint64) (x pursuit.Matrix, reg, bin, three []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x = pursuit.NewMatrix(l, d)
	reg, bin, three = make([]float64, l), make([]float64, l), make([]float64, l)
	for i := range l {
		s := 0.0
		for j := range d {
			v := rng.Float64()*2 - 1
			x.Row(i)[j] = float32(v)
			s += v * float64(j+1)
		}
		reg[i] = math.Sin(s) + 0.1*rng.NormFloat64()
		bin[i] = 1
		if reg[i] < 0.1 {
			bin[i] = -1
		}
		three[i] = float64(min(2, max(0, int(math.Floor(1.5*(reg[i]+1))))))
	}
	return x, reg, bin, three
}

// shardCase is one training configuration run on one process and on
// several ranks.
type shardCase struct {
	name string
	cfg  Config
	ovr  bool // TrainOneVsRest
	// y picks the targets from shardedProblem's.
	y func(reg, bin, three []float64) []float64
}

func regTargets(reg, _, _ []float64) []float64     { return reg }
func binTargets(_, bin, _ []float64) []float64     { return bin }
func threeTargets(_, _, three []float64) []float64 { return three }

// shardCases lists every variant × loss × task, each with deterministic
// search (every training point a candidate) and stochastic search (active
// sets of 9), and the options that change how the rows are used.
func shardCases() []shardCase {
	k := []pursuit.Kernel{pursuit.NewRBF(0.7)}
	var cases []shardCase
	for _, v := range []Variant{Basic, BackFit, PreFit} {
		for _, loss := range []Loss{Squared, Tanh, Logistic, Exponential} {
			if v == PreFit && loss != Squared {
				continue
			}
			tasks := []struct {
				name string
				task Task
				ovr  bool
				y    func(reg, bin, three []float64) []float64
			}{
				{"binary", Classification, false, binTargets},
				{"ovr3", Classification, true, threeTargets},
			}
			if loss == Squared {
				tasks = append(tasks, struct {
					name string
					task Task
					ovr  bool
					y    func(reg, bin, three []float64) []float64
				}{"regression", Regression, false, regTargets})
			}
			for _, tk := range tasks {
				for _, st := range []*Stochastic{nil, {ActiveSet: 9}} {
					search := "deterministic"
					if st != nil {
						search = "stochastic"
					}
					cases = append(cases, shardCase{
						name: fmt.Sprintf("%v/%v/%s/%s", v, loss, tk.name, search),
						cfg:  Config{Variant: v, Loss: loss, Task: tk.task, Kernels: k, N: 10, Seed: 5, Stochastic: st},
						ovr:  tk.ovr, y: tk.y,
					})
				}
			}
		}
	}
	// Options: early stopping on a split-off validation part (stratified
	// for classification), feature scaling, the bias and a second kernel,
	// a random subset of candidates, a custom kernel, explicit deflation.
	two := []pursuit.Kernel{pursuit.NewRBF(0.7), pursuit.NewRBF(3)}
	custom := &CustomKernel{Name: "laplace", Func: func(a, b []float32) float64 {
		s := 0.0
		for i := range a {
			s += math.Abs(float64(a[i] - b[i]))
		}
		return math.Exp(-s)
	}}
	// A validation set given by each rank's own rows (ValX, ValY).
	vx, _, vbin, _ := shardedProblem(37, 4, 11)
	valx := Config{Variant: BackFit, Loss: Logistic, Kernels: k, N: 15, ValX: vx, ValY: vbin, Patience: 4, Select: SelectErrorLoss, Seed: 8}
	more := []shardCase{
		{"backfit/logistic/valx+patience/binary", valx, false, binTargets},
		{"prefit/valfrac+patience/regression", Config{Variant: PreFit, Task: Regression, Kernels: k, ValFrac: 0.25, Patience: 3, Seed: 2}, false, regTargets},
		{"backfit/tanh/valfrac+select-loss/ovr3", Config{Variant: BackFit, Loss: Tanh, Kernels: k, N: 12, ValFrac: 0.3, Select: SelectLoss, Seed: 3}, true, threeTargets},
		{"basic/squared/valfrac+patience/binary/stochastic", Config{Variant: Basic, Kernels: k, N: 30, ValFrac: 0.2, Patience: 4, Seed: 4, Stochastic: &Stochastic{ActiveSet: 11}}, false, binTargets},
		{"prefit/scale-standard/binary", Config{Variant: PreFit, Kernels: k, N: 8, Scale: data.ScaleStandard}, false, binTargets},
		{"backfit/logistic/scale-minmax/binary/stochastic", Config{Variant: BackFit, Loss: Logistic, Kernels: k, N: 8, Scale: data.ScaleMinMax, Stochastic: &Stochastic{ActiveSet: 13}}, false, binTargets},
		{"prefit/bias+two-kernels+candidates/regression", Config{Variant: PreFit, Task: Regression, Kernels: two, Bias: true, Candidates: 40, N: 10, Seed: 6}, false, regTargets},
		{"basic/squared/bias+two-kernels/regression/stochastic", Config{Variant: Basic, Task: Regression, Kernels: two, Bias: true, N: 12, Seed: 7, Stochastic: &Stochastic{ActiveSet: 15}}, false, regTargets},
		{"backfit/exponential/custom-kernel/binary", Config{Variant: BackFit, Loss: Exponential, Custom: custom, N: 6}, false, binTargets},
		{"prefit/explicit-deflation/regression", Config{Variant: PreFit, Task: Regression, Kernels: k, N: 8, Deflation: Explicit}, false, regTargets},
		{"prefit/active-set-covers-all/regression/stochastic", Config{Variant: PreFit, Task: Regression, Kernels: k, N: 8, Stochastic: &Stochastic{ActiveSet: 1000}}, false, regTargets},
	}
	return append(cases, more...)
}

// trainCase trains tc on x and y with engine e (single process, or one rank
// whose rows x and y are).
func trainCase(e *engine.Engine, x pursuit.Matrix, y []float64, tc shardCase) (*Model, error) {
	if tc.ovr {
		return TrainOneVsRest(e, x, y, tc.cfg)
	}
	if tc.cfg.Stochastic != nil {
		cfg := tc.cfg
		cfg.Stochastic = nil
		return TrainStochastic(e, x, y, cfg, *tc.cfg.Stochastic)
	}
	return Train(e, x, y, tc.cfg)
}

// shardBounds returns uneven row ranges for n ranks over l rows: rank r
// holds rows [b[r], b[r+1]); with 3 ranks one holds a single row, with 4
// one holds none.
func shardBounds(n, l int) []int {
	switch n {
	case 1:
		return []int{0, l}
	case 2:
		return []int{0, 2 * l / 5, l}
	case 3:
		return []int{0, l / 3, l/3 + 1, l}
	}
	b := []int{0, l / 4, l / 2, l / 2}
	for len(b) < n {
		b = append(b, b[len(b)-1]+(l-b[len(b)-1])/2)
	}
	return append(b, l)
}

// valShare gives rank r its share [b[r], b[r+1]) of tc's validation set
// (ValX, ValY), if it has one.
func valShare(tc shardCase, r int, b []int) shardCase {
	if tc.cfg.ValX.Rows > 0 {
		tc.cfg.ValX = tc.cfg.ValX.Slice(b[r], b[r+1], 0, tc.cfg.ValX.Cols)
		tc.cfg.ValY = tc.cfg.ValY[b[r]:b[r+1]]
	}
	return tc
}

// trainShards trains tc on n in-process ranks, rank r holding rows
// [bounds[r], bounds[r+1]) of x and y (and engine options opts), and
// returns every rank's model.
func trainShards(n int, bounds []int, x pursuit.Matrix, y []float64, tc shardCase, opts ...engine.Option) ([]*Model, error) {
	models := make([]*Model, n)
	var mu sync.Mutex
	err := comm.Run(n, func(c comm.Comm) error {
		e, err := engine.New(append([]engine.Option{engine.WithComm(c), engine.WithThreads(1)}, opts...)...)
		if err != nil {
			return err
		}
		r0, r1 := bounds[c.Rank()], bounds[c.Rank()+1]
		m, err := trainCase(e, x.Slice(r0, r1, 0, x.Cols), y[r0:r1], valShare(tc, c.Rank(), shardBounds(n, tc.cfg.ValX.Rows)))
		mu.Lock()
		models[c.Rank()] = m
		mu.Unlock()
		return err
	})
	return models, err
}

// stepAtoms lists, per output, the dictionary atom chosen at each step.
func stepAtoms(m *Model) [][]int {
	out := make([][]int, len(m.Outputs))
	for o, op := range m.Outputs {
		for _, s := range op.Curve {
			out[o] = append(out[o], s.Atom)
		}
	}
	return out
}

// sameModel compares a sharded model with the single-process one: the same
// atom at every step of every output, the same kept step, stop reason and
// support vectors (rows of the concatenated input), the curves' training
// losses and error rates to 1e-6 relative, and residuals, validation losses
// and decisions on xt to tol relative (decisions: to the largest |decision|
// of the output).
// It returns the largest relative difference of the decisions.
func sameModel(e *engine.Engine, got, want *Model, xt pursuit.Matrix, tol float64) (float64, error) {
	if ga, wa := stepAtoms(got), stepAtoms(want); fmt.Sprint(ga) != fmt.Sprint(wa) {
		return 0, fmt.Errorf("chose atoms %v, the single-process run %v", ga, wa)
	}
	if !slices.Equal(got.SupportIndex, want.SupportIndex) || !slices.Equal(got.SupportKernel, want.SupportKernel) {
		return 0, fmt.Errorf("support rows %v (kernels %v), single process %v (%v)", got.SupportIndex, got.SupportKernel, want.SupportIndex, want.SupportKernel)
	}
	if !sameRows(got.Support, want.Support) {
		return 0, errors.New("the support points differ from the single-process run's")
	}
	near := func(a, b, tol float64) bool {
		return a == b || (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= tol*math.Max(math.Abs(b), 1e-12)
	}
	for o, w := range want.Outputs {
		g := got.Outputs[o]
		if g.Steps != w.Steps || g.Stop != w.Stop {
			return 0, fmt.Errorf("output %d kept step %d (stop %q), single process %d (%q)", o, g.Steps, g.Stop, w.Steps, w.Stop)
		}
		for i, s := range w.Curve {
			c := g.Curve[i]
			if c.Support != s.Support || c.Basis != s.Basis || !near(c.Residual, s.Residual, tol) || !near(c.TrainLoss, s.TrainLoss, 1e-6) ||
				!near(c.TrainErr, s.TrainErr, 1e-6) || !near(c.ValLoss, s.ValLoss, tol) || !near(c.ValErr, s.ValErr, 1e-6) {
				return 0, fmt.Errorf("output %d step %d: %+v, single process %+v", o, i+1, c, s)
			}
		}
	}
	worst, err := sameDecisions(e, got, want, xt, tol)
	if err != nil {
		return 0, err
	}
	// The models truncated to half their steps (Model.Truncate, from the
	// recorded paths) decide alike too.
	half := max(1, len(want.Outputs[0].Curve)/2)
	gt, err := got.Truncate(half)
	if err != nil {
		return 0, err
	}
	wt, err := want.Truncate(half)
	if err != nil {
		return 0, err
	}
	if _, err := sameDecisions(e, gt, wt, xt, tol); err != nil {
		return 0, fmt.Errorf("truncated to %d steps: %w", half, err)
	}
	return worst, nil
}

// sameDecisions compares two models' decisions on xt to tol relative to the
// largest |decision| of each output of want, and returns the largest such
// relative difference.
func sameDecisions(e *engine.Engine, got, want *Model, xt pursuit.Matrix, tol float64) (float64, error) {
	gd, err := got.DecisionAll(e, xt)
	if err != nil {
		return 0, err
	}
	wd, err := want.DecisionAll(e, xt)
	if err != nil {
		return 0, err
	}
	worst := 0.0
	for o := range wd {
		scale := 0.0
		for _, v := range wd[o] {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range wd[o] {
			diff := math.Abs(gd[o][i] - wd[o][i])
			worst = math.Max(worst, diff/scale)
			if diff > tol*scale {
				return 0, fmt.Errorf("output %d decision %d = %v, single process %v", o, i, gd[o][i], wd[o][i])
			}
		}
	}
	return worst, nil
}

// shardTol is how closely a sharded model's decisions (and residual norms
// and validation losses) must match the single-process model's, relative
// to the largest |decision|, for every variant and loss. (The non-squared
// losses' back-fitting refits run until the gradient is 1e-8 of its value
// at zero, general.go's refitTol: both runs, whose sums are added in
// another order, reach the same optimum to well within this.)
const shardTol = 1e-6

// The problem the table tests train on: l rows of d features.
const shardL, shardD = 90, 4

// shardFixture returns the table tests' training rows and targets, test
// rows, and a single-process engine.
func shardFixture(t *testing.T) (x pursuit.Matrix, reg, bin, three []float64, xt pursuit.Matrix, single *engine.Engine) {
	x, reg, bin, three = shardedProblem(shardL, shardD, 3)
	xt, _, _, _ = shardedProblem(40, shardD, 4)
	single, err := engine.New(engine.WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	return x, reg, bin, three, xt, single
}

// TestShardedMatchesSingleProcess: every KMP variant, loss and task, with
// deterministic and stochastic search and the options that change how rows
// are used, trained on N = 1..4 in-process ranks (uneven shards: one rank
// with one row at N = 3, one with none at N = 4), chooses the atoms of the
// single-process run on the concatenated rows, and every rank's model
// decides as it does to 1e-6 relative (shardTol).
func TestShardedMatchesSingleProcess(t *testing.T) {
	const l, d = shardL, shardD
	x, reg, bin, three, xt, single := shardFixture(t)
	worst := map[Loss]float64{} // the largest relative decision difference per loss
	for _, tc := range shardCases() {
		t.Run(tc.name, func(t *testing.T) {
			y := tc.y(reg, bin, three)
			ref, err := trainCase(single, x, y, tc)
			if err != nil {
				t.Fatal(err)
			}
			if len(ref.Outputs[0].Curve) < 4 {
				t.Fatalf("the single-process run took only %d steps: too few to compare", len(ref.Outputs[0].Curve))
			}
			for n := 1; n <= 4; n++ {
				models, err := trainShards(n, shardBounds(n, l), x, y, tc)
				if err != nil {
					t.Fatalf("N=%d: %v", n, err)
				}
				for r, m := range models {
					w, err := sameModel(single, m, ref, xt, shardTol)
					if err != nil {
						t.Fatalf("N=%d rank %d: %v", n, r, err)
					}
					worst[tc.cfg.Loss] = math.Max(worst[tc.cfg.Loss], w)
				}
			}
		})
	}
	for _, loss := range []Loss{Squared, Tanh, Logistic, Exponential} {
		t.Logf("%v loss: largest relative decision difference %.2g (held to %g)", loss, worst[loss], shardTol)
	}
}

// runRanks trains tc on n in-process ranks with per-rank engine options and
// per-rank rows, returning every rank's model and error.
func runRanks(n int, rank func(r int) (pursuit.Matrix, []float64, shardCase, []engine.Option)) ([]*Model, []error) {
	models, errs := make([]*Model, n), make([]error, n)
	comm.Run(n, func(c comm.Comm) error {
		x, y, tc, opts := rank(c.Rank())
		e, err := engine.New(append([]engine.Option{engine.WithComm(c), engine.WithThreads(1)}, opts...)...)
		if err != nil {
			errs[c.Rank()] = err
			return err
		}
		models[c.Rank()], errs[c.Rank()] = trainCase(e, x, y, tc)
		return errs[c.Rank()]
	})
	return models, errs
}

// TestShardedBudget: the memory budget counts each rank's share. A rank
// whose share of the dictionary does not fit its budget makes every rank
// stream it (the same model as in memory); a rank whose budget holds not
// even a kernel block stops every rank with an error wrapping
// engine.ErrBudget.
func TestShardedBudget(t *testing.T) {
	const l, d = 90, 4
	x, reg, _, _ := shardedProblem(l, d, 8)
	xt, _, _, _ := shardedProblem(30, d, 9)
	tc := shardCase{cfg: Config{Variant: PreFit, Task: Regression, Kernels: []pursuit.Kernel{pursuit.NewRBF(0.7)}, N: 10}}
	single, err := engine.New(engine.WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := trainCase(single, x, reg, tc)
	if err != nil {
		t.Fatal(err)
	}
	bounds := shardBounds(2, l) // rank 1: 54 rows, a 90 × 54 float32 dictionary of 19.4 KB
	for _, budget := range []int64{10 << 10, 100} {
		models, errs := runRanks(2, func(r int) (pursuit.Matrix, []float64, shardCase, []engine.Option) {
			var opts []engine.Option
			if r == 1 {
				opts = append(opts, engine.WithMemoryBudget(budget))
			}
			return x.Slice(bounds[r], bounds[r+1], 0, d), reg[bounds[r]:bounds[r+1]], tc, opts
		})
		for r := range 2 {
			switch {
			case budget > 100 && errs[r] != nil:
				t.Fatalf("budget %d on rank 1: rank %d: %v", budget, r, errs[r])
			case budget > 100:
				if _, err := sameModel(single, models[r], ref, xt, 1e-6); err != nil {
					t.Fatalf("streamed on every rank: rank %d: %v", r, err)
				}
			case !errors.Is(errs[r], engine.ErrBudget):
				t.Fatalf("budget %d B on rank 1: rank %d: %v, want an error wrapping engine.ErrBudget", budget, r, errs[r])
			default:
				t.Logf("rank %d: %v", r, errs[r])
			}
		}
	}
}

// TestShardedConfigMismatch: ranks started with different settings, rows of
// different widths, or one rank with bad rows, all stop with comm.ErrConfig
// naming what differs, instead of pairing collectives wrongly or leaving
// the others waiting.
func TestShardedConfigMismatch(t *testing.T) {
	x, reg, _, _ := shardedProblem(60, 3, 5)
	bad := slices.Clone(reg)
	bad[45] = math.NaN()
	base := Config{Variant: Basic, Task: Regression, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, N: 5}
	cases := []struct {
		name string
		rank func(r int) (pursuit.Matrix, []float64, Config)
		want string
	}{
		{"rank 2 has another seed", func(r int) (pursuit.Matrix, []float64, Config) {
			c := base
			c.Seed = uint64(1 + r/2)
			return x, reg, c
		}, "rank 2's seed differs"},
		{"rank 1 has another kernel width", func(r int) (pursuit.Matrix, []float64, Config) {
			c := base
			c.Kernels = []pursuit.Kernel{pursuit.NewRBF(1 + float64(r%2)*1e-9)}
			return x, reg, c
		}, "rank 1's kernel differs"},
		{"rank 2 has a NaN target", func(r int) (pursuit.Matrix, []float64, Config) { return x, bad, base }, "rank 2's input differs"},
		{"rank 1 has fewer features", func(r int) (pursuit.Matrix, []float64, Config) {
			if r == 1 {
				return x.Slice(0, x.Rows, 0, 2), reg, base
			}
			return x, reg, base
		}, "rank 1's features differs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := runRanks(3, func(r int) (pursuit.Matrix, []float64, shardCase, []engine.Option) {
				xr, yr, cfg := tc.rank(r)
				return xr.Slice(20*r, 20*r+20, 0, xr.Cols), yr[20*r : 20*r+20], shardCase{cfg: cfg}, nil
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

// TestShardedWorld trains a set of the configurations on comm.World: one
// rank under plain go test, every rank of the job under mpirun
// (scripts/mpi-check.sh runs the -tags mpi test binary with -np 2, 3 and
// 4). Rank r of n takes an uneven contiguous share of the rows (growing
// with r) and must build the single-process model.
func TestShardedWorld(t *testing.T) {
	c, err := comm.World()
	if err != nil {
		t.Fatal(err)
	}
	const l, d = shardL, shardD
	x, reg, bin, three, xt, single := shardFixture(t)
	n, r := c.Size(), c.Rank()
	bound := func(r int) int { return l * r * (r + 1) / (n * (n + 1)) }
	r0, r1 := bound(r), bound(r+1)
	e, err := engine.New(engine.WithComm(c), engine.WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: rows [%d, %d) of %d", c.Describe(), r0, r1, l)
	for _, tc := range shardCases() {
		y := tc.y(reg, bin, three)
		ref, err := trainCase(single, x, y, tc)
		if err != nil {
			t.Fatal(err)
		}
		vb := make([]int, n+1) // the validation rows split alike
		for i := range vb {
			vb[i] = tc.cfg.ValX.Rows * i * (i + 1) / (n * (n + 1))
		}
		m, err := trainCase(e, x.Slice(r0, r1, 0, d), y[r0:r1], valShare(tc, r, vb))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := sameModel(single, m, ref, xt, shardTol); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
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
