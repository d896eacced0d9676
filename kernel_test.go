package pursuit

import (
	"math"
	"testing"
)

func TestKernelSpecs(t *testing.T) {
	x := []float32{1, 2}
	z := []float32{0, 1}
	if got, want := NewRBFSigma(2).Eval(x, z), math.Exp(-2.0/4); math.Abs(got-want) > 1e-15 {
		t.Errorf("NewRBFSigma(2): %v want %v", got, want)
	}
	if s := Sigma(NewRBFSigma(4)); math.Abs(s-4) > 1e-12 {
		t.Errorf("Sigma round trip: %v", s)
	}
	k, err := ParseKernel("rbf", 0, 0, 0, 256)
	if err != nil || k.Gamma != 1.0/256 {
		t.Errorf("default gamma: %v %v", k, err)
	}
	k, err = ParseKernel("poly", 0.5, 1, 0, 2)
	if err != nil || k.Degree != 3 {
		t.Errorf("default degree: %v %v", k, err)
	}
	if got, want := k.Eval(x, z), math.Pow(0.5*2+1, 3); got != want {
		t.Errorf("poly: %v want %v", got, want)
	}
	for _, bad := range []struct {
		name  string
		gamma float64
	}{{"cubic", 1}, {"rbf", -1}, {"sigmoid", math.NaN()}} {
		if _, err := ParseKernel(bad.name, bad.gamma, 0, 0, 0); err == nil {
			t.Errorf("ParseKernel(%q, %v) accepted", bad.name, bad.gamma)
		}
	}
}
