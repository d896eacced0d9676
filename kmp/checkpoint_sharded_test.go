package kmp

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// ckRanks trains tc on n in-process ranks (uneven shards) with checkpoint
// options opts(rank) and returns every rank's model and error.
func ckRanks(n int, x pursuit.Matrix, y []float64, tc shardCase, opts func(r int) *checkpoint.Options) ([]*Model, []error) {
	models, errs := make([]*Model, n), make([]error, n)
	var mu sync.Mutex
	b := shardBounds(n, x.Rows)
	comm.Run(n, func(c comm.Comm) error {
		r := c.Rank()
		e, err := engine.New(engine.WithComm(c), engine.WithThreads(1))
		if err != nil {
			return err
		}
		cfg := tc
		cfg.cfg.Checkpoint = opts(r)
		if cfg.cfg.Checkpoint != nil && cfg.cfg.Checkpoint.Stop != nil && r == 0 {
			cfg.cfg.Progress = tc.cfg.Progress
		} else {
			cfg.cfg.Progress = nil
		}
		m, err := trainCase(e, x.Slice(b[r], b[r+1], 0, x.Cols), y[b[r]:b[r+1]], cfg)
		mu.Lock()
		models[r], errs[r] = m, err
		mu.Unlock()
		return err
	})
	return models, errs
}

// TestCheckpointSharded: training split across in-process ranks stops on
// every rank when one rank is asked to (the others are not), rank 0
// writes the checkpoint, every rank resumes from it and ends with the
// uninterrupted sharded run's model bit for bit; a resume on another
// number of ranks is refused on every rank with one line.
func TestCheckpointSharded(t *testing.T) {
	x, _, bin, three, _, _ := shardFixture(t)
	k := []pursuit.Kernel{pursuit.NewRBF(0.7)}
	for _, tc := range []shardCase{
		{name: "prefit/binary", cfg: Config{Variant: PreFit, Kernels: k, N: 20, Seed: 5}, y: binTargets},
		{name: "backfit/ovr3/stochastic", cfg: Config{Variant: BackFit, Kernels: k, N: 15, Seed: 5, Stochastic: &Stochastic{ActiveSet: 9}}, ovr: true, y: threeTargets},
	} {
		y := tc.y(nil, bin, three)
		for _, n := range []int{2, 3} {
			name := fmt.Sprintf("%s on %d ranks", tc.name, n)
			want, errs := ckRanks(n, x, y, tc, func(int) *checkpoint.Options { return nil })
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			path := filepath.Join(t.TempDir(), "ck")
			stop := make(chan struct{})
			run := tc
			closed := false
			run.cfg.Progress = func(s Step) {
				if s.Step == 6 && !closed {
					closed = true
					close(stop)
				}
			}
			_, errs = ckRanks(n, x, y, run, func(r int) *checkpoint.Options {
				o := &checkpoint.Options{Path: path}
				if r == 0 {
					o.Stop = stop // rank 0 alone is told to stop
				}
				return o
			})
			for r, err := range errs {
				var se *checkpoint.StoppedError
				if !errors.As(err, &se) || (r == 0) != (se.Path == path) {
					t.Fatalf("%s: rank %d: %v; want every rank stopped, rank 0 alone writing", name, r, err)
				}
			}
			got, errs := ckRanks(n, x, y, tc, func(int) *checkpoint.Options { return &checkpoint.Options{Resume: path} })
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("%s: resuming: %v", name, err)
			}
			for r := range n {
				sameKMP(t, fmt.Sprintf("%s, rank %d resumed", name, r), want[r], got[r])
			}
			_, errs = ckRanks(n+1, x, y, tc, func(int) *checkpoint.Options { return &checkpoint.Options{Resume: path} })
			for r, err := range errs {
				if !errors.Is(err, pursuit.ErrBadInput) && !errors.Is(err, engine.ErrRankFailed) {
					t.Fatalf("%s: resuming on %d ranks: rank %d: %v; want a refusal", name, n+1, r, err)
				}
				if r == 0 && !strings.Contains(err.Error(), fmt.Sprintf("ranks was %d, is now %d", n, n+1)) {
					t.Errorf("%s: resuming on %d ranks: %v; want the rank counts named", name, n+1, err)
				}
			}
		}
	}
}
