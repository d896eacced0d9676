package learn

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pursuit-ml/pursuit/data"
)

// DemoProblem is one generated data set of the pursuit demo and the
// settings every algorithm uses on it (RBF kernel).
type DemoProblem struct {
	Name        string
	Train, Test *data.Dataset
	Scale       data.ScaleMode
	Gamma       float64
	Basis       int     // cap on the KMP family's steps (early stopping)
	ValFrac     float64 // validation part for the KMP family's early stopping
	C           float64 // SVM / SLMC regularisation
	Nz          int     // SLMC's expansion vectors
}

// DemoProblems generates the demo's two problems from seed: two moons
// (2-D; 600 points, 240 with small) and 20-D ringnorm (3,000 points, 600
// with small), each split two thirds for training, one third for testing.
func DemoProblems(seed uint64, small bool) []*DemoProblem {
	nMoons, nRing, dRing := 600, 3000, 20
	if small {
		nMoons, nRing = 240, 600
	}
	moons := data.TwoMoons(nMoons, 0.2, seed)
	ring := data.Ringnorm(nRing, dRing, seed)
	mTr, mTe := moons.TrainTest(nMoons * 2 / 3)
	rTr, rTe := ring.TrainTest(nRing * 2 / 3)
	return []*DemoProblem{
		{Name: "two-moons", Train: mTr, Test: mTe, Scale: data.ScaleMinMax, Gamma: 4, Basis: 100, ValFrac: 0.25, C: 10, Nz: 10},
		{Name: "ringnorm-20d", Train: rTr, Test: rTe, Scale: data.ScaleStandard, Gamma: 1.0 / 40, Basis: 200, ValFrac: 0.25, C: 10, Nz: 20},
	}
}

// DemoResult is one row of the demo's comparison: a Result with the
// problem, the kernel's γ, C where the algorithm has one, and the error
// that stopped the run, if any.
type DemoResult struct {
	Problem string `json:"problem"`
	Result
	Gamma float64  `json:"gamma"`       // the RBF kernel's γ
	C     *float64 `json:"c,omitempty"` // SVM / SLMC regularisation (nil for the KMP family)
	Error string   `json:"error,omitempty"`
}

// DemoReport is the demo's comparison: the backend and why it was chosen,
// the output directory, a row per problem and algorithm, and the files
// written (data and plots). Its JSON form is `pursuit demo --json`'s.
type DemoReport struct {
	Backend string       `json:"backend"`
	Reason  string       `json:"reason"`
	Out     string       `json:"out"`
	Results []DemoResult `json:"results"`
	Files   []string     `json:"files"`
}

// Failed names the runs that failed, as problem/algorithm.
func (r *DemoReport) Failed() []string {
	var failed []string
	for _, x := range r.Results {
		if x.Error != "" {
			failed = append(failed, x.Problem+"/"+x.Algorithm)
		}
	}
	return failed
}

// WriteText writes the comparison table, the failures and the notes;
// fullData names the algorithms that train on all the training data (no
// early stopping on a validation part).
func (r *DemoReport) WriteText(w io.Writer, fullData []string) error {
	fmt.Fprintf(w, "pursuit demo: backend %s (%s)\n\n", r.Backend, strings.Join(strings.Fields(r.Reason), " "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "problem\talgorithm\ttrain/val/test\tγ\tC\ttest error\tbasis functions\ttrain time\tbackend\t")
	for _, x := range r.Results {
		split := fmt.Sprintf("%d/%d/%d", x.NTrain, x.NVal, x.NTest)
		c := "-"
		if x.C != nil {
			c = FormatLabel(*x.C)
		}
		if x.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%s\tfailed\t-\t-\t%s\t\n", x.Problem, x.Algorithm, split, x.Gamma, c, x.Backend)
			continue
		}
		te := "-"
		if x.TestError != nil {
			te = fmt.Sprintf("%.2f%%", 100**x.TestError)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%s\t%s\t%d\t%.3f s\t%s\t\n", x.Problem, x.Algorithm, split, x.Gamma, c, te, x.NBasis, x.TrainSeconds, x.Backend)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range r.Results {
		if x.Error != "" {
			fmt.Fprintf(w, "\n%s %s failed: %s", x.Problem, x.Algorithm, x.Error)
		}
	}
	fmt.Fprintf(w, "\nAll use the RBF kernel exp(−γ‖x−z‖²). The KMP family stops early on the validation part (a quarter of\n")
	fmt.Fprintf(w, "the training data); %s train on all of it. Basis functions do not count the bias.\n", listAnd(fullData))
	fmt.Fprintf(w, "Plots and the generated data (LIBSVM format) are in %s:\n", r.Out)
	for _, f := range r.Files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	return nil
}

// listAnd joins names as "a, b and c".
func listAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Settings are the settings algorithm a trains with on the problem: an
// RBF kernel of the problem's γ and its C, the default patience, and for
// the KMP family its basis cap and validation part (early stopping), for
// slmc its Nz; the data are scaled as the problem says.
func (p *DemoProblem) Settings(a Algorithm, seed int64) (Settings, DataSettings) {
	s := Settings{Algo: a.Name, Kernel: "rbf", Gamma: p.Gamma, C: p.C, Patience: DefaultPatience, Seed: seed}
	d := DataSettings{Scale: string(p.Scale)}
	if a.UsesBasis {
		s.Basis, d.ValFrac = p.Basis, p.ValFrac
	}
	if a.Name == "slmc" {
		s.Nz = p.Nz
	}
	return s, d
}

// Row is the table row of algorithm a on the problem before training: the
// problem's sizes and settings (C where a has one).
func (p *DemoProblem) Row(a Algorithm, backend string) DemoResult {
	r := DemoResult{Problem: p.Name, Gamma: p.Gamma,
		Result: Result{Algorithm: a.Name, Backend: backend, Task: TaskBinary, NTrain: p.Train.Len(), NTest: p.Test.Len()}}
	if slices.Contains(SettingAlgorithms()["c"], a.Name) {
		c := p.C
		r.C = &c
	}
	return r
}

// Record fills the row with the figures of the run f (Prep.Fit's).
func (r *DemoResult) Record(f *Fitted) error {
	m := f.Model
	r.Kernel = m.Header.Kernel
	r.NTrain, r.NVal = m.Header.Train.NTrain, m.Header.Train.NVal
	r.NBasis = m.NBasis()
	r.TrainError, r.ValError, r.TestError = Num(f.TrainError), Num(f.ValError), Num(f.TestError)
	r.TrainSeconds, r.PredictSeconds = f.TrainSeconds, f.PredictSeconds
	var err error
	r.ModelBytes, err = m.Size()
	return err
}

// DemoFullData names the demo's algorithms that train on all the training
// data (no early stopping on a validation part), for WriteText.
func DemoFullData() []string {
	return algorithmNames(func(a Algorithm) bool { return !a.UsesBasis && !a.NotInDemo })
}
