package learn_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

// TestWritePlots checks the pictures written for a 2-D classifier with
// and without its curve and points, a refused path, and the refusal of a
// plot that would be empty.
func TestWritePlots(t *testing.T) {
	e := newEngine(t)
	ds := blobs(40, 2, 3)
	s := learn.DefaultSettings()
	s.Basis = 3
	d := learn.DataSettings{Scale: "minmax"}
	f, pr, err := learn.FitSettings(e, &s, &d, learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}, ds, nil, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Model
	var se *learn.SettingError
	if err := m.NothingToPlot(false); !errors.As(err, &se) ||
		se.Text(flagNames) != "nothing to plot: the model has no learning curve (train a KMP model with --curve or --plot); the decision surface needs --data for its points" {
		t.Errorf("no curve, no points: %v", err)
	}
	if err := m.NothingToPlot(true); err != nil {
		t.Errorf("with points: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "plots")
	files, err := m.WritePlots(e, dir, "m", "title", nil, nil)
	if err != nil || len(files) != 0 {
		t.Errorf("no curve, no points: %v %v", files, err)
	}
	if m.Header.Curve, err = m.LearningCurve(e, pr.Train, nil, nil, 60, true); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "m-curve.png"), filepath.Join(dir, "m-surface.png")}
	var checked []string
	files, err = m.WritePlots(e, dir, "m", "title", ds, func(p string) error { checked = append(checked, p); return nil })
	if err != nil || !slices.Equal(files, want) || !slices.Equal(checked, want) {
		t.Fatalf("files %v, checked %v: %v", files, checked, err)
	}
	for _, p := range files {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	refuse := errors.New("refused")
	if _, err := m.WritePlots(e, dir, "m", "title", ds, func(string) error { return refuse }); err != refuse {
		t.Errorf("a refused path: %v", err)
	}
}
