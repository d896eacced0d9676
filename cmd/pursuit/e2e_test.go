package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/onnxrt"
	"github.com/pursuit-ml/pursuit/learn"
)

// The end-to-end tests build the pursuit binary once and run it as a user
// would, checking outputs and exit statuses.

var pursuitBin string // path of the built binary, set by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pursuit-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pursuitBin = filepath.Join(dir, "pursuit")
	if runtime.GOOS == "windows" {
		pursuitBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", pursuitBin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the pursuit binary: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type runResult struct {
	stdout, stderr string
	code           int
}

// runPursuit runs the built binary with args in dir (the test's temporary
// directory when empty).
func runPursuit(t *testing.T, dir string, args ...string) runResult {
	t.Helper()
	r, _ := runBinary(t, dir, args...)
	return r
}

// runBinary runs the built binary with args in dir and returns its result
// and its process state (for the resources it used).
func runBinary(t *testing.T, dir string, args ...string) (runResult, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(pursuitBin, args...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running pursuit %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return runResult{so.String(), se.String(), code}, cmd.ProcessState
}

// mustRun runs pursuit and fails the test unless it exits 0.
func mustRun(t *testing.T, dir string, args ...string) runResult {
	t.Helper()
	r := runPursuit(t, dir, args...)
	if r.code != 0 {
		t.Fatalf("pursuit %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// wantFail runs pursuit expecting exit status 2 with one line on stderr
// containing every one of want, and no Go panic trace.
func wantFail(t *testing.T, dir string, want []string, args ...string) {
	t.Helper()
	r := runPursuit(t, dir, args...)
	if r.code != exitError {
		t.Errorf("pursuit %s: exit %d, want %d\nstderr: %s", strings.Join(args, " "), r.code, exitError, r.stderr)
		return
	}
	msg := strings.TrimRight(r.stderr, "\n")
	if strings.Count(msg, "\n") != 0 || msg == "" {
		t.Errorf("pursuit %s: stderr is not one line:\n%s", strings.Join(args, " "), r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
		t.Errorf("pursuit %s: panic trace on stderr:\n%s", strings.Join(args, " "), r.stderr)
	}
	if why := badUserLine(msg); why != "" {
		t.Errorf("pursuit %s: the error line %s: %s", strings.Join(args, " "), why, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("pursuit %s: stderr %q does not contain %q", strings.Join(args, " "), msg, w)
		}
	}
}

func writeData(t *testing.T, path string, ds *data.Dataset) {
	t.Helper()
	if err := learn.WriteDemoSet(path, ds); err != nil {
		t.Fatal(err)
	}
}

// moonsFiles writes a small two-moons problem as train and test files in
// dir.
func moonsFiles(t *testing.T, dir string) (train, test string) {
	t.Helper()
	tr, te := head(twoMoons(300, 0.15, 7), 200)
	train, test = filepath.Join(dir, "moons.train"), filepath.Join(dir, "moons.test")
	writeData(t, train, tr)
	writeData(t, test, te)
	return train, test
}

// threeClass is a 3-class 2-D problem: three Gaussian blobs, labels 1, 2, 3.
func threeClass(n int) *data.Dataset {
	d := &data.Dataset{X: pursuit.NewMatrix(n, 2), Y: make([]float64, n), Name: "blobs"}
	centres := [][2]float64{{0, 0}, {3, 0}, {1.5, 2.5}}
	for i := range n {
		c := i % 3
		// Deterministic scatter around the centre.
		a, r := float64(i)*2.39996, 0.9*math.Sqrt(float64(i%17)/17)
		d.X.Set(i, 0, float32(centres[c][0]+r*math.Cos(a)))
		d.X.Set(i, 1, float32(centres[c][1]+r*math.Sin(a)))
		d.Y[i] = float64(c + 1)
	}
	return d
}

// checkPNG decodes a PNG and fails unless it has a sensible size and is not
// blank (all one colour).
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: not a PNG: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() < 200 || b.Dy() < 150 {
		t.Fatalf("%s: %d×%d pixels, too small", path, b.Dx(), b.Dy())
	}
	seen := map[[4]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(seen) < 3 {
		t.Fatalf("%s is blank (%d colours)", path, len(seen))
	}
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, s)
	}
}

func TestInfo(t *testing.T) {
	dir := t.TempDir()
	r := mustRun(t, dir, "info")
	for _, w := range []string{"CPU:", "backends:", "chosen:", "why:", "go        yes", "  avx2-only "} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("info output lacks %q:\n%s", w, r.stdout)
		}
	}
	r = mustRun(t, dir, "info", "--json")
	var rep learn.SystemReport
	decodeJSON(t, r.stdout, &rep)
	if rep.Chosen == "" || rep.Reason == "" || len(rep.Backends) != 4 || rep.Version != version {
		t.Errorf("info --json: %+v", rep)
	}
	// Forcing the pure-Go backend is honoured and explained.
	r = mustRun(t, dir, "info", "--json", "--backend", "go")
	decodeJSON(t, r.stdout, &rep)
	if rep.Chosen != "go" || !strings.Contains(rep.Reason, "requested") {
		t.Errorf("info --backend go: chose %q because %q", rep.Chosen, rep.Reason)
	}
	wantFail(t, dir, []string{"unknown backend", "nonesuch"}, "info", "--backend", "nonesuch")
}

func TestHelp(t *testing.T) {
	dir := t.TempDir()
	r := mustRun(t, dir, "help")
	for _, c := range commands() {
		if !strings.Contains(r.stdout, c.name) {
			t.Errorf("help does not list %s", c.name)
		}
		h := mustRun(t, dir, c.name, "--help")
		if !strings.Contains(h.stdout, "Examples:") || !strings.Contains(h.stdout, "Usage:") {
			t.Errorf("%s --help lacks usage or examples:\n%s", c.name, h.stdout)
		}
	}
	h := mustRun(t, dir, "train", "--help")
	for _, f := range []string{"-algo", "-data", "-test", "-positive", "-one-vs-rest", "-kernel", "-gamma", "-sigma", "-degree", "-coef0",
		"-basis", "-val-frac", "-patience", "-c ", "-svr-epsilon", "-active-set", "-eps", "-q ", "-nz ", "-nz-frac", "-scale", "-seed",
		"-backend", "-model", "-json", "-quiet"} {
		if !strings.Contains(h.stdout, f) {
			t.Errorf("train --help lacks the flag %s", f)
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("1 1:0.5 2:1\n-1 1:0.25 2:oops\n"), 0o644)
	three := filepath.Join(dir, "three.txt")
	os.WriteFile(three, []byte("1 1:0.5 2:1 3:2\n-1 1:0.25 2:0.5 3:1\n"), 0o644)
	missing := filepath.Join(dir, "missing.txt")

	wantFail(t, dir, []string{"no command"})
	wantFail(t, dir, []string{"unknown command", "trian"}, "trian")
	wantFail(t, dir, []string{"missing --data"}, "train")
	wantFail(t, dir, []string{"missing.txt", "no such file"}, "train", "--data", missing)
	wantFail(t, dir, []string{"bad.txt:2", "oops"}, "train", "--data", bad, "--algo", "svm")
	wantFail(t, dir, []string{"unknown algorithm", "foo"}, "train", "--data", train, "--algo", "foo")
	wantFail(t, dir, []string{"unknown kernel", "cubic"}, "train", "--data", train, "--kernel", "cubic")
	wantFail(t, dir, []string{"not both"}, "train", "--data", train, "--gamma", "1", "--sigma", "2")
	wantFail(t, dir, []string{"--gamma", "positive"}, "train", "--data", train, "--gamma", "-1")
	wantFail(t, dir, []string{"--val-frac"}, "train", "--data", train, "--val-frac", "1.5")
	wantFail(t, dir, []string{"--c", "svm"}, "train", "--data", train, "--algo", "kmp", "--c", "3")
	wantFail(t, dir, []string{"flag provided but not defined", "-bogus"}, "train", "--data", train, "--bogus")
	wantFail(t, dir, []string{"unexpected argument"}, "train", "--data", train, "extra")
	wantFail(t, dir, []string{"--positive", "7"}, "train", "--data", train, "--algo", "svm", "--positive", "7")
	wantFail(t, dir, []string{"features"}, "train", "--data", train, "--test", three, "--algo", "svm")

	// A model, then predictions on mismatched, missing and corrupted inputs.
	model := filepath.Join(dir, "m.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "2", "--model", model, "--quiet")
	wantFail(t, dir, []string{"three.txt:1", "feature", "2 features"}, "predict", "--model", model, "--data", three)
	wantFail(t, dir, []string{"missing --model"}, "predict", "--data", test)
	wantFail(t, dir, []string{"missing.txt"}, "predict", "--model", missing, "--data", test)
	wantFail(t, dir, []string{"not a pursuit model"}, "predict", "--model", train, "--data", test)
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.model")
	os.WriteFile(trunc, raw[:len(raw)-10], 0o644)
	wantFail(t, dir, []string{"truncated"}, "predict", "--model", trunc, "--data", test)
	corrupt := filepath.Join(dir, "corrupt.model")
	c := bytes.Clone(raw)
	c[len(c)-20] ^= 0x20
	os.WriteFile(corrupt, c, 0o644)
	wantFail(t, dir, []string{"corrupted"}, "predict", "--model", corrupt, "--data", test)
	c = bytes.Clone(raw)
	c[len(learn.ModelMagic)+10] ^= 0x01
	os.WriteFile(corrupt, c, 0o644)
	wantFail(t, dir, []string{corrupt}, "predict", "--model", corrupt, "--data", test)
}

// TestRoundTrip trains with --json, predicts the test file with the saved
// model, and checks both report the same test error and basis size.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	cases := [][]string{
		{"--algo", "svm", "--gamma", "2", "--c", "10"},
		{"--algo", "kmp", "--gamma", "4", "--basis", "20"},
		{"--algo", "kmp-backfit", "--gamma", "4", "--val-frac", "0.25", "--patience", "10"},
		{"--algo", "kmp-basic", "--sigma", "0.5", "--basis", "20"},
		{"--algo", "skmp", "--gamma", "4", "--basis", "20", "--active-set", "30"},
		{"--algo", "slmc", "--gamma", "4", "--c", "10", "--nz", "6"},
		{"--algo", "slmc", "--gamma", "4", "--c", "10", "--nz-frac", "0.3"},
		{"--algo", "svm", "--kernel", "poly", "--gamma", "1", "--coef0", "1", "--degree", "3", "--scale", "standard"},
	}
	for i, args := range cases {
		name := fmt.Sprintf("%d-%s", i, args[1])
		t.Run(name, func(t *testing.T) {
			if _, err := findAlgorithm(args[1]); err != nil {
				t.Skipf("%v", err)
			}
			model := filepath.Join(dir, name+".model")
			r := mustRun(t, dir, append([]string{"train", "--data", train, "--test", test, "--model", model, "--json", "--quiet"}, args...)...)
			var tr, pr resultJSON
			decodeJSON(t, r.stdout, &tr)
			r = mustRun(t, dir, "predict", "--model", model, "--data", test, "--json", "--out", filepath.Join(dir, name+".pred"))
			decodeJSON(t, r.stdout, &pr)
			if tr.TestError == nil || pr.TestError == nil || *tr.TestError != *pr.TestError {
				t.Errorf("train reports test error %v, predict %v", deref(tr.TestError), deref(pr.TestError))
			}
			if *tr.TestError > 0.1 {
				t.Errorf("test error %v on an easy problem", *tr.TestError)
			}
			st, _ := os.Stat(model)
			if tr.NBasis != pr.NBasis || tr.NBasis == 0 || tr.Algorithm != args[1] || tr.ModelBytes != st.Size() || pr.ModelBytes != st.Size() {
				t.Errorf("train %+v vs predict %+v (file %d bytes)", tr, pr, st.Size())
			}
			if tr.NTrain+tr.NVal != 200 || tr.NTest != 100 || pr.NTest != 100 || tr.Backend == "" || !(tr.TrainSeconds > 0) {
				t.Errorf("counts or timing wrong: %+v", tr)
			}
			// The predictions file: one label per line, matching the error.
			raw, err := os.ReadFile(filepath.Join(dir, name+".pred"))
			if err != nil {
				t.Fatal(err)
			}
			ds, err := data.Load(test)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Fields(string(raw))
			if len(lines) != ds.Len() {
				t.Fatalf("%d predictions for %d examples", len(lines), ds.Len())
			}
			wrong := 0
			for i, l := range lines {
				if l != learn.FormatLabel(ds.Y[i]) {
					wrong++
				}
			}
			if got := float64(wrong) / float64(ds.Len()); got != *pr.TestError {
				t.Errorf("predictions file gives error %v, predict reports %v", got, *pr.TestError)
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestMultiClass trains one-vs-rest and LABEL-vs-rest on three classes.
func TestMultiClass(t *testing.T) {
	dir := t.TempDir()
	all := threeClass(300)
	tr, te := head(all, 210)
	train, test := filepath.Join(dir, "b.train"), filepath.Join(dir, "b.test")
	writeData(t, train, tr)
	writeData(t, test, te)
	wantFail(t, dir, []string{"3 classes", "--one-vs-rest"}, "train", "--data", train, "--algo", "svm")
	for _, algo := range []string{"svm", "kmp", "mpkfda"} {
		if _, err := findAlgorithm(algo); err != nil {
			continue
		}
		model := filepath.Join(dir, algo+".model")
		extra := []string{"--gamma", "2"}
		if algo == "kmp" || algo == "mpkfda" {
			extra = append(extra, "--basis", "15")
		}
		r := mustRun(t, dir, append([]string{"train", "--algo", algo, "--data", train, "--test", test, "--one-vs-rest", "--model", model, "--json", "--plot", dir, "--quiet"}, extra...)...)
		var res resultJSON
		decodeJSON(t, r.stdout, &res)
		if res.Task != learn.TaskOneVsRest || len(res.Classes) != 3 || res.TestError == nil || *res.TestError > 0.05 {
			t.Errorf("%s one-vs-rest: %+v", algo, res)
		}
		r = mustRun(t, dir, "predict", "--model", model, "--data", test, "--json")
		var pr resultJSON
		decodeJSON(t, r.stdout, &pr)
		if *pr.TestError != *res.TestError {
			t.Errorf("%s: predict error %v, train %v", algo, *pr.TestError, *res.TestError)
		}
		for _, p := range res.Plots {
			checkPNG(t, p)
		}
		if len(res.Plots) == 0 {
			t.Errorf("%s: no plots written", algo)
		}
		// LABEL vs the rest: predictions are ±1 and compared with ±1 truth.
		r = mustRun(t, dir, append([]string{"train", "--algo", algo, "--data", train, "--test", test, "--positive", "2", "--json", "--quiet"}, extra...)...)
		decodeJSON(t, r.stdout, &res)
		if res.Task != learn.TaskBinary || res.TestError == nil || *res.TestError > 0.05 {
			t.Errorf("%s --positive 2: %+v", algo, res)
		}
	}
}

func TestRegression(t *testing.T) {
	dir := t.TempDir()
	n := 200
	ds := &data.Dataset{X: pursuit.NewMatrix(n, 1), Y: make([]float64, n)}
	for i := range n {
		x := -3 + 6*float64(i)/float64(n-1)
		ds.X.Set(i, 0, float32(x))
		ds.Y[i] = math.Sin(x)
	}
	path := filepath.Join(dir, "sin.txt")
	writeData(t, path, ds)
	for _, args := range [][]string{{"--algo", "svm", "--svr-epsilon", "0.05", "--gamma", "2"}, {"--algo", "kmp", "--regression", "--gamma", "2", "--basis", "10"}} {
		if _, err := findAlgorithm(args[1]); err != nil {
			continue
		}
		model := filepath.Join(dir, args[1]+".model")
		r := mustRun(t, dir, append([]string{"train", "--data", path, "--test", path, "--model", model, "--json"}, args...)...)
		var res resultJSON
		decodeJSON(t, r.stdout, &res)
		if res.Task != learn.TaskRegression || res.TestError == nil || *res.TestError > 0.01 {
			t.Errorf("%v: %+v (test error is the MSE)", args, res)
		}
	}
	wantFail(t, dir, []string{"slmc", "real-valued"}, "train", "--data", path, "--algo", "slmc", "--regression")
}

func TestCV(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	model := filepath.Join(dir, "cv.model")
	r := mustRun(t, dir, "cv", "--data", train, "--test", test, "--algo", "svm", "--folds", "3", "--grid-gamma", "0.5,4", "--grid-c", "1,10", "--json", "--model", model)
	var out cvJSON
	decodeJSON(t, r.stdout, &out)
	if len(out.Grid) != 4 || out.Folds != 3 || out.TestError == nil || out.Best.Gamma == nil || out.ModelBytes == 0 {
		t.Fatalf("cv --json: %+v", out)
	}
	for _, g := range out.Grid {
		if g.CVError < out.CVError {
			t.Errorf("best cv error %v is not the smallest (%v)", out.CVError, g.CVError)
		}
	}
	r = mustRun(t, dir, "predict", "--model", model, "--data", test, "--json")
	var pr resultJSON
	decodeJSON(t, r.stdout, &pr)
	if *pr.TestError != *out.TestError {
		t.Errorf("cv's retrained model: predict gives %v, cv reported %v", *pr.TestError, *out.TestError)
	}
	r = mustRun(t, dir, "cv", "--data", train, "--algo", "svm", "--folds", "3", "--grid-c", "1,10")
	if !strings.Contains(r.stdout, "best:") || !strings.Contains(r.stdout, "C=10") {
		t.Errorf("cv table:\n%s", r.stdout)
	}
	wantFail(t, dir, []string{"--grid-gamma"}, "cv", "--data", train, "--grid-gamma", "a,b")
	wantFail(t, dir, []string{"--folds"}, "cv", "--data", train, "--folds", "1")
}

func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	algo := "kmp"
	if _, err := findAlgorithm(algo); err != nil {
		algo = "svm"
	}
	model := filepath.Join(dir, "moons.model")
	mustRun(t, dir, "train", "--data", train, "--test", test, "--algo", algo, "--gamma", "4", "--model", model, "--curve", "--quiet")
	out := filepath.Join(dir, "plots")
	r := mustRun(t, dir, "plot", "--model", model, "--data", train, "--out", out)
	files := strings.Fields(r.stdout)
	if len(files) == 0 {
		t.Fatal("plot wrote no files")
	}
	var surface, curve bool
	for _, f := range files {
		checkPNG(t, f)
		surface = surface || strings.HasSuffix(f, "-surface.png")
		curve = curve || strings.HasSuffix(f, "-curve.png")
	}
	if !surface || (algo == "kmp" && !curve) {
		t.Errorf("missing decision surface or learning curve among %v", files)
	}
	// Without --data there are no points for the surface; the curve stays.
	r = runPursuit(t, dir, "plot", "--model", model, "--out", out)
	if algo == "kmp" && (r.code != 0 || !strings.Contains(r.stdout, "-curve.png")) {
		t.Errorf("plot without --data: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	wantFail(t, dir, []string{"missing --model"}, "plot")
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "demo")
	r := mustRun(t, dir, "demo", "--small", "--out", out, "--quiet")
	for _, a := range learn.Algorithms() {
		if a.NotInDemo {
			continue
		}
		if !strings.Contains(r.stdout, " "+a.Name+" ") {
			t.Errorf("demo table lacks %s:\n%s", a.Name, r.stdout)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(out, "*.png"))
	if len(pngs) < 2 {
		t.Fatalf("demo wrote %d PNG files", len(pngs))
	}
	for _, p := range pngs {
		checkPNG(t, p)
	}
	// The generated data files are valid and train by hand.
	mustRun(t, dir, "train", "--data", filepath.Join(out, "two-moons.train"), "--test", filepath.Join(out, "two-moons.test"), "--algo", "svm", "--quiet")
	r = mustRun(t, dir, "demo", "--small", "--out", out, "--algo", "svm", "--json")
	var js struct {
		Results []demoResult `json:"results"`
	}
	decodeJSON(t, r.stdout, &js)
	if len(js.Results) != 2 || js.Results[0].TestError == nil || *js.Results[0].TestError > 0.1 {
		t.Errorf("demo --json: %+v", js.Results)
	}
	wantFail(t, dir, []string{"unknown algorithm"}, "demo", "--algo", "nope", "--out", out)
}

// TestLIBSVMModel predicts with models written by LIBSVM's svm-train, a
// binary one and a four-class one (one-vs-one), and checks every prediction
// equals svm-predict's; the four-class one's ONNX export gives them too
// where onnxruntime is installed.
func TestLIBSVMModel(t *testing.T) {
	svmTrain, err1 := exec.LookPath("svm-train")
	svmPredict, err2 := exec.LookPath("svm-predict")
	if err1 != nil || err2 != nil {
		t.Skip("LIBSVM's svm-train/svm-predict are not installed (Debian package libsvm-tools)")
	}
	dir := t.TempDir()
	tr, te := head(twoMoons(300, 0.15, 3), 200)
	for i := range tr.Y { // labels 2 and 7, not ±1
		tr.Y[i] = 4.5 + 2.5*tr.Y[i]
	}
	for i := range te.Y {
		te.Y[i] = 4.5 + 2.5*te.Y[i]
	}
	train, test := filepath.Join(dir, "a.train"), filepath.Join(dir, "a.test")
	writeData(t, train, tr)
	writeData(t, test, te)
	model, libPred, ourPred := filepath.Join(dir, "a.model"), filepath.Join(dir, "lib.pred"), filepath.Join(dir, "our.pred")
	if out, err := exec.Command(svmTrain, "-g", "2", "-c", "10", train, model).CombinedOutput(); err != nil {
		t.Fatalf("svm-train: %v\n%s", err, out)
	}
	if out, err := exec.Command(svmPredict, test, model, libPred).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	mustRun(t, dir, "predict", "--model", model, "--data", test, "--out", ourPred)
	sameLines(t, "binary", libPred, ourPred, te.Len())
	// Four classes: the moons' halves split by the first feature's sign.
	for _, d := range []*data.Dataset{tr, te} {
		for i := range d.Y {
			if d.X.At(i, 0) > 0.5 {
				d.Y[i] += 10
			}
		}
	}
	writeData(t, train, tr)
	writeData(t, test, te)
	if out, err := exec.Command(svmTrain, "-g", "2", "-c", "10", train, model).CombinedOutput(); err != nil {
		t.Fatalf("svm-train: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(model); !strings.Contains(string(b), "nr_class 4") {
		t.Fatalf("svm-train's model is not four-class:\n%.300s", b)
	}
	if out, err := exec.Command(svmPredict, test, model, libPred).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	mustRun(t, dir, "predict", "--model", model, "--data", test, "--out", ourPred)
	sameLines(t, "four classes", libPred, ourPred, te.Len())
	if rt := onnxrt.Require(t); rt != nil {
		onnx := filepath.Join(dir, "a.onnx")
		mustRun(t, dir, "export", "--model", model, "--format", "onnx", "--out", onnx)
		rows, _, err := rt.Run(onnx, test)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range rows {
			fmt.Fprintf(&b, "%g\n", r[0])
		}
		ox := filepath.Join(dir, "onnx.pred")
		if err := os.WriteFile(ox, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		sameLines(t, "four classes through ONNX", libPred, ox, te.Len())
	}
}

// sameLines fails t unless the two prediction files hold the same n labels.
func sameLines(t *testing.T, name, libPred, ourPred string, n int) {
	t.Helper()
	a, _ := os.ReadFile(libPred)
	b, _ := os.ReadFile(ourPred)
	la, lb := strings.Fields(string(a)), strings.Fields(string(b))
	if len(la) != n || len(lb) != n {
		t.Fatalf("%s: %d and %d predictions for %d examples", name, len(la), len(lb), n)
	}
	for i := range la {
		if la[i] != lb[i] {
			t.Errorf("%s: example %d: svm-predict says %s, pursuit %s", name, i+1, la[i], lb[i])
		}
	}
}

// TestFileFormats trains and predicts from CSV (with a header line) and
// gzip-compressed LIBSVM files.
func TestFileFormats(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	toCSV := func(src, dst string) {
		ds, err := data.Load(src)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("label,x1,x2\n")
		for i := range ds.Len() {
			fmt.Fprintf(&b, "%s,%g,%g\n", learn.FormatLabel(ds.Y[i]), ds.X.At(i, 0), ds.X.At(i, 1))
		}
		if err := os.WriteFile(dst, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	csvTrain, csvTest := filepath.Join(dir, "m.train.csv"), filepath.Join(dir, "m.test.csv")
	toCSV(train, csvTrain)
	toCSV(test, csvTest)
	wantFail(t, dir, []string{"m.train.csv:1", "--header"}, "train", "--data", csvTrain, "--algo", "svm")
	model := filepath.Join(dir, "csv.model")
	r := mustRun(t, dir, "train", "--data", csvTrain, "--test", csvTest, "--header", "--algo", "svm", "--gamma", "2", "--model", model, "--json")
	var a, b resultJSON
	decodeJSON(t, r.stdout, &a)
	r = mustRun(t, dir, "predict", "--model", model, "--data", csvTest, "--header", "--json")
	decodeJSON(t, r.stdout, &b)
	if a.TestError == nil || b.TestError == nil || *a.TestError != *b.TestError || a.NTrain != 200 {
		t.Errorf("CSV: train %+v, predict %+v", a, b)
	}
	// The same model predicts the LIBSVM copy of the test data identically.
	r = mustRun(t, dir, "predict", "--model", model, "--data", test, "--json")
	decodeJSON(t, r.stdout, &b)
	if *b.TestError != *a.TestError {
		t.Errorf("LIBSVM copy of the CSV test data: error %v, want %v", *b.TestError, *a.TestError)
	}
	// gzip.
	raw, _ := os.ReadFile(train)
	gz := filepath.Join(dir, "m.train.gz")
	cmd := exec.Command("gzip", "-c")
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("gzip not available: %v", err)
	}
	os.WriteFile(gz, out, 0o644)
	r = mustRun(t, dir, "train", "--data", gz, "--test", test, "--algo", "svm", "--gamma", "2", "--json")
	decodeJSON(t, r.stdout, &b)
	if b.NTrain != 200 || *b.TestError != *a.TestError {
		t.Errorf("gzip: %+v, want test error %v", b, *a.TestError)
	}
}

// TestCVGridBasis checks that cross-validating a grid over N by truncating
// one training per fold gives exactly the errors and sizes of training each
// N separately.
func TestCVGridBasis(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	for _, algo := range []string{"kmp", "kmp-basic", "kmp-tanh", "skmp"} {
		if _, err := findAlgorithm(algo); err != nil {
			continue
		}
		common := []string{"cv", "--data", train, "--algo", algo, "--gamma", "4", "--folds", "3", "--json"}
		r := mustRun(t, dir, append(common, "--grid-basis", "3,8,15")...)
		var grid cvJSON
		decodeJSON(t, r.stdout, &grid)
		if len(grid.Grid) != 3 {
			t.Fatalf("%s: %d grid points", algo, len(grid.Grid))
		}
		for i, n := range []string{"3", "8", "15"} {
			r := mustRun(t, dir, append(common, "--basis", n)...)
			var one cvJSON
			decodeJSON(t, r.stdout, &one)
			g := grid.Grid[i]
			if g.CVError != one.CVError || g.NBasis != one.Best.NBasis || math.Abs(g.TrainError-one.Best.TrainError) > 1e-12 {
				t.Errorf("%s N=%s: grid (truncated) cv error %v, basis %v, train error %v; trained alone %v, %v, %v",
					algo, n, g.CVError, g.NBasis, g.TrainError, one.CVError, one.Best.NBasis, one.Best.TrainError)
			}
		}
	}
}
