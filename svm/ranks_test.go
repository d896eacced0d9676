package svm

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestShardedRefusesAndMismatches: probability estimates refuse with
// comm.ErrNotDistributed on every rank; ranks with different parameters,
// or one rank with a bad row, stop together with comm.ErrConfig; a
// training set whose shards are all empty is bad input.
func TestShardedRefusesAndMismatches(t *testing.T) {
	x, y, _ := shardData(40, 3, 2, 3)
	k := backend.NewRBF(1)
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
			_, err := Train(e, backend.NewMatrix(0, 3), nil, Params{Kernel: k, C: 1})
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
