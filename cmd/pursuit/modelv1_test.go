package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestModelV1Fixtures: the version 1 model files in testdata/modelv1 (one
// per algorithm family and task, written by pursuit before the modelfile
// frame) still load, and predict what they predicted when they were
// written (NAME.want.json, recorded then with the version 1 reader); saved
// again they are version 2 files that predict the same.
func TestModelV1Fixtures(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	files, err := filepath.Glob(filepath.Join("testdata", "modelv1", "*.model"))
	if err != nil || len(files) < 7 {
		t.Fatalf("%d version 1 model files (%v), want 7", len(files), err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".model")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(raw, []byte(learn.ModelMagicV1)) {
			t.Fatalf("%s: not a version 1 file", name)
		}
		if got := fixChecksums(raw); !bytes.Equal(got, raw) {
			t.Fatalf("%s: the fuzzer's repair changed a valid version 1 file", name)
		}
		wantRaw, err := os.ReadFile(filepath.Join("testdata", "modelv1", name+".want.json"))
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Decisions [][]float64 `json:"decisions"`
			Labels    []float64   `json:"labels"`
		}
		if err := json.Unmarshal(wantRaw, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, err := learn.ParseModel(raw, fuzzModelBudget)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		x := pursuit.NewMatrix(5, m.Header.Dim)
		for i := range x.Rows {
			for j := range x.Cols {
				x.Set(i, j, float32(math.Sin(float64(5*i+j))))
			}
		}
		check := func(what string, m *learn.File) {
			t.Helper()
			d, err := m.Decisions(e, x)
			if err != nil {
				t.Fatalf("%s %s: %v", name, what, err)
			}
			if len(d) != len(want.Decisions) {
				t.Fatalf("%s %s: %d outputs, want %d", name, what, len(d), len(want.Decisions))
			}
			for o := range d {
				for i := range d[o] {
					// 1e-6 relative: RBF pairs whose float32 distance
					// cancels are computed in float64 since the files
					// were written (issue 29); the labels are exact.
					if w := want.Decisions[o][i]; math.Abs(d[o][i]-w) > 1e-6*math.Max(1, math.Abs(w)) {
						t.Fatalf("%s %s: output %d row %d: %v, written %v", name, what, o, i, d[o][i], want.Decisions[o][i])
					}
				}
			}
			for i, l := range m.Header.Labels.Decide(d) {
				if l != want.Labels[i] {
					t.Fatalf("%s %s: row %d label %v, written %v", name, what, i, l, want.Labels[i])
				}
			}
		}
		check("version 1", m)
		var b bytes.Buffer
		if _, err := m.Write(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b.Bytes(), []byte(learn.ModelMagic)) {
			t.Fatalf("%s: saved again, it starts %q", name, b.Bytes()[:20])
		}
		m2, err := learn.ParseModel(b.Bytes(), fuzzModelBudget)
		if err != nil {
			t.Fatalf("%s saved as version %d: %v", name, learn.ModelVersion, err)
		}
		check("saved as version 2", m2)
	}
}
