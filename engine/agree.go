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

// AgreedError is an error every rank of a group knows about (AgreeFailure,
// AgreeOn, CheckConfig): each rank returns one and stops, so a launcher
// need not abort the job. Print says whether this rank should print it:
// ranks whose message adds nothing to rank 0's stay quiet.
type AgreedError struct {
	Err   error
	Print bool
}

func (a *AgreedError) Error() string { return a.Err.Error() }

// Unwrap returns Err.
func (a *AgreedError) Unwrap() error { return a.Err }

// AgreeFailure is a collective (RankOutcomes) for a point every rank
// reaches: each rank passes its outcome (nil or its error) and learns
// whether any rank failed. It returns nil when none did, else an
// *AgreedError on every rank: a failing rank's own error (printed by rank
// 0, and by another rank when its message differs from rank 0's), or, on a
// rank that did not fail, ErrRankFailed (rank 0's names the failing ranks
// and is printed). The collective's own failure is returned as it is.
func AgreeFailure(c comm.Comm, err error) error {
	all, e := RankOutcomes(c, err)
	if e != nil {
		return e
	}
	failed := all.Failed()
	rank := 0
	if c != nil {
		rank = c.Rank()
	}
	switch {
	case len(failed) == 0:
		return nil
	case err != nil:
		return &AgreedError{Err: err, Print: rank == 0 || all[0] != all[rank]}
	case rank == 0:
		ranks := make([]string, len(failed))
		for i, r := range failed {
			ranks[i] = fmt.Sprint(r)
		}
		return &AgreedError{Err: fmt.Errorf("%w: rank %s of %d stopped the job (its error is printed by it)", ErrRankFailed, strings.Join(ranks, ", "), len(all)), Print: true}
	}
	return &AgreedError{Err: ErrRankFailed}
}

// AgreeOn is AgreeFailure across the ranks of c, and err itself in a single
// process (c nil or of size 1). An error the ranks agreed on already (an
// *AgreedError) passes through: every rank holds one, so none takes part
// in a collective.
func AgreeOn(c comm.Comm, err error) error {
	var ag *AgreedError
	if c == nil || c.Size() == 1 || errors.As(err, &ag) {
		return err
	}
	return AgreeFailure(c, err)
}

// CheckConfig makes sure every rank of c was started alike
// (comm.CheckConfig): its error, the same on every rank, is an
// *AgreedError that rank 0 alone prints (its message names the ranks that
// differ). In a single process it makes no call.
func CheckConfig(c comm.Comm, entries []comm.Entry) error {
	if c == nil || c.Size() == 1 {
		return nil
	}
	if err := comm.CheckConfig(c, entries); err != nil {
		return &AgreedError{Err: err, Print: c.Rank() == 0}
	}
	return nil
}
