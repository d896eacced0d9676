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
