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

// TestEvalRowsSparseEqualsDense: EvalRows on any mix of dense and sparse
// storage of the same rows gives Eval's bits on the dense rows, for every
// kernel, with empty rows, one non-zero, and features one side lacks.
func TestEvalRowsSparseEqualsDense(t *testing.T) {
	dense := NewMatrix(4, 6)
	copy(dense.Row(1), []float32{0, 0, 2.5, 0, 0, 0})
	copy(dense.Row(2), []float32{1.25, -3, 0, 0, 7, 0.5})
	copy(dense.Row(3), []float32{0, 4, 0, -2, 0, 9})
	sparse := sparseOf(t, dense)
	for _, k := range []Kernel{NewRBF(0.3), NewLinear(), {Kind: Polynomial, Gamma: 0.5, Coef0: 1, Degree: 3}, {Kind: Sigmoid, Gamma: 0.1, Coef0: -0.2}} {
		for i := range dense.Rows {
			for j := range dense.Rows {
				want := k.Eval(dense.Row(i), dense.Row(j))
				for _, c := range [][2]Matrix{{dense, dense}, {sparse, sparse}, {dense, sparse}, {sparse, dense}} {
					if got := k.EvalRows(c[0], i, c[1], j); math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("%v rows %d, %d (sparse %v, %v): %v, Eval %v", k, i, j, c[0].IsSparse(), c[1].IsSparse(), got, want)
					}
				}
			}
		}
	}
}
