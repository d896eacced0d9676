package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

type cvOptions struct {
	dataFlags
	modelFlags
	folds                   int
	gridGamma, gridC, gridN string
	gridEps                 string
	grids                   gridFlags
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
	fs.Var(&o.grids, "grid", "`NAME=V1,V2,...`: values to try for any other numeric training flag of the algorithm, e.g. --grid nz=5,10,20 (slmc) or --grid degree=2,3 (poly kernel); repeat it for more flags")
	fs.StringVar(&o.model, "model", "", "retrain on all of --data with the best setting and write the model to `FILE` ("+safeWriteHelp+")")
	return fs, o
}

func cvCommand() *command {
	return &command{
		name:    "cv",
		summary: "k-fold cross-validation over a small grid of γ, C or N",
		usage: `pursuit cv --data FILE [--folds K] [--algo ALGO] [--grid-gamma G1,G2,...] [--grid-c C1,C2,...]
                   [--grid-basis N1,N2,...] [--grid NAME=V1,V2,...] [--test FILE] [--model OUT] [train's flags] [--json]`,
		examples: `# choose γ and C of an SVM by 5-fold cross-validation:
pursuit cv --data sonar.gz --algo svm --grid-gamma 0.01,0.03,0.1 --grid-c 1,10,100
# choose the number of KMP basis functions, then test the best on a separate file:
pursuit cv --data train.txt --test test.txt --algo kmp --gamma 0.5 --grid-basis 10,20,50,100 --json
# any other numeric training flag: SLMC's number of expansion vectors, a poly kernel's degree and constant:
pursuit cv --data train.txt --algo slmc --grid nz=5,10,20
pursuit cv --data train.txt --algo svm --kernel poly --grid degree=2,3 --grid coef0=0,1
# across 4 MPI ranks (a binary built with -tags mpi): every rank loads all of --data and trains its
# share of the (setting, fold) trainings in one process; rank 0 gathers the figures and prints them
# (and retrains with the best setting for --test or --model):
mpirun -np 4 pursuit cv --data sonar.gz --algo svm --grid-gamma 0.01,0.03,0.1 --grid-c 1,10,100`,
		run:       runCV,
		flagNotes: algoFlagsHelp,
	}
}

// cvPoint is one grid setting and its cross-validated figures.
type cvPoint struct {
	Gamma   *float64 `json:"gamma,omitempty"`
	C       *float64 `json:"c,omitempty"`
	Basis   *int     `json:"basis,omitempty"`
	Epsilon *float64 `json:"epsilon,omitempty"`
	// Settings holds the values of the --grid flags, by flag name.
	Settings     map[string]float64 `json:"settings,omitempty"`
	CVError      float64            `json:"cv_error"`
	CVStd        float64            `json:"cv_std"`
	TrainError   float64            `json:"train_error"`
	NBasis       float64            `json:"n_basis"`
	TrainSeconds float64            `json:"train_seconds"`
}

