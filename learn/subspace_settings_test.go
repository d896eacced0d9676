package learn

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

func TestSubspaceSettingsValidate(t *testing.T) {
	ok := SubspaceSettings{Method: "skpca", K: 5, Delta: 0.05, Kernel: Settings{Kernel: "rbf"}}
	if err := ok.Validate(map[string]bool{"plot": true, "log": true}); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*SubspaceSettings)) SubspaceSettings { s := ok; f(&s); return s }
	for _, c := range []struct {
		s       SubspaceSettings
		given   string
		setting string
		text    string
	}{
		{ok, "data-y", "data-y", "--data-y applies to --method skcca"},
		{ok, "alpha", "alpha", "--alpha applies to --method skcca"},
		{with(func(s *SubspaceSettings) { s.Method = "skcca"; s.Alpha = -1 }), "alpha", "alpha", "--alpha -1: must be a finite number > 0"},
		{with(func(s *SubspaceSettings) { s.Method = "skcca" }), "log", "log", "--log applies to --method skpca"},
		{with(func(s *SubspaceSettings) { s.Method = "pca" }), "", "method", `--method "pca": want skpca or skcca`},
		{with(func(s *SubspaceSettings) { s.K = 0 }), "", "k", "--k 0: must be at least 1"},
		{with(func(s *SubspaceSettings) { s.Delta = 1 }), "", "delta", "--delta 1: must be in (0, 1)"},
		{with(func(s *SubspaceSettings) { s.Kernel.Kernel = "linear" }), "", "kernel", "--kernel linear: subspace offers rbf"},
		{ok, "log", "log", "--log applies to --plot"},
	} {
		err := c.s.Validate(map[string]bool{c.given: true})
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != c.setting || !errors.Is(err, pursuit.ErrConfig) {
			t.Errorf("%+v given %s: %v, want a SettingError about %s", c.s, c.given, err, c.setting)
		} else if got := se.Text(func(s string) string { return "--" + s }); !strings.HasPrefix(got, c.text) {
			t.Errorf("%+v given %s: %q, want %q", c.s, c.given, got, c.text)
		}
	}
}

// FitKPCA on prepared (scaled) data is SparseKPCA on the data scaled by
// hand, with the kernel of the settings; PreparePairs and FitKCCA are
// SparseKCCA's.
func TestSubspaceSettingsFit(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := SubspaceSettings{Method: "skpca", K: 4, Delta: 0.05, Scale: "standard", Kernel: Settings{Kernel: "rbf", Sigma: 2}}
	tr, te := data.Ringnorm(40, 3, 1), data.Ringnorm(10, 3, 2)
	if _, err := (&SubspaceSettings{K: 40}).Prepare(tr, nil); err == nil || !strings.Contains(err.Error(), "k 40: must be less than the 40 training examples") {
		t.Errorf("k = rows: %v", err)
	}
	every := func(d *data.Dataset) []int {
		r := make([]int, d.Len())
		for i := range r {
			r[i] = i
		}
		return r
	}
	wantTr, wantTe := tr.Subset(every(tr)), te.Subset(every(te))
	if _, err := FitScale(data.ScaleStandard, wantTr, wantTe); err != nil {
		t.Fatal(err)
	}
	kern, err := s.Prepare(tr, te)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(kern.Gamma-0.25) > 1e-15 {
		t.Errorf("kernel %v, want gamma 1/σ² = 0.25", kern)
	}
	if !slices.Equal(tr.X.Data, wantTr.X.Data) || !slices.Equal(te.X.Data, wantTe.X.Data) {
		t.Fatal("Prepare did not scale the sets as FitScale standard")
	}
	kc, rep, err := s.FitKPCA(e, kern, tr, te)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SparseKPCA(e, kern, wantTr.X, wantTe.X, 4, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kc.Fit.Index, want.Fit.Index) || rep.M != 40 || rep.NTest != 10 || rep.Delta != 0.05 {
		t.Errorf("FitKPCA chose %v (report m %d, n_test %d), SparseKPCA %v", kc.Fit.Index, rep.M, rep.NTest, want.Fit.Index)
	}

	x, y := data.Ringnorm(30, 4, 3), data.Ringnorm(30, 3, 4)
	if err := CheckPairs(x, data.Ringnorm(29, 3, 4), "x.svm", "y.svm", "data-y"); err == nil || !strings.Contains(err.Error(), "data-y y.svm has 29 rows but x.svm has 30") {
		t.Errorf("CheckPairs: %v", err)
	}
	if err := CheckPairs(x, y, "x", "y", "data-y"); err != nil {
		t.Error(err)
	}
	c := SubspaceSettings{Method: "skcca", K: 3, Delta: 0.05, Alpha: 0.5, Scale: "none", Kernel: Settings{Kernel: "rbf", Gamma: 0.2}}
	kx, ky, err := c.PreparePairs(x, y, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if kx.Gamma != 0.2 || ky.Gamma != 0.2 {
		t.Errorf("kernels %v %v", kx, ky)
	}
	r, err := c.FitKCCA(e, kx, ky, x, y, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := SparseKCCA(e, kx, ky, x.X, y.X, nil, nil, 3, 0.5, 0.05, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Chosen, w.Chosen) || r.Bound == nil || r.NTest != 0 {
		t.Errorf("FitKCCA %+v, SparseKCCA %+v", r, w)
	}
}
