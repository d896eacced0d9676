package learn

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// CVSettings are cross-validation's own settings by name, as a program
// offers them: the folds and the values to try. Grid checks them against
// the model settings (SettingError) and makes the CVGrid; Search runs it
// with the learners of the model settings; CVReport.Retrain fits the best
// setting on all the data.
type CVSettings struct {
	// Folds is k ("folds"), at least 2.
	Folds int
	// Gamma, C and Basis are comma-separated lists of the kernel γ, the
	// cost C and the basis size to try ("grid-gamma", "grid-c",
	// "grid-basis"; "": the model settings' single value).
	Gamma, C, Basis string
	// Epsilon lists bpdn's ε, or the ε-SVR tube of svm ("grid-epsilon").
	Epsilon string
	// Params are NAME=V1,V2,... lists for any other numeric model setting
	// ("grid"; Settings.ParseGrid).
	Params []string
}

// Grid checks the settings against the validated model settings s (given
// names the settings set explicitly, of both) and returns the grid: every
// combination of the lists given, a missing list being s's single value.
func (c *CVSettings) Grid(s *Settings, given map[string]bool) (CVGrid, error) {
	if c.Folds < 2 {
		return CVGrid{}, settingErr("folds", "{folds} %d: need at least 2", c.Folds)
	}
	gammas, err := parseList("grid-gamma", c.Gamma, false)
	if err != nil {
		return CVGrid{}, err
	}
	cs, err := parseList("grid-c", c.C, false)
	if err != nil {
		return CVGrid{}, err
	}
	ns, err := parseList("grid-basis", c.Basis, true)
	if err != nil {
		return CVGrid{}, err
	}
	eps, err := c.epsilons(s)
	if err != nil {
		return CVGrid{}, err
	}
	params, err := s.ParseGrid(c.Params, given)
	if err != nil {
		return CVGrid{}, err
	}
	if len(gammas) > 0 && (given["gamma"] || given["sigma"]) {
		return CVGrid{}, settingErr("grid-gamma", "give {grid-gamma} or {gamma}/{sigma}, not both")
	}
	if len(gammas) > 0 && s.Kernel == "linear" {
		return CVGrid{}, settingErr("grid-gamma", "{grid-gamma}: the linear kernel has no γ")
	}
	algo, err := FindAlgorithm(s.Algo)
	if err != nil {
		return CVGrid{}, err
	}
	g := CVGrid{Gamma: gammas, C: cs, Epsilon: eps, ShowC: len(cs) > 1 || given["c"],
		ShowBasis: algo.UsesBasis || len(ns) > 1 || given["basis"], Settings: params}
	if g.C == nil {
		g.C = []float64{s.C}
	}
	for _, n := range ns {
		g.Basis = append(g.Basis, int(n))
	}
	if ns == nil {
		g.Basis = []int{s.Basis}
	}
	return g, nil
}

// parseList parses the comma-separated list of setting name: positive
// finite numbers (integers with integer); "" is no list.
func parseList(name, s string, integer bool) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) || (integer && v != math.Trunc(v)) {
			kind := "positive numbers"
			if integer {
				kind = "positive integers"
			}
			return nil, settingErr(name, "{"+name+"} %q: want comma-separated %s, e.g. 1,10,100", s, kind)
		}
		out = append(out, v)
	}
	return out, nil
}

// epsilons parses Epsilon for s's algorithm (bpdn, or svm as ε-SVR);
// without it, nil.
func (c *CVSettings) epsilons(s *Settings) ([]float64, error) {
	if c.Epsilon == "" {
		return nil, nil
	}
	if s.Algo != "bpdn" && s.Algo != "svm" {
		return nil, settingErr("grid-epsilon", "{grid-epsilon} does not apply to {algo} %s (it is for bpdn, and svm with {svr-epsilon})", s.Algo)
	}
	var out []float64
	for _, f := range strings.Split(c.Epsilon, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) || (s.Algo == "svm" && v == 0) {
			return nil, settingErr("grid-epsilon", "{grid-epsilon} %q: want comma-separated non-negative numbers (positive for svm), e.g. 0.05,0.1,0.5", c.Epsilon)
		}
		out = append(out, v)
	}
	if s.Algo == "svm" && s.SVREpsilon == 0 {
		return nil, settingErr("grid-epsilon", "{grid-epsilon} with {algo} svm needs ε-SVR: give {svr-epsilon} too (or {regression})")
	}
	return out, nil
}

