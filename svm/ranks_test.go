package svm

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestShardedRefusesAndMismatches: probability estimates refuse with
// comm.ErrNotDistributed on every rank; ranks with different parameters,
// or one rank with a bad row, stop together with comm.ErrConfig; a
// training set whose shards are all empty is bad input.
func TestShardedRefusesAndMismatches(t *testing.T) {
	x, y, _ := shardData(40, 3, 2, 3)
	k := pursuit.NewRBF(1)
	bad := append([]float64(nil), y...)
	bad[30] = math.NaN()
	cases := []struct {
		name string
		call func(e *engine.Engine, r int) error
		is   error
		want string
	}{
		{"probability", func(e *engine.Engine, r int) error {
			_, err := Train(e, x.Slice(10*r, 10*r+10, 0, 3), y[10*r:10*r+10], Params{Kernel: k, C: 1, Probability: true})
			return err
		}, comm.ErrNotDistributed, "probability"},
		{"one-vs-rest probability", func(e *engine.Engine, r int) error {
			_, err := TrainOneVsRest(e, x.Slice(10*r, 10*r+10, 0, 3), y[10*r:10*r+10], Params{Kernel: k, C: 1, Probability: true})
			return err
		}, comm.ErrNotDistributed, "probability"},
		{"rank 2 has another C", func(e *engine.Engine, r int) error {
			_, err := Train(e, x.Slice(10*r, 10*r+10, 0, 3), y[10*r:10*r+10], Params{Kernel: k, C: 1 + float64(r/2)})
			return err
		}, comm.ErrConfig, "rank 2's SVM parameters differ"},
		{"rank 3 has a NaN label", func(e *engine.Engine, r int) error {
			_, err := Train(e, x.Slice(10*r, 10*r+10, 0, 3), bad[10*r:10*r+10], Params{Kernel: k, C: 1})
			return err
		}, comm.ErrConfig, "rank 3's input differs"},
		{"every shard empty", func(e *engine.Engine, r int) error {
			_, err := Train(e, pursuit.NewMatrix(0, 3), nil, Params{Kernel: k, C: 1})
			return err
		}, ErrBadInput, "every rank's shard is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := make([]error, 4)
			_ = comm.Run(4, func(c comm.Comm) error {
				e, err := engine.New(engine.WithComm(c))
				if err != nil {
					return err
				}
				errs[c.Rank()] = tc.call(e, c.Rank())
				return nil
			})
			for r, err := range errs {
				if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("rank %d: got %v, want an error wrapping %v that says %q", r, err, tc.is, tc.want)
				}
			}
		})
	}
}

// TestShardedBudgetAgreed: a rank whose memory budget cannot hold its part
// of the kernel-row cache makes every rank stop (no rank is left waiting
// in the solver): it returns its own budget error, the others one naming
// it, all wrapping engine.ErrBudget.
func TestShardedBudgetAgreed(t *testing.T) {
	x, y, _ := shardData(120, 3, 3, 5)
	errs := make([]error, 3)
	_ = comm.Run(3, func(c comm.Comm) error {
		opts := []engine.Option{engine.WithComm(c)}
		if c.Rank() == 1 {
			opts = append(opts, engine.WithMemoryBudget(4<<10))
		}
		e, err := engine.New(opts...)
		if err != nil {
			return err
		}
		_, errs[c.Rank()] = Train(e, x.Slice(40*c.Rank(), 40*c.Rank()+40, 0, 3), y[40*c.Rank():40*c.Rank()+40], Params{Kernel: pursuit.NewRBF(1), C: 1})
		return nil
	})
	for r, err := range errs {
		if !errors.Is(err, engine.ErrBudget) {
			t.Errorf("rank %d: got %v, want an error wrapping engine.ErrBudget", r, err)
		}
		if r != 1 && !strings.Contains(fmt.Sprint(err), "rank 1 of 3 is over its memory budget") {
			t.Errorf("rank %d: got %v, want it to name rank 1", r, err)
		}
	}
}
