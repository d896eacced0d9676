package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

type infoOptions struct {
	json    bool
	backend string
	data    string
	storage string
	format  string
}

func newInfoFlags() (*flag.FlagSet, *infoOptions) {
	o := &infoOptions{}
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	fs.BoolVar(&o.json, "json", false, "print one JSON object instead of text")
	fs.StringVar(&o.backend, "backend", "", "show what choosing this backend (go, avx2, avx2-only, cuda, auto) gives; default: the automatic choice, or $"+engine.EnvBackend)
	fs.StringVar(&o.data, "data", "", "report how the data `FILE` is held in memory (dense or sparse rows, and why) and its default scaling, instead of the machine")
	fs.StringVar(&o.storage, "storage", "auto", "with --data: "+storageUsage)
	fs.StringVar(&o.format, "format", "auto", "with --data: data file format: auto, libsvm or csv")
	return fs, o
}

func infoCommand() *command {
	return withFlags(&command{
		name:    "info",
		summary: "show the CPU, the available backends and the one Pursuit chooses",
		usage:   "pursuit info [--json] [--backend NAME] | pursuit info --data FILE [--storage auto|dense|sparse] [--json]",
		examples: `pursuit info
pursuit info --json
pursuit info --data news20.binary.bz2   # dense or sparse rows, and why
PURSUIT_BACKEND=go pursuit info     # what forcing the pure-Go backend gives`,
	}, true, newInfoFlags, runInfo)
}

func runInfo(ev *env, fs *flag.FlagSet, o *infoOptions) error {
	if o.data != "" {
		return runInfoData(ev, o)
	}
	opts := []engine.Option{engineNames()}
	if o.backend != "" {
		opts = append(opts, engine.WithBackend(o.backend))
	}
	// Without an engine, info still prints what it knows: it is the command
	// that explains why a backend cannot run. The error sets the exit status.
	rep, err := learn.DescribeSystem(version, learn.AlgorithmInfos(), opts...)
	if o.json {
		enc := json.NewEncoder(ev.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("writing JSON: %w", err)
		}
	} else {
		rep.WriteText(ev.stdout)
	}
	return err
}

// runInfoData loads --data in --storage and reports how it is held
// (learn.DescribeData).
func runInfoData(ev *env, o *infoOptions) error {
	df := dataFlags{data: o.data, sparseOK: true, DataSettings: learn.DataSettings{Format: o.format, Storage: o.storage, Scale: "auto"}}
	if err := df.validate(map[string]bool{}, true); err != nil {
		return err
	}
	ds, err := loadData(o.data, df.loadOptions(0))
	if err != nil {
		return err
	}
	rep := learn.DescribeData(o.data, ds, df.describeStorage(ds))
	if o.json {
		return printJSON(ev, rep)
	}
	rep.WriteText(ev.stdout, flagName)
	return nil
}
