package learn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadTrainTest checks the loading of a training and a test file, the
// plan, the refusals and, across two in-process ranks, that the rows are
// split between the ranks while the plan is every rank's.
func TestLoadTrainTest(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "tr.svm", "1 1:1 3:1\n-1 2:1\n1 1:2\n-1 3:2\n")
	te := writeFile(t, dir, "te.svm", "1 1:1\n-1 2:1\n")
	wide := writeFile(t, dir, "wide.svm", "1 4:1\n")
	three := writeFile(t, dir, "three.svm", "1 1:1\n2 1:2\n3 1:3\n")
	opts := func(dim int) []data.Option {
		if dim > 0 {
			return []data.Option{data.WithDim(dim)}
		}
		return nil
	}
	e, err := engine.New(engine.WithBackend(engine.BackendGo))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	before := e.Available()
	tt, err := LoadTrainTest(e, tr, te, false, opts, LabelSpec{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tt.Train.Len() != 4 || tt.Train.Dim() != 3 || tt.Test.Len() != 2 || tt.Test.Dim() != 3 || tt.Plan.Task != TaskBinary {
		t.Errorf("train %d × %d, test %d × %d, task %s; want 4 × 3, 2 × 3 (padded), binary",
			tt.Train.Len(), tt.Train.Dim(), tt.Test.Len(), tt.Test.Dim(), tt.Plan.Task)
	}
	if held := before - e.Available(); held != tt.Train.Bytes()+tt.Test.Bytes() {
		t.Errorf("%d bytes charged to the budget, want the two sets' %d", held, tt.Train.Bytes()+tt.Test.Bytes())
	}
	e.Release(tt.Train.Bytes() + tt.Test.Bytes())
	// Checked only: the test rows are neither kept nor charged.
	if tt, err = LoadTrainTest(e, tr, te, true, opts, LabelSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	if held := before - e.Available(); tt.Test != nil || held != tt.Train.Bytes() {
		t.Errorf("checking the test file: test %v, %d bytes charged; want none and the training set's %d", tt.Test, held, tt.Train.Bytes())
	}
	e.Release(tt.Train.Bytes())
	for _, check := range []bool{false, true} {
		if _, err := LoadTrainTest(e, tr, wide, check, opts, LabelSpec{}, nil); err == nil || !strings.Contains(err.Error(), "(the test data must have the training data's 3 features)") {
			t.Errorf("a wider test file (checked only: %v): %v", check, err)
		}
		if e.Available() != before {
			t.Errorf("a refused test file (checked only: %v) left %d bytes charged", check, before-e.Available())
		}
	}
	var ce *ClassesError
	if _, err := LoadTrainTest(e, three, "", false, opts, LabelSpec{}, nil); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), three+": ") {
		t.Errorf("three classes for a binary task: %v", err)
	}
	restated := errors.New("restated")
	if _, err := LoadTrainTest(e, filepath.Join(dir, "none.svm"), "", false, opts, LabelSpec{}, func(error) error { return restated }); !errors.Is(err, restated) {
		t.Errorf("restate: %v", err)
	}
	// Across two ranks: two rows each, the plan from all four labels.
	var mu sync.Mutex
	rows := 0
	err = comm.Run(2, func(c comm.Comm) error {
		e, err := engine.New(engine.WithBackend(engine.BackendGo), engine.WithComm(c))
		if err != nil {
			return err
		}
		defer e.Close()
		tt, err := LoadTrainTest(e, tr, "", false, opts, LabelSpec{OneVsRest: true}, nil)
		if err != nil {
			return err
		}
		if len(tt.Plan.Classes) != 2 {
			t.Errorf("rank %d: classes %v", c.Rank(), tt.Plan.Classes)
		}
		mu.Lock()
		rows += tt.Train.Len()
		mu.Unlock()
		return nil
	})
	if err != nil || rows != 4 {
		t.Errorf("across ranks: %d rows in all, %v", rows, err)
	}
}
