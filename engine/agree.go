package engine

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit/engine/comm"
)

// ErrRankFailed is wrapped by the error Agree gives the ranks that did not
// fail themselves.
var ErrRankFailed = errors.New("another rank failed")

// Agree is a collective that makes one rank's failure every rank's, for the
// points of a sharded training that every rank reaches (a memory budget
// that holds on one rank and not on another, bad rows on one rank): each
// rank passes its own outcome, and agreed is err itself on a rank whose err
// is not nil, an error naming the first failing rank (wrapping
// ErrRankFailed, and ErrBudget when that rank was over its memory budget)
// on the others, and nil on every rank when none failed. collective is the
// communicator's error when the exchange itself failed (agreed is then
// err). On one rank it makes no call.
func Agree(c comm.Comm, err error) (agreed, collective error) {
	if c == nil || c.Size() == 1 {
		return err, nil
	}
	flags := make([]float64, c.Size())
	switch {
	case errors.Is(err, ErrBudget):
		flags[c.Rank()] = 1
	case err != nil:
		flags[c.Rank()] = 2
	}
	if e := c.AllreduceSum(flags); e != nil {
		return err, e
	}
	if err != nil {
		return err, nil
	}
	for r, f := range flags {
		switch f {
		case 1:
			return fmt.Errorf("rank %d of %d is over its memory budget: %w (%w)", r, len(flags), ErrRankFailed, ErrBudget), nil
		case 2:
			return fmt.Errorf("rank %d of %d failed: %w", r, len(flags), ErrRankFailed), nil
		}
	}
	return nil, nil
}
