package learn_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestTrainOutputs runs the steps after fitting twice on files: once with
// the test in a phase of its own (the training rows given back first, the
// model and its LIBSVM export written, the test error the saved model's on
// the test file, as PredictScaled gives it), and once with the test set
// held throughout, the learning curve and the bound; and checks that an
// export's error names the setting as Name does.
func TestTrainOutputs(t *testing.T) {
	dir := t.TempDir()
	trainPath, testPath := filepath.Join(dir, "blobs.train"), filepath.Join(dir, "blobs.test")
	if err := learn.WriteDemoSet(trainPath, blobs(200, 2, 1)); err != nil {
		t.Fatal(err)
	}
	if err := learn.WriteDemoSet(testPath, blobs(100, 2, 2)); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t)
	k := pursuit.NewRBF(1)
	l := learn.KMP{Config: kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{k}, Bias: true, Seed: 1}, Basis: 10}
	// fitted loads the training file, preprocesses it in place (with the
	// test file when withTest) and trains.
	fitted := func(withTest bool) (*learn.Fitted, *learn.Prepared, *data.Dataset) {
		t.Helper()
		loaded, err := learn.LoadWithin(e, trainPath)
		if err != nil {
			t.Fatal(err)
		}
		var test *data.Dataset
		if withTest {
			if test, err = learn.LoadWithin(e, testPath, data.WithDim(loaded.Dim())); err != nil {
				t.Fatal(err)
			}
		}
		plan, err := learn.PlanLabels(e.Group(), loaded.Y, learn.LabelSpec{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := learn.Prep{Scale: learn.ScaleAuto, InPlace: true}.Apply(e, plan, loaded, test)
		if err != nil {
			t.Fatal(err)
		}
		f, err := learn.FitEvaluate(e, "kmp", k, l, plan, pr.Train, pr.Val, pr.Test, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f, pr, loaded
	}

	// The test in a phase of its own.
	model, lib := filepath.Join(dir, "m.model"), filepath.Join(dir, "m.libsvm")
	var steps []string
	outs := &learn.TrainOutputs{Data: trainPath, Test: testPath, Seed: 3, Version: "v-test", Model: model, ExportLIBSVM: lib,
		Released: func() { steps = append(steps, "released") }, TestPhase: func() { steps = append(steps, "test") }}
	if !outs.TestLater(1) || outs.TestLater(2) || outs.KeepTrainRows() {
		t.Fatalf("TestLater(1) %v, TestLater(2) %v, KeepTrainRows %v: want true, false, false", outs.TestLater(1), outs.TestLater(2), outs.KeepTrainRows())
	}
	f, pr, loaded := fitted(false)
	res, err := outs.Finish(e, f, pr, loaded, loaded.Len())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(steps, " "); got != "released test" {
		t.Errorf("steps %q, want %q", got, "released test")
	}
	if pr.Train != nil || pr.Val != nil {
		t.Error("the training rows are still held after the test phase")
	}
	st, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	if res.ModelBytes != st.Size() || res.Model != model || res.NTest != 100 || res.NTrain != 200 || res.Scale != string(data.ScaleMinMax) || res.Bound != nil || len(res.Plots) != 0 {
		t.Errorf("result %+v (model file %d bytes)", res, st.Size())
	}
	if _, err := os.Stat(lib); err != nil {
		t.Errorf("LIBSVM export: %v", err)
	}
	back, err := learn.LoadModel(e, model)
	if err != nil {
		t.Fatal(err)
	}
	if h := back.Header.Train; h.Data != "blobs.train" || h.NTrain != 200 || h.Seed != 3 || h.Version != "v-test" || back.Header.Scaler == nil {
		t.Errorf("header's training summary %+v, scaler %v", h, back.Header.Scaler)
	}
	test, err := learn.LoadWithin(e, testPath, data.WithDim(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := back.ScaleData(testPath, test); err != nil {
		t.Fatal(err)
	}
	want, _, err := back.Evaluate(e, test)
	if err != nil {
		t.Fatal(err)
	}
	if res.TestError == nil || math.Abs(*res.TestError-want) > 1e-12 {
		t.Errorf("test error %v, want the saved model's %v", res.TestError, want)
	}
	// The saved model's prediction of the unscaled file (PredictScaled).
	raw, err := learn.LoadWithin(e, testPath, data.WithDim(2))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := back.PredictScaled(e, testPath, raw, learn.PrecisionFloat32); err != nil || math.Abs(p.Error-want) > 1e-12 || len(p.Labels) != 100 {
		t.Errorf("PredictScaled: %v, want the error %v", err, want)
	}

	// The test set held throughout, with the learning curve and the bound.
	steps = nil
	outs = &learn.TrainOutputs{Data: trainPath, Test: testPath, Curve: true, Bound: learn.BoundSettings{On: true, Delta: 0.05},
		Released: func() { steps = append(steps, "released") }}
	if outs.TestLater(1) || !outs.KeepTrainRows() {
		t.Errorf("with a curve: TestLater(1) %v, KeepTrainRows %v", outs.TestLater(1), outs.KeepTrainRows())
	}
	f, pr, loaded = fitted(true)
	held, err := outs.Finish(e, f, pr, loaded, loaded.Len())
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 0 || pr.Train == nil {
		t.Errorf("steps %v; training rows held: %v", steps, pr.Train != nil)
	}
	if held.NTest != 100 || held.TestError == nil || math.Abs(*held.TestError-*res.TestError) > 1e-12 {
		t.Errorf("test figures %d %v, want 100 and %v", held.NTest, held.TestError, *res.TestError)
	}
	if held.Bound == nil || len(f.Model.Header.Curve) == 0 || held.Model != "" || held.ModelBytes <= 0 {
		t.Errorf("bound %v, curve of %d points, model %q of %d bytes", held.Bound, len(f.Model.Header.Curve), held.Model, held.ModelBytes)
	}

	// An export's failure names the setting.
	outs = &learn.TrainOutputs{Data: trainPath, ExportLIBSVM: filepath.Join(dir, "missing", "m.libsvm"),
		Name: func(s string) string { return "--" + s }}
	f, pr, loaded = fitted(false)
	if _, err := outs.Finish(e, f, pr, loaded, loaded.Len()); err == nil || !strings.HasPrefix(err.Error(), "--export-libsvm: ") {
		t.Errorf("export into a missing directory: %v", err)
	}
}

// TestTrainOutputsChecks checks the refusal of an output file given twice
// and of the settings that do not work across ranks, named as Named names
// them.
func TestTrainOutputsChecks(t *testing.T) {
	flag := func(s string) string { return "--" + s }
	for _, c := range []struct {
		outs learn.TrainOutputs
		want string
	}{
		{learn.TrainOutputs{Model: "m", ExportLIBSVM: "x", ExportONNX: "y"}, ""},
		{learn.TrainOutputs{ExportLIBSVM: "m", Model: "m"}, "--export-libsvm m is --model too: give the LIBSVM model another file"},
		{learn.TrainOutputs{Model: "m", ExportONNX: "m"}, "--export-onnx m is --model or --export-libsvm too: give the ONNX model another file"},
		{learn.TrainOutputs{ExportLIBSVM: "x", ExportONNX: "x"}, "--export-onnx x is --model or --export-libsvm too: give the ONNX model another file"},
	} {
		err := learn.Named(c.outs.CheckFiles(), flag)
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || (err != nil && got != c.want) {
			t.Errorf("%+v: %v, want %q", c.outs, err, c.want)
		}
	}
	if err := learn.RefuseAcrossRanks(map[string]bool{"seed": true}, 4, "val-frac", "plot", "curve", "bound"); err != nil {
		t.Errorf("no refused setting given: %v", err)
	}
	err := learn.RefuseAcrossRanks(map[string]bool{"curve": true, "bound": true}, 4, "val-frac", "plot", "curve", "bound")
	var se *learn.SettingError
	if !errors.As(err, &se) || se.Setting != "curve" {
		t.Fatalf("curve and bound across 4 ranks: %v", err)
	}
	if want := "--curve does not work across ranks (this job has 4): " + learn.AcrossRanksWhy["curve"] + "; run it in one process, without mpirun or srun"; learn.Named(err, flag).Error() != want {
		t.Errorf("%v, want %q", learn.Named(err, flag), want)
	}
}
