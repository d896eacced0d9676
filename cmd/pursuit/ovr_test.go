package main

import (
	"path/filepath"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestSVMOneVsRestIsLibrarys checks that `train --algo svm --one-vs-rest`
// is svm.TrainOneVsRest: the saved model's decisions equal, bit for bit,
// those of the library's one-vs-rest machines trained on the same data.
func TestSVMOneVsRestIsLibrarys(t *testing.T) {
	dir := t.TempDir()
	all := threeClass(240)
	tr, te := head(all, 180)
	train, test := filepath.Join(dir, "b.train"), filepath.Join(dir, "b.test")
	writeData(t, train, tr)
	writeData(t, test, te)
	model := filepath.Join(dir, "svm.model")
	mustRun(t, dir, "train", "--algo", "svm", "--data", train, "--one-vs-rest", "--scale", "none",
		"--gamma", "2", "--c", "3", "--seed", "7", "--backend", "go", "--model", model, "--quiet")

	trd, err := data.Load(train)
	if err != nil {
		t.Fatal(err)
	}
	ted, err := data.Load(test)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	lib, err := svm.TrainOneVsRest(e, trd.X, trd.Y, svm.Params{Type: svm.CSVC, Kernel: pursuit.NewRBF(2), C: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	m, err := learn.LoadModel(e, model)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Decisions(e, ted.X)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(lib.Machines) || len(lib.Machines) != 3 {
		t.Fatalf("CLI model has %d outputs, library %d machines; want 3", len(got), len(lib.Machines))
	}
	for c, mc := range lib.Machines {
		want, err := mc.Decision(e, ted.X)
		if err != nil {
			t.Fatal(err)
		}
		if m.Models[c].NBasis() != mc.TotalSV() {
			t.Errorf("class %v: CLI model has %d support vectors, library %d", lib.Classes[c], m.Models[c].NBasis(), mc.TotalSV())
		}
		for i := range want {
			if got[c][i] != want[i] {
				t.Fatalf("class %v, test row %d: CLI decision %v, library %v", lib.Classes[c], i, got[c][i], want[i])
			}
		}
	}
}
