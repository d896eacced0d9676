// Package approx holds the comparisons the tests of several packages share
// when they check two computations of the same decisions against each
// other.
package approx

import "math"

// RelDiff returns the largest |a_i − b_i| relative to the largest |a_i|
// (the decisions' scale); the absolute difference when a is all zeros.
func RelDiff(a, b []float64) float64 {
	var scale, worst float64
	for i := range a {
		scale = math.Max(scale, math.Abs(a[i]))
		worst = math.Max(worst, math.Abs(a[i]-b[i]))
	}
	if scale == 0 {
		return worst
	}
	return worst / scale
}
