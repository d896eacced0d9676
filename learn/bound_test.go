package learn_test

import (
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestCompressionSet: each basis vector matches one row (duplicates of a
// basis point outside the basis stay outside), trailing zeros ignored.
func TestCompressionSet(t *testing.T) {
	x, _ := pursuit.MatrixFrom(4, 2, []float32{1, 0, 1, 0, 2, 3, 4, 5})
	basis, _ := pursuit.MatrixFrom(2, 2, []float32{1, 0, 4, 5})
	got := learn.CompressionSet(x, basis)
	want := []bool{true, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("CompressionSet = %v, want %v", got, want)
		}
	}
	narrow, _ := pursuit.MatrixFrom(1, 1, []float32{1})
	if got := learn.CompressionSet(x, narrow); !got[0] {
		t.Fatalf("a basis vector without its trailing zero did not match: %v", got)
	}
}

func TestBoundString(t *testing.T) {
	a := 0.5
	for _, c := range []struct {
		b    learn.Bound
		want string
	}{
		{learn.Bound{Theorem: "Theorem 4", K: 3, T: 2, Delta: 0.05, Value: 0.1234}, "with probability ≥ 95%, the true error is at most 12.3% (Theorem 4, k = 3, t = 2)"},
		{learn.Bound{Theorem: "Theorem 2", K: 9, T: 0, Delta: 0.01, Alpha: &a, Value: 1.5, Trivial: true}, "with probability ≥ 99%, P(|f(x) − y| > 0.5) is at most 150.0% (Theorem 2, k = 9, t = 0) — trivial, above 100%"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}
