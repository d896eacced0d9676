package main

import (
	"flag"
	"fmt"

	"github.com/pursuit-ml/pursuit/learn"
)

type boundCmdOptions struct {
	model, data, format string
	labelColumn         int
	header              bool
	backend             string
	memBudget           string
	jsonOutput          bool
	boundFlags
}

func boundCommand() *command {
	return withFlags(&command{
		name:    "bound",
		summary: "generalisation bound of a saved model, from its training data (Hussain et al. Theorems 2 and 4)",
		usage:   "pursuit bound --model FILE --data TRAINING-FILE [--delta D] [--alpha A] [--json]",
		examples: `# the bound train --bound prints, for a model saved earlier:
pursuit train --data usps.train.gz --positive 8 --algo kmp --gamma 0.0078125 --basis 274 --model usps8.model
pursuit bound --model usps8.model --data usps.train.gz`,
	}, false, newBoundFlags, runBound)
}

func newBoundFlags() (*flag.FlagSet, *boundCmdOptions) {
	o := &boundCmdOptions{}
	fs := flag.NewFlagSet("bound", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "model `FILE` written by `pursuit train --model`")
	fs.StringVar(&o.data, "data", "", "the model's training data `FILE` (the bound counts its errors there)")
	fs.StringVar(&o.format, "format", "auto", "data file format: auto, libsvm or csv")
	fs.IntVar(&o.labelColumn, "label-column", 0, "CSV only: 0-based column holding the label")
	fs.BoolVar(&o.header, "header", false, "CSV only: the first line is a header")
	fs.StringVar(&o.backend, "backend", "", backendUsage)
	fs.StringVar(&o.memBudget, "mem-budget", "", memBudgetReadUsage)
	fs.BoolVar(&o.jsonOutput, "json", false, "print the bound as one JSON object")
	addBoundFlags(fs, &o.boundFlags, false)
	return fs, o
}

func runBound(ev *env, fs *flag.FlagSet, o *boundCmdOptions) error {
	set := setFlags(fs)
	switch {
	case o.model == "":
		return fmt.Errorf("missing --model FILE (written by `pursuit train --model FILE`)")
	case o.data == "":
		return fmt.Errorf("missing --data FILE (the data the model was trained on)")
	}
	mf := modelFlags{backend: o.backend, memBudget: o.memBudget}
	e, err := mf.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	m, err := learn.LoadModel(e, o.model)
	if err != nil {
		return err
	}
	if err := o.boundFlags.Validate(m.Header.Algorithm, m.Header.Labels.Task == learn.TaskRegression, set); err != nil {
		return flagErr(err)
	}
	df := dataFlags{DataSettings: learn.DataSettings{Format: o.format, LabelColumn: o.labelColumn, Header: o.header, Scale: "none"}}
	if err := df.validate(nil, false); err != nil {
		return err
	}
	ds, err := loadForModel(e, o.data, &df, m, o.model)
	if err != nil {
		return err
	}
	if err := m.CheckTrainingRows(o.data, ds, o.model); err != nil {
		return flagErr(err)
	}
	if err := m.ScaleData(o.data, ds); err != nil {
		return err
	}
	b, err := trainBound(e, m, ds, &o.boundFlags, true)
	if err != nil {
		return err
	}
	if m.Header.Train.NTrain == 0 {
		fmt.Fprintf(ev.stderr, "pursuit bound: note: %s does not record how many examples it was trained on: every basis vector is a row of %s, but that it is the whole training set cannot be checked\n", o.model, o.data)
	}
	if o.jsonOutput {
		return printJSON(ev, b)
	}
	fmt.Fprintf(ev.stdout, "%s (%s model, %d training examples): %s\n", o.model, m.Header.Algorithm, b.M, b.String())
	return nil
}
