package learn_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

func TestRestateLimit(t *testing.T) {
	le := &data.LimitError{What: "a dense 10×10 float32 matrix", Need: 2 << 20, Limit: 1 << 20, SparseNeed: 1 << 10}
	err := learn.RestateLimit(&data.ParseError{File: "x.svm", Line: 3, Err: le}, "--mem-budget", "svm, kmp")
	want := "x.svm:3: a dense 10×10 float32 matrix needs 2.0 MiB, over the 1.0 MiB that --mem-budget leaves for it (raise --mem-budget, or train on fewer examples or features); use sparse storage, which needs 1.0 KiB (--storage sparse, with an algorithm that takes sparse rows: svm, kmp): " + engine.ErrBudget.Error()
	if err.Error() != want || !errors.Is(err, engine.ErrBudget) {
		t.Fatalf("got %q\nwant %q", err, want)
	}
	le.SparseNeed = 0
	err = learn.RestateLimit(le, "", "")
	want = "a dense 10×10 float32 matrix needs 2.0 MiB, over the 1.0 MiB limit for data held in memory: " + engine.ErrBudget.Error()
	if err.Error() != want {
		t.Fatalf("got %q\nwant %q", err, want)
	}
	other := errors.New("other")
	if learn.RestateLimit(other, "--mem-budget", "") != other {
		t.Fatal("an error that is not a limit should pass unchanged")
	}
}

// TestFileLoadData reads data for a 3-feature model: held dense, a file
// with fewer features is padded and one with more is refused; held sparse,
// a LIBSVM file may name more (the scaler is widened) or fewer.
func TestFileLoadData(t *testing.T) {
	e := newEngine(t)
	dir := t.TempDir()
	narrow, wide := filepath.Join(dir, "narrow.svm"), filepath.Join(dir, "wide.svm")
	if err := os.WriteFile(narrow, []byte("1 1:1 2:2\n-1 2:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wide, []byte("1 1:1 5:2\n-1 2:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model := func() *learn.File {
		return &learn.File{Header: learn.Header{Dim: 3, Scaler: &data.Scaler{Mode: data.ScaleMaxAbs, Scale: []float64{1, 0.5, 1}, Offset: []float64{0, 0, 0}}}}
	}
	for _, c := range []struct {
		name     string
		path     string
		storage  data.Storage
		cols     int
		mismatch bool
		sparse   bool
	}{
		{"dense narrow", narrow, data.StorageDense, 3, false, false},
		{"dense wide", wide, data.StorageDense, 0, true, false},
		{"sparse narrow", narrow, data.StorageSparse, 3, false, true},
		{"sparse wide", wide, data.StorageSparse, 5, false, true},
	} {
		m := model()
		ds, err := m.LoadData(e, c.path, c.storage, data.FormatAuto, data.WithStorage(c.storage))
		if c.mismatch {
			if !errors.Is(err, data.ErrFeatureMismatch) {
				t.Errorf("%s: err %v, want a feature mismatch", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ds.Dim() != c.cols || ds.X.IsSparse() != c.sparse || ds.Len() != 2 {
			t.Errorf("%s: %d×%d sparse %v, want 2×%d sparse %v", c.name, ds.Len(), ds.Dim(), ds.X.IsSparse(), c.cols, c.sparse)
		}
		if got := m.Header.Scaler.Dim(); got != max(c.cols, 3) {
			t.Errorf("%s: scaler of %d features, want %d", c.name, got, max(c.cols, 3))
		}
		if err := m.Header.Scaler.Apply(ds.X); err != nil {
			t.Errorf("%s: scaling: %v", c.name, err)
		}
		e.Release(ds.Bytes())
	}
}
