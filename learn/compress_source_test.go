package learn_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

func TestLoadCompressSource(t *testing.T) {
	e := newEngine(t)
	dir := t.TempDir()
	ds := blobs(80, 2, 3)
	binary := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	rbf := pursuit.NewRBF(0.5)
	write := func(name string, l learn.Learner, plan learn.LabelPlan) string {
		ms, err := learn.Train(e, l, plan, ds.X, ds.Y, pursuit.Matrix{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if _, err := learn.NewFile(plan, 2, rbf, ms).WriteFile(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	csvc := learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: rbf, C: 1, Seed: 1}}
	good := write("svm.model", csvc, binary)
	kmpPath := write("kmp.model", learn.KMP{Config: kmp.Config{Variant: kmp.PreFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{rbf}, Bias: true, Seed: 1}, Basis: 5}, binary)
	src, err := learn.LoadCompressSource(e, good)
	if err != nil || len(src.Machines) != 1 || src.Dim != 2 || src.Vectors == 0 {
		t.Fatalf("pursuit svm model: %+v, %v", src, err)
	}
	// The same machine as a LIBSVM text model.
	var lib bytes.Buffer
	if err := src.Machines[0].WriteLIBSVM(&lib); err != nil {
		t.Fatal(err)
	}
	libPath := filepath.Join(dir, "svm.libsvm")
	if err := os.WriteFile(libPath, lib.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if src, err := learn.LoadCompressSource(e, libPath); err != nil || src.Vectors != src.Machines[0].TotalSV() || src.Dim != 0 {
		t.Fatalf("LIBSVM model: %+v, %v", src, err)
	}
	svr := filepath.Join(dir, "svr.libsvm")
	if err := os.WriteFile(svr, []byte("svm_type epsilon_svr\nkernel_type rbf\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
		open       bool
	}{
		{filepath.Join(dir, "none"), "no such file", true},
		{svr, svr + " is an epsilon-SVR regression LIBSVM model; only C-SVC classifiers", false},
		{kmpPath, kmpPath + " is a kmp model; compress takes C-SVC models", false},
	} {
		_, err := learn.LoadCompressSource(e, c.path)
		var se *learn.SourceError
		if !errors.As(err, &se) || se.Open != c.open || !strings.Contains(err.Error(), c.want) || errors.Is(err, pursuit.ErrBadInput) == c.open {
			t.Errorf("%s: %v, want a SourceError (open %v) with %q", c.path, err, c.open, c.want)
		}
	}
}
