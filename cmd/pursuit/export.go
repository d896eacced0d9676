package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/safefile"
	"github.com/pursuit-ml/pursuit/onnxexport"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// expander is a fitted model that is one kernel expansion
// f(x) = Σ_i Coef[i]·K(v_i, x) + Bias with a kernel LIBSVM has, and so can
// be written as a LIBSVM model.
type expander interface {
	// expansion returns the vectors, coefficients, bias and kernel, or an
	// error saying why the model is not one such expansion.
	expansion() (kernel pursuit.Kernel, vectors pursuit.Matrix, coef []float64, bias float64, err error)
}

func (f *kmpFitted) expansion() (pursuit.Kernel, pursuit.Matrix, []float64, float64, error) {
	m := f.m
	switch {
	case len(m.Outputs) != 1:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("a one-vs-rest KMP model has %d outputs, and a LIBSVM model of one-vs-rest outputs does not exist (LIBSVM's multi-class is one-vs-one)", len(m.Outputs))
	case m.Custom != nil:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("the model uses the custom kernel %q, which LIBSVM does not have", m.Custom.Name)
	case len(m.Kernels) > 1:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("the model mixes %d kernels (widths), and a LIBSVM model has one", len(m.Kernels))
	case len(m.Kernels) == 0:
		return pursuit.Kernel{}, pursuit.Matrix{}, nil, 0, fmt.Errorf("the model has no kernel")
	}
	return m.Kernels[0], m.Support, m.Outputs[0].Coef, m.Outputs[0].Bias, nil
}

func (f *slmcFitted) expansion() (pursuit.Kernel, pursuit.Matrix, []float64, float64, error) {
	return f.m.Kernel, f.m.XV, f.m.Beta, f.m.Bias, nil
}

func (f *mpkfdaFitted) expansion() (pursuit.Kernel, pursuit.Matrix, []float64, float64, error) {
	return f.m.Kernel, f.m.Centres, f.m.Alpha, f.m.Bias, nil
}

// libsvmModel returns the model as one LIBSVM model that predicts what
// `pursuit predict` predicts on data scaled as m.hdr.Scaler says: svm and
// bpdn as themselves (class labels as the task's), every other kernel
// expansion as a two-class C-SVC (classifiers) or an ε-SVR (regressors)
// with sv_coef the coefficients and ρ = −bias. A model that is not one
// expansion gets an error saying why.
func (m *cliModel) libsvmModel() (*svm.Model, error) {
	if m.hdr.Labels.Task == taskOneVsOne {
		return m.oneVsOneLIBSVM()
	}
	if len(m.models) != 1 {
		return nil, fmt.Errorf("a %s one-vs-rest model holds %d binary models, and a LIBSVM model of one-vs-rest machines does not exist (LIBSVM's multi-class is one-vs-one)", m.hdr.Algorithm, len(m.models))
	}
	plan := &m.hdr.Labels
	if f, ok := m.models[0].(*svmFitted); ok {
		out := *f.m
		if out.Type == svm.CSVC {
			// The CLI trains on ±1 targets; LIBSVM prints the task's labels.
			out.Labels = make([]float64, len(f.m.Labels))
			for i, l := range f.m.Labels {
				out.Labels[i] = plan.Classes[0]
				if l > 0 {
					out.Labels[i] = plan.Classes[1]
				}
			}
			if m.hdr.Train.NTrain == 0 { // imported from LIBSVM: its own labels
				out.Labels = f.m.Labels
			}
		}
		return &out, nil
	}
	ex, ok := m.models[0].(expander)
	if !ok {
		return nil, fmt.Errorf("a %s model is not a kernel expansion LIBSVM can hold", m.hdr.Algorithm)
	}
	k, vectors, coef, bias, err := ex.expansion()
	if err != nil {
		return nil, err
	}
	out := &svm.Model{Type: svm.EpsilonSVR, Kernel: k, SV: vectors, Coef: [][]float64{coef}, Rho: []float64{-bias}}
	if plan.Task != taskRegression {
		// LIBSVM predicts its first label where Σ coef·K − ρ > 0; the CLI
		// predicts Classes[1] where the decision is positive.
		out.Type = svm.CSVC
		out.Labels = []float64{plan.Classes[1], plan.Classes[0]}
		out.NumSV = []int{vectors.Rows, 0}
	}
	return out, nil
}

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
func exportLIBSVM(m *cliModel, path string) ([]string, error) {
	lm, err := m.libsvmModel()
	if err != nil {
		return nil, fmt.Errorf("a %s model cannot be written as a LIBSVM model: %w", m.hdr.Algorithm, err)
	}
	if err := safefile.WriteFile(path, 0o666, lm.WriteLIBSVM); err != nil {
		return nil, err
	}
	files := []string{path}
	if s := m.hdr.Scaler; s != nil && s.Mode != data.ScaleNone {
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
func exportONNX(m *cliModel, path string) error {
	lm, err := m.libsvmModel()
	if err == nil {
		_, err = onnxexport.Marshal(lm, m.hdr.Scaler) // refuse before a file is written
	}
	if err != nil {
		return fmt.Errorf("a %s model cannot be written as an ONNX model: %w", m.hdr.Algorithm, err)
	}
	doc := fmt.Sprintf("pursuit %s model (%s)", m.hdr.Algorithm, lm.Kernel)
	return safefile.WriteFile(path, 0o666, func(w io.Writer) error {
		return onnxexport.Write(w, lm, m.hdr.Scaler, onnxexport.WithDoc(doc), onnxexport.WithProducerVersion(version))
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
	m, err := loadModel(e, o.model)
	if err != nil {
		return err
	}
	if !slices.Contains(exportFormats, o.format) {
		// Checked after loading, so that the line names the model's kind.
		return fmt.Errorf("--format %q: pursuit export writes a %s model as %s", o.format, m.hdr.Algorithm, strings.Join(exportFormats, " or "))
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

// oneVsOneLIBSVM returns a one-vs-one model (`pursuit compress` of a
// multi-class LIBSVM model: one slmc machine per pair) as LIBSVM's
// multi-class C-SVC: each pair's vectors in its first class's group, with
// zero coefficients in the other pairs (slmc.Compressed.SVM).
func (m *cliModel) oneVsOneLIBSVM() (*svm.Model, error) {
	classes := m.hdr.Labels.Classes
	c := &slmc.Compressed{Labels: classes}
	p := 0
	for i := range classes {
		for j := i + 1; j < len(classes); j++ {
			if p >= len(m.models) {
				return nil, fmt.Errorf("a one-vs-one model with %d classes needs %d machines, it has %d", len(classes), len(classes)*(len(classes)-1)/2, len(m.models))
			}
			f, ok := m.models[p].(*slmcFitted)
			if !ok {
				return nil, fmt.Errorf("a one-vs-one %s model is not a set of kernel expansions LIBSVM can hold", m.hdr.Algorithm)
			}
			if p == 0 {
				c.Kernel = f.m.Kernel
			} else if f.m.Kernel != c.Kernel {
				return nil, fmt.Errorf("the pairs of the one-vs-one model use different kernels (%s and %s), and a LIBSVM model has one", c.Kernel, f.m.Kernel)
			}
			c.Machines = append(c.Machines, slmc.Machine{Pos: i, Neg: j, Model: f.m})
			p++
		}
	}
	return c.SVM()
}
