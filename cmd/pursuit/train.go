package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

type trainOptions struct {
	dataFlags
	modelFlags
	boundFlags
	ckFlags
	model        string
	plotDir      string
	curve        bool
	exportLIBSVM string
	exportONNX   string
}

func newTrainFlags() (*flag.FlagSet, *trainOptions) {
	o := &trainOptions{}
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	addDataFlags(fs, &o.dataFlags, true)
	addModelFlags(fs, &o.modelFlags)
	addBoundFlags(fs, &o.boundFlags, true)
	addCheckpointFlags(fs, &o.ckFlags)
	fs.StringVar(&o.model, "model", "", "write the trained model to `FILE` (read it back with `pursuit predict --model FILE`; "+safeWriteHelp+")")
	fs.StringVar(&o.exportLIBSVM, "export-libsvm", "", "also write the model as a LIBSVM model to `FILE` (as `pursuit export --format libsvm`; with FILE.range for svm-scale when the data are scaled)")
	fs.StringVar(&o.exportONNX, "export-onnx", "", "also write the model as an ONNX model to `FILE` (as `pursuit export --format onnx`)")
	fs.StringVar(&o.plotDir, "plot", "", "write the learning curve and, for 2-D data, the decision surface as PNG files into `DIR`")
	fs.BoolVar(&o.curve, "curve", false, "record the learning curve (training, validation and test error against the number of steps; KMP family) in the model, for the plot command")
	return fs, o
}

func trainCommand() *command {
	return withFlags(&command{
		name:    "train",
		summary: "train a model on a data file",
		usage: `pursuit train --data FILE [--test FILE] [--algo ALGO] [--kernel K --gamma G | --sigma S]
                      [--basis N | --val-frac F --patience P] [--c C] [--positive LABEL | --one-vs-rest]
                      [--scale minmax|standard|none] [--seed S] [--backend B] [--model OUT] [--json] [--quiet]`,
		examples: `# digit 8 vs the rest of USPS with 200 RBF basis functions chosen by KMP pre-fitting:
pursuit train --data usps.train.gz --test usps.test.gz --positive 8 --algo kmp --gamma 0.0078125 --basis 200 --model usps8.model
# early stopping on 20% of the training data held out for validation:
pursuit train --data sonar.gz --algo kmp --sigma 2 --val-frac 0.2 --patience 20
# an SVM on all ten digits, one classifier per class, machine-readable results:
pursuit train --data usps.train.gz --test usps.test.gz --one-vs-rest --algo svm --gamma 0.0078125 --c 10 --json
# across 4 MPI ranks (a binary built with -tags mpi; srun under Slurm): each rank reads only its
# block of the rows of --data (and --test); rank 0 writes the model and prints. The algorithms that
# do not split their rows across ranks stop with an error saying so; --val-frac, --plot, --curve
# and --bound are refused across ranks:
mpirun -np 4 pursuit train --data big.svm --algo kmp --gamma 0.5 --basis 200 --model big.model`,
		flagNotes: algoFlagsHelp,
	}, true, newTrainFlags, runTrain)
}

// resultJSON is the object train, predict and cv print with --json
// (learn.Result).
type resultJSON = learn.Result

// num is learn.Num: v, or nil (JSON null) for NaN.
func num(v float64) *float64 { return learn.Num(v) }

