package svm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// ckRanks trains p on n in-process ranks (rank r on rows [b[r], b[r+1]))
// with checkpoint options opts(r) and returns every rank's model and
// error.
func ckRanks(n int, b []int, x pursuit.Matrix, y []float64, p Params, opts func(r int) *checkpoint.Options) ([]*Model, []error) {
	models, errs := make([]*Model, n), make([]error, n)
	var mu sync.Mutex
	comm.Run(n, func(c comm.Comm) error {
		r := c.Rank()
		e, err := engine.New(engine.WithComm(c))
		if err != nil {
			return err
		}
		defer e.Close()
		q := p
		q.Checkpoint = opts(r)
		m, err := Train(e, x.Slice(b[r], b[r+1], 0, x.Cols), y[b[r]:b[r+1]], q)
		mu.Lock()
		models[r], errs[r] = m, err
		mu.Unlock()
		return err
	})
	return models, errs
}

// memDir returns a temporary directory in memory (/dev/shm) where there
// is one, else t.TempDir(): the tests that write a checkpoint at every
// iteration wait for a disk's fsync hundreds of times otherwise (8 ms
// each on the development machine's disk).
func memDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "pursuit-svm-ck")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestCheckpointSharded: SMO split across 2 and 3 in-process ranks, a
// binary C-SVC (dense and sparse rows) and an ε-SVR, is stopped twice by
// a stop asked of the last rank alone (its flag travels in the working-set
// records): every rank stops at the same iteration, rank 0 alone writes,
// and two resumes end with the uninterrupted sharded run's model bit for
// bit on every rank. A deadline passed on one rank stops every rank as
// the time limit. The checkpoint is refused with one line on another
// number of ranks and with the rows split otherwise.
func TestCheckpointSharded(t *testing.T) {
	const l = 190
	x, y2, z := shardData(l, 5, 2, 7)
	cases := []struct {
		name string
		x    pursuit.Matrix
		y    []float64
		p    Params
	}{
		{"binary", x, y2, Params{Kernel: pursuit.NewRBF(0.4), C: 3, CacheMB: 0.05}},
		{"binary, sparse rows", sparseOf(x, 0.7), y2, Params{Kernel: pursuit.NewRBF(0.4), C: 3}},
		{"ε-SVR", x, z, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 1, Epsilon: 0.05}},
	}
	none := func(int) *checkpoint.Options { return nil }
	for _, tc := range cases {
		for _, n := range []int{2, 3} {
			name := fmt.Sprintf("%s on %d ranks", tc.name, n)
			b := shardBounds(n, l)
			want, errs := ckRanks(n, b, tc.x, tc.y, tc.p, none)
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			iters := want[0].Stats[0].Iter
			path := filepath.Join(memDir(t), "ck")
			// Rank 0 writes at every iteration (due every nanosecond); after
			// its at-th write of a run the last rank is asked to stop, and
			// every rank stops at the next iteration.
			// The second stop comes after the first shrinking (every
			// min(variables, 1000) iterations).
			resume, stoppedAt := "", 0
			for _, at := range []int{1, iters * 5 / 6} {
				stop := make(chan struct{})
				writes := 0
				_, errs := ckRanks(n, b, tc.x, tc.y, tc.p, func(r int) *checkpoint.Options {
					o := &checkpoint.Options{Path: path, Every: 1, Resume: resume}
					switch r {
					case 0:
						o.Written = func(checkpoint.Info) {
							if writes++; writes == at {
								close(stop)
							}
						}
					case n - 1:
						o.Stop = stop
					}
					return o
				})
				wantAt := stoppedAt + at + 1
				for r, err := range errs {
					var se *checkpoint.StoppedError
					if !errors.As(err, &se) || !errors.Is(err, checkpoint.ErrEveryRank) || se.Deadline || (r == 0) != (se.Path == path) {
						t.Fatalf("%s: rank %d: %v; want every rank stopped, rank 0 alone writing", name, r, err)
					}
					if !strings.HasPrefix(se.Where, fmt.Sprintf("SMO iteration %d ", wantAt)) {
						t.Fatalf("%s: rank %d stopped at %s, want SMO iteration %d (of %d)", name, r, se.Where, wantAt, iters)
					}
				}
				resume, stoppedAt = path, wantAt
			}
			got, errs := ckRanks(n, b, tc.x, tc.y, tc.p, func(int) *checkpoint.Options { return &checkpoint.Options{Resume: path} })
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("%s: resuming: %v", name, err)
			}
			for r := range n {
				ckSameSVM(t, fmt.Sprintf("%s, rank %d stopped twice and resumed", name, r), want[r], got[r])
			}
			t.Logf("%s: stopped at iterations 2 and %d of %d; resumed to the same model on every rank", name, stoppedAt, iters)

			// Another number of ranks, and the rows split otherwise.
			for _, o := range []struct {
				n    int
				b    []int
				want string
			}{
				{n + 1, shardBounds(n+1, l), fmt.Sprintf("ranks was %d, is now %d", n, n+1)},
				{n, append([]int{0, b[1] + 1}, b[2:]...), "training data was"},
			} {
				_, errs := ckRanks(o.n, o.b, tc.x, tc.y, tc.p, func(int) *checkpoint.Options { return &checkpoint.Options{Resume: path} })
				for r, err := range errs {
					if !errors.Is(err, checkpoint.ErrEveryRank) || !errors.Is(err, pursuit.ErrBadInput) && !errors.Is(err, engine.ErrRankFailed) {
						t.Fatalf("%s: resuming on %d ranks split %v: rank %d: %v; want every rank refusing", name, o.n, o.b, r, err)
					}
					if r == 0 && (!strings.Contains(err.Error(), o.want) || strings.Contains(err.Error(), "\n")) {
						t.Errorf("%s: resuming on %d ranks split %v: %v; want one line with %q", name, o.n, o.b, err, o.want)
					}
				}
			}
		}
	}
	// A deadline passed on the last rank alone: every rank stops at the
	// first iteration, as the time limit.
	b := shardBounds(2, l)
	path := filepath.Join(t.TempDir(), "ck")
	_, errs := ckRanks(2, b, x, y2, cases[0].p, func(r int) *checkpoint.Options {
		o := &checkpoint.Options{Path: path}
		if r == 1 {
			o.Deadline = time.Now()
		}
		return o
	})
	for r, err := range errs {
		var se *checkpoint.StoppedError
		if !errors.As(err, &se) || !se.Deadline || !strings.HasPrefix(se.Where, "SMO iteration 1 ") || (r == 0) != (se.Path == path) {
			t.Fatalf("deadline on rank 1: rank %d: %v; want every rank stopped at the time limit at iteration 1", r, err)
		}
	}
}

