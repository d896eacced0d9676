package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
)

type plotOptions struct {
	model, data, out string
	format           string
	backend          string
	threads          int
	memBudget        string
}

func newPlotFlags() (*flag.FlagSet, *plotOptions) {
	o := &plotOptions{}
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "model `FILE` written by `pursuit train --model`")
	fs.StringVar(&o.data, "data", "", "data `FILE` whose points the decision surface shows (2-D data)")
	fs.StringVar(&o.out, "out", ".", "directory `DIR` to write the PNG files into")
	fs.StringVar(&o.format, "format", "auto", "data file format: auto, libsvm or csv")
	fs.StringVar(&o.backend, "backend", "", backendUsage)
	fs.IntVar(&o.threads, "threads", 0, threadsUsage)
	fs.StringVar(&o.memBudget, "mem-budget", "", memBudgetReadUsage)
	return fs, o
}

func plotCommand() *command {
	return withFlags(&command{
		name:    "plot",
		summary: "draw a model's learning curve and, for 2-D data, its decision surface (PNG)",
		usage:   "pursuit plot --model FILE [--data FILE] [--out DIR]",
		examples: `# the learning curve recorded at training time (train --curve, with --test for the test line):
pursuit train --data usps.train.gz --test usps.test.gz --positive 8 --gamma 0.0078125 --curve --model usps8.model
pursuit plot --model usps8.model --out plots
# the decision surface of a 2-D model with its training points and basis points circled:
pursuit plot --model moons.model --data moons.train --out plots
# both at training time:
pursuit train --data moons.train --test moons.test --gamma 4 --plot plots`,
	}, true, newPlotFlags, runPlot)
}

func runPlot(ev *env, fs *flag.FlagSet, o *plotOptions) error {
	if o.model == "" {
		return fmt.Errorf("missing --model FILE (written by `pursuit train --model FILE`)")
	}
	df := dataFlags{DataSettings: learn.DataSettings{Format: o.format, Scale: "none"}}
	if err := df.validate(nil, false); err != nil {
		return err
	}
	mf := modelFlags{backend: o.backend, threads: o.threads, memBudget: o.memBudget}
	e, err := mf.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	m, err := learn.LoadModel(e, o.model)
	if err != nil {
		return err
	}
	var raw *data.Dataset
	if o.data != "" {
		if raw, err = loadForModel(e, o.data, &df, m, o.model); err != nil {
			return err
		}
	}
	prefix := strings.TrimSuffix(filepath.Base(o.model), filepath.Ext(o.model))
	files, err := writePlots(e, m, o.out, prefix, fmt.Sprintf("%s (%s)", prefix, m.Header.Algorithm), raw, []fileArg{{Name: "--model", Path: o.model}, {Name: "--data", Path: o.data}})
	if err != nil {
		return err
	}
	if err := m.NothingToPlot(raw != nil); err != nil {
		return flagErr(err)
	}
	for _, f := range files {
		fmt.Fprintln(ev.stdout, f)
	}
	return nil
}