func runTrain(ev *env, fs *flag.FlagSet, o *trainOptions) error {
	set := setFlags(fs)
	world := ev.world()
	err := o.validate(set)
	if err == nil {
		err = o.ckFlags.validate(set)
	}
	if err == nil && o.ckFlags.active() && world.Size() > 1 && !slices.Contains(learn.CheckpointAlgorithms(true), o.Algo) {
		err = fmt.Errorf("--checkpoint, --resume and --time-limit across ranks cover --algo %s, not %s", strings.Join(learn.CheckpointAlgorithms(true), ", "), o.Algo)
	}
	if err == nil {
		err = checkOutputs(o.inputFiles(), fileArg{Name: "--model", Path: o.model}, fileArg{Name: "--export-libsvm", Path: o.exportLIBSVM}, fileArg{Name: "--export-libsvm's range file", Path: o.exportLIBSVM + ".range"}, fileArg{Name: "--export-onnx", Path: o.exportONNX})
	}
	if err == nil {
		err = flagErr(o.outputs().CheckFiles())
	}
	if err == nil && world.Size() > 1 {
		err = flagErr(learn.RefuseAcrossRanks(set, world.Size(), "val-frac", "plot", "curve", "bound"))
	}
	if err := ev.together(err); err != nil {
		return err
	}
	if err := engine.CheckConfig(world, dataEntries(&o.dataFlags)); err != nil {
		return err
	}
	algo, _ := findAlgorithm(o.Algo)
	e, err := o.newEngineOn(world)
	if err := ev.together(err); err != nil {
		return err
	}
	defer e.Close()

	o.dataFlags.sparseOK, o.dataFlags.storageAlgo = algo.Sparse, algo.Name
	if note := o.dataFlags.storageNote(); note != "" && world.Rank() == 0 {
		fmt.Fprintf(ev.stderr, "pursuit train: %s\n", note)
	}
	outs := o.outputs()
	later := outs.TestLater(world.Size())
	// With later, the test file is checked now, to refuse a bad one before
	// any training, and read after training (phases.go).
	all, test, plan, err := o.loadTrainTest(e, later)
	var stor *storageJSON
	if err == nil {
		stor = o.describeStorage(all) // before scaling fills in any zeros
	}
	if err := ev.together(err); err != nil {
		return err
	}
	outs.Storage = stor
	dim := all.Dim()
	if later {
		atPhase("loaded", all)
		endPhase() // the check's buffers and the loading code's pages
	}
	// The loaded sets are the working sets: split and scaled in place.
	pr, err := prepare(e, &o.dataFlags, o.Seed, &plan, all, test, true, o.plotDir != "" && all.Dim() == 2)
	if err := ev.together(err); err != nil {
		return err
	}
	tr, val, test := pr.Train, pr.Val, pr.Test
	// Across ranks, each holds its block of the rows: the counts printed and
	// stored are every rank's together.
	nAll, nTr := all.Len(), tr.Len()
	if world.Size() > 1 {
		if nAll, err = engine.GroupOf(world).Sum(all.Len()); err != nil {
			return err
		}
		nTr = nAll // no validation part across ranks
	}
	p, err := o.modelFlags.params(all.Dim(), &o.dataFlags)
	if err := ev.together(err); err != nil {
		return err
	}
	if world.Size() > 1 {
		p.run.Rows = nTr
	}
	atPhase("train")
	if algo.Name == "skmp" && p.ActiveSet > nTr {
		if world.Rank() == 0 {
			fmt.Fprintf(ev.stderr, "pursuit train: warning: --active-set %d is more than the %d training examples: each step searches all %d\n", p.ActiveSet, nTr, nTr)
		}
		p.ActiveSet = nTr
	}
	bar := newProgress(ev, "train "+algo.Name, o.progress, o.quiet)
	defer bar.Close()
	ck, stop := o.ckFlags.options(bar)
	defer stop.Close()
	p.run.Checkpoint = ck
	res, err := fit(e, algo, p, plan, tr, val, test, bar)
	if err != nil {
		err = stop.Stopped(err)
		if world.Size() > 1 && (errors.Is(err, checkpoint.ErrStopped) || errors.Is(err, checkpoint.ErrEveryRank)) {
			// Every rank stopped at the same step (or refused the same
			// checkpoint): rank 0 says so, and the job is not aborted.
			err = &agreedError{Err: err, Print: world.Rank() == 0}
		}
		return err
	}
	out, err := outs.Finish(e, res.Fitted, pr, all, nTr)
	if err != nil {
		return err
	}
	if o.jsonOutput {
		return printJSON(ev, out)
	}
	out.WriteText(ev.stdout, learn.TrainText{Data: o.data, Examples: nAll, Features: dim, Plan: plan,
		Ranks: world.Size(), RanksDescription: world.Describe(), Models: len(res.Model.Models), Tested: o.test != ""}, flagName)
	return nil
}

func printJSON(ev *env, v any) error {
	enc := json.NewEncoder(ev.stdout)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// outputs are the steps after fitting that the flags ask for
// (learn.TrainOutputs; the caller sets how the training data are held,
// Storage): the test phase (phases.go), the learning curve, the model's
// files, the pictures and the bound, with errors naming the flags.
func (o *trainOptions) outputs() *learn.TrainOutputs {
	return &learn.TrainOutputs{
		Data: o.data, DataSettings: o.DataSettings, Test: o.test, Options: o.loadOptions,
		Restate: func(err error) error { return budgetError(err, "--mem-budget") },
		Seed:    o.Seed, Version: version, Curve: o.curve,
		PlotDir: o.plotDir, PlotPrefix: plotPrefix(o.model, o.data, o.Algo), PlotTitle: o.Algo + " on " + filepath.Base(o.data),
		PlotCheck: func(path string) error { return checkOutputs(o.inputFiles(), fileArg{Name: "the plot", Path: path}) },
		Model:     o.model, ExportLIBSVM: o.exportLIBSVM, ExportONNX: o.exportONNX,
		Bound: o.boundFlags, Name: flagName, Released: endPhase, TestPhase: func() { atPhase("test") },
	}
}
