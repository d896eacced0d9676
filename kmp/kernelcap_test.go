package kmp

import (
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestCapKernelFunctionsKeepsBestValidationStep checks CapKernelFunctions
// against brute force: the kept step is the one with the lowest validation
// error among those within n kernel functions, and the model is the
// truncation there.
func TestCapKernelFunctionsKeepsBestValidationStep(t *testing.T) {
	e := goEngine(t)
	x, y := moonsData(300, 0.3, 3)
	tr, trY := x.Slice(0, 200, 0, 2), y[:200]
	val, valY := x.Slice(200, 300, 0, 2), y[200:]
	for _, n := range []int{3, 10, 40} {
		cfg := Config{Variant: PreFit, Task: Classification, Kernels: []pursuit.Kernel{pursuit.NewRBF(4)}, Bias: true,
			N: n + 1, ValX: val, ValY: valY, Seed: 1}
		m, err := Train(e, tr, trY, cfg)
		if err != nil {
			t.Fatal(err)
		}
		capped, steps, err := m.CapKernelFunctions(n)
		if err != nil {
			t.Fatal(err)
		}
		curve := m.Outputs[0].Curve
		fns := KernelFunctions(curve)
		wantSteps := 0
		for i := range curve {
			if fns[i] <= n {
				wantSteps = i + 1
			}
		}
		best, bestErr := 0, math.Inf(1)
		for i := range wantSteps {
			if curve[i].ValErr < bestErr {
				best, bestErr = i+1, curve[i].ValErr
			}
		}
		if steps[0] != wantSteps || capped.Outputs[0].Steps != best {
			t.Errorf("n %d: %d steps within, kept step %d; brute force %d and %d", n, steps[0], capped.Outputs[0].Steps, wantSteps, best)
		}
		if got := capped.Size().SupportVectors; got > n {
			t.Errorf("n %d: %d support vectors", n, got)
		}
		ref, err := m.Truncate(best)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := capped.Decision(e, val)
		b, _ := ref.Decision(e, val)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("n %d: decision %d: %v, Truncate(%d) %v", n, i, a[i], best, b[i])
			}
		}
	}
}

// TestKernelFunctions: the bias does not count once chosen, and
// StepsWithin stops at n functions or n+1 steps.
func TestKernelFunctions(t *testing.T) {
	curve := []Step{{Basis: 1, Support: 4}, {Basis: 2, Support: -1, Kernel: -1}, {Basis: 3, Support: 7}, {Basis: 4, Support: 9}}
	got := KernelFunctions(curve)
	want := []int{1, 1, 2, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("KernelFunctions %v, want %v", got, want)
		}
	}
	for n, w := range map[int]int{0: 0, 1: 2, 2: 3, 3: 4, 9: 4} {
		if s := StepsWithin(curve, n); s != w {
			t.Errorf("StepsWithin(%d) = %d, want %d", n, s, w)
		}
	}
}
