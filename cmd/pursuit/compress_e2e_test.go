package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

// writeLIBSVMModel trains an svm.Model on ds with p and writes it as
// svm-train would.
func writeLIBSVMModel(t *testing.T, path string, ds *data.Dataset, p svm.Params) *svm.Model {
	t.Helper()
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m, err := svm.Train(e, ds.X, ds.Y, p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteLIBSVM(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return m
}

// readLines returns the lines of a file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// predictLIBSVM predicts the rows of path with the LIBSVM model file at
// model through package svm (what svm-predict computes) and returns the
// labels as svm-predict prints them.
func predictLIBSVM(t *testing.T, model, path string) []string {
	t.Helper()
	f, err := os.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := svm.ReadLIBSVMModel(f)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := data.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	pred, err := m.Predict(e, ds.X)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(pred))
	for i, p := range pred {
		out[i] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	return out
}

// TestCompressCommand compresses a binary pursuit SVM (with a list of
// fractions), a three-class one-vs-one LIBSVM model and a one-vs-rest
// pursuit SVM: the table has a row per model, `pursuit predict` reads every
// compressed model, and `pursuit export` writes the binary and one-vs-one
// ones as LIBSVM models that predict the same labels (the one-vs-rest one
// is refused in one line).
func TestCompressCommand(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)

	// A pursuit SVM, two fractions.
	svmModel := filepath.Join(dir, "moons-svm.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "4", "--c", "10", "--model", svmModel, "--quiet")
	out := filepath.Join(dir, "small.model")
	plotFile := filepath.Join(dir, "tradeoff.png")
	r := mustRun(t, dir, "compress", "--model", svmModel, "--data", train, "--test", test, "--nz-frac", "0.1,0.5",
		"--out", out, "--plot", plotFile, "--json", "--max-iter", "30")
	var rep learn.TradeoffReport
	decodeJSON(t, r.stdout, &rep)
	if len(rep.Rows) != 3 || rep.Rows[0].Method != "svm" || rep.Task != learn.TaskBinary || rep.Machines != 1 {
		t.Fatalf("compress --json: %+v", rep)
	}
	if !strings.Contains(r.stderr, "machine 1/1") {
		t.Errorf("no progress lines on stderr:\n%s", r.stderr)
	}
	checkPNG(t, plotFile)
	for i, f := range []string{"small-nz0.1.model", "small-nz0.5.model"} {
		row := rep.Rows[i+1]
		path := filepath.Join(dir, f)
		if row.File != path || row.Vectors < 1 || row.Vectors >= rep.Rows[0].Vectors || i == 1 && *row.Error > *rep.Rows[0].Error+0.05 || !(row.PredictMSPer1000 > 0) {
			t.Errorf("row %d: %+v, error %v (svm: %+v, error %v)", i+1, row, *row.Error, rep.Rows[0], *rep.Rows[0].Error)
		}
		var pr resultJSON
		decodeJSON(t, mustRun(t, dir, "predict", "--model", path, "--data", test, "--json").stdout, &pr)
		if pr.NBasis != row.Vectors || *pr.TestError != *row.Error {
			t.Errorf("%s: predict gives %d vectors and error %v, compress %d and %v", f, pr.NBasis, *pr.TestError, row.Vectors, *row.Error)
		}
	}
	// The text table.
	r = mustRun(t, dir, "compress", "--model", svmModel, "--data", train, "--nz", "3", "--method", "mrs", "--out", out, "--quiet")
	if !strings.Contains(r.stdout, "speedup") || !strings.Contains(r.stdout, "mrs") || r.stderr != "" {
		t.Errorf("compress table:\n%s\nstderr: %s", r.stdout, r.stderr)
	}

	// A three-class LIBSVM model (one-vs-one).
	blobs := threeClass(240)
	blobsTrain := filepath.Join(dir, "blobs.train")
	writeData(t, blobsTrain, blobs)
	lib := filepath.Join(dir, "blobs.libsvm")
	writeLIBSVMModel(t, lib, blobs, svm.Params{Kernel: pursuit.NewRBF(1), C: 10})
	ovo := filepath.Join(dir, "blobs-small.model")
	decodeJSON(t, mustRun(t, dir, "compress", "--model", lib, "--data", blobsTrain, "--nz-frac", "0.2", "--out", ovo, "--json", "--quiet").stdout, &rep)
	if rep.Task != learn.TaskOneVsOne || rep.Machines != 3 || len(rep.Rows) != 2 || *rep.Rows[1].Error > 0.05 {
		t.Errorf("one-vs-one compress: %+v", rep)
	}
	pred := filepath.Join(dir, "blobs.pred")
	mustRun(t, dir, "predict", "--model", ovo, "--data", blobsTrain, "--out", pred)
	exported := filepath.Join(dir, "blobs-small.libsvm")
	mustRun(t, dir, "export", "--model", ovo, "--out", exported)
	got, want := predictLIBSVM(t, exported, blobsTrain), readLines(t, pred)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the exported one-vs-one model predicts differently from pursuit predict")
	}
	if _, err := exec.LookPath("svm-predict"); err == nil {
		sp := filepath.Join(dir, "blobs.svmpred")
		if b, err := exec.Command("svm-predict", blobsTrain, exported, sp).CombinedOutput(); err != nil {
			t.Fatalf("svm-predict: %v\n%s", err, b)
		}
		if strings.Join(readLines(t, sp), " ") != strings.Join(want, " ") {
			t.Errorf("svm-predict on the exported one-vs-one model predicts differently from pursuit predict")
		}
	}

	// A one-vs-rest pursuit SVM: compressed per class; export refuses it.
	ovrModel := filepath.Join(dir, "blobs-ovr.model")
	mustRun(t, dir, "train", "--data", blobsTrain, "--one-vs-rest", "--algo", "svm", "--gamma", "1", "--c", "10", "--model", ovrModel, "--quiet")
	ovrSmall := filepath.Join(dir, "blobs-ovr-small.model")
	decodeJSON(t, mustRun(t, dir, "compress", "--model", ovrModel, "--data", blobsTrain, "--nz", "4", "--out", ovrSmall, "--json", "--quiet").stdout, &rep)
	if rep.Task != learn.TaskOneVsRest || rep.Machines != 3 || rep.Rows[1].Vectors != 12 || *rep.Rows[1].Error > 0.05 {
		t.Errorf("one-vs-rest compress: %+v", rep)
	}
	var pr resultJSON
	decodeJSON(t, mustRun(t, dir, "predict", "--model", ovrSmall, "--data", blobsTrain, "--json").stdout, &pr)
	if *pr.TestError != *rep.Rows[1].Error {
		t.Errorf("predict gives error %v on the one-vs-rest model, compress %v", *pr.TestError, *rep.Rows[1].Error)
	}
	wantFail(t, dir, []string{"one-vs-rest", "LIBSVM"}, "export", "--model", ovrSmall, "--out", filepath.Join(dir, "x.libsvm"))
	wantFail(t, dir, []string{"one-vs-rest", "ONNX", "SVMClassifier"}, "export", "--model", ovrSmall, "--format", "onnx", "--out", filepath.Join(dir, "x.onnx"))
}

// TestCompressBadInput: each input compress cannot handle gets one line and
// exit status 2.
func TestCompressBadInput(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	ds, err := data.Load(train)
	if err != nil {
		t.Fatal(err)
	}
	rbf := filepath.Join(dir, "rbf.libsvm")
	m := writeLIBSVMModel(t, rbf, ds, svm.Params{Kernel: pursuit.NewRBF(4), C: 10})
	lin := filepath.Join(dir, "linear.libsvm")
	writeLIBSVMModel(t, lin, ds, svm.Params{Kernel: pursuit.Kernel{Kind: pursuit.Polynomial, Gamma: 1, Coef0: 1, Degree: 3}, C: 1})
	svr := filepath.Join(dir, "svr.libsvm")
	writeLIBSVMModel(t, svr, ds, svm.Params{Type: svm.EpsilonSVR, Kernel: pursuit.NewRBF(4), C: 1, Epsilon: 0.1})
	oneClass := filepath.Join(dir, "oneclass.libsvm")
	os.WriteFile(oneClass, []byte("svm_type one_class\nkernel_type rbf\ngamma 4\nnr_class 2\ntotal_sv 1\nrho 0.5\nSV\n1 1:0.5 2:0.1\n"), 0o644)
	regModel := filepath.Join(dir, "reg.model")
	mustRun(t, dir, "train", "--data", train, "--regression", "--algo", "svm", "--gamma", "4", "--model", regModel, "--quiet")
	kmpModel := filepath.Join(dir, "kmp.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--gamma", "4", "--basis", "5", "--model", kmpModel, "--quiet")
	svmModel := filepath.Join(dir, "svm.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "4", "--model", svmModel, "--quiet")
	one := filepath.Join(dir, "one.txt")
	os.WriteFile(one, []byte("1 1:0.5\n-1 1:0.25\n"), 0o644)
	three := filepath.Join(dir, "three.txt")
	os.WriteFile(three, []byte("1 1:0.5 2:1 3:2\n-1 1:0.25 2:0.5 3:1\n"), 0o644)
	out := filepath.Join(dir, "out.model")
	base := func(model, dataFile string, extra ...string) []string {
		return append([]string{"compress", "--model", model, "--data", dataFile, "--out", out}, extra...)
	}
	cases := []struct {
		want []string
		args []string
	}{
		{[]string{"regression", "C-SVC"}, base(svr, train)},
		{[]string{"one-class", "C-SVC"}, base(oneClass, train)},
		{[]string{"regression model"}, base(regModel, train)},
		{[]string{"kmp model", "C-SVC"}, base(kmpModel, train)},
		{[]string{"poly", "rbf"}, base(lin, train)},
		{[]string{"rbf", "rs"}, base(lin, train, "--method", "rs")},
		{[]string{"--nz " + strconv.Itoa(m.TotalSV()+1), strconv.Itoa(m.TotalSV()) + " vectors"}, base(rbf, train, "--nz", strconv.Itoa(m.TotalSV()+1))},
		{[]string{"1 features", "2"}, base(rbf, one)},
		{[]string{"does not match the model", "3"}, base(svmModel, three)},
		{[]string{"--nz and --nz-frac"}, base(rbf, train, "--nz", "2", "--nz-frac", "0.1")},
		{[]string{"--nz-frac", "(0, 1]"}, base(rbf, train, "--nz-frac", "0.1,2")},
		{[]string{"--method", "rsvm"}, base(rbf, train, "--method", "rsvm")},
		{[]string{"--max-iter", "slmc"}, base(rbf, train, "--method", "mrs", "--max-iter", "3")},
		{[]string{"missing --out"}, []string{"compress", "--model", rbf, "--data", train}},
		{[]string{"label 7"}, base(rbf, test, "--nz", "2")},
	}
	// A test file whose labels are not the model's.
	os.WriteFile(test, []byte("7 1:0.5 2:0.1\n-1 1:0.2 2:0.3\n"), 0o644)
	for _, c := range cases {
		wantFail(t, dir, c.want, c.args...)
	}
}
