package slmc

import (
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
)

// rsProblem is a generated data set with the demo's kernel width and C,
// scaled as the demo scales it.
type rsProblem struct {
	name        string
	train, test *data.Dataset
	k           pursuit.Kernel
	c           float64
}

func rsProblems(t *testing.T) []rsProblem {
	t.Helper()
	split := func(d *data.Dataset, n int, mode data.ScaleMode) (*data.Dataset, *data.Dataset) {
		tr := make([]int, n)
		te := make([]int, d.Len()-n)
		for i := range tr {
			tr[i] = i
		}
		for i := range te {
			te[i] = n + i
		}
		a, b := d.Subset(tr), d.Subset(te)
		sc, err := data.FitScaler(mode, a.X)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Apply(a.X); err != nil {
			t.Fatal(err)
		}
		if err := sc.Apply(b.X); err != nil {
			t.Fatal(err)
		}
		return a, b
	}
	var out []rsProblem
	tr, te := split(data.TwoMoons(600, 0.2, 1), 400, data.ScaleMinMax)
	out = append(out, rsProblem{"two-moons", tr, te, pursuit.NewRBF(4), 10})
	tr, te = split(data.Ringnorm(3000, 20, 1), 2000, data.ScaleStandard)
	out = append(out, rsProblem{"ringnorm-20d", tr, te, pursuit.NewRBF(1.0 / 40), 10})
	tr, te = split(data.Banana(800, 0.3, 1), 400, data.ScaleNone)
	out = append(out, rsProblem{"banana", tr, te, pursuit.NewRBF(1), 100})
	return out
}

// TestReducedSetOnData runs RS at Nz = 5% and 10% of the SVs on two-moons,
// ringnorm and a banana-shaped set, whose SVM expansions have coefficients
// of both signs (the case where the classic fixed-point iteration runs away
// to β = 0). The residual ‖Ψ − Ψ'‖² must fall with every added vector, the
// test error at 10% must be below that at 5%, and MRS on RS's vectors must
// reach an objective (28) no higher than RS's.
func TestReducedSetOnData(t *testing.T) {
	e := goEngine(t)
	for _, pb := range rsProblems(t) {
		exp, _ := fullSVM(t, pb.train.X, pb.train.Y, pb.k, pb.c)
		var pos, neg int
		for _, c := range exp.Coef {
			if c > 0 {
				pos++
			} else {
				neg++
			}
		}
		if pos == 0 || neg == 0 {
			t.Fatalf("%s: SVM coefficients all of one sign (%d+, %d−)", pb.name, pos, neg)
		}
		svmErr, err := exp.AsModel().ErrorRate(e, pb.test.X, pb.test.Y)
		if err != nil {
			t.Fatal(err)
		}
		n10 := exp.NumXVFraction(0.10)
		res, err := ReducedSet(exp, n10, RSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		prev := 1.0
		for u, r := range res.Residuals {
			if !(r < prev) {
				t.Errorf("%s: residual after vector %d is %.6g, not below %.6g", pb.name, u+1, r, prev)
			}
			prev = r
		}
		n5 := exp.NumXVFraction(0.05)
		res5, err := ReducedSet(exp, n5, RSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The greedy phase is deterministic: the first n5 vectors of the
		// 10% run are the 5% run's. The joint refinement only lowers it.
		if math.Abs(res5.Residuals[n5-1]-res.Residuals[n5-1]) > 1e-9 {
			t.Errorf("%s: residual at %d vectors %v, in the longer run %v", pb.name, n5, res5.Residuals[n5-1], res.Residuals[n5-1])
		}
		for _, r := range []*RSResult{res5, res} {
			if g := r.Residuals[len(r.Residuals)-1]; r.FeatureResidual > g {
				t.Errorf("%s: refined residual %v above the greedy %v", pb.name, r.FeatureResidual, g)
			}
		}
		e5, err := res5.Model.ErrorRate(e, pb.test.X, pb.test.Y)
		if err != nil {
			t.Fatal(err)
		}
		e10, err := res.Model.ErrorRate(e, pb.test.X, pb.test.Y)
		if err != nil {
			t.Fatal(err)
		}
		mrs, err := ModifiedRS(e, pb.train.X, pb.train.Y, res.Model, pb.c, FitOptions{Solver: SolverOptions{Tol: 1e-8}})
		if err != nil {
			t.Fatal(err)
		}
		eMRS, err := mrs.ErrorRate(e, pb.test.X, pb.test.Y)
		if err != nil {
			t.Fatal(err)
		}
		pRS, pMRS := primal28(res.Model, pb.train.X, pb.train.Y, pb.c), primal28(mrs, pb.train.X, pb.train.Y, pb.c)
		t.Logf("%s: SVM %d SVs (%d+, %d−), test error %.2f%%; RS Nz=%d: %.2f%% (feature-space residual %.4f, greedy %.4f), Nz=%d: %.2f%% (feature-space residual %.4f, greedy %.4f); MRS Nz=%d: %.2f%%; objective (28) RS %.2f, MRS %.2f",
			pb.name, exp.Vectors.Rows, pos, neg, 100*svmErr, n5, 100*e5, res5.FeatureResidual, res5.Residuals[n5-1], n10, 100*e10, res.FeatureResidual, res.Residuals[n10-1], n10, 100*eMRS, pRS, pMRS)
		switch {
		case pb.name == "banana":
			// Near the Bayes error the 5% and 10% errors differ by noise;
			// what must hold is that RS is a classifier, not its bias (the
			// runaway gave 42.8% where the SVM had 13%).
			if e10 > svmErr+0.05 {
				t.Errorf("%s: RS test error %.2f%% at Nz=%d, the SVM's %.2f%%", pb.name, 100*e10, n10, 100*svmErr)
			}
		case !(e10 < e5):
			t.Errorf("%s: RS test error %.2f%% at Nz=%d not below %.2f%% at Nz=%d", pb.name, 100*e10, n10, 100*e5, n5)
		}
		if pMRS > pRS*(1+1e-6) {
			t.Errorf("%s: MRS objective %.4f above RS %.4f", pb.name, pMRS, pRS)
		}
	}
}