// TestCheckpointShardedRefusals: across ranks, a multi-class C-SVC and
// one-vs-rest refuse checkpoints on every rank alike (one solve per pair
// or class), and ranks
// that disagree on checkpointing are refused by the ranks' check of their
// configuration before any checkpoint collective.
func TestCheckpointShardedRefusals(t *testing.T) {
	const l = 120
	x, y3, _ := shardData(l, 4, 3, 5)
	_, y2, _ := shardData(l, 4, 2, 5)
	b := shardBounds(2, l)
	p := Params{Kernel: pursuit.NewRBF(0.4), C: 1}
	_, errs := ckRanks(2, b, x, y3, p, func(int) *checkpoint.Options { return &checkpoint.Options{} })
	for r, err := range errs {
		if !errors.Is(err, pursuit.ErrConfig) || !errors.Is(err, checkpoint.ErrEveryRank) || !strings.Contains(err.Error(), "binary machine, not 3 classes") {
			t.Errorf("three classes: rank %d: %v; want every rank refusing", r, err)
		}
	}
	var mu sync.Mutex
	comm.Run(2, func(c comm.Comm) error {
		e, err := engine.New(engine.WithComm(c))
		if err != nil {
			return err
		}
		defer e.Close()
		q := p
		q.Checkpoint = &checkpoint.Options{}
		r := c.Rank()
		_, err = TrainOneVsRest(e, x.Slice(b[r], b[r+1], 0, x.Cols), y3[b[r]:b[r+1]], q)
		mu.Lock()
		defer mu.Unlock()
		if !errors.Is(err, pursuit.ErrConfig) || !errors.Is(err, checkpoint.ErrEveryRank) {
			t.Errorf("one-vs-rest: rank %d: %v; want every rank refusing", r, err)
		}
		return nil
	})
	_, errs = ckRanks(2, b, x, y2, p, func(r int) *checkpoint.Options {
		if r == 0 {
			return &checkpoint.Options{}
		}
		return nil
	})
	for r, err := range errs {
		if !errors.Is(err, engine.ErrConfigMismatch) || !strings.Contains(err.Error(), "checkpoints") {
			t.Errorf("checkpoints on rank 0 alone: rank %d: %v; want a configuration mismatch naming them", r, err)
		}
	}
}

// BenchmarkShardedCheckpointBoundary times SMO on 2 in-process ranks
// (1,500 rows) without checkpoints and with them at the default interval
// (none falls due: each iteration pays ckPoll, its flag riding in the
// working-set record), and reports ns per iteration:
//
//	go test ./svm -run '^$' -bench ShardedCheckpointBoundary -count 5
func BenchmarkShardedCheckpointBoundary(b *testing.B) {
	const l = 1500
	x, y, _ := shardData(l, 6, 2, 3)
	p := Params{Kernel: pursuit.NewRBF(0.5), C: 10}
	bounds := shardBounds(2, l)
	dir := b.TempDir()
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("checkpoint=%v", on), func(b *testing.B) {
			iters := 0
			for b.Loop() {
				models, errs := ckRanks(2, bounds, x, y, p, func(int) *checkpoint.Options {
					if !on {
						return nil
					}
					return &checkpoint.Options{Path: filepath.Join(dir, "ck"), Stop: make(chan struct{})}
				})
				if err := errors.Join(errs...); err != nil {
					b.Fatal(err)
				}
				iters += models[0].Stats[0].Iter
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters), "ns/iteration")
		})
	}
}
