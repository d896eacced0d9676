package learn

import (
	"bytes"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
)

// TestResultWriteText checks the training summary line by line.
func TestResultWriteText(t *testing.T) {
	col := 0
	r := &Result{Algorithm: "kmp", Backend: "go", Kernel: "rbf(γ=4)", NTrain: 80, NVal: 20, NBasis: 12,
		TrainError: Num(0.05), ValError: Num(0.1), TestError: Num(0.25), NTest: 40, TrainSeconds: 1.5, PredictSeconds: 0.25,
		ModelBytes: 3 << 10, Dictionary: "d", Stop: "s", Plots: []string{"p.png"}, LabelColumn: &col,
		Storage: &data.StorageReport{Kind: "sparse", Asked: "auto", Reason: "why"}, Scale: "maxabs"}
	plan := LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}
	var b bytes.Buffer
	r.WriteText(&b, TrainText{Data: "x.csv", Examples: 100, Features: 2, Plan: plan, Ranks: 2, RanksDescription: "rank 0 of 2", Models: 1, Tested: true}, nil)
	want := "algorithm  kmp, kernel rbf(γ=4), backend go\n" +
		"data       x.csv: 100 examples, 2 features, " + plan.Describe() + "\n" +
		"ranks      2, each holding a block of about 50 examples; this is rank 0 of 2\n" +
		"           labels from CSV column 0 (the first; label-column to change)\n" +
		"storage    sparse, scaling maxabs: why\n" +
		"model      12 basis functions\n" +
		"dictionary d\n" +
		"stopped    s\n" +
		"train      error 5.00% (4/80) on 80 examples, 1.5 s\n" +
		"validation error 10.00% (2/20) on 20 examples\n" +
		"test       error 25.00% (10/40) on 40 examples, predicted in 0.25 s\n" +
		"not saved  (3.0 KiB; give model FILE to keep it)\n" +
		"plot       p.png\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	// A dense run asked for automatically, saved, in one process, without a
	// validation or test set; a NaN training error; two models.
	r = &Result{Algorithm: "svm", Method: "m", Backend: "go", Kernel: "k", NTrain: 3, NBasis: 2, TrainError: Num(math.NaN()),
		Model: "a.model", ModelBytes: 5 << 20, Storage: &data.StorageReport{Kind: "dense", Asked: "auto"}, Scale: "minmax"}
	b.Reset()
	r.WriteText(&b, TrainText{Data: "d", Examples: 3, Features: 1, Plan: LabelPlan{Task: TaskRegression}, Models: 2},
		func(s string) string { return "--" + s })
	want = "algorithm  svm (method m), kernel k, backend go\n" +
		"data       d: 3 examples, 1 features, " + (&LabelPlan{Task: TaskRegression}).Describe() + "\n" +
		"model      2 basis functions over 2 classifiers\n" +
		"train      MSE NaN on 3 examples, 0 s\n" +
		"saved      a.model (5.0 MiB)\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	for _, c := range []struct {
		col, dim int
		want     string
	}{{0, 3, "labels from CSV column 0 (the first; --label-column to change)"}, {3, 3, "labels from CSV column 3 (the last)"}, {1, 3, "labels from CSV column 1"}} {
		if got := LabelColumnText(c.col, c.dim, func(s string) string { return "--" + s }); got != c.want {
			t.Errorf("LabelColumnText(%d, %d) = %q, want %q", c.col, c.dim, got, c.want)
		}
	}
	if FormatSize(1023) != "1023 B" || FormatSize(1<<10) != "1.0 KiB" || FormatSize(3<<19) != "1.5 MiB" {
		t.Errorf("FormatSize: %s %s %s", FormatSize(1023), FormatSize(1<<10), FormatSize(3<<19))
	}
}

// TestPredictionText checks predict's summary, warning and JSON figures.
func TestPredictionText(t *testing.T) {
	m := &File{}
	m.Header.Algorithm, m.Header.NBasis = "svm", 7
	m.Header.Labels = LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}
	p := &Prediction{Error: 0.25, Seconds: 0.5, Foreign: 1, ForeignValues: []float64{3}}
	var b bytes.Buffer
	p.WriteText(&b, m, "d.svm", 8, "go")
	if want := "d.svm: error 25.00% (2/8) on 8 examples (svm model, 7 basis functions, backend go, 0.5 s)\n"; b.String() != want {
		t.Errorf("summary %q, want %q", b.String(), want)
	}
	if got, want := p.ForeignWarning(m, "d.svm", 8), "1 of 8 examples of d.svm have labels (3) that are not the model's classes (-1 1); each counts as an error"; got != want {
		t.Errorf("warning %q, want %q", got, want)
	}
	if (&Prediction{}).ForeignWarning(m, "d", 1) != "" {
		t.Error("a warning without foreign labels")
	}
	r := p.Result(m, 8, "go", "/nonexistent/model")
	if r.NTest != 8 || *r.TestError != 0.25 || r.PredictSeconds != 0.5 || r.ForeignLabels != 1 || r.Model != "/nonexistent/model" || r.ModelBytes != 0 || r.NBasis != 7 {
		t.Errorf("result %+v", r)
	}
}
