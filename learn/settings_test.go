package learn

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/svm"
)

func dashes(s string) string { return "--" + s }

// TestSettingsValidate checks the refusals: the setting named, the text
// with the settings' own names and with a caller's, ErrConfig wrapped.
func TestSettingsValidate(t *testing.T) {
	for _, c := range []struct {
		edit          func(*Settings)
		given         []string
		setting, text string
	}{
		{func(s *Settings) { s.C = -1; s.Algo = "svm" }, []string{"c"}, "c", "--c -1: must be positive and finite"},
		{func(s *Settings) { s.Algo = "kmp"; s.C = 3 }, []string{"c"}, "c", "--c does not apply to --algo kmp (it is for svm, slmc, bpdn)"},
		{func(s *Settings) { s.Patience = 3 }, []string{"patience"}, "patience", "--patience applies to early stopping, which needs --val-frac F"},
		{func(s *Settings) { s.Algo = "slmc"; s.Kernel = "linear" }, nil, "kernel", "--algo slmc supports the rbf kernel only, not linear"},
		{func(s *Settings) { s.Kernel = "poly"; s.Sigma = 2 }, []string{"sigma"}, "sigma", "--sigma applies to the rbf kernel only (use --gamma for poly)"},
		{func(s *Settings) { s.Algo = "skmp"; s.Fit = "auto" }, []string{"fit"}, "fit", `--fit "auto": want backfit, prefit or basic`},
		{func(s *Settings) { s.Algo = "slmc"; s.Nz, s.NzFrac = 3, 0.5 }, []string{"nz", "nz-frac"}, "nz", "give --nz N or --nz-frac F, not both"},
		{func(s *Settings) { s.Algo = "bpdn"; s.Epsilon = -1 }, []string{"epsilon"}, "epsilon", "--epsilon -1: must be a non-negative finite number"},
	} {
		s := DefaultSettings()
		c.edit(&s)
		given := map[string]bool{}
		for _, g := range c.given {
			given[g] = true
		}
		err := s.Validate(given, nil)
		var se *SettingError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a SettingError", c.text, err)
			continue
		}
		if se.Setting != c.setting || se.Text(dashes) != c.text {
			t.Errorf("setting %q, text %q; want %q, %q", se.Setting, se.Text(dashes), c.setting, c.text)
		}
		if want := strings.ReplaceAll(c.text, "--", ""); err.Error() != want {
			t.Errorf("Error() %q, want %q", err.Error(), want)
		}
		if !errors.Is(err, pursuit.ErrConfig) {
			t.Errorf("%q does not wrap pursuit.ErrConfig", err)
		}
	}
	if _, err := FindAlgorithm("nope"); !errors.Is(err, pursuit.ErrConfig) || !strings.Contains(err.Error(), "want one of kmp, kmp-backfit") {
		t.Errorf("FindAlgorithm(nope): %v", err)
	}
	// A caller's own option restricted by extra is checked in the same
	// name order as the settings.
	s := DefaultSettings()
	s.Algo = "svm"
	err := s.Validate(map[string]bool{"curve": true, "patience": true, "val-frac": true}, map[string][]string{"curve": {"kmp"}})
	if err == nil || err.(*SettingError).Text(dashes) != "--curve does not apply to --algo svm (it is for kmp)" {
		t.Errorf("extra table: %v", err)
	}
}

// TestSettingsComplete checks that bpdn's defaults are filled in and the
// others left alone.
func TestSettingsComplete(t *testing.T) {
	s := DefaultSettings()
	s.Algo = "bpdn"
	if err := s.Validate(map[string]bool{}, nil); err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(s.C, 1) || s.Epsilon != DefaultBPDNEpsilon {
		t.Errorf("bpdn completed to C %v, ε %v; want +Inf, %v", s.C, s.Epsilon, DefaultBPDNEpsilon)
	}
	s = DefaultSettings()
	s.Algo, s.C, s.Epsilon = "bpdn", 5, 0.3
	if err := s.Validate(map[string]bool{"c": true, "epsilon": true}, nil); err != nil || s.C != 5 || s.Epsilon != 0.3 {
		t.Errorf("given bpdn settings: C %v, ε %v, %v", s.C, s.Epsilon, err)
	}
}

