package kmp

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// TestTrainDoesNotCopyTheData trains stochastic KMP (whose working memory
// is a few kernel blocks) on unscaled data with a validation set given: the
// training and validation matrices are used as they are, so training
// allocates far less than one copy of them.
func TestTrainDoesNotCopyTheData(t *testing.T) {
	e := goEngine(t)
	x, y := randomData(4000, 400, 3)
	xv, yv := randomData(1000, 400, 4)
	for i := range y {
		y[i] = sign(y[i])
	}
	for i := range yv {
		yv[i] = sign(yv[i])
	}
	cfg := Config{Variant: Basic, Task: Classification, Kernels: []pursuit.Kernel{pursuit.NewRBF(0.01)}, N: 3,
		Stochastic: &Stochastic{ActiveSet: 4}, ValX: xv, ValY: yv, Patience: 5, Seed: 1}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Train(e, x, y, cfg)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	got := after.TotalAlloc - before.TotalAlloc
	copyBytes := uint64(len(x.Data)+len(xv.Data)) * 4
	t.Logf("training allocated %d B; one copy of the training and validation data is %d B", got, copyBytes)
	if got > copyBytes/4 && !raceEnabled { // under -race sync.Pool drops buffers at random

		t.Errorf("training allocated %d B, more than a quarter of the %d B of its data: it copies the data", got, copyBytes)
	}
	// The model does not depend on the caller's matrix afterwards: a
	// truncated model has the same support vectors after x is overwritten.
	want, err := m.Truncate(2)
	if err != nil {
		t.Fatal(err)
	}
	clear(x.Data)
	got2, err := m.Truncate(2)
	if err != nil {
		t.Fatal(err)
	}
	if want.Support.Rows == 0 || want.Support.Rows != got2.Support.Rows {
		t.Fatalf("truncated models with %d and %d support vectors", want.Support.Rows, got2.Support.Rows)
	}
	for i, v := range want.Support.Data {
		if got2.Support.Data[i] != v {
			t.Fatalf("support value %d changed from %v to %v when the training matrix was overwritten", i, v, got2.Support.Data[i])
		}
	}
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// TestInMemoryDictionaryHeld checks that the in-memory dictionary is held
// against the engine's budget while training, so that what the fitters
// reserve next must fit beside it, and given back afterwards.
func TestInMemoryDictionaryHeld(t *testing.T) {
	x, y := randomData(300, 4, 5)
	cfg := Config{Variant: PreFit, Task: Regression, Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5)}, N: 5}
	const dict = 300 * 300 * 4 // 300 atoms at 300 points; the basis is 5×300 float64 (12,000 B)
	for _, c := range []struct {
		spare int64
		ok    bool
	}{{6000, false}, {40000, true}} {
		e, err := engine.New(engine.WithBackend("go"), engine.WithMemoryBudget(dict+c.spare))
		if err != nil {
			t.Fatal(err)
		}
		if plan, err := PlanTraining(e, x.Rows, cfg); err != nil || plan.Mode != InMemory {
			t.Fatalf("plan: %v, %v; want in memory", plan, err)
		}
		_, err = Train(e, x, y, cfg)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, engine.ErrBudget)) {
			t.Errorf("%d B beside the dictionary: err = %v, want ok %v (else ErrBudget)", c.spare, err, c.ok)
		}
		if e.Available() != e.MemoryBudget() {
			t.Errorf("after training %d of %d bytes are still held", e.MemoryBudget()-e.Available(), e.MemoryBudget())
		}
	}
}

// TestBasisGrowsInPlace grows an orthonormal basis in huge pages past its
// first reservation: the vectors stay where they were (the mapping was
// made for the most the basis can hold), so growing copies nothing, and
// the basis stays orthonormal.
func TestBasisGrowsInPlace(t *testing.T) {
	const l, most = 4096, 200 // 64 vectors are 2 MiB: enough for huge pages
	b := newOrthoBasis(nil, l, nil)
	defer b.release()
	b.reserve(64, most)
	if b.arena == nil {
		t.Skip("no huge-page arena on this platform")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, l)
	push := func(n int) {
		for range n {
			for i := range d {
				d[i] = rng.NormFloat64()
			}
			if nn := b.project(d); !(nn > 0) {
				t.Fatalf("random vector %d projected to squared norm %v", b.size(), nn)
			}
			b.push()
		}
	}
	push(64)
	base := &b.qs[0]
	b.reserve(128, most)
	push(64)
	b.reserve(most, most)
	push(most - 128)
	if &b.qs[0] != base {
		t.Fatalf("growing the basis from 64 to %d vectors moved it", most)
	}
	for _, pair := range [][2]int{{0, 1}, {0, most - 1}, {63, 64}, {150, 199}, {199, 199}} {
		qi, qj := b.qs[pair[0]*l:(pair[0]+1)*l], b.qs[pair[1]*l:(pair[1]+1)*l]
		want := 0.0
		if pair[0] == pair[1] {
			want = 1
		}
		if got := floats.Dot(qi, qj); math.Abs(got-want) > 1e-12 {
			t.Errorf("<q%d, q%d> = %v, want %v", pair[0], pair[1], got, want)
		}
	}
}
