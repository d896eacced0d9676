package kmp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestDecisionAllManyFunctions: a model of more functions than a full
// kernel block of predictBlock rows holds predicts in blocks of fewer rows;
// its decisions are the float64 sums Σ_j α_j exp(−γ‖x − z_j‖²) + b at every
// row, across the block boundaries and the short last block.
func TestDecisionAllManyFunctions(t *testing.T) {
	const nsv, d, l = 1500, 4, 700
	if r := predictRows(nsv); r >= predictBlock || l <= r || l%r == 0 {
		t.Fatalf("predictRows(%d) = %d: the test needs fewer rows than %d, dividing %d unevenly", nsv, r, predictBlock, l)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	sv, x := pursuit.NewMatrix(nsv, d), pursuit.NewMatrix(l, d)
	for _, m := range []pursuit.Matrix{sv, x} {
		for i := range m.Data {
			m.Data[i] = float32(rng.Float64()*2 - 1)
		}
	}
	coef := make([]float64, nsv)
	for j := range coef {
		coef[j] = rng.NormFloat64()
	}
	const gamma = 0.7
	m := &Model{Task: Regression, Kernels: []pursuit.Kernel{pursuit.NewRBF(gamma)}, Support: sv,
		SupportIndex: make([]int, nsv), SupportKernel: make([]int, nsv), Outputs: []Output{{Coef: coef, Bias: 0.25}}}
	got, err := m.DecisionAll(goEngine(t), x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l {
		want := 0.25
		for j := range nsv {
			var dd float64
			for k := range d {
				v := float64(x.At(i, k)) - float64(sv.At(j, k))
				dd += v * v
			}
			want += coef[j] * math.Exp(-gamma*dd)
		}
		if diff := math.Abs(got[0][i] - want); diff > 1e-4*(1+math.Abs(want)) {
			t.Fatalf("row %d: decision %v, float64 reference %v", i, got[0][i], want)
		}
	}
}
