package comm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// Sums in the in-process group are bit-identical from run to run whatever
// the goroutines' scheduling: ranks arrive in a random order (random
// yields), and every rank's result is compared with the rank-order sum.
func TestInProcessSumIndependentOfArrivalOrder(t *testing.T) {
	const n, width, runs = 4, 64, 50
	input := func(r, i int) float64 { return math.Sin(float64(r*width+i)) * math.Pow(10, float64((r*7+i)%17-8)) }
	want := make([]float64, width)
	for i := range want {
		for r := 0; r < n; r++ {
			want[i] += input(r, i)
		}
	}
	for run := 0; run < runs; run++ {
		seed := uint64(run)
		err := Run(n, func(c Comm) error {
			rng := rand.New(rand.NewPCG(seed, uint64(c.Rank())))
			for k := rng.IntN(20); k > 0; k-- {
				runtime.Gosched()
			}
			buf := make([]float64, width)
			for i := range buf {
				buf[i] = input(c.Rank(), i)
			}
			if err := c.AllreduceSum(buf); err != nil {
				return err
			}
			for i := range buf {
				if math.Float64bits(buf[i]) != math.Float64bits(want[i]) {
					return fmt.Errorf("run %d: sum[%d] = %v, rank-order sum %v", run, i, buf[i], want[i])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Ranks that call different collectives, or pass different lengths or
// roots, all get ErrMismatch instead of a deadlock or a silent wrong answer.
func TestInProcessMismatch(t *testing.T) {
	cases := map[string]func(c Comm) error{
		"different collectives": func(c Comm) error {
			if c.Rank() == 1 {
				return c.Barrier()
			}
			return c.AllreduceSum([]float64{1})
		},
		"different lengths": func(c Comm) error { return c.AllreduceSum(make([]float64, 1+c.Rank())) },
		"different roots":   func(c Comm) error { return c.BcastBytes([]byte{1}, c.Rank()) },
		"different counts": func(c Comm) error {
			counts := []int{1, 1, 1}
			counts[2] += c.Rank() % 2 // rank 1 claims rank 2 sends 2
			send := make([]float64, counts[c.Rank()])
			return c.Allgatherv(send, counts, make([]float64, 3+c.Rank()%2))
		},
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var got []error
			err := Run(3, func(c Comm) error {
				err := body(c)
				mu.Lock()
				got = append(got, err)
				mu.Unlock()
				return err
			})
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("Run error = %v, want ErrMismatch", err)
			}
			for _, e := range got {
				if !errors.Is(e, ErrMismatch) && !errors.Is(e, ErrAborted) {
					t.Errorf("a rank returned %v, want ErrMismatch", e)
				}
			}
		})
	}
}

// A rank that fails before a collective aborts the group: the others,
// waiting in the collective, return ErrAborted with its cause, and Run
// reports the failing rank's own error.
func TestInProcessAbortUnblocks(t *testing.T) {
	cause := errors.New("cannot read shard")
	var mu sync.Mutex
	seen := map[int]error{}
	err := Run(4, func(c Comm) error {
		if c.Rank() == 2 {
			return cause
		}
		err := c.Barrier()
		if err == nil {
			err = c.Barrier()
		}
		mu.Lock()
		seen[c.Rank()] = err
		mu.Unlock()
		return err
	})
	if !errors.Is(err, cause) {
		t.Fatalf("Run error = %v, want the failing rank's cause", err)
	}
	for _, r := range []int{0, 1, 3} {
		if !errors.Is(seen[r], ErrAborted) || !errors.Is(seen[r], cause) {
			t.Errorf("rank %d returned %v, want ErrAborted wrapping the cause", r, seen[r])
		}
	}
}

func TestClosed(t *testing.T) {
	s := &Single{}
	s.Close()
	if err := s.Barrier(); !errors.Is(err, ErrClosed) {
		t.Errorf("Single after Close: %v, want ErrClosed", err)
	}
	ranks, err := NewGroup(1)
	if err != nil {
		t.Fatal(err)
	}
	ranks[0].Close()
	if err := ranks[0].AllreduceSum([]float64{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("in-process rank after Close: %v, want ErrClosed", err)
	}
	if _, err := NewGroup(0); !errors.Is(err, ErrArgument) {
		t.Errorf("NewGroup(0): %v, want ErrArgument", err)
	}
}

// TestAllgather: every rank gets every rank's values in rank order, on a
// group and on a single process.
func TestAllgather(t *testing.T) {
	err := Run(3, func(c Comm) error {
		r := float64(c.Rank())
		got, err := Allgather(c, []float64{r, 10 * r})
		if err != nil {
			return err
		}
		if want := []float64{0, 0, 1, 10, 2, 20}; !slices.Equal(got, want) {
			return fmt.Errorf("rank %d: %v, want %v", c.Rank(), got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Allgather(&Single{}, []float64{7}); err != nil || !slices.Equal(got, []float64{7}) {
		t.Fatalf("single process: %v, %v", got, err)
	}
}
