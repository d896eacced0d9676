package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
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
	var algos []learn.AlgorithmInfo
	for _, a := range learn.Algorithms() {
		algos = append(algos, learn.AlgorithmInfo{Name: a.Name, Available: true, Summary: a.Summary})
	}
	opts := []engine.Option{engineNames()}
	if o.backend != "" {
		opts = append(opts, engine.WithBackend(o.backend))
	}
	// Without an engine, info still prints what it knows: it is the command
	// that explains why a backend cannot run. The error sets the exit status.
	rep, err := learn.DescribeSystem(version, algos, opts...)
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

// dataInfo is what `pursuit info --data FILE --json` prints.
type dataInfo struct {
	Data     string       `json:"data"`
	Examples int          `json:"n_examples"`
	Features int          `json:"n_features"`
	Storage  *storageJSON `json:"storage"`
	// DenseBytes is what dense rows take, for comparison.
	DenseBytes int64 `json:"dense_bytes"`
	// Scale is what --scale auto chooses for these data.
	Scale       string   `json:"scale"`
	SparseAlgos []string `json:"sparse_algorithms"`
}

// runInfoData loads --data in --storage and reports how it is held.
func runInfoData(ev *env, o *infoOptions) error {
	df := dataFlags{data: o.data, format: o.format, storage: o.storage, sparseOK: true, scale: "auto"}
	if err := df.validate(map[string]bool{}, true); err != nil {
		return err
	}
	ds, err := loadData(o.data, df.loadOptions(0))
	if err != nil {
		return err
	}
	rep := dataInfo{Data: o.data, Examples: ds.Len(), Features: ds.Dim(), Storage: df.describeStorage(ds),
		DenseBytes: 4 * int64(ds.Len()) * int64(ds.Dim()), Scale: string(data.DefaultScaleMode(ds.X)), SparseAlgos: learn.SparseAlgorithms()}
	if o.json {
		return printJSON(ev, rep)
	}
	w, st := ev.stdout, rep.Storage
	fmt.Fprintf(w, "data:      %s: %d examples, %d features, %d non-zeros (density %.3g)\n", o.data, rep.Examples, rep.Features, st.NNZ, st.Density)
	fmt.Fprintf(w, "storage:   %s (--storage %s): %s\n", st.Kind, st.Asked, st.Reason)
	fmt.Fprintf(w, "memory:    %s for the features (dense rows: %s)\n", engine.FormatBytes(st.Bytes), engine.FormatBytes(rep.DenseBytes))
	fmt.Fprintf(w, "scaling:   --scale auto fits %s on these data\n", rep.Scale)
	fmt.Fprintf(w, "sparse:    the algorithms that train on sparse rows: %s (the others hold the data dense)\n", strings.Join(rep.SparseAlgos, ", "))
	return nil
}
