package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

type cvOptions struct {
	dataFlags
	modelFlags
	cv    learn.CVSettings
	model string
}

func newCVFlags() (*flag.FlagSet, *cvOptions) {
	o := &cvOptions{}
	fs := flag.NewFlagSet("cv", flag.ContinueOnError)
	addDataFlags(fs, &o.dataFlags, true)
	addModelFlags(fs, &o.modelFlags)
	fs.IntVar(&o.cv.Folds, "folds", 5, "number of cross-validation folds `K` (stratified by class)")
	fs.StringVar(&o.cv.Gamma, "grid-gamma", "", "comma-separated kernel γ values to try, e.g. 0.01,0.1,1 (default: --gamma)")
	fs.StringVar(&o.cv.C, "grid-c", "", "comma-separated C values to try (svm, slmc), e.g. 1,10,100 (default: --c)")
	fs.StringVar(&o.cv.Basis, "grid-basis", "", "comma-separated numbers of kernel basis functions to try (as --basis), KMP family; without --val-frac one training per fold serves them all (default: --basis)")
	fs.StringVar(&o.cv.Epsilon, "grid-epsilon", "", "comma-separated ε values to try (bpdn: Girosi's only free parameter; svm ε-SVR), e.g. 0.05,0.1,0.5")
	fs.Var((*gridFlags)(&o.cv.Params), "grid", "`NAME=V1,V2,...`: values to try for any other numeric training flag of the algorithm, e.g. --grid nz=5,10,20 (slmc) or --grid degree=2,3 (poly kernel); repeat it for more flags")
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

// cvJSON is the object `pursuit cv --json` prints (learn.CVReport).
type cvJSON = learn.CVReport

func runCV(ev *env, fs *flag.FlagSet, o *cvOptions) error {
	set := setFlags(fs)
	var grid learn.CVGrid
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
		if err := checkOutputs(o.inputFiles(), fileArg{Name: "--model", Path: o.model}); err != nil {
			return err
		}
		// --grid-c and --grid-basis are in algoFlags' table, checked by validate.
		grid, err = o.cv.Grid(&o.Settings, set)
		return flagErr(err)
	}()
	if err := ev.together(err); err != nil {
		return err
	}
	if err := engine.CheckConfig(ev.world(), dataEntries(&o.dataFlags)); err != nil {
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
	all, test, plan, err := o.loadTrainTest(e, false)
	var stor *storageJSON
	if err == nil {
		stor = o.describeStorage(all) // before scaling fills in any zeros
	}
	if err == nil && all.Len() < 2*o.cv.Folds {
		err = fmt.Errorf("%s: %d examples are too few for %d folds", o.data, all.Len(), o.cv.Folds)
	}
	if err := ev.together(err); err != nil {
		return err
	}
	prep, err := o.dataFlags.prep(o.Seed)
	if err := ev.together(err); err != nil {
		return err
	}
	// The trainings: one per group of settings and fold, spread over the
	// ranks (learn.CVSettings.Search).
	world := ev.world()
	bar := newProgress(ev, "cv "+algo.Name, o.progress, o.quiet)
	defer bar.Close()
	start := time.Now()
	cvRun := learn.CV{Seed: uint64(o.Seed), Prep: prep, Ranks: engine.GroupOf(world), Progress: bar.Update, Agree: ev.together}
	points, best, err := o.cv.Search(e, cvRun, &o.Settings, &o.DataSettings, grid, plan, all, flagName)
	if err := ev.together(err); err != nil {
		return err
	}
	bar.Done()
	out := learn.NewCVReport(points, best, o.cv.Folds, algo.Name, e.BackendName(), plan, all, &o.DataSettings, stor, time.Since(start).Seconds())
	// Retrain on all the data with the best setting when a test set or a
	// model file is asked for (rank 0 alone, across ranks).
	var err2 error
	if (test != nil || o.model != "") && world.Rank() == 0 {
		err2 = cvRetrain(e, o, grid.Basis[best%len(grid.Basis)], plan, all, test, out)
	}
	if err := ev.together(err2); err != nil {
		return err
	}
	if o.jsonOutput {
		return printJSON(ev, out)
	}
	out.WriteText(ev.stdout, o.data, o.test, plan)
	return nil
}

// cvRetrain trains on all the data with the best setting (and basis size
// basis), tests on test (may be nil), writes the model to --model when
// given, and fills out (learn.CVReport.Retrain).
func cvRetrain(e *engine.Engine, o *cvOptions, basis int, plan learn.LabelPlan, all, test *data.Dataset, out *learn.CVReport) error {
	m, err := out.Retrain(e, &o.Settings, &o.DataSettings, basis, plan, all, test, filepath.Base(o.data), version)
	if err != nil {
		return fmt.Errorf("retraining with the best setting: %w", prepError(flagErr(err)))
	}
	if o.model != "" {
		if out.ModelBytes, err = m.WriteFile(o.model); err != nil {
			return err
		}
		out.Model = o.model
	} else if out.ModelBytes, err = m.Size(); err != nil {
		return err
	}
	return nil
}

// gridFlags is cv's repeatable --grid NAME=V1,V2,... (learn.Settings.ParseGrid).
type gridFlags []string

func (g *gridFlags) String() string     { return strings.Join(*g, " ") }
func (g *gridFlags) Set(s string) error { *g = append(*g, s); return nil }
