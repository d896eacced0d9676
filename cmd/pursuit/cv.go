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
	return withFlags(&command{
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
		flagNotes: algoFlagsHelp,
	}, true, newCVFlags, runCV)
}

// cvJSON is the object `pursuit cv --json` prints: the fields of train's
// object for the best setting (train_error and n_basis averaged over the
// folds, test_error on --test after retraining on all the data, null without
// it), plus the cross-validation error and the whole grid.
type cvJSON struct {
	resultJSON
	Folds   int             `json:"folds"`
	CVError float64         `json:"cv_error"`
	Best    learn.CVPoint   `json:"best"`
	Grid    []learn.CVPoint `json:"grid"`
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

func runCV(ev *env, fs *flag.FlagSet, o *cvOptions) error {
	set := setFlags(fs)
	var gammas, cs, ns, epsList []float64
	var gridParams []learn.Param
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
		if epsList, err = parseEpsGrid(o.gridEps, o.Algo, &o.modelFlags); err != nil {
			return err
		}
		if gridParams, err = o.Settings.ParseGrid(o.grids, set); err != nil {
			return flagErr(err)
		}
		if len(gammas) > 0 && (set["gamma"] || set["sigma"]) {
			return fmt.Errorf("give --grid-gamma or --gamma/--sigma, not both")
		}
		if len(gammas) > 0 && o.Kernel == "linear" {
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
	algo, _ := findAlgorithm(o.Algo)
	// Across ranks, every rank loads all the data and trains its share of
	// the (setting, fold) trainings in one process.
	e, err := o.newEngine()
	if err := ev.together(err); err != nil {
		return err
	}
	defer e.Close()
	o.dataFlags.sparseOK, o.dataFlags.storageAlgo = algo.Sparse, algo.Name
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
	if len(epsList) == 1 && math.IsNaN(epsList[0]) {
		epsList = nil // --grid-epsilon not given
	}
	grid := learn.CVGrid{Gamma: gammas, C: cs, Epsilon: epsList, ShowC: len(cs) > 1 || set["c"],
		ShowBasis: algo.UsesBasis || len(ns) > 1 || set["basis"], Settings: gridParams}
	if grid.C == nil {
		grid.C = []float64{o.C}
	}
	for _, n := range ns {
		grid.Basis = append(grid.Basis, int(n))
	}
	if ns == nil {
		grid.Basis = []int{o.Basis}
	}
	prep, err := o.dataFlags.prep(o.Seed)
	if err := ev.together(err); err != nil {
		return err
	}
	// The trainings: one per group of settings and fold, spread over the
	// ranks. For the KMP family without early stopping, one training with
	// the largest N per fold serves the settings that differ only in N:
	// the model after n steps is the model trained with N = n (kmp's
	// Truncate), so the grid over N costs one training.
	world := ev.world()
	bar := newProgress(ev, "cv "+algo.Name, o.progress, o.quiet)
	defer bar.Close()
	start := time.Now()
	cvRun := learn.CV{Folds: o.folds, Seed: uint64(o.Seed), Prep: prep, Ranks: engine.GroupOf(world), Progress: bar.Update, Agree: ev.together}
	newLearner := func(p learn.CVPoint, basis int) (learn.Learner, error) {
		mf := pointFlags(&o.modelFlags, p, basis)
		return flagLearner(&mf, &o.dataFlags, plan, all.Dim())
	}
	points, best, err := cvRun.Search(e, grid, newLearner, algo.UsesBasis && len(ns) > 1 && o.ValFrac == 0, plan, all)
	if err := ev.together(err); err != nil {
		return err
	}
	rank := world.Rank()
	bar.Done()
	out := cvJSON{Folds: o.folds, CVError: points[best].CVError, Best: points[best], Grid: points}
	out.resultJSON = resultJSON{
		Algorithm: algo.Name, Backend: e.BackendName(), Task: plan.Task,
		NTrain: all.Len(), NBasis: int(math.Round(points[best].NBasis)),
		TrainError: num(points[best].TrainError), TestError: nil, TrainSeconds: time.Since(start).Seconds(),
		Storage: stor,
	}
	if m, err := o.ScaleMode(); err == nil {
		out.Scale = string(learn.ResolveScale(m, all))
	}
	// Retrain on all the data with the best setting when a test set or a
	// model file is asked for (rank 0 alone, across ranks).
	var err2 error
	if (test != nil || o.model != "") && rank == 0 {
		mf := pointFlags(&o.modelFlags, points[best], grid.Basis[best%len(grid.Basis)])
		err2 = cvRetrain(e, &mf, &o.dataFlags, plan, all, test, o.model, &out)
	}
	if err := ev.together(err2); err != nil {
		return err
	}
	if o.jsonOutput {
		return printJSON(ev, out)
	}
	w := ev.stdout
	fmt.Fprintf(w, "%d-fold cross-validation of %s on %s (%d examples, %s), backend %s\n\n", o.folds, algo.Name, o.data, all.Len(), plan.Describe(), e.BackendName())
	learn.WriteCVTable(w, points, best, plan.Task == learn.TaskRegression)
	if out.TestError != nil {
		fmt.Fprintf(w, "retrained on all %d examples: %s on %s\n", all.Len(), plan.ErrorText(*out.TestError, out.NTest), o.test)
	}
	if out.Model != "" {
		fmt.Fprintf(w, "saved %s (%s)\n", out.Model, learn.FormatSize(out.ModelBytes))
	}
	return nil
}

// pointFlags are the flags mf with the settings of grid point p and the
// basis size basis (learn.Settings.AtPoint).
func pointFlags(mf *modelFlags, p learn.CVPoint, basis int) modelFlags {
	f := *mf
	s, err := mf.AtPoint(p, basis)
	if err != nil {
		panic(fmt.Sprintf("grid point %s was validated: %v", p.Describe(), err))
	}
	f.Settings = s
	return f
}

// parseEpsGrid parses cv's --grid-epsilon (bpdn's ε, or the svm's ε-SVR
// tube); without it the grid has the single value NaN ("as the flags say").
func parseEpsGrid(s, algo string, m *modelFlags) ([]float64, error) {
	if s == "" {
		return []float64{math.NaN()}, nil
	}
	if algo != "bpdn" && algo != "svm" {
		return nil, fmt.Errorf("--grid-epsilon does not apply to --algo %s (it is for bpdn, and svm with --svr-epsilon)", algo)
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) || (algo == "svm" && v == 0) {
			return nil, fmt.Errorf("--grid-epsilon %q: want comma-separated non-negative numbers (positive for svm), e.g. 0.05,0.1,0.5", s)
		}
		out = append(out, v)
	}
	if algo == "svm" && m.SVREpsilon == 0 {
		return nil, fmt.Errorf("--grid-epsilon with --algo svm needs ε-SVR: give --svr-epsilon too (or --regression)")
	}
	return out, nil
}

// gridFlags is cv's repeatable --grid NAME=V1,V2,... (learn.Settings.ParseGrid).
type gridFlags []string

func (g *gridFlags) String() string     { return strings.Join(*g, " ") }
func (g *gridFlags) Set(s string) error { *g = append(*g, s); return nil }

// fitSplit trains with flags mf on tr (unscaled; a validation part is held
// out when --val-frac is set), scaling as the flags say, and evaluates on
// test (may be nil), reporting progress on bar (may be nil):
// learn.FitSettings.
// tr and test are left as they are: it works on copies charged to e's
// memory budget until e.Release(res.held).
func fitSplit(e *engine.Engine, mf *modelFlags, df *dataFlags, plan learn.LabelPlan, tr, test *data.Dataset, bar *progressBar) (*fitResult, error) {
	var progress func(learn.Progress)
	if bar != nil {
		bar.setLabel(trainLabel(mf.Algo, plan))
		progress = bar.Update
	}
	f, pr, err := learn.FitSettings(e, &mf.Settings, &df.DataSettings, plan, tr, test, progress, version, bar.Done)
	if err != nil {
		return nil, prepError(flagErr(err))
	}
	return &fitResult{Fitted: f, tr: pr.Train, val: pr.Val, test: pr.Test, held: pr.Held}, nil
}

// cvRetrain trains on all the data with the best setting's flags mf,
// tests on test (may be nil), writes the model to path when given, and
// fills out.
func cvRetrain(e *engine.Engine, mf *modelFlags, df *dataFlags, plan learn.LabelPlan, all, test *data.Dataset, path string, out *cvJSON) error {
	res, err := fitSplit(e, mf, df, plan, all, test, nil)
	if err != nil {
		return fmt.Errorf("retraining with the best setting: %w", err)
	}
	out.Kernel = res.Model.Header.Kernel
	out.NBasis = res.Model.NBasis()
	out.TrainError = num(res.TrainError)
	if test != nil {
		out.NTest, out.TestError, out.PredictSeconds = test.Len(), num(res.TestError), res.PredictSeconds
	}
	res.Model.Header.Train.Data = filepath.Base(df.data)
	if path != "" {
		if out.ModelBytes, err = res.Model.WriteFile(path); err != nil {
			return err
		}
		out.Model = path
	} else if out.ModelBytes, err = res.Model.Size(); err != nil {
		return err
	}
	return nil
}

// flagLearner is the learner of the flags mf for plan on data with dim
// features (early stopping with --val-frac).
func flagLearner(mf *modelFlags, df *dataFlags, plan learn.LabelPlan, dim int) (learn.Learner, error) {
	p, err := mf.params(dim, df)
	if err != nil {
		return nil, err
	}
	return newLearner(p, plan, nil)
}
