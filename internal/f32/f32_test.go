package f32

import (
	"math"
	"testing"
)

func TestPowInt(t *testing.T) {
	for _, x := range []float64{-2.5, -1, 0, 0.3, 1, 7} {
		for n := 1; n <= 9; n++ {
			if got, want := PowInt(x, n), math.Pow(x, float64(n)); math.Abs(got-want) > 1e-14*math.Abs(want) {
				t.Errorf("PowInt(%v, %d) = %v, want %v", x, n, got, want)
			}
		}
	}
}

func TestSqNorm(t *testing.T) {
	for n := 0; n <= 9; n++ {
		x := make([]float32, n)
		var want float64
		for i := range x {
			x[i] = float32(i) - 3.25
			want += float64(x[i]) * float64(x[i])
		}
		if got := SqNorm(x); math.Abs(got-want) > 1e-12*want {
			t.Errorf("SqNorm(%v) = %v, want %v", x, got, want)
		}
	}
}
