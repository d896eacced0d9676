package learn_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

// TestExport checks Export's files in each format, ExportFiles' names and
// the refusal of an unknown format.
func TestExport(t *testing.T) {
	e := newEngine(t)
	s := learn.DefaultSettings()
	s.Basis = 3
	d := learn.DataSettings{Scale: "minmax"}
	f, _, err := learn.FitSettings(e, &s, &d, learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}, blobs(30, 2, 1), nil, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "m.libsvm")
	files, err := f.Model.Export("libsvm", lib, "test")
	if err != nil || !slices.Equal(files, learn.ExportFiles("libsvm", lib)) {
		t.Errorf("libsvm: %v, %v; want %v", files, err, learn.ExportFiles("libsvm", lib))
	}
	onnx := filepath.Join(dir, "m.onnx")
	if files, err := f.Model.Export("onnx", onnx, "test"); err != nil || !slices.Equal(files, []string{onnx}) || !slices.Equal(learn.ExportFiles("onnx", onnx), files) {
		t.Errorf("onnx: %v, %v", files, err)
	}
	onnxSVM := filepath.Join(dir, "m-svm.onnx")
	if files, err := f.Model.Export("onnx-svm", onnxSVM, "test"); err != nil || !slices.Equal(files, []string{onnxSVM}) {
		t.Errorf("onnx-svm: %v, %v", files, err)
	}
	a, errA := os.ReadFile(onnx)
	b, errB := os.ReadFile(onnxSVM)
	if errA != nil || errB != nil || bytes.Equal(a, b) {
		t.Errorf("onnx and onnx-svm wrote the same bytes (%v, %v)", errA, errB)
	}
	var se *learn.SettingError
	if _, err := f.Model.Export("pmml", lib, "test"); !errors.As(err, &se) || se.Text(flagNames) != `--format "pmml": pursuit export writes a kmp model as libsvm or onnx or onnx-svm` {
		t.Errorf("pmml: %v", err)
	}
}
