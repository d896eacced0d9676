package main

import (
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestKMPPrefixDecisions checks the adapter's prefix decisions (kmp's
// PrefixDecisions, tested in package kmp, put in the CLI's class order)
// against predicting each truncated model in full, for a binary model with
// early stopping (steps past the kept one) and a one-vs-rest model.
func TestKMPPrefixDecisions(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	moons := twoMoons(240, 0.25, 5)
	tr, rest := head(moons, 160)
	val, test := head(rest, 40)
	l1, err := kmpTestLearner(kmp.PreFit, 4, learn.Settings{Patience: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f1, err := l1.Fit(e, tr.X, tr.Y, val.X, val.Y)
	if err != nil {
		t.Fatal(err)
	}
	blobs := threeClass(150)
	l2, err := kmpTestLearner(kmp.PreFit, 1, learn.Settings{Basis: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f2, err := l2.(learn.OneVsRestLearner).FitOneVsRest(e, blobs.X, blobs.Y, []float64{1, 2, 3}, pursuit.Matrix{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		f learn.Model
		x *data.Dataset
	}{"binary": {f1, test}, "one-vs-rest": {f2[0], blobs}} {
		kf := c.f.(*learn.KMPModel)
		steps := kf.PrefixLen()
		if name == "binary" && kf.KeptSteps() >= steps {
			t.Logf("binary: early stopping kept all %d steps; the test still compares every step", steps)
		}
		var ns []int
		for n := 1; n <= steps; n++ {
			ns = append(ns, n)
		}
		fast, err := kf.PrefixDecisions(e, c.x.X, ns)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, n := range ns {
			tm, err := kf.KMP.Truncate(n)
			if err != nil {
				t.Fatal(err)
			}
			tk := *kf // the same class order, the truncated model
			tk.KMP = tm
			slow, err := tk.DecisionAll(e, c.x.X)
			if err != nil {
				t.Fatal(err)
			}
			if len(fast[i]) != len(slow) {
				t.Fatalf("%s n=%d: %d outputs, want %d", name, n, len(fast[i]), len(slow))
			}
			for o := range slow {
				for r := range slow[o] {
					if d := math.Abs(fast[i][o][r] - slow[o][r]); d > 1e-4*(1+math.Abs(slow[o][r])) {
						t.Fatalf("%s n=%d output %d row %d: fast %v, Truncate+Decision %v", name, n, o, r, fast[i][o][r], slow[o][r])
					}
				}
			}
		}
		// The last step equals the model as trained when all steps are kept.
		if kf.KeptSteps() == steps {
			full, _ := kf.DecisionAll(e, c.x.X)
			for o := range full {
				for r := range full[o] {
					if d := math.Abs(fast[len(ns)-1][o][r] - full[o][r]); d > 1e-4*(1+math.Abs(full[o][r])) {
						t.Fatalf("%s: last step %v, model %v", name, fast[len(ns)-1][o][r], full[o][r])
					}
				}
			}
		}
	}
}

// kmpTestLearner is the learner of --algo kmp's flags s with the variant
// v and an RBF kernel of γ gamma, as train maps them (learn.Settings).
func kmpTestLearner(v kmp.Variant, gamma float64, s learn.Settings) (learn.Learner, error) {
	s.Algo = map[kmp.Variant]string{kmp.PreFit: "kmp", kmp.BackFit: "kmp-backfit", kmp.Basic: "kmp-basic"}[v]
	return s.Learner(learn.LabelPlan{Task: learn.TaskBinary}, learn.Run{Kernel: pursuit.NewRBF(gamma)})
}
