package kmp

import (
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestDictSize checks the atom count PlanTraining uses without listing the
// atoms against the list Train makes, and the atoms implied when every
// point is a candidate against the list.
func TestDictSize(t *testing.T) {
	rbf := pursuit.NewRBF(0.5)
	custom := &CustomKernel{Name: "one", Func: func(a, b []float32) float64 { return 1 }}
	for _, cfg := range []Config{
		{Kernels: []pursuit.Kernel{rbf}},
		{Kernels: []pursuit.Kernel{rbf, pursuit.NewRBF(2)}, Bias: true},
		{Custom: custom, Bias: true},
		{Kernels: []pursuit.Kernel{rbf}, Custom: custom},
	} {
		for _, lm := range [][2]int{{10, 0}, {10, 3}, {10, 10}, {10, 20}, {1, 0}} {
			l, m := lm[0], lm[1]
			cands := chooseCandidates(l, m, 7)
			if got := numCandidates(l, m); got != len(cands) {
				t.Errorf("numCandidates(%d, %d) = %d, chooseCandidates gives %d", l, m, got, len(cands))
			}
			atoms := dictAtoms(&cfg, cands)
			if got := dictSize(&cfg, len(cands)); got != len(atoms) || cap(atoms) != len(atoms) {
				t.Errorf("kernels %d custom %v bias %v, %d candidates: dictSize %d, dictAtoms %d (cap %d)",
					len(cfg.Kernels), cfg.Custom != nil, cfg.Bias, len(cands), got, len(atoms), cap(atoms))
			}
			if len(cands) < l {
				continue
			}
			// Every point a candidate: the implied list is the same.
			implied := everyPoint(&cfg, l)
			if implied.len() != len(atoms) || !slices.Equal(implied.all(), atoms) {
				t.Errorf("kernels %d custom %v bias %v, all %d points: implied atoms %v, listed %v",
					len(cfg.Kernels), cfg.Custom != nil, cfg.Bias, l, implied.all(), atoms)
			}
			for k, a := range atoms {
				if implied.at(k) != a || listed(atoms).at(k) != a {
					t.Errorf("atom %d: implied %v, listed %v", k, implied.at(k), a)
				}
			}
		}
	}
}
