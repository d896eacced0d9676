package main

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

type cvOptions struct {
	dataFlags
	modelFlags
	folds                   int
	gridGamma, gridC, gridN string
	gridEps                 string
	model                   string
}

func newCVFlags() (*flag.FlagSet, *cvOptions) {
	o := &cvOptions{}
	fs := flag.NewFlagSet("cv", flag.ContinueOnError)
	addDataFlags(fs, &o.dataFlags, true)
	addModelFlags(fs, &o.modelFlags)
	fs.IntVar(&o.folds, "folds", 5, "number of cross-validation folds `K` (stratified by class)")
	fs.StringVar(&o.gridGamma, "grid-gamma", "", "comma-separated kernel γ values to try, e.g. 0.01,0.1,1 (default: --gamma)")
	fs.StringVar(&o.gridC, "grid-c", "", "comma-separated C values to try (svm, slmc), e.g. 1,10,100 (default: --c)")
	fs.StringVar(&o.gridN, "grid-basis", "", "comma-separated numbers of kernel basis functions to try (as --basis), KMP family; without --val-frac one training per fold serves them all (default: --basis)")
	fs.StringVar(&o.gridEps, "grid-epsilon", "", "comma-separated ε values to try (bpdn: Girosi's only free parameter; svm ε-SVR), e.g. 0.05,0.1,0.5")
	fs.StringVar(&o.model, "model", "", "retrain on all of --data with the best setting and write the model to `FILE` ("+safeWriteHelp+")")
	return fs, o
}

func cvCommand() *command {
	return &command{
		name:    "cv",
		summary: "k-fold cross-validation over a small grid of γ, C or N",
		usage: `pursuit cv --data FILE [--folds K] [--algo ALGO] [--grid-gamma G1,G2,...] [--grid-c C1,C2,...]
                   [--grid-basis N1,N2,...] [--test FILE] [--model OUT] [train's flags] [--json]`,
		examples: `# choose γ and C of an SVM by 5-fold cross-validation:
pursuit cv --data sonar.gz --algo svm --grid-gamma 0.01,0.03,0.1 --grid-c 1,10,100
# choose the number of KMP basis functions, then test the best on a separate file:
pursuit cv --data train.txt --test test.txt --algo kmp --gamma 0.5 --grid-basis 10,20,50,100 --json`,
		run:       runCV,
		flagNotes: algoFlagsHelp,
	}
}

// cvPoint is one grid setting and its cross-validated figures.
type cvPoint struct {
	Gamma        *float64 `json:"gamma,omitempty"`
	C            *float64 `json:"c,omitempty"`
	Basis        *int     `json:"basis,omitempty"`
	Epsilon      *float64 `json:"epsilon,omitempty"`
	CVError      float64  `json:"cv_error"`
	CVStd        float64  `json:"cv_std"`
	TrainError   float64  `json:"train_error"`
	NBasis       float64  `json:"n_basis"`
	TrainSeconds float64  `json:"train_seconds"`
}

// cvSetting is one point of the cross-validation grid (gamma or eps NaN:
// the flag's value) and its figures.
type cvSetting struct {
	gamma, c, eps float64
	basis         int
	pt            cvPoint
}

// cvJSON is the object `pursuit cv --json` prints: the fields of train's
// object for the best setting (train_error and n_basis averaged over the
// folds, test_error on --test after retraining on all the data, null without
// it), plus the cross-validation error and the whole grid.
type cvJSON struct {
	resultJSON
	Folds   int       `json:"folds"`
	CVError float64   `json:"cv_error"`
	Best    cvPoint   `json:"best"`
	Grid    []cvPoint `json:"grid"`
}

func parseList(flagName, s string, integer bool) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) || (integer && v != math.Trunc(v)) {
			kind := "positive numbers"
			if integer {
				kind = "positive integers"
			}
			return nil, fmt.Errorf("--%s %q: want comma-separated %s, e.g. 1,10,100", flagName, s, kind)
		}
		out = append(out, v)
	}
	return out, nil
}

