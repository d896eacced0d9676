package learn

import (
	"fmt"
	"io"
	"math"

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
