package learn

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// TestDemoRun checks the demo's algorithm list, its data files (read
// back) and one run of a small problem: the row of FitSettings' figures
// and the learning curve.
func TestDemoRun(t *testing.T) {
	all, err := DemoAlgorithms("")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, a := range Algorithms() {
		if !a.NotInDemo {
			want = append(want, a.Name)
		}
	}
	var got []string
	for _, a := range all {
		got = append(got, a.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("demo algorithms %v, want %v", got, want)
	}
	if two, err := DemoAlgorithms("kmp, svm"); err != nil || len(two) != 2 || two[1].Name != "svm" {
		t.Errorf("kmp, svm: %v %v", two, err)
	}
	if _, err := DemoAlgorithms("kmp,nope"); err == nil {
		t.Error("an unknown algorithm was accepted")
	}

	problems := DemoProblems(2, true)
	dir := t.TempDir()
	files, err := WriteDemoData(dir, problems)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 || files[0] != filepath.Join(dir, "two-moons.train") || files[3] != filepath.Join(dir, "ringnorm-20d.test") {
		t.Fatalf("files %v", files)
	}
	back, err := data.Load(files[1])
	if err != nil || back.Len() != problems[0].Test.Len() || back.Y[0] != problems[0].Test.Y[0] {
		t.Fatalf("read back %s: %v", files[1], err)
	}

	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	p := problems[0]
	p.Basis = 8
	a, _ := FindAlgorithm("kmp")
	trained := false
	before := e.Available()
	r, m, err := p.Run(e, a, 3, nil, "test", func() { trained = true })
	if err != nil {
		t.Fatal(err)
	}
	s, d := p.Settings(a, 3)
	f, pr, err := FitSettings(e, &s, &d, LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}, p.Train, p.Test, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Release(e)
	if !trained || r.NBasis != f.Model.NBasis() || *r.TestError != f.TestError || r.Problem != p.Name || len(m.Header.Curve) == 0 || e.Available()+pr.Held != before {
		t.Errorf("run: row %+v, curve %d points, available %d of %d; FitSettings %+v", r, len(m.Header.Curve), e.Available(), before, f)
	}
}
