package comm

import (
	"errors"
	"fmt"
	"math"
	"os"
	"testing"
)

// The conformance suite: conform runs on every rank of a communicator and
// checks each collective against what every rank can compute on its own
// (each rank's input is a known function of its rank). It returns an error
// instead of failing a test so that it can run inside in-process ranks and
// MPI processes alike; it always calls every collective, so a wrong answer
// on one rank never leaves the others waiting.
func conform(c Comm, exactSums bool) error {
	n, me := c.Size(), c.Rank()
	if n < 1 || me < 0 || me >= n {
		return fmt.Errorf("rank %d of size %d", me, n)
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("rank %d of %d: "+format, append([]any{me, n}, args...)...))
	}
	ones := func() []int {
		k := make([]int, n)
		for r := range k {
			k[r] = 1
		}
		return k
	}

	// Ranks: gathering every rank's number gives 0..n−1.
	ranks := make([]float64, n)
	if err := c.Allgatherv([]float64{float64(me)}, ones(), ranks); err != nil {
		return err
	}
	for r, v := range ranks {
		if v != float64(r) {
			fail("gathered ranks %v", ranks)
			break
		}
	}

	// AllreduceSum: inputs chosen so the order of the additions shows
	// (1e16 + 1 − 1e16 is 0 left to right, 1 in another order).
	input := func(r, i int) float64 {
		switch i {
		case 0:
			return float64(r + 1)
		case 1:
			return []float64{1e16, 1, -1e16, 3, 0.1}[r%5] * float64(1+r/5)
		case 2:
			return 0.1 * float64(r+1)
		default:
			return math.Ldexp(1, -r) * float64(i)
		}
	}
	const width = 5
	buf := make([]float64, width)
	for i := range buf {
		buf[i] = input(me, i)
	}
	if err := c.AllreduceSum(buf); err != nil {
		return err
	}
	for i, got := range buf {
		want, scale := 0.0, 0.0
		for r := 0; r < n; r++ { // rank order, left to right
			want += input(r, i)
			scale += math.Abs(input(r, i))
		}
		// Another order of the additions differs by at most n·ε·Σ|x|.
		if exactSums && got != want || !exactSums && math.Abs(got-want) > float64(n)*0x1p-52*scale {
			fail("AllreduceSum[%d] = %v, rank-order sum %v", i, got, want)
		}
	}
	if exactSums && n == 3 && buf[1] != 0 {
		fail("AllreduceSum of 1e16, 1, −1e16 = %v: not added in rank order", buf[1])
	}
	// Every rank holds bit-identical sums.
	all := make([]float64, width*n)
	counts := make([]int, n)
	for r := range counts {
		counts[r] = width
	}
	if err := c.Allgatherv(buf, counts, all); err != nil {
		return err
	}
	for r := 0; r < n; r++ {
		for i := 0; i < width; i++ {
			if math.Float64bits(all[r*width+i]) != math.Float64bits(buf[i]) {
				fail("rank %d's sum[%d] = %v, here %v: ranks disagree", r, i, all[r*width+i], buf[i])
			}
		}
	}
	if err := c.AllreduceSum(nil); err != nil {
		fail("AllreduceSum(nil): %v", err)
	}

	// AllreduceMaxLoc: a clear winner, ties broken by the lowest index,
	// NaN as −Inf.
	type maxCase struct {
		name      string
		value     func(r int) float64
		index     func(r int) int
		wantValue float64
		wantIndex int
	}
	cases := []maxCase{
		{"winner is the last rank", func(r int) float64 { return float64(r) * 1.5 }, func(r int) int { return 100 + r },
			float64(n-1) * 1.5, 100 + n - 1},
		{"all tie: lowest index, held by the last rank", func(int) float64 { return 2 }, func(r int) int { return 3 * (n - r) },
			2, 3},
		{"tie between ranks 0 and n−1 only", func(r int) float64 {
			if r == 0 || r == n-1 {
				return 7
			}
			return 6
		}, func(r int) int { return 50 - r }, 7, 50 - (n - 1)},
		{"NaN never wins", func(r int) float64 {
			if r%2 == 0 {
				return math.NaN()
			}
			return -1e300
		}, func(r int) int { return r }, map[bool]float64{true: math.Inf(-1), false: -1e300}[n == 1], map[bool]int{true: 0, false: 1}[n == 1]},
		{"all −Inf: lowest index", func(int) float64 { return math.Inf(-1) }, func(r int) int { return -r }, math.Inf(-1), -(n - 1)},
	}
	for _, tc := range cases {
		v, i, err := c.AllreduceMaxLoc(tc.value(me), tc.index(me))
		if err != nil {
			return err
		}
		if v != tc.wantValue || i != tc.wantIndex {
			fail("AllreduceMaxLoc (%s) = (%v, %d), want (%v, %d)", tc.name, v, i, tc.wantValue, tc.wantIndex)
		}
	}

	// Broadcasts from every root, with lengths 0, 1 and several.
	for root := 0; root < n; root++ {
		for _, length := range []int{0, 1, 37} {
			b := make([]byte, length)
			f32 := make([]float32, length)
			f64 := make([]float64, length)
			for i := range b {
				if me == root {
					b[i] = byte(root*31 + i)
					f32[i] = float32(root) + float32(i)/7
					f64[i] = float64(root) - float64(i)/3
				} else {
					b[i], f32[i], f64[i] = 0xee, -99, -99
				}
			}
			if err := c.BcastBytes(b, root); err != nil {
				return err
			}
			if err := c.BcastFloat32(f32, root); err != nil {
				return err
			}
			if err := c.BcastFloat64(f64, root); err != nil {
				return err
			}
			for i := 0; i < length; i++ {
				if b[i] != byte(root*31+i) || f32[i] != float32(root)+float32(i)/7 || f64[i] != float64(root)-float64(i)/3 {
					fail("broadcast from root %d, length %d: element %d = %v %v %v", root, length, i, b[i], f32[i], f64[i])
					break
				}
			}
		}
	}

	// Allgatherv with uneven counts, rank 1 sending nothing.
	uneven := make([]int, n)
	total := 0
	for r := range uneven {
		uneven[r] = 2*r + 1
		if r == 1 {
			uneven[r] = 0
		}
		total += uneven[r]
	}
	send := make([]float64, uneven[me])
	for i := range send {
		send[i] = float64(me*1000 + i)
	}
	recv := make([]float64, total)
	if err := c.Allgatherv(send, uneven, recv); err != nil {
		return err
	}
	k := 0
	for r := 0; r < n; r++ {
		for i := 0; i < uneven[r]; i++ {
			if recv[k] != float64(r*1000+i) {
				fail("Allgatherv element %d (rank %d's %d) = %v", k, r, i, recv[k])
			}
			k++
		}
	}

	if err := c.Barrier(); err != nil {
		return err
	}

	// Bad arguments passed alike on every rank: every rank gets
	// ErrArgument and the group stays usable.
	if err := c.BcastBytes(make([]byte, 1), n); !errors.Is(err, ErrArgument) {
		fail("BcastBytes with root %d (= size): err = %v, want ErrArgument", n, err)
	}
	if _, _, err := c.AllreduceMaxLoc(1, math.MaxInt32+1); !errors.Is(err, ErrArgument) {
		fail("AllreduceMaxLoc with index 2³¹: err = %v, want ErrArgument", err)
	}
	if err := c.Allgatherv(nil, make([]int, n+1), nil); !errors.Is(err, ErrArgument) {
		fail("Allgatherv with %d counts: err = %v, want ErrArgument", n+1, err)
	}
	after := []float64{1}
	if err := c.AllreduceSum(after); err != nil || after[0] != float64(n) {
		fail("AllreduceSum after the argument errors = %v, %v; want %d", after[0], err, n)
	}
	return errors.Join(errs...)
}