// TestSettingsLearner checks the mapping of every algorithm to its learner.
func TestSettingsLearner(t *testing.T) {
	k := pursuit.NewRBF(0.5)
	binary := LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}
	regression := LabelPlan{Task: TaskRegression}
	for _, a := range Algorithms() {
		s := DefaultSettings()
		s.Algo, s.Basis, s.Seed = a.Name, 7, 9
		l, err := s.Learner(binary, Run{Kernel: k, Rows: 40})
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		switch v := l.(type) {
		case KMP:
			if v.Name != a.Name || v.Basis != 7 || v.Rows != 40 || v.Config.Seed != 9 || v.Config.Patience != DefaultPatience || !v.Config.Bias {
				t.Errorf("%s: %+v", a.Name, v)
			}
			if (a.Name == "skmp") != (v.Config.Stochastic != nil) {
				t.Errorf("%s: stochastic %v", a.Name, v.Config.Stochastic)
			}
		case SVM:
			if a.Name != "svm" || v.Params.Type != svm.CSVC || v.Params.C != 1 {
				t.Errorf("%s: %+v", a.Name, v.Params)
			}
		case BPDN, MPKFDA, SLMC:
		default:
			t.Errorf("%s: learner %T", a.Name, l)
		}
		_, err = s.Learner(regression, Run{Kernel: k, Regression: true})
		if a.Regression != (err == nil) {
			t.Errorf("%s for regression: %v (regression %v)", a.Name, err, a.Regression)
		}
	}
	s := DefaultSettings()
	s.Algo, s.Fit = "skmp", ""
	if l, _ := s.Learner(binary, Run{Kernel: k}); l.(KMP).Config.Variant != DefaultSKMPFit {
		t.Errorf("skmp without a fit: %v, want %v", l.(KMP).Config.Variant, DefaultSKMPFit)
	}
	s.Fit = "prefit"
	if l, _ := s.Learner(binary, Run{Kernel: k}); l.(KMP).Config.Variant != kmp.PreFit {
		t.Errorf("skmp with fit prefit: %v", l.(KMP).Config.Variant)
	}
	s.Algo = "svm"
	if l, _ := s.Learner(regression, Run{Kernel: k, Regression: true}); l.(SVM).Params.Epsilon != DefaultSVREpsilon || l.(SVM).Params.Type != svm.EpsilonSVR {
		t.Errorf("ε-SVR without a tube: %+v", l.(SVM).Params)
	}
}

