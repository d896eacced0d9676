package data

import (
	"bytes"
	"testing"
)

// WriteRange's [min, max] per feature maps onto [−1, 1] as the scaler does:
// (min − offset)·scale = −1 and (max − offset)·scale = 1; a constant
// feature has min = max.
func TestWriteRange(t *testing.T) {
	s := &Scaler{Mode: ScaleMinMax, Offset: []float64{1, 5}, Scale: []float64{0.5, 0}}
	var b bytes.Buffer
	if err := s.WriteRange(&b); err != nil {
		t.Fatal(err)
	}
	if want := "x\n-1 1\n1 -1 3\n2 5 5\n"; b.String() != want {
		t.Errorf("range file %q, want %q", b.String(), want)
	}
	if lo, hi := (-1-s.Offset[0])*s.Scale[0], (3-s.Offset[0])*s.Scale[0]; lo != -1 || hi != 1 {
		t.Errorf("feature 1's range maps to [%g, %g]", lo, hi)
	}
}
