package data

import (
	"math"
	"testing"
)

// TestWaveformMeans checks Waveform against Breiman's definition: a third
// of the points are positive (class 0), and the mean of the positive points
// is (h1 + h2)/2, E[u] = 1/2, with h1 peaking at m = 11 and h2 at m = 15;
// the negative points' mean is ((h1 + h3)/2 + (h2 + h3)/2)/2 with h3 peaking
// at m = 7.
func TestWaveformMeans(t *testing.T) {
	const n = 30000
	d := Waveform(n, 1)
	if d.Dim() != 21 || d.Len() != n {
		t.Fatalf("shape %d×%d", d.Len(), d.Dim())
	}
	tri := func(m, peak int) float64 { return math.Max(6-math.Abs(float64(m-peak)), 0) }
	var pos [21]float64
	var neg [21]float64
	var np int
	for i := range n {
		for m, v := range d.X.Row(i) {
			if d.Y[i] > 0 {
				pos[m] += float64(v)
			} else {
				neg[m] += float64(v)
			}
		}
		if d.Y[i] > 0 {
			np++
		}
	}
	if f := float64(np) / n; math.Abs(f-1.0/3) > 0.01 {
		t.Errorf("positive fraction %.4f, want 1/3", f)
	}
	for m := 1; m <= 21; m++ {
		h1, h2, h3 := tri(m, 11), tri(m, 15), tri(m, 7)
		wantPos := (h1 + h2) / 2
		wantNeg := ((h1+h3)/2 + (h2+h3)/2) / 2
		if got := pos[m-1] / float64(np); math.Abs(got-wantPos) > 0.06 {
			t.Errorf("feature %d: positive mean %.3f, want %.3f", m, got, wantPos)
		}
		if got := neg[m-1] / float64(n-np); math.Abs(got-wantNeg) > 0.06 {
			t.Errorf("feature %d: negative mean %.3f, want %.3f", m, got, wantNeg)
		}
	}
}
