package engine

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestAgree: one rank's failure reaches every rank; a rank keeps its own
// error; the others name the rank and wrap ErrRankFailed (and ErrBudget
// when that rank was over its budget); with no failure every rank gets nil.
func TestAgree(t *testing.T) {
	own := fmt.Errorf("holding 1 GiB: %w", ErrBudget)
	for _, tc := range []struct {
		name   string
		failAt int // -1: none
		err    error
		budget bool
	}{{"none", -1, nil, false}, {"budget on rank 1", 1, own, true}, {"other on rank 2", 2, errors.New("bad rows"), false}} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			got := make([]error, 3)
			err := comm.Run(3, func(c comm.Comm) error {
				var mine error
				if c.Rank() == tc.failAt {
					mine = tc.err
				}
				ag, cerr := Agree(c, mine)
				mu.Lock()
				got[c.Rank()] = ag
				mu.Unlock()
				return cerr
			})
			if err != nil {
				t.Fatal(err)
			}
			for r, g := range got {
				switch {
				case tc.failAt < 0 && g != nil:
					t.Errorf("rank %d: %v, want nil", r, g)
				case r == tc.failAt && g != tc.err:
					t.Errorf("rank %d: %v, want its own error", r, g)
				case tc.failAt >= 0 && r != tc.failAt:
					if !errors.Is(g, ErrRankFailed) || errors.Is(g, ErrBudget) != tc.budget {
						t.Errorf("rank %d: %v, want ErrRankFailed (ErrBudget %v)", r, g, tc.budget)
					}
				}
			}
		})
	}
	if ag, cerr := Agree(&comm.Single{}, own); ag != own || cerr != nil {
		t.Errorf("one rank: %v %v, want the error itself", ag, cerr)
	}
}

// TestRankOutcomes: every rank gets every rank's outcome in rank order, 0
// for none; the same message (whitespace aside) gives the same value and
// another message another; a budget error's value is negative.
func TestRankOutcomes(t *testing.T) {
	errs := []error{nil, errors.New("bad  rows\n at line 3"), errors.New("bad rows at line 3"), fmt.Errorf("holding 1 GiB: %w", ErrBudget)}
	var mu sync.Mutex
	got := make([]Outcomes, len(errs))
	err := comm.Run(len(errs), func(c comm.Comm) error {
		o, err := RankOutcomes(c, errs[c.Rank()])
		mu.Lock()
		got[c.Rank()] = o
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for r, o := range got {
		if len(o) != len(errs) || o[0] != 0 || o[1] <= 0 || o[1] != o[2] || o[3] >= 0 || -o[3] == o[1] {
			t.Fatalf("rank %d: outcomes %v", r, o)
		}
		if f := o.Failed(); fmt.Sprint(f) != "[1 2 3]" {
			t.Fatalf("rank %d: failed ranks %v, want [1 2 3]", r, f)
		}
		if fmt.Sprint(o) != fmt.Sprint(got[0]) {
			t.Fatalf("rank %d: %v, rank 0: %v", r, o, got[0])
		}
	}
	if o, err := RankOutcomes(&comm.Single{}, nil); err != nil || len(o) != 1 || o[0] != 0 {
		t.Fatalf("one rank: %v, %v", o, err)
	}
}

// TestAgreeFailure: every rank gets an *AgreedError when one failed; rank 0
// names the failing ranks, a failing rank keeps its error and prints it
// unless rank 0 prints the same message; with no failure, nil.
func TestAgreeFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		errs  []error // per rank
		msgs  []string
		print []bool
	}{
		{"none", []error{nil, nil, nil}, []string{"", "", ""}, nil},
		{"ranks 1 and 2", []error{nil, errors.New("bad rows"), errors.New("bad file")},
			[]string{"another rank failed: rank 1, 2 of 3 stopped the job (its error is printed by it)", "bad rows", "bad file"}, []bool{true, true, true}},
		{"same on 0 and 2", []error{errors.New("x"), nil, errors.New("x")},
			[]string{"x", "another rank failed", "x"}, []bool{true, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			got := make([]error, 3)
			if err := comm.Run(3, func(c comm.Comm) error {
				ag := AgreeOn(c, tc.errs[c.Rank()])
				mu.Lock()
				got[c.Rank()] = ag
				mu.Unlock()
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for r, g := range got {
				if tc.print == nil {
					if g != nil {
						t.Errorf("rank %d: %v, want nil", r, g)
					}
					continue
				}
				var ag *AgreedError
				if !errors.As(g, &ag) || g.Error() != tc.msgs[r] || ag.Print != tc.print[r] {
					t.Errorf("rank %d: %#v, want %q printed %v", r, g, tc.msgs[r], tc.print[r])
				}
				if tc.errs[r] == nil && !errors.Is(g, ErrRankFailed) {
					t.Errorf("rank %d: %v does not wrap ErrRankFailed", r, g)
				}
			}
		})
	}
	own := errors.New("own")
	if AgreeOn(&comm.Single{}, own) != own || AgreeOn(nil, own) != own {
		t.Error("one process: AgreeOn should return the error itself")
	}
	agreed := &AgreedError{Err: own}
	if AgreeOn(fakeSize{&comm.Single{}}, agreed) != agreed {
		t.Error("an agreed error should pass through")
	}
	if CheckConfig(&comm.Single{}, nil) != nil {
		t.Error("one process: CheckConfig should make no check")
	}
}

// fakeSize is a communicator that claims 2 ranks (and must not be used
// for a collective).
type fakeSize struct{ comm.Comm }

func (fakeSize) Size() int { return 2 }
