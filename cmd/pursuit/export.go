package main

import (
	"flag"
	"fmt"

	"github.com/pursuit-ml/pursuit/learn"
)

type exportOptions struct {
	model, format, out string
	memBudget          string
}

func exportCommand() *command {
	return withFlags(&command{
		name:    "export",
		summary: "write a model in another format: a LIBSVM model that svm-predict reads (with an svm-scale range file when the model scales), or an ONNX model that onnxruntime runs",
		usage:   "pursuit export --model FILE --out FILE [--format libsvm|onnx|onnx-svm]",
		examples: `pursuit export --model moons.model --out moons.libsvm
# moons.libsvm.range is written beside it when the model scales its data; then, with LIBSVM's tools:
svm-scale -r moons.libsvm.range moons.test > moons.test.scaled
svm-predict moons.test.scaled moons.libsvm moons.pred
# an ONNX model for onnxruntime (float64; --format onnx-svm: ai.onnx.ml's SVM operators, float32):
pursuit export --model moons.model --format onnx --out moons.onnx`,
	}, false, newExportFlags, runExport)
}

func newExportFlags() (*flag.FlagSet, *exportOptions) {
	o := &exportOptions{}
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "the model `FILE` to export (written by `pursuit train --model`, or a LIBSVM model)")
	fs.StringVar(&o.format, "format", "libsvm", "the format to write: libsvm (LIBSVM's text model), onnx (an ONNX model of standard operators computing in float64, the decisions of pursuit predict to about 1e-12: input X, float [N, features], unscaled; outputs label and scores, or value, in double) or onnx-svm (the same as ai.onnx.ml's Scaler and SVMClassifier or SVMRegressor, which compute in float32: about 1e-6 of a decision per unit of the coefficients' absolute sum); each holds svm, bpdn, and the KMP family, SLMC and MP-KFDA as one kernel expansion")
	fs.StringVar(&o.out, "out", "", "write the exported model to `FILE` (for libsvm, the svm-scale range file to FILE.range too when the model scales its data; "+safeWriteHelp+")")
	fs.StringVar(&o.memBudget, "mem-budget", "", memBudgetReadUsage)
	return fs, o
}

func runExport(ev *env, _ *flag.FlagSet, o *exportOptions) error {
	switch {
	case o.model == "":
		return fmt.Errorf("missing --model FILE (the model to export)")
	case o.out == "":
		return fmt.Errorf("missing --out FILE (where to write the exported model)")
	}
	var outputs []fileArg
	for i, f := range learn.ExportFiles(o.format, o.out) {
		outputs = append(outputs, fileArg{Name: []string{"--out", "--out's range file"}[i], Path: f})
	}
	if err := checkOutputs([]fileArg{{Name: "--model", Path: o.model}}, outputs...); err != nil {
		return err
	}
	mf := modelFlags{memBudget: o.memBudget}
	e, err := mf.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	m, err := learn.LoadModel(e, o.model)
	if err != nil {
		return err
	}
	files, err := m.Export(o.format, o.out, version)
	if err != nil {
		return flagErr(err)
	}
	for _, f := range files {
		fmt.Fprintln(ev.stdout, f)
	}
	return nil
}