// cvSetting is one point of the cross-validation grid (gamma or eps NaN:
// the flag's value) and its figures.
type cvSetting struct {
	gamma, c, eps float64
	basis         int
	grid          []gridValue // the --grid flags' values
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
		if errors.Is(err, errHelp) {
			return err
		}
		return ev.together(err)
	}
	set := setFlags(fs)
	var gammas, cs, ns, epsList []float64
	var gridLists [][]gridValue
	err := func() (err error) {
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
		if err := checkOutputs(o.inputFiles(), fileArg{"--model", o.model}); err != nil {
			return err
		}
		if gammas, err = parseList("grid-gamma", o.gridGamma, false); err != nil {
			return err
		}
		if cs, err = parseList("grid-c", o.gridC, false); err != nil {
			return err
		}
		if ns, err = parseList("grid-basis", o.gridN, true); err != nil {
			return err
		}
		if epsList, err = parseEpsGrid(o.gridEps, o.algo, &o.modelFlags); err != nil {
			return err
		}
		if gridLists, err = parseGrids(o.grids, &o.modelFlags, set); err != nil {
			return err
		}
		if len(gammas) > 0 && (set["gamma"] || set["sigma"]) {
			return fmt.Errorf("give --grid-gamma or --gamma/--sigma, not both")
		}
		if len(gammas) > 0 && o.kernel == "linear" {
			return fmt.Errorf("--grid-gamma: the linear kernel has no γ")
		}
		// --grid-c and --grid-basis are in algoFlags' table, checked by validate.
		return nil
	}()
	if err := ev.together(err); err != nil {
		return err
	}
	if err := checkConfig(ev.world(), dataEntries(&o.dataFlags)); err != nil {
		return err
	}
	algo, _ := findAlgorithm(o.algo)
	// Across ranks, every rank loads all the data and trains its share of
	// the (setting, fold) trainings in one process.
	e, err := o.newEngine()
	if err := ev.together(err); err != nil {
		return err
	}
	defer e.Close()
	o.dataFlags.sparseOK, o.dataFlags.storageAlgo = sparseAlgos[algo.name], algo.name
	if note := o.dataFlags.storageNote(); note != "" && ev.world().Rank() == 0 {
		fmt.Fprintf(ev.stderr, "pursuit cv: %s\n", note)
	}
	all, test, plan, err := o.loadTrainTest(e)
	var stor *storageJSON
	if err == nil {
		stor = o.describeStorage(all) // before scaling fills in any zeros
	}
	if err == nil && all.Len() < 2*o.folds {
		err = fmt.Errorf("%s: %d examples are too few for %d folds", o.data, all.Len(), o.folds)
	}
	if err := ev.together(err); err != nil {
		return err
	}
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
	for _, gv := range gridCombos(gridLists) {
		for _, g := range gammas {
			for _, cv := range cs {
				for _, ev := range epsList {
					for _, n := range ns {
						grid = append(grid, cvSetting{gamma: g, c: cv, eps: ev, basis: int(n), grid: gv})
					}
				}
			}
		}
	}
	// The grid's groups: settings that differ only in N are consecutive.
	// For the KMP family without early stopping, one training with the
	// largest N per fold serves a group: the model after n steps is the
	// model trained with N = n (kmp's Truncate), so the grid over N costs
	// one training.
	truncate := algo.usesBasis && len(ns) > 1 && o.valFrac == 0
	var groups []learn.CVGroup
	var learnerErr error
	for gi := 0; gi < len(grid) && learnerErr == nil; {
		gj := gi + 1
		for gj < len(grid) && sameFloat(grid[gj].gamma, grid[gi].gamma) && grid[gj].c == grid[gi].c && sameFloat(grid[gj].eps, grid[gi].eps) &&
			slices.Equal(grid[gj].grid, grid[gi].grid) {
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
		applyGrid(&mf, group[0].grid)
		maxN := 0
		var cg learn.CVGroup
		for k := range group {
			s := &group[k]
			for _, v := range s.grid {
				if s.pt.Settings == nil {
					s.pt.Settings = map[string]float64{}
				}
				s.pt.Settings[v.name], _ = strconv.ParseFloat(v.value, 64)
			}
			if !math.IsNaN(s.gamma) {
				g := s.gamma
				s.pt.Gamma = &g
			}
			if len(cs) > 1 || set["c"] {
				c := s.c
				s.pt.C = &c
			}
			if algo.usesBasis || len(ns) > 1 || set["basis"] {
				b := s.basis
				s.pt.Basis = &b
			}
			if !math.IsNaN(s.eps) {
				ev := s.eps
				s.pt.Epsilon = &ev
			}
			maxN = max(maxN, s.basis)
			mf.basis = s.basis
			l, err := flagLearner(algo, &mf, &o.dataFlags, plan, all.Dim())
			if err != nil {
				learnerErr = fmt.Errorf("%s: %w", describeSetting(s.pt), err)
				break
			}
			cg.Learners = append(cg.Learners, l)
			cg.Names = append(cg.Names, describeSetting(s.pt))
			cg.Basis = append(cg.Basis, s.basis)
		}
		// For the KMP family without early stopping, one training with the
		// largest N per fold serves a group: the model after n steps is the
		// model trained with N = n (kmp's Truncate), so the grid over N
		// costs one training.
		if truncate && learnerErr == nil {
			mf.basis = maxN
			cg.Shared, learnerErr = flagLearner(algo, &mf, &o.dataFlags, plan, all.Dim())
		}
		groups = append(groups, cg)
	}
	prep, err := o.dataFlags.prep(o.seed)
	if err == nil {
		err = learnerErr
	}
	if err := ev.together(err); err != nil {
		return err
	}
	// The trainings: one per group and fold, spread over the ranks.
	world := ev.world()
	bar := newProgress(ev, "cv "+algo.name, o.progress, o.quiet)
	defer bar.Close()
	start := time.Now()
	cvRun := learn.CV{Folds: o.folds, Seed: uint64(o.seed), Prep: prep, Ranks: engine.GroupOf(world), Progress: bar.Update, Agree: ev.together}
	results, err := cvRun.Grid(e, groups, plan, all)
	if err != nil {
		return err
	}
	for i := range grid {
		r := results[i]
		grid[i].pt.CVError, grid[i].pt.CVStd, grid[i].pt.TrainError = r.Error, r.Std, r.TrainError
		grid[i].pt.NBasis, grid[i].pt.TrainSeconds = r.NBasis, r.Seconds
	}
	rank := world.Rank()
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
		Storage: stor,
	}
	if m, err := scaleFlag(o.scale); err == nil {
		out.Scale = string(learn.ResolveScale(m, all))
	}
	// Retrain on all the data with the best setting when a test set or a
	// model file is asked for (rank 0 alone, across ranks).
	var err2 error
	if (test != nil || o.model != "") && rank == 0 {
		err2 = cvRetrain(e, algo, &o.modelFlags, &o.dataFlags, plan, all, test, grid[best], o.model, &out)
	}
	if err := ev.together(err2); err != nil {
		return err
	}
	if o.jsonOutput {
		return printJSON(ev, out)
	}
	w := ev.stdout
	fmt.Fprintf(w, "%d-fold cross-validation of %s on %s (%d examples, %s), backend %s\n\n", o.folds, algo.name, o.data, all.Len(), describeTask(&plan), e.BackendName())
	// Classification reports error rates in percent; regression the mean
	// squared error as it is (a percentage of an MSE means nothing).
	what, cell := "cv error", func(v float64) string { return fmt.Sprintf("%.2f%%", 100*v) }
	if plan.Task == learn.TaskRegression {
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
	names := make([]string, 0, len(p.Settings))
	for name := range p.Settings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s=%g", name, p.Settings[name]))
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
func fitSplit(e *engine.Engine, algo *algorithm, mf *modelFlags, df *dataFlags, plan learn.LabelPlan, tr, test *data.Dataset, bar *progressBar) (*fitResult, error) {
	pr, err := prepare(e, df, mf.seed, &plan, tr, test, false, false)
	if err != nil {
		return nil, err
	}
	res, err := fitPrepared(e, algo, mf, df, plan, pr, bar)
	if err != nil {
		pr.Release(e)
		return nil, err
	}
	res.held = pr.Held
	return res, nil
}

// fitPrepared trains with flags mf on the prepared sets and evaluates on
// them.
func fitPrepared(e *engine.Engine, algo *algorithm, mf *modelFlags, df *dataFlags, plan learn.LabelPlan, pr *learn.Prepared, bar *progressBar) (*fitResult, error) {
	tr, val, test := pr.Train, pr.Val, pr.Test
	p, err := mf.params(tr.Dim(), df, val != nil)
	if err != nil {
		return nil, err
	}
	res, err := fit(e, algo, p, plan, tr, val, test, bar)
	if err != nil {
		return nil, err
	}
	res.tr, res.val, res.test = tr, val, test
	res.model.Header.Scaler = pr.Scaler
	res.model.Header.Train = learn.TrainSummary{NTrain: tr.Len(), TrainError: res.trainErr, TrainSeconds: res.trainSeconds,
		Backend: e.BackendName(), Seed: mf.seed, Version: version}
	if val != nil {
		res.model.Header.Train.NVal, res.model.Header.Train.ValError = val.Len(), res.valErr
	}
	return res, nil
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// cvRetrain trains on all the data with the best setting b, tests on test
// (may be nil), writes the model to path when given, and fills out.
func cvRetrain(e *engine.Engine, algo *algorithm, flags *modelFlags, df *dataFlags, plan learn.LabelPlan, all, test *data.Dataset, b cvSetting, path string, out *cvJSON) error {
	mf := *flags
	if !math.IsNaN(b.gamma) {
		mf.gamma, mf.sigma = b.gamma, 0
	}
	mf.c, mf.basis = b.c, b.basis
	setEps(&mf, b.eps)
	applyGrid(&mf, b.grid)
	res, err := fitSplit(e, algo, &mf, df, plan, all, test, nil)
	if err != nil {
		return fmt.Errorf("retraining with the best setting: %w", err)
	}
	out.Kernel = res.model.Header.Kernel
	out.NBasis = res.model.NBasis()
	out.TrainError = num(res.trainErr)
	if test != nil {
		out.NTest, out.TestError, out.PredictSeconds = test.Len(), num(res.testErr), res.predictSeconds
	}
	res.model.Header.Train.Data = filepath.Base(df.data)
	if path != "" {
		if out.ModelBytes, err = res.model.WriteFile(path); err != nil {
			return err
		}
		out.Model = path
	} else if out.ModelBytes, err = res.model.Size(); err != nil {
		return err
	}
	return nil
}

// flagLearner is the learner of the flags mf for plan on data with dim
// features (early stopping with --val-frac).
func flagLearner(algo *algorithm, mf *modelFlags, df *dataFlags, plan learn.LabelPlan, dim int) (learn.Learner, error) {
	if err := algo.check(plan); err != nil {
		return nil, err
	}
	p, err := mf.params(dim, df, df.valFrac > 0)
	if err != nil {
		return nil, err
	}
	return algo.learner(p)
}