// TestParseGrid checks the grid specifications and their refusals.
func TestParseGrid(t *testing.T) {
	s := DefaultSettings()
	s.Algo = "slmc"
	got, err := s.ParseGrid([]string{"nz=5, 10"}, map[string]bool{})
	if want := []Param{{Name: "nz", Values: []float64{5, 10}}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("nz=5, 10: %v, %v; want %v", got, err, want)
	}
	s.Algo, s.Kernel = "svm", "poly"
	got, err = s.ParseGrid([]string{"degree=2,3", "coef0=0,1"}, map[string]bool{"kernel": true})
	if want := []Param{{Name: "degree", Values: []float64{2, 3}}, {Name: "coef0", Values: []float64{0, 1}}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("degree and coef0: %v, %v; want %v", got, err, want)
	}
	for spec, want := range map[string]string{
		"nz":            `--grid "nz": want NAME=V1,V2,... such as --grid nz=5,10,20`,
		"gamma=1,2":     "--grid gamma=1,2: use --grid-gamma for gamma",
		"foo=1":         "--grid foo=1: foo is not a numeric training flag (try " + strings.Join(GridSettings(), ", ") + ")",
		"degree=2.5":    `--grid degree=2.5: "2.5" is not a value of --degree`,
		"degree=0":      "--grid degree=0: --degree 0: must be at least 1",
		"active-set=3":  "--grid active-set=3: --active-set does not apply to --algo svm (it is for skmp)",
		"coef0=x":       `--grid coef0=x: "x" is not a value of --coef0`,
		"svr-epsilon=1": "",
	} {
		_, err := s.ParseGrid([]string{spec}, map[string]bool{"kernel": true})
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", spec, err)
		case want != "" && (err == nil || err.(*SettingError).Text(dashes) != want):
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	if _, err := s.ParseGrid([]string{"degree=2", "degree=3"}, nil); err == nil || !strings.Contains(err.Error(), "degree is given twice") {
		t.Errorf("twice: %v", err)
	}
	if _, err := s.ParseGrid([]string{"degree=2"}, map[string]bool{"degree": true}); err == nil || !strings.Contains(err.Error(), "give degree or a grid over it") {
		t.Errorf("given and gridded: %v", err)
	}
	if err := s.SetNumber("nz", 2.5); err == nil {
		t.Error("SetNumber(nz, 2.5) accepted")
	}
	if err := s.SetNumber("seed", 2); err == nil {
		t.Error("SetNumber(seed) accepted")
	}
}

// TestAlgorithmFacts checks the lists drawn from the algorithm table.
func TestAlgorithmFacts(t *testing.T) {
	if got := CheckpointAlgorithms(false); !reflect.DeepEqual(got, []string{"kmp", "kmp-backfit", "skmp", "svm", "slmc"}) {
		t.Errorf("CheckpointAlgorithms(false) = %v", got)
	}
	if got := CheckpointAlgorithms(true); !reflect.DeepEqual(got, []string{"kmp", "kmp-backfit", "skmp", "svm"}) {
		t.Errorf("CheckpointAlgorithms(true) = %v", got)
	}
	if got := SparseAlgorithms(); len(got) != len(Algorithms()) || got[0] != "kmp" {
		t.Errorf("SparseAlgorithms() = %v", got)
	}
	if !TakesSparse("svm") || TakesSparse("libsvm-unknown") {
		t.Error("TakesSparse: svm takes sparse rows, an unknown name does not")
	}
}

// TestAtPoint checks that a grid point's values land in the settings.
func TestAtPoint(t *testing.T) {
	g, c, eps := 0.5, 10.0, 0.2
	s := DefaultSettings()
	s.Sigma = 3
	got, err := s.AtPoint(CVPoint{Gamma: &g, C: &c, Epsilon: &eps, Settings: map[string]float64{"nz": 4, "coef0": 1.5}}, 30)
	if err != nil || got.Gamma != 0.5 || got.Sigma != 0 || got.C != 10 || got.SVREpsilon != 0.2 || got.Epsilon != 0 || got.Nz != 4 || got.Coef0 != 1.5 || got.Basis != 30 {
		t.Errorf("AtPoint: %+v, %v", got, err)
	}
	s.Algo = "bpdn"
	nan := math.NaN()
	if got, _ := s.AtPoint(CVPoint{Epsilon: &eps}, 0); got.Epsilon != 0.2 || got.SVREpsilon != 0 || got.Sigma != 3 {
		t.Errorf("bpdn's ε: %+v", got)
	}
	if got, _ := s.AtPoint(CVPoint{Epsilon: &nan}, 0); got.Epsilon != 0 {
		t.Errorf("NaN ε changed the settings: %+v", got)
	}
	if _, err := s.AtPoint(CVPoint{Settings: map[string]float64{"seed": 1}}, 0); err == nil {
		t.Error("a point setting the seed was accepted")
	}
}

// TestValidateBound checks the bound's settings against the models they
// bound.
func TestValidateBound(t *testing.T) {
	if got := strings.Join(BoundAlgorithms(), " "); got != "kmp kmp-backfit kmp-basic kmp-tanh skmp svm bpdn mpkfda" {
		t.Errorf("BoundAlgorithms = %q", got)
	}
	for _, c := range []struct {
		algo         string
		regression   bool
		delta, alpha float64
		given        []string
		want         string
	}{
		{"kmp", false, 0.05, 0, nil, ""},
		{"svm", true, 0.05, 0.5, []string{"alpha"}, ""},
		{"slmc", false, 0.05, 0, nil, "--bound does not apply to --algo slmc: its basis is not a subset of the training points (the bounds cover " + strings.Join(BoundAlgorithms(), ", ") + ")"},
		{"kmp", false, 1, 0, nil, "--delta 1: must be in (0, 1)"},
		{"kmp", true, 0.05, 0, nil, "--alpha 0: the bound for a regressor needs the error threshold α > 0 (it is on P(|f(x) − y| > α))"},
		{"kmp", false, 0.05, 1, []string{"alpha"}, "--alpha applies to regression; a classifier's bound is on its error rate"},
	} {
		given := map[string]bool{}
		for _, g := range c.given {
			given[g] = true
		}
		err := ValidateBound(c.algo, c.regression, c.delta, c.alpha, given)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.want != "" && (err == nil || err.(*SettingError).Text(dashes) != c.want || !errors.Is(err, pursuit.ErrConfig)):
			t.Errorf("%+v: %v, want %q", c, err, c.want)
		}
	}
}
