package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
)

// TestUSPSRoundTrip trains digit 8 vs the rest of USPS with the CLI (on
// the first 2000 training digits, to stay cheap), predicts the whole test
// set with the saved model, and checks both report the test error that the
// kmp library gives for the same configuration and scaling, with exactly
// --basis kernel basis functions.
func TestUSPSRoundTrip(t *testing.T) {
	trainPath, err := data.SharedFile("usps", "usps.train.gz")
	if err != nil {
		t.Skipf("shared USPS data not available (%v)", err)
	}
	testPath, err := data.SharedFile("usps", "usps.test.gz")
	if err != nil {
		t.Skipf("shared USPS data not available (%v)", err)
	}
	const n, basis, gamma, digit = 2000, 50, 1.0 / 128, 8.0
	full, err := data.Load(trainPath)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sub := full.Subset(idx)
	dir := t.TempDir()
	subPath := filepath.Join(dir, "usps2000.train")
	writeData(t, subPath, sub)

	// The CLI.
	model := filepath.Join(dir, "usps8.model")
	r := mustRun(t, dir, "train", "--data", subPath, "--test", testPath, "--positive", "8", "--algo", "kmp",
		"--gamma", "0.0078125", "--basis", "50", "--scale", "minmax", "--seed", "1", "--model", model, "--json", "--quiet")
	var tr, pr resultJSON
	decodeJSON(t, r.stdout, &tr)
	r = mustRun(t, dir, "predict", "--model", model, "--data", testPath, "--json")
	decodeJSON(t, r.stdout, &pr)

	// The library, on the same data.
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	test, err := data.Load(testPath, data.WithDim(sub.Dim()))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := data.FitScaler(data.ScaleMinMax, sub.X)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Apply(sub.X); err != nil {
		t.Fatal(err)
	}
	if err := sc.Apply(test.X); err != nil {
		t.Fatal(err)
	}
	y, err := data.BinaryLabels(sub.Y, digit)
	if err != nil {
		t.Fatal(err)
	}
	yTest, _ := data.BinaryLabels(test.Y, digit)
	m, err := kmp.Train(e, sub.X, y, kmp.Config{
		Variant: kmp.PreFit, Loss: kmp.Squared, Task: kmp.Classification,
		Kernels: []pursuit.Kernel{pursuit.NewRBF(gamma)}, Bias: true, N: basis + 1, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	// --basis counts kernel functions, the bias apart (issue 16: --basis 274
	// gave 273): the library's N counts steps, and the bias may take one.
	if m.Size().SupportVectors > basis {
		if m, err = m.Truncate(basis); err != nil {
			t.Fatal(err)
		}
	}
	if m.Size().SupportVectors != basis {
		t.Fatalf("library reference: %d kernel functions, want %d", m.Size().SupportVectors, basis)
	}
	pred, err := m.Predict(e, test.X)
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i := range pred {
		if pred[i] != yTest[i] {
			wrong++
		}
	}
	lib := float64(wrong) / float64(len(pred))
	t.Logf("USPS 8 vs rest, %d training digits, %d basis functions: library %d/%d test errors (%.2f%%), CLI train %v, predict %v",
		n, m.Size().SupportVectors, wrong, len(pred), 100*lib, *tr.TestError, *pr.TestError)
	if *tr.TestError != lib || *pr.TestError != lib {
		t.Errorf("test error: library %v, pursuit train %v, pursuit predict %v", lib, *tr.TestError, *pr.TestError)
	}
	if tr.NBasis != m.Size().SupportVectors || pr.NBasis != tr.NBasis {
		t.Errorf("basis functions: library %d, train %d, predict %d", m.Size().SupportVectors, tr.NBasis, pr.NBasis)
	}
	if lib > 0.06 {
		t.Errorf("test error %.2f%% is implausibly high for 8 vs rest", 100*lib)
	}
	if st, err := os.Stat(model); err != nil || st.Size() != tr.ModelBytes {
		t.Errorf("model_bytes %d, file %v", tr.ModelBytes, st)
	}
}
