package slmc

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// titanicSplits returns n random 150-row training sets drawn from one
// titanic-like pool (data.Coarse: three features on a 4×2×2 grid, noisy
// labels), so that about 134 of the 150 rows repeat an earlier one.
func titanicSplits(t testing.TB, n int) []*data.Dataset {
	t.Helper()
	pool := data.Coarse(1500, 30)
	var out []*data.Dataset
	for s := range n {
		parts := data.Split(pool.Len(), []float64{0.1, 0.9}, uint64(100+s), pool.Y)
		out = append(out, pool.Subset(parts[0]))
	}
	return out
}

// marginKKT returns the largest violation of the C-SVC's KKT conditions by
// the solution sol of the linear SVM on the rows of phi with bounds u:
// margins m_i = y_i(wᵀφ_i + b) must be ≥ 1 where α_i = 0, ≤ 1 where
// α_i = u_i and = 1 in between (bounds identified to 10⁻⁶·u_i).
func marginKKT(phi *mat.Dense, y, u []float64, sol *svm.Solution) float64 {
	n, r := phi.Dims()
	w := make([]float64, r)
	for i := range n {
		for j, v := range phi.RawRowView(i) {
			w[j] += sol.Alpha[i] * y[i] * v
		}
	}
	var worst float64
	for i := range n {
		f := sol.Bias
		for j, v := range phi.RawRowView(i) {
			f += w[j] * v
		}
		m, a := y[i]*f, sol.Alpha[i]
		var v float64
		switch {
		case a < 1e-6*u[i]:
			v = math.Max(0, 1-m)
		case a > u[i]*(1-1e-6):
			v = math.Max(0, m-1)
		default:
			v = math.Abs(m - 1)
		}
		worst = math.Max(worst, v)
	}
	return worst
}