// Search cross-validates every point of g with cv (its Folds set from
// c.Folds) on all (unscaled; cv.Prep scales each fold), the learner of
// each point being s's at that point (Settings.AtPoint) for d's task and
// plan; a learner's refusal of its settings names them by name (Named).
// The KMP family without early stopping (d.ValFrac 0) trains once per
// fold for settings that differ only in the basis size.
func (c *CVSettings) Search(e *engine.Engine, cv CV, s *Settings, d *DataSettings, g CVGrid, plan LabelPlan, all *data.Dataset, name func(setting string) string) ([]CVPoint, int, error) {
	algo, err := FindAlgorithm(s.Algo)
	if err != nil {
		return nil, 0, err
	}
	cv.Folds = c.Folds
	newLearner := func(p CVPoint, basis int) (Learner, error) {
		ps, err := s.AtPoint(p, basis)
		if err != nil {
			return nil, err
		}
		r, err := ps.RunFor(all.Dim(), d)
		if err != nil {
			return nil, err
		}
		l, err := ps.Learner(plan, r)
		return l, Named(err, name)
	}
	return cv.Search(e, g, newLearner, algo.UsesBasis && len(g.Basis) > 1 && d.ValFrac == 0, plan, all)
}

// CVReport is a cross-validation's outcome: the fields of Result for the
// best setting (TrainError and NBasis averaged over the folds, the test
// figures after Retrain), the cross-validation error and the whole grid.
// Its JSON form is what `pursuit cv --json` prints.
type CVReport struct {
	Result
	Folds   int       `json:"folds"`
	CVError float64   `json:"cv_error"`
	Best    CVPoint   `json:"best"`
	Grid    []CVPoint `json:"grid"`
	best    int
}

// NewCVReport reports the points of Search with the best at index best,
// for algorithm algo cross-validated with folds folds on all (held as
// storage says, may be nil, and scaled as d says) for plan in seconds, on
// backend.
func NewCVReport(points []CVPoint, best, folds int, algo, backend string, plan LabelPlan, all *data.Dataset, d *DataSettings, storage *data.StorageReport, seconds float64) *CVReport {
	r := &CVReport{Folds: folds, CVError: points[best].CVError, Best: points[best], Grid: points, best: best}
	r.Result = Result{
		Algorithm: algo, Backend: backend, Task: plan.Task,
		NTrain: all.Len(), NBasis: int(math.Round(points[best].NBasis)),
		TrainError: Num(points[best].TrainError), TestError: nil, TrainSeconds: seconds,
		Storage: storage,
	}
	if m, err := d.ScaleMode(); err == nil {
		r.Scale = string(ResolveScale(m, all))
	}
	return r
}

// Retrain trains s at the best point (with basis size basis) on all the
// data, in one process (FitSettings), tests it on test (may be nil), and
// fills in the report's model figures (not the model's file and size);
// the model, naming dataName as its training data, is returned.
func (r *CVReport) Retrain(e *engine.Engine, s *Settings, d *DataSettings, basis int, plan LabelPlan, all, test *data.Dataset, dataName, version string) (*File, error) {
	ps, err := s.AtPoint(r.Best, basis)
	if err != nil {
		return nil, err
	}
	f, pr, err := FitSettings(e, &ps, d, plan, all, test, nil, version, nil)
	if err != nil {
		return nil, err
	}
	defer pr.Release(e)
	r.Kernel = f.Model.Header.Kernel
	r.NBasis = f.Model.NBasis()
	r.TrainError = Num(f.TrainError)
	if test != nil {
		r.NTest, r.TestError, r.PredictSeconds = test.Len(), Num(f.TestError), f.PredictSeconds
	}
	f.Model.Header.Train.Data = dataName
	return f.Model, nil
}

// WriteText writes the report for people: the table of the grid with the
// best marked (WriteCVTable), the retrained model's test figures and the
// model file when there are any; dataPath and testPath name the files.
func (r *CVReport) WriteText(w io.Writer, dataPath, testPath string, plan LabelPlan) {
	fmt.Fprintf(w, "%d-fold cross-validation of %s on %s (%d examples, %s), backend %s\n\n", r.Folds, r.Algorithm, dataPath, r.NTrain, plan.Describe(), r.Backend)
	WriteCVTable(w, r.Grid, r.best, plan.Task == TaskRegression)
	if r.TestError != nil {
		fmt.Fprintf(w, "retrained on all %d examples: %s on %s\n", r.NTrain, plan.ErrorText(*r.TestError, r.NTest), testPath)
	}
	if r.Model != "" {
		fmt.Fprintf(w, "saved %s (%s)\n", r.Model, FormatSize(r.ModelBytes))
	}
}
