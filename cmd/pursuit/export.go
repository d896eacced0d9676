package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/safefile"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/onnxexport"
)

// writeRange writes s as an svm-scale range file (svm-scale -r FILE): each
// feature's [min, max] mapped onto [−1, 1] reproduces x' = (x − offset)·scale
// with min = offset − 1/scale and max = offset + 1/scale; a feature whose
// scale is 0 (constant in the training data) has min = max, which svm-scale
// maps to 0 as the scaler does.
func writeRange(w io.Writer, s *data.Scaler) error {
	bw := bufio.NewWriter(w)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }
	fmt.Fprintf(bw, "x\n-1 1\n")
	for j := range s.Scale {
		lo, hi := s.Offset[j], s.Offset[j]
		if s.Scale[j] != 0 {
			lo, hi = s.Offset[j]-1/s.Scale[j], s.Offset[j]+1/s.Scale[j]
		}
		fmt.Fprintf(bw, "%d %s %s\n", j+1, g(lo), g(hi))
	}
	return bw.Flush()
}

// exportLIBSVM writes m as a LIBSVM model to path and, when m scales its
// data, the svm-scale range file to path+".range". It returns the files
// written.
func exportLIBSVM(m *learn.File, path string) ([]string, error) {
	lm, err := m.LIBSVM()
	if err != nil {
		return nil, fmt.Errorf("a %s model cannot be written as a LIBSVM model: %w", m.Header.Algorithm, err)
	}
	if err := safefile.WriteFile(path, 0o666, lm.WriteLIBSVM); err != nil {
		return nil, err
	}
	files := []string{path}
	if s := m.Header.Scaler; s != nil && s.Mode != data.ScaleNone {
		rp := path + ".range"
		if err := safefile.WriteFile(rp, 0o666, func(w io.Writer) error { return writeRange(w, s) }); err != nil {
			return nil, err
		}
		files = append(files, rp)
	}
	return files, nil
}

// exportONNX writes m as an ONNX model to path: the LIBSVM model that
// libsvmModel gives, behind the model's scaler, through onnxexport.
func exportONNX(m *learn.File, path string) error {
	if m.Header.Labels.Task == learn.TaskOneVsRest {
		return fmt.Errorf("a one-vs-rest %s model (%d binary machines) cannot be written as an ONNX model: ai.onnx.ml's SVMClassifier votes over the pairs of a one-vs-one model, and a one-vs-rest model predicts the class whose machine's decision is largest", m.Header.Algorithm, len(m.Models))
	}
	lm, err := m.LIBSVM()
	if err == nil {
		_, err = onnxexport.Marshal(lm, m.Header.Scaler) // refuse before a file is written
	}
	if err != nil {
		return fmt.Errorf("a %s model cannot be written as an ONNX model: %w", m.Header.Algorithm, err)
	}
	doc := fmt.Sprintf("pursuit %s model (%s)", m.Header.Algorithm, lm.Kernel)
	return safefile.WriteFile(path, 0o666, func(w io.Writer) error {
		return onnxexport.Write(w, lm, m.Header.Scaler, onnxexport.WithDoc(doc), onnxexport.WithProducerVersion(version))
	})
}

// exportFormats are the formats `pursuit export --format` writes.
var exportFormats = []string{"libsvm", "onnx"}

type exportOptions struct {
	model, format, out string
	memBudget          string
}

func exportCommand() *command {
	return &command{
		name:    "export",
		summary: "write a model in another format: a LIBSVM model that svm-predict reads (with an svm-scale range file when the model scales), or an ONNX model that onnxruntime runs",
		usage:   "pursuit export --model FILE --out FILE [--format libsvm|onnx]",
		examples: `pursuit export --model moons.model --out moons.libsvm
# moons.libsvm.range is written beside it when the model scales its data; then, with LIBSVM's tools:
svm-scale -r moons.libsvm.range moons.test > moons.test.scaled
svm-predict moons.test.scaled moons.libsvm moons.pred
# an ONNX model (ai.onnx.ml Scaler → SVMClassifier or SVMRegressor) for onnxruntime:
pursuit export --model moons.model --format onnx --out moons.onnx`,
		run: runExport,
	}
}

func runExport(ev *env, args []string) error {
	c := exportCommand()
	o := &exportOptions{}
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "the model `FILE` to export (written by `pursuit train --model`, or a LIBSVM model)")
	fs.StringVar(&o.format, "format", "libsvm", "the format to write: libsvm (LIBSVM's text model) or onnx (an ONNX model: input X, float [N, features], unscaled; outputs label and scores, or value); either holds svm, bpdn, and the KMP family, SLMC and MP-KFDA as one kernel expansion")
	fs.StringVar(&o.out, "out", "", "write the exported model to `FILE` (for libsvm, the svm-scale range file to FILE.range too when the model scales its data; "+safeWriteHelp+")")
	fs.StringVar(&o.memBudget, "mem-budget", "", memBudgetReadUsage)
	if err := parseFlags(ev, c, fs, args); err != nil {
		return err
	}
	switch {
	case o.model == "":
		return fmt.Errorf("missing --model FILE (the model to export)")
	case o.out == "":
		return fmt.Errorf("missing --out FILE (where to write the exported model)")
	}
	outputs := []fileArg{{"--out", o.out}}
	if o.format == "libsvm" {
		outputs = append(outputs, fileArg{"--out's range file", o.out + ".range"})
	}
	if err := checkOutputs([]fileArg{{"--model", o.model}}, outputs...); err != nil {
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
	if !slices.Contains(exportFormats, o.format) {
		// Checked after loading, so that the line names the model's kind.
		return fmt.Errorf("--format %q: pursuit export writes a %s model as %s", o.format, m.Header.Algorithm, strings.Join(exportFormats, " or "))
	}
	files := []string{o.out}
	if o.format == "onnx" {
		err = exportONNX(m, o.out)
	} else {
		files, err = exportLIBSVM(m, o.out)
	}
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(ev.stdout, f)
	}
	return nil
}