func TestConformanceSingle(t *testing.T) {
	if err := conform(&Single{}, true); err != nil {
		t.Fatal(err)
	}
}

func TestConformanceInProcess(t *testing.T) {
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			if err := Run(n, func(c Comm) error { return conform(c, true) }); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestConformanceWorld runs the suite on World: Single in the default build
// and in a `-tags mpi` binary started alone, the MPI communicator when the
// tagged test binary runs under mpirun (.ci/run does, with -np 2 and 3).
func TestConformanceWorld(t *testing.T) {
	c, err := World()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("World: %s", c.Describe())
	_, isSingle := c.(*Single)
	if err := conform(c, isSingle); err != nil {
		t.Fatal(err)
	}
}

// TestWorldWithoutLauncher: a process not started by an MPI launcher is one
// rank, whether or not the binary has MPI; under a launcher a `-tags mpi`
// binary sees the launcher's number of processes.
func TestWorldWithoutLauncher(t *testing.T) {
	c, err := World()
	if err != nil {
		t.Fatal(err)
	}
	launched := os.Getenv("OMPI_COMM_WORLD_SIZE") != "" || os.Getenv("PMI_SIZE") != ""
	switch {
	case !launched || !mpiBuilt:
		if _, ok := c.(*Single); !ok || c.Size() != 1 || c.Rank() != 0 {
			t.Fatalf("without MPI (launched %v, built with MPI %v) World is %s, want a single process", launched, mpiBuilt, c.Describe())
		}
	default:
		want := os.Getenv("OMPI_COMM_WORLD_SIZE")
		if want == "" {
			want = os.Getenv("PMI_SIZE")
		}
		if got := fmt.Sprint(c.Size()); got != want {
			t.Fatalf("under the launcher World has %s ranks, the launcher started %s", got, want)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	// Finalize MPI (a no-op for Single): mpirun reports ranks that exit
	// without it as failures.
	if c, err := World(); err == nil {
		c.Close()
	}
	os.Exit(code)
}

// TestAbortWorld is run by scripts/mpi-check.sh under mpirun with
// PURSUIT_MPI_ABORT_TEST=1, expecting the job to fail: the last rank
// aborts with an error while the others wait in a barrier, and mpirun must
// stop them all (exit status not 0) with that error on standard error
// instead of hanging. Without the variable it is skipped.
func TestAbortWorld(t *testing.T) {
	if os.Getenv("PURSUIT_MPI_ABORT_TEST") == "" {
		t.Skip("run by scripts/mpi-check.sh under mpirun, expecting the job to fail")
	}
	c, err := World()
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank() == c.Size()-1 {
		c.Abort(errors.New("rank-abort-test: this rank fails on purpose"))
	}
	c.Barrier()
	t.Fatalf("rank %d left the barrier after the last rank aborted", c.Rank())
}
