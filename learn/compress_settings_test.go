package learn

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

func TestCompressSettings(t *testing.T) {
	ok := CompressSettings{Method: "slmc", NzFrac: "0.05, 0.5"}
	given := map[string]bool{"nz-frac": true}
	if err := ok.Validate(given); err != nil {
		t.Fatal(err)
	}
	if f, _ := ok.Fractions(given); !slices.Equal(f, []float64{0.05, 0.5}) {
		t.Errorf("fractions %v", f)
	}
	if f, _ := ok.Fractions(nil); !slices.Equal(f, []float64{0.1}) {
		t.Errorf("default fractions %v", f)
	}
	if f, _ := (&CompressSettings{Nz: 3}).Fractions(map[string]bool{"nz": true}); !slices.Equal(f, []float64{0}) {
		t.Errorf("nz fractions %v", f)
	}
	for _, c := range []struct {
		s       CompressSettings
		given   []string
		setting string
		text    string
	}{
		{CompressSettings{Method: "slmc", Nz: 2}, []string{"nz", "nz-frac"}, "nz", "--nz and --nz-frac both size the model; give one"},
		{CompressSettings{Method: "slmc"}, []string{"nz"}, "nz", "--nz 0: must be at least 1"},
		{CompressSettings{Method: "slmc", C: -1}, nil, "c", "--c -1: must be positive and finite"},
		{CompressSettings{Method: "slmc", MaxIter: -1}, nil, "max-iter", "--max-iter -1: must be positive"},
		{CompressSettings{Method: "x"}, nil, "method", `--method "x": want slmc, mrs or rs`},
		{CompressSettings{Method: "rs", MaxIter: 3}, []string{"max-iter"}, "max-iter", "--max-iter applies to --method slmc only"},
		{CompressSettings{Method: "slmc", NzFrac: "0.1,2"}, []string{"nz-frac"}, "nz-frac", `--nz-frac "0.1,2": each fraction must be a number in (0, 1], got "2"`},
	} {
		g := map[string]bool{}
		for _, n := range c.given {
			g[n] = true
		}
		err := c.s.Validate(g)
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != c.setting || !errors.Is(err, pursuit.ErrConfig) {
			t.Errorf("%+v: %v, want a SettingError about %s", c.s, err, c.setting)
			continue
		}
		if got := se.Text(func(s string) string { return "--" + s }); got != c.text {
			t.Errorf("%+v: %q, want %q", c.s, got, c.text)
		}
	}
	if p := FractionPaths("d/out.model", []float64{0.05, 0.1}); !slices.Equal(p, []string{"d/out-nz0.05.model", "d/out-nz0.1.model"}) {
		t.Errorf("paths %v", p)
	}
	if p := FractionPaths("a.b/out", []float64{0.05, 0.1}); !slices.Equal(p, []string{"a.b/out-nz0.05", "a.b/out-nz0.1"}) {
		t.Errorf("paths without extension %v", p)
	}
	if p := FractionPaths("out.model", []float64{0.3}); !slices.Equal(p, []string{"out.model"}) {
		t.Errorf("one fraction %v", p)
	}

	sm, err := svm.ReadLIBSVMModel(strings.NewReader(tinyLIBSVM))
	if err != nil {
		t.Fatal(err)
	}
	src := LIBSVMSource(sm)
	if err := (&CompressSettings{Nz: 3}).CheckSource(src); err == nil || !strings.Contains(err.Error(), "nz 3 is more than the model's 2 vectors") {
		t.Errorf("nz above the vectors: %v", err)
	}
	if err := (&CompressSettings{Nz: 2}).CheckSource(src); err != nil {
		t.Error(err)
	}
	narrow := &data.Dataset{X: pursuit.NewMatrix(1, 1), Y: []float64{1}}
	if err := src.CheckData("n.svm", narrow); err == nil || !strings.Contains(err.Error(), "data n.svm has 1 features, but the model's support vectors have 2") {
		t.Errorf("narrow data: %v", err)
	}
	if err := src.CheckData("w.svm", &data.Dataset{X: pursuit.NewMatrix(1, 2), Y: []float64{1}}); err != nil {
		t.Error(err)
	}
	c := ok.Compress([]float64{0.5}, "tr.svm", "v1", nil, nil)
	if c.Config.Method != "slmc" || c.Data != "tr.svm" || c.Version != "v1" || c.Fractions[0] != 0.5 {
		t.Errorf("compress run %+v", c)
	}
}

// TestCompressSourceLoadData checks the training and evaluation sets of a
// LIBSVM source: the training data's width forced on the test data, and
// the refusals naming the setting of the file.
func TestCompressSourceLoadData(t *testing.T) {
	sm, err := svm.ReadLIBSVMModel(strings.NewReader(tinyLIBSVM))
	if err != nil {
		t.Fatal(err)
	}
	src := LIBSVMSource(sm)
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tr := write("tr.svm", "1 1:1 2:0.5\n-1 1:0.2 2:1\n")
	te := write("te.svm", "1 2:1\n")
	wide := write("wide.svm", "1 3:1\n")
	narrow := write("narrow.svm", "1 1:1\n-1 1:0\n")
	opts := (&DataSettings{}).LoadOptions
	optsOf := func(dim int) []data.Option { return opts(dim, false, nil) }
	train, eval, err := src.LoadData(e, tr, "", optsOf, nil)
	if err != nil || train.Len() != 2 || eval != train {
		t.Fatalf("without a test set: %v", err)
	}
	if _, eval, err = src.LoadData(e, tr, te, optsOf, nil); err != nil || eval.Len() != 1 || eval.Dim() != 2 {
		t.Fatalf("with a test set: %v", err)
	}
	var se *SettingError
	if _, _, err := src.LoadData(e, tr, wide, optsOf, nil); !errors.As(err, &se) || se.Setting != "test" || !strings.Contains(err.Error(), "does not match the model") {
		t.Errorf("wider test data: %v", err)
	}
	if _, _, err := src.LoadData(e, narrow, "", optsOf, nil); !errors.As(err, &se) || se.Setting != "data" {
		t.Errorf("narrow training data: %v", err)
	}
	restated := errors.New("restated")
	if _, _, err := src.LoadData(e, filepath.Join(dir, "none"), "", optsOf, func(err error) error {
		if err != nil {
			return restated
		}
		return nil
	}); err == nil || err.Error() != "data: restated" {
		t.Errorf("missing file, restated: %v", err)
	}
}
