package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/pursuit-ml/pursuit/engine/comm"
)

// ErrRankFailed is wrapped by the error Agree gives the ranks that did not
// fail themselves.
var ErrRankFailed = errors.New("another rank failed")

// Outcomes is what every rank of a group learns from RankOutcomes: one
// value per rank, in rank order, 0 for a rank that did not fail, else a
// number identifying its error's message (equal on two ranks when their
// messages are, whitespace aside), negative when the error wraps ErrBudget.
type Outcomes []float64

// Failed returns the ranks that failed, in order.
func (o Outcomes) Failed() []int {
	var r []int
	for i, v := range o {
		if v != 0 {
			r = append(r, i)
		}
	}
	return r
}

// RankOutcomes is a collective: each rank passes its outcome (nil or its
// error) and every rank gets all of them, for the points of a run that every
// rank reaches. On one rank it makes no call.
func RankOutcomes(c comm.Comm, err error) (Outcomes, error) {
	mine := outcome(err)
	if c == nil || c.Size() == 1 {
		return Outcomes{mine}, nil
	}
	all, e := comm.Allgather(c, []float64{mine})
	return Outcomes(all), e
}

// outcome is err's value in Outcomes: 48 bits of the SHA-256 of its message
// on one line, plus one (exact in a float64 and never 0), negative for an
// error wrapping ErrBudget.
func outcome(err error) float64 {
	if err == nil {
		return 0
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	h := sha256.Sum256([]byte(msg))
	v := float64(binary.BigEndian.Uint64(h[:8])>>16) + 1
	if errors.Is(err, ErrBudget) {
		v = -v
	}
	return v
}

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
	all, e := RankOutcomes(c, err)
	if e != nil {
		return err, e
	}
	if err != nil {
		return err, nil
	}
	for r, v := range all {
		switch {
		case v < 0:
			return fmt.Errorf("rank %d of %d is over its memory budget: %w (%w)", r, len(all), ErrRankFailed, ErrBudget), nil
		case v > 0:
			return fmt.Errorf("rank %d of %d failed: %w", r, len(all), ErrRankFailed), nil
		}
	}
	return nil, nil
}
