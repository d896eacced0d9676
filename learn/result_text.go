package learn

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/pursuit-ml/pursuit/data"
)

// TrainText is what the text summary of a training run (Result.WriteText)
// says beyond its Result.
type TrainText struct {
	Data     string    // the training data's name
	Examples int       // its examples, every rank's together
	Features int       // its features
	Plan     LabelPlan // the task
	// Ranks is the number of ranks that trained together (0 or 1: one
	// process); RanksDescription describes the group (comm.Comm.Describe).
	Ranks            int
	RanksDescription string
	Models           int  // the binary models of the file (one-vs-rest: one per class)
	Tested           bool // a test set was given
}

// WriteText writes r as the summary of a training run, one line per
// figure. name(setting) names the settings "model" (where the model is
// written) and "label-column" as the reader knows them (nil: by those
// names).
func (r *Result) WriteText(w io.Writer, t TrainText, name func(setting string) string) {
	if name == nil {
		name = func(s string) string { return s }
	}
	if r.Method != "" {
		fmt.Fprintf(w, "algorithm  %s (method %s), kernel %s, backend %s\n", r.Algorithm, r.Method, r.Kernel, r.Backend)
	} else {
		fmt.Fprintf(w, "algorithm  %s, kernel %s, backend %s\n", r.Algorithm, r.Kernel, r.Backend)
	}
	fmt.Fprintf(w, "data       %s: %d examples, %d features, %s\n", t.Data, t.Examples, t.Features, t.Plan.Describe())
	if t.Ranks > 1 {
		fmt.Fprintf(w, "ranks      %d, each holding a block of about %d examples; this is %s\n", t.Ranks, t.Examples/t.Ranks, t.RanksDescription)
	}
	if r.LabelColumn != nil {
		fmt.Fprintf(w, "           %s\n", LabelColumnText(*r.LabelColumn, t.Features, name))
	}
	if st := r.Storage; st != nil && (st.Kind == "sparse" || st.Asked != "auto" || r.Scale == string(data.ScaleMaxAbs)) {
		fmt.Fprintf(w, "storage    %s, scaling %s: %s\n", st.Kind, r.Scale, st.Reason)
	}
	fmt.Fprintf(w, "model      %d basis functions", r.NBasis)
	if t.Models > 1 {
		fmt.Fprintf(w, " over %d classifiers", t.Models)
	}
	fmt.Fprintln(w)
	if r.Dictionary != "" {
		fmt.Fprintf(w, "dictionary %s\n", r.Dictionary)
	}
	if r.Stop != "" {
		fmt.Fprintf(w, "stopped    %s\n", r.Stop)
	}
	fmt.Fprintf(w, "train      %s on %d examples, %.3g s\n", t.Plan.ErrorText(value(r.TrainError), r.NTrain), r.NTrain, r.TrainSeconds)
	if r.NVal > 0 {
		fmt.Fprintf(w, "validation %s on %d examples\n", t.Plan.ErrorText(value(r.ValError), r.NVal), r.NVal)
	}
	if t.Tested {
		fmt.Fprintf(w, "test       %s on %d examples, predicted in %.3g s\n", t.Plan.ErrorText(value(r.TestError), r.NTest), r.NTest, r.PredictSeconds)
	}
	if r.Model != "" {
		fmt.Fprintf(w, "saved      %s (%s)\n", r.Model, FormatSize(r.ModelBytes))
	} else {
		fmt.Fprintf(w, "not saved  (%s; give %s FILE to keep it)\n", FormatSize(r.ModelBytes), name("model"))
	}
	for _, p := range r.Plots {
		fmt.Fprintf(w, "plot       %s\n", p)
	}
	if r.Bound != nil {
		fmt.Fprintf(w, "bound      %s\n", r.Bound.String())
	}
}

// value is *v, NaN for nil (Num's inverse).
func value(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// LabelColumnText says where the labels of a CSV file with dim features
// came from (col, data.LabelColumnOf's); name names the setting
// "label-column" (nil: by that name).
func LabelColumnText(col, dim int, name func(setting string) string) string {
	if name == nil {
		name = func(s string) string { return s }
	}
	switch {
	case col == 0:
		return fmt.Sprintf("labels from CSV column 0 (the first; %s to change)", name("label-column"))
	case col == dim:
		return fmt.Sprintf("labels from CSV column %d (the last)", col)
	}
	return fmt.Sprintf("labels from CSV column %d", col)
}

// FormatSize writes a file size with one decimal in KiB or MiB ("12.3
// KiB"), or in bytes below 1 KiB.
func FormatSize(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// Result is the Result of applying m, read from modelPath, to the n rows
// the prediction p was made on (`pursuit predict --json`): the model's
// figures with the test ones and the model file's size.
func (p *Prediction) Result(m *File, n int, backend, modelPath string) Result {
	out := m.Result(backend)
	out.NTest, out.TestError, out.PredictSeconds, out.Model, out.ForeignLabels = n, Num(p.Error), p.Seconds, modelPath, p.Foreign
	if st, err := os.Stat(modelPath); err == nil {
		out.ModelBytes = st.Size()
	}
	return out
}

// WriteText writes the prediction's summary line: its error on the n rows
// of dataName, the model and the time.
func (p *Prediction) WriteText(w io.Writer, m *File, dataName string, n int, backend string) {
	fmt.Fprintf(w, "%s: %s on %d examples (%s model, %d basis functions, backend %s, %.3g s)\n",
		dataName, m.Header.Labels.ErrorText(p.Error, n), n, m.Header.Algorithm, m.Header.NBasis, backend, p.Seconds)
}

// ForeignWarning says how many of the n rows of dataName have labels that
// are not the classes of m (each counts as an error); "" when none has.
func (p *Prediction) ForeignWarning(m *File, dataName string, n int) string {
	if p.Foreign == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d examples of %s have labels (%s) that are not the model's classes (%s); each counts as an error",
		p.Foreign, n, dataName, ListLabels(p.ForeignValues, 5), ListLabels(m.Header.Labels.Classes, 10))
}