func runCV(ev *env, args []string) error {
	c := cvCommand()
	fs, o := newCVFlags()
	if err := parseFlags(ev, c, fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	if err := o.dataFlags.validate(set, true); err != nil {
		return err
	}
	if err := o.modelFlags.validate(set); err != nil {
		return err
	}
	if err := o.dataFlags.implyRegression(&o.modelFlags); err != nil {
		return err
	}
	if o.folds < 2 {
		return fmt.Errorf("--folds %d: need at least 2", o.folds)
	}
	gammas, err := parseList("grid-gamma", o.gridGamma, false)
	if err != nil {
		return err
	}
	cs, err := parseList("grid-c", o.gridC, false)
	if err != nil {
		return err
	}
	ns, err := parseList("grid-basis", o.gridN, true)
	if err != nil {
		return err
	}
	epsList, err := parseEpsGrid(o.gridEps, o.algo, &o.modelFlags)
	if err != nil {
		return err
	}
	algo, _ := findAlgorithm(o.algo)
	if len(gammas) > 0 && (set["gamma"] || set["sigma"]) {
		return fmt.Errorf("give --grid-gamma or --gamma/--sigma, not both")
	}
	if len(gammas) > 0 && o.kernel == "linear" {
		return fmt.Errorf("--grid-gamma: the linear kernel has no γ")
	}
	// --grid-c and --grid-basis are in algoFlags' table, checked by validate.
	e, err := o.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	all, test, plan, err := o.loadTrainTest(e)
	if err != nil {
		return err
	}
	if all.Len() < 2*o.folds {
		return fmt.Errorf("%s: %d examples are too few for %d folds", o.data, all.Len(), o.folds)
	}
	var strat []float64
	if plan.Task != taskRegression {
		strat = all.Y
	}
	folds := data.KFold(all.Len(), o.folds, uint64(o.seed), strat)

	// The grid: every combination of the lists given (a missing list is the
	// single value of the corresponding flag).
	if gammas == nil {
		gammas = []float64{math.NaN()}
	}
	if cs == nil {
		cs = []float64{o.c}
	}
	if ns == nil {
		ns = []float64{float64(o.basis)}
	}
	var grid []cvSetting
	for _, g := range gammas {
		for _, cv := range cs {
			for _, ev := range epsList {
				for _, n := range ns {
					grid = append(grid, cvSetting{gamma: g, c: cv, eps: ev, basis: int(n)})
				}
			}
		}
	}
	bar := newProgress(ev, "cv "+algo.name, o.progress, o.quiet)
	defer bar.Close()
	total := len(grid) * o.folds
	done := 0
	start := time.Now()
	// Settings that differ only in N are consecutive. For the KMP family
	// without early stopping, one training with the largest N per fold
	// serves them all: the model after n steps is the model trained with
	// N = n (kmp's Truncate), so the grid over N costs one training.
	truncate := algo.usesBasis && len(ns) > 1 && o.valFrac == 0
	for gi := 0; gi < len(grid); {
		gj := gi + 1
		for gj < len(grid) && sameFloat(grid[gj].gamma, grid[gi].gamma) && grid[gj].c == grid[gi].c && sameFloat(grid[gj].eps, grid[gi].eps) {
			gj++
		}
		group := grid[gi:gj]
		gi = gj
		mf := o.modelFlags
		if g := group[0].gamma; !math.IsNaN(g) {
			mf.gamma, mf.sigma = g, 0
		}
		mf.c = group[0].c
		setEps(&mf, group[0].eps)
		maxN := 0
		for k := range group {
			s := &group[k]
			if !math.IsNaN(s.gamma) {
				g := s.gamma
				s.pt.Gamma = &g
			}
			if len(cs) > 1 || set["c"] {
				c := s.c
				s.pt.C = &c
			}
			if algo.usesBasis {
				b := s.basis
				s.pt.Basis = &b
			}
			if !math.IsNaN(s.eps) {
				ev := s.eps
				s.pt.Epsilon = &ev
			}
			maxN = max(maxN, s.basis)
		}
		errs := make([][]float64, len(group))
		for f := range folds {
			var trIdx []int
			for g, fold := range folds {
				if g != f {
					trIdx = append(trIdx, fold...)
				}
			}
			// The fold's copies, charged to the memory budget while in use.
			foldBytes := int64(all.Len()) * int64(all.Dim()*4+8)
			if err := e.Hold(fmt.Sprintf("the copies of fold %d/%d", f+1, o.folds), foldBytes); err != nil {
				return err
			}
			trSet, teSet := all.Subset(trIdx), all.Subset(folds[f])
			if truncate {
				mf.basis = maxN
				res, err := fitSplit(e, algo, &mf, &o.dataFlags, plan, trSet, teSet, nil)
				if err != nil {
					return fmt.Errorf("%s fold %d/%d: %w", describeSetting(group[len(group)-1].pt), f+1, o.folds, err)
				}
				steps, ok := basisSteps(res.model, group)
				var teErr, trErr []float64
				var sizes []int
				if ok {
					teErr, trErr, sizes, ok, err = prefixErrors(e, res, steps)
				}
				e.Release(res.held)
				if err != nil {
					return fmt.Errorf("%s fold %d/%d: %w", describeSetting(group[len(group)-1].pt), f+1, o.folds, err)
				}
				if ok {
					for k := range group {
						s := &group[k]
						errs[k] = append(errs[k], teErr[k])
						s.pt.TrainError += trErr[k] / float64(o.folds)
						s.pt.NBasis += float64(sizes[k]) / float64(o.folds)
						s.pt.TrainSeconds += res.trainSeconds // one training shared by the group
					}
					done += len(group)
					bar.Update(progressUpdate{Step: done, Total: total, Metric: "cv error", Value: mean(errs[len(group)-1]), ValErr: math.NaN()})
					e.Release(foldBytes)
					continue
				}
			}
			for k := range group {
				s := &group[k]
				mf.basis = s.basis
				res, err := fitSplit(e, algo, &mf, &o.dataFlags, plan, trSet, teSet, nil)
				if err != nil {
					return fmt.Errorf("%s fold %d/%d: %w", describeSetting(s.pt), f+1, o.folds, err)
				}
				errs[k] = append(errs[k], res.testErr)
				s.pt.TrainError += res.trainErr / float64(o.folds)
				s.pt.NBasis += float64(res.model.nBasis()) / float64(o.folds)
				s.pt.TrainSeconds += res.trainSeconds
				e.Release(res.held)
				done++
				bar.Update(progressUpdate{Step: done, Total: total, Metric: "cv error", Value: mean(errs[k]), ValErr: math.NaN()})
			}
			e.Release(foldBytes)
		}
		for k := range group {
			group[k].pt.CVError, group[k].pt.CVStd = mean(errs[k]), stddev(errs[k])
		}
	}
	bar.Done()
	best := 0
	for gi := range grid {
		if grid[gi].pt.CVError < grid[best].pt.CVError {
			best = gi
		}
	}
	out := cvJSON{Folds: o.folds, CVError: grid[best].pt.CVError, Best: grid[best].pt}
	for _, s := range grid {
		out.Grid = append(out.Grid, s.pt)
	}
	out.resultJSON = resultJSON{
		Algorithm: algo.name, Backend: e.BackendName(), Task: plan.Task,
		NTrain: all.Len(), NBasis: int(math.Round(grid[best].pt.NBasis)),
		TrainError: num(grid[best].pt.TrainError), TestError: nil, TrainSeconds: time.Since(start).Seconds(),
	}
	// Retrain on all the data with the best setting when a test set or a
	// model file is asked for.
	if test != nil || o.model != "" {
		mf := o.modelFlags
		b := grid[best]
		if !math.IsNaN(b.gamma) {
			mf.gamma, mf.sigma = b.gamma, 0
		}
		mf.c, mf.basis = b.c, b.basis
		setEps(&mf, b.eps)
		res, err := fitSplit(e, algo, &mf, &o.dataFlags, plan, all, test, nil)
		if err != nil {
			return fmt.Errorf("retraining with the best setting: %w", err)
		}
		out.Kernel = res.model.hdr.Kernel
		out.NBasis = res.model.nBasis()
		out.TrainError = num(res.trainErr)
		if test != nil {
			out.NTest, out.TestError, out.PredictSeconds = test.Len(), num(res.testErr), res.predictSeconds
		}
		res.model.hdr.Train.Data = filepath.Base(o.data)
		if o.model != "" {
			if out.ModelBytes, err = res.model.save(o.model); err != nil {
				return err
			}
			out.Model = o.model
		} else if out.ModelBytes, err = res.model.size(); err != nil {
			return err
		}
	}
	if o.jsonOutput {
		return printJSON(ev, out)
	}
	w := ev.stdout
	fmt.Fprintf(w, "%d-fold cross-validation of %s on %s (%d examples, %s), backend %s\n\n", o.folds, algo.name, o.data, all.Len(), describeTask(&plan), e.BackendName())
	// Classification reports error rates in percent; regression the mean
	// squared error as it is (a percentage of an MSE means nothing).
	what, cell := "cv error", func(v float64) string { return fmt.Sprintf("%.2f%%", 100*v) }
	if plan.Task == taskRegression {
		what, cell = "cv MSE", func(v float64) string { return fmt.Sprintf("%.4g", v) }
	}
	fmt.Fprintf(w, "  %-36s %12s %10s %10s %9s\n", "setting", what, "± std", "basis", "seconds")
	for gi, s := range grid {
		mark := " "
		if gi == best {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-36s %12s %10s %10.1f %9.3g\n", mark, describeSetting(s.pt), cell(s.pt.CVError), cell(s.pt.CVStd), s.pt.NBasis, s.pt.TrainSeconds)
	}
	fmt.Fprintf(w, "\nbest: %s, %s %s\n", describeSetting(grid[best].pt), what, cell(grid[best].pt.CVError))
	if out.TestError != nil {
		fmt.Fprintf(w, "retrained on all %d examples: %s on %s\n", all.Len(), errText(&plan, *out.TestError, out.NTest), o.test)
	}
	if out.Model != "" {
		fmt.Fprintf(w, "saved %s (%s)\n", out.Model, humanSize(out.ModelBytes))
	}
	return nil
}

func describeSetting(p cvPoint) string {
	var parts []string
	if p.Gamma != nil {
		parts = append(parts, fmt.Sprintf("gamma=%g", *p.Gamma))
	}
	if p.C != nil {
		parts = append(parts, fmt.Sprintf("C=%g", *p.C))
	}
	if p.Epsilon != nil {
		parts = append(parts, fmt.Sprintf("epsilon=%g", *p.Epsilon))
	}
	if p.Basis != nil {
		if *p.Basis == 0 {
			parts = append(parts, "basis=default")
		} else {
			parts = append(parts, fmt.Sprintf("basis=%d", *p.Basis))
		}
	}
	if len(parts) == 0 {
		return "(flags as given)"
	}
	return strings.Join(parts, " ")
}

// fitSplit trains with flags mf on tr (unscaled; a validation part is held
// out when --val-frac is set), scaling as the flags say, and evaluates on
// test (may be nil), reporting progress on bar (may be nil). tr and test
// are left as they are: it works on copies charged to e's memory budget
// until e.Release(res.held).
func fitSplit(e *engine.Engine, algo *algorithm, mf *modelFlags, df *dataFlags, plan labelPlan, tr, test *data.Dataset, bar *progressBar) (*fitResult, error) {
	pr, err := prepare(e, df, mf.seed, &plan, tr, test, false, false)
	if err != nil {
		return nil, err
	}
	res, err := fitPrepared(e, algo, mf, df, plan, pr, bar)
	if err != nil {
		e.Release(pr.held)
		return nil, err
	}
	res.held = pr.held
	return res, nil
}

// fitPrepared trains with flags mf on the prepared sets and evaluates on
// them.
func fitPrepared(e *engine.Engine, algo *algorithm, mf *modelFlags, df *dataFlags, plan labelPlan, pr *prepared, bar *progressBar) (*fitResult, error) {
	tr, val, test := pr.tr, pr.val, pr.test
	p, err := mf.params(tr.Dim(), df, val != nil)
	if err != nil {
		return nil, err
	}
	res, err := fit(e, algo, p, plan, tr, val, test, bar)
	if err != nil {
		return nil, err
	}
	res.tr, res.val, res.test = tr, val, test
	res.model.hdr.Scaler = pr.scaler
	res.model.hdr.Train = trainSummary{NTrain: tr.Len(), TrainError: res.trainErr, TrainSeconds: res.trainSeconds,
		Backend: e.BackendName(), Seed: mf.seed, Version: version}
	if val != nil {
		res.model.hdr.Train.NVal, res.model.hdr.Train.ValError = val.Len(), res.valErr
	}
	return res, nil
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// prefixErrors evaluates the model of res after each number of steps in
// steps on its test and training sets: the error rates and basis sizes; ok
// is false when the algorithm cannot predict with a prefix of its steps.
// basisSteps returns, for each setting of group, the number of steps after
// which m (trained with the group's largest --basis) is the model trained
// with the setting's --basis; ok is false when m cannot say (several
// outputs), and each setting is then trained on its own.
func basisSteps(m *cliModel, group []cvSetting) (steps []int, ok bool) {
	if len(m.models) != 1 {
		return nil, false
	}
	sb, isKMP := m.models[0].(interface{ StepsForBasis(n int) (int, bool) })
	if !isKMP {
		return nil, false
	}
	for _, s := range group {
		n, ok := sb.StepsForBasis(s.basis)
		if !ok {
			return nil, false
		}
		steps = append(steps, n)
	}
	return steps, true
}

func prefixErrors(e *engine.Engine, res *fitResult, steps []int) (teErr, trErr []float64, sizes []int, ok bool, err error) {
	m := res.model
	sizes, ok, err = m.prefixSizes(steps)
	if !ok || err != nil {
		return nil, nil, nil, ok, err
	}
	lp := &m.hdr.Labels
	rates := func(ds *data.Dataset) ([]float64, error) {
		decs, _, err := m.prefixDecisions(e, ds.X, steps)
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(steps))
		truth := lp.truth(ds.Y)
		for i, d := range decs {
			out[i] = lp.errorRate(lp.decide(d), truth)
		}
		return out, nil
	}
	if teErr, err = rates(res.test); err != nil {
		return nil, nil, nil, true, err
	}
	if trErr, err = rates(res.tr); err != nil {
		return nil, nil, nil, true, err
	}
	return teErr, trErr, sizes, true, nil
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func stddev(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	m, s := mean(v), 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}