// TestDuplicateHeavyBaselinesConverge is issue 30, item 3: on 10 random
// 150-row splits of a titanic-like set (about 134 duplicate rows, C = 1e5)
// RSVM, MRSVM and MRS must not fail. Before the fix the interior-point
// fallback stopped at its iteration cap with the gap at 1e-11 and the dual
// residual at its rounding floor (2–14·10⁻¹⁰ relative), and failed the run:
// RSVM on 4 and 3 of 10 splits at γ = 0.5 and 0.1, MRS and MRSVM on some.
// The inner SVM of RSVM must also satisfy the KKT conditions.
func TestDuplicateHeavyBaselinesConverge(t *testing.T) {
	e := goEngine(t)
	const c = 1e5
	splits := titanicSplits(t, 10)
	for _, g := range []float64{0.5, 0.1} {
		k := pursuit.NewRBF(g)
		fails := map[string]int{}
		var worstKKT float64
		var floors, loose int
		for s, tr := range splits {
			if d := len(data.DuplicateRows(tr.X)); d < 130 {
				t.Fatalf("split %d: only %d duplicate rows", s, d)
			}
			exp := svmExpansion(t, e, tr.X, tr.Y, k, c)
			nz := exp.NumXVFraction(0.1)
			xv, err := RandomXV(tr.X, nz, uint64(s))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ReducedSVM(e, tr.X, tr.Y, k, xv, c, FitOptions{}); err != nil {
				fails["rsvm"]++
				t.Errorf("γ %v, split %d: RSVM: %v", g, s, err)
			}
			if _, err := ModifiedRSVM(e, tr.X, tr.Y, k, xv, c, FitOptions{}); err != nil {
				fails["mrsvm"]++
				t.Errorf("γ %v, split %d: MRSVM: %v", g, s, err)
			}
			rs, err := ReducedSet(exp, nz, RSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ModifiedRS(e, tr.X, tr.Y, rs.Model, c, FitOptions{}); err != nil {
				fails["mrs"]++
				t.Errorf("γ %v, split %d: MRS: %v", g, s, err)
			}
			// RSVM's inner problem, checked directly.
			p, z, err := prepareFit(e, tr.X, tr.Y, k, xv, c, FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			psi, err := p.psi(z)
			if err != nil {
				t.Fatal(err)
			}
			phi := mat.DenseCopyOf(psi.T())
			sol, rep, err := solveLinear(phi, p.y, c, nil, nil, SolverOptions{}.withDefaults())
			if err != nil {
				continue // counted above
			}
			u := make([]float64, len(p.y))
			for i := range u {
				u[i] = c
			}
			kkt := marginKKT(phi, p.y, u, sol)
			worstKKT = math.Max(worstKKT, kkt)
			if kkt > 1e-4 {
				t.Errorf("γ %v, split %d: RSVM's inner SVM violates the KKT conditions by %.3g", g, s, kkt)
			}
			if rep != nil && rep.RdFloor > 0 {
				floors++
			}
			if rep != nil && rep.Loose {
				loose++
			}
		}
		t.Logf("γ %v: failures over %d splits %v; RSVM inner: worst margin KKT violation %.3g, %d accepted at the rounding floor, %d at the outer tolerance",
			g, len(splits), fails, worstKKT, floors, loose)
	}
}

// waveformSplit returns a Waveform training set of 400 rows and a test set
// of 4600 (the sizes of Rätsch's benchmark splits), both standardised with
// the training set's scaler.
func waveformSplit(t testing.TB, s uint64) (*data.Dataset, *data.Dataset) {
	t.Helper()
	tr, te := data.Waveform(400, 1000+s), data.Waveform(4600, 2000+s)
	sc, err := data.FitScaler(data.ScaleStandard, tr.X)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Apply(tr.X); err != nil {
		t.Fatal(err)
	}
	if err := sc.Apply(te.X); err != nil {
		t.Fatal(err)
	}
	return tr, te
}

// TestSKFDWaveform is issue 30, item 4: SKFD at Nz = 10% of the SVM's SVs
// on Breiman's waveform data with Rätsch's SVM parameters (γ = 1/20, C = 1)
// and k-means initialisation, as in the paper's Table 3 (SKFD 9.9%). Every
// run must converge (W's relative change below FuncTol, or a small
// gradient) before the 200-iteration cap, and the mean test error must be
// within 2 points of the paper's 9.9%. With the old μ (10⁻³ on the summed
// scatter) every run hit the cap.
func TestSKFDWaveform(t *testing.T) {
	e := goEngine(t)
	k := pursuit.NewRBF(1.0 / 20)
	const c = 1.0
	runs := 10
	if testing.Short() {
		runs = 3
	}
	var sumSVM, sumSKFD float64
	for s := range uint64(runs) {
		tr, te := waveformSplit(t, s)
		exp := svmExpansion(t, e, tr.X, tr.Y, k, c)
		svmErr, err := exp.AsModel().ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		nz := exp.NumXVFraction(0.1)
		r, err := TrainSKFD(e, tr.X, tr.Y, Config{Kernel: k, C: c, NumXV: nz, Init: InitKMeans, Seed: s}, 0)
		if err != nil {
			t.Fatal(err)
		}
		er, err := r.Model.ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("split %d: SVM %d SVs, %.2f%%; SKFD Nz = %d: %.2f%%, %d iterations, stop: %s, W %.4g → %.4g",
			s, exp.Vectors.Rows, 100*svmErr, nz, 100*er, r.Iterations, r.Stop, r.W0, r.W)
		if r.Stop != StopConverged && r.Stop != StopGradient {
			t.Errorf("split %d: SKFD stopped: %s after %d iterations", s, r.Stop, r.Iterations)
		}
		sumSVM += svmErr
		sumSKFD += er
	}
	mSVM, mSKFD := 100*sumSVM/float64(runs), 100*sumSKFD/float64(runs)
	t.Logf("mean over %d splits: SVM %.2f%%, SKFD %.2f%% (paper: 9.9%% and 9.9%%)", runs, mSVM, mSKFD)
	if mSKFD > 9.9+2 {
		t.Errorf("SKFD mean test error %.2f%%, more than 2 points above the paper's 9.9%%", mSKFD)
	}
}

// TestSKFDDuplicateHeavy is issue 30, item 4's titanic-like case: on 10
// random 150-row splits of a titanic-like set with Titanic's class balance
// (C = 1e5, γ = 0.5, Nz = 10% of the SVs), SKFD must do better than
// predicting the training set's majority class on every split, and its
// mean test error must be within 2 points of the SVM's.
func TestSKFDDuplicateHeavy(t *testing.T) {
	e := goEngine(t)
	k := pursuit.NewRBF(0.5)
	const c = 1e5
	// Titanic's classes are about 32:68; so are these, by dropping every
	// second positive row of a data.Coarse sample.
	all := data.Coarse(2200, 31)
	var keep []int
	var npos int
	for i, v := range all.Y {
		if v > 0 {
			npos++
			if npos%2 == 0 {
				continue
			}
		}
		keep = append(keep, i)
	}
	pool := all.Subset(keep)
	var sumSVM, sumSKFD float64
	for s := range 10 {
		parts := data.Split(pool.Len(), []float64{150 / float64(pool.Len()), 1 - 150/float64(pool.Len())}, uint64(100+s), pool.Y)
		tr, te := pool.Subset(parts[0]), pool.Subset(parts[1])
		exp := svmExpansion(t, e, tr.X, tr.Y, k, c)
		var pos float64
		for _, v := range tr.Y {
			if v > 0 {
				pos++
			}
		}
		major := 1.0
		if 2*pos < float64(len(tr.Y)) {
			major = -1
		}
		var wrong float64
		for _, v := range te.Y {
			if v != major {
				wrong++
			}
		}
		majErr := wrong / float64(len(te.Y))
		r, err := TrainSKFD(e, tr.X, tr.Y, Config{Kernel: k, C: c, NumXV: exp.NumXVFraction(0.1), Init: InitKMeans, Seed: uint64(s)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		er, err := r.Model.ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		svmErr, err := exp.AsModel().ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("split %d: %d training rows, %.0f positive; majority %.2f%%, SVM %.2f%%, SKFD %.2f%% (%d iterations, %s, %d rows merged)",
			s, tr.Len(), pos, 100*majErr, 100*svmErr, 100*er, r.Iterations, r.Stop, r.Duplicates)
		if er >= majErr {
			t.Errorf("split %d: SKFD test error %.2f%% not below the majority class's %.2f%%", s, 100*er, 100*majErr)
		}
		sumSVM += svmErr
		sumSKFD += er
	}
	t.Logf("mean over 10 splits: SVM %.2f%%, SKFD %.2f%%", 10*sumSVM, 10*sumSKFD)
	if sumSKFD > sumSVM+10*0.02 {
		t.Errorf("SKFD mean test error %.2f%% more than 2 points above the SVM's %.2f%%", 10*sumSKFD, 10*sumSVM)
	}
}

// svmExpansion trains a C-SVC with kernel k and C = c on (x, y) and returns
// it as an expansion (positive class 1).
func svmExpansion(t *testing.T, e *engine.Engine, x pursuit.Matrix, y []float64, k pursuit.Kernel, c float64) *Expansion {
	t.Helper()
	m, err := svm.Train(e, x, y, svm.Params{Kernel: k, C: c})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := FromSVM(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

// bananaSplits returns n random 400/4900 training/test splits (stratified)
// of one banana-like pool of 5300 points (data.Banana, noise 0.3), the
// sizes of Rätsch's banana benchmark.
func bananaSplits(t testing.TB, n int) [][2]*data.Dataset {
	t.Helper()
	pool := data.Banana(5300, 0.3, 7)
	var out [][2]*data.Dataset
	for s := range n {
		parts := data.Split(pool.Len(), []float64{400.0 / 5300, 4900.0 / 5300}, uint64(100+s), pool.Y)
		out = append(out, [2]*data.Dataset{pool.Subset(parts[0]), pool.Subset(parts[1])})
	}
	return out
}

// TestRSSpreadBanana is issue 30, item 5: on 10 random splits of
// banana-like data with Rätsch's banana parameters (γ = 1, C = 316) and
// Nz = 10% of the SVs, the spread (largest minus smallest) of RS's test
// error must be at most 3 times the SVM's, and RS's mean error within 3
// points of the SVM's. With Burges' feature-space coefficients (which
// RSOptions.FeatureSpaceCoef keeps, logged here) RS ranged over
// 15.7–34.3% where the SVM ranged over 15.2–17.9%: they reproduce the
// SVM's decision values at its SVs worse than the zero function on 9 of
// the 10 splits (relative RMS 0.83–2.6), and RS now refits them there.
func TestRSSpreadBanana(t *testing.T) {
	e := goEngine(t)
	k := pursuit.NewRBF(1)
	const c = 316
	var svmErrs, rsErrs []float64
	for s, sp := range bananaSplits(t, 10) {
		tr, te := sp[0], sp[1]
		exp := svmExpansion(t, e, tr.X, tr.Y, k, c)
		svmErr, err := exp.AsModel().ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		nz := exp.NumXVFraction(0.1)
		rs, err := ReducedSet(exp, nz, RSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rsErr, err := rs.Model.ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		fsc, err := ReducedSet(exp, nz, RSOptions{FeatureSpaceCoef: true})
		if err != nil {
			t.Fatal(err)
		}
		fscErr, err := fsc.Model.ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("split %d: SVM %d SVs, %.2f%%; RS Nz = %d: %.2f%% (decision RMS %.3f, feature-space residual %.3f); feature-space coefficients: %.2f%% (decision RMS %.3f)",
			s, exp.Vectors.Rows, 100*svmErr, nz, 100*rsErr, rs.DecisionRMS, rs.FeatureResidual, 100*fscErr, fsc.DecisionRMS)
		svmErrs = append(svmErrs, 100*svmErr)
		rsErrs = append(rsErrs, 100*rsErr)
	}
	stats := func(v []float64) (mean, spread float64) {
		return stat.Mean(v, nil), floats.Max(v) - floats.Min(v)
	}
	mSVM, sSVM := stats(svmErrs)
	mRS, sRS := stats(rsErrs)
	t.Logf("over 10 splits: SVM mean %.2f%%, %.2f–%.2f (spread %.2f); RS mean %.2f%%, %.2f–%.2f (spread %.2f)",
		mSVM, floats.Min(svmErrs), floats.Max(svmErrs), sSVM, mRS, floats.Min(rsErrs), floats.Max(rsErrs), sRS)
	if sRS > 3*sSVM {
		t.Errorf("RS test error spread %.2f points over 10 splits, more than 3 times the SVM's %.2f", sRS, sSVM)
	}
	if mRS > mSVM+3 {
		t.Errorf("RS mean test error %.2f%%, more than 3 points above the SVM's %.2f%%", mRS, mSVM)
	}
}
