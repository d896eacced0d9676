package backend

import (
	"math"
	"testing"
)

func TestExpNeg(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 2_000_000; i++ {
		x := -110 * float64(i) / 2_000_000
		got, want := expNeg(x), math.Exp(x)
		if want < 0x1p-126 { // below the float32 normal range
			if math.Abs(got-want) > 0x1p-150 {
				t.Fatalf("expNeg(%v) = %v, want %v", x, got, want)
			}
			continue
		}
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 1e-8 {
		t.Errorf("worst relative error %.3g, want ≤ 1e-8", worst)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300} {
		if got := expNeg(x); got != 1 {
			t.Errorf("expNeg(%v) = %v, want 1", x, got)
		}
	}
	if got := float32(expNeg(math.Inf(-1))); got != 0 {
		t.Errorf("expNeg(-Inf) = %v, want 0", got)
	}
	if got := expNeg(math.NaN()); !math.IsNaN(got) {
		t.Errorf("expNeg(NaN) = %v, want NaN", got)
	}
	t.Logf("worst relative error on [-87, 0]: %.3g", worst)
}

func TestPowInt(t *testing.T) {
	for _, x := range []float64{-2.5, -1, 0, 0.3, 1, 7} {
		for n := 1; n <= 9; n++ {
			if got, want := powInt(x, n), math.Pow(x, float64(n)); math.Abs(got-want) > 1e-14*math.Abs(want) {
				t.Errorf("powInt(%v, %d) = %v, want %v", x, n, got, want)
			}
		}
	}
}

func BenchmarkExpNeg(b *testing.B) {
	s := 0.0
	for i := 0; b.Loop(); i++ {
		s += expNeg(-float64(i&1023) * 0.01)
	}
	_ = s
}

func BenchmarkMathExp(b *testing.B) {
	s := 0.0
	for i := 0; b.Loop(); i++ {
		s += math.Exp(-float64(i&1023) * 0.01)
	}
	_ = s
}
