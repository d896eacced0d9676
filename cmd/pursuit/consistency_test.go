package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
)

// The regression tests of issue 16's smaller defects (7): each case failed
// before its fix.

// algoIndependentFlags are the flags of train and cv that apply to every
// algorithm. A new flag goes either here or into algoFlags' table, and
// TestFlagTable fails until it does.
var algoIndependentFlags = []string{
	"data", "test", "format", "label-column", "header", "positive", "one-vs-rest", "regression", "scale", "storage", "val-frac",
	"algo", "kernel", "gamma", "sigma", "degree", "coef0", "seed", "backend", "threads", "mem-budget", "quiet", "progress", "json",
	"model", "plot", "export-libsvm", "export-onnx", // train
	"folds", "grid-gamma", "grid", // cv (--grid NAME=...: each NAME checked against the table)
}

// TestFlagTable checks that every flag of train and cv is classified, and
// that each algorithm-specific flag is refused with every algorithm it does
// not apply to (issue 16: --curve with svm was accepted silently) and
// accepted by flag validation with the ones it does.
func TestFlagTable(t *testing.T) {
	table := algoFlags()
	trainFS, _ := newTrainFlags()
	cvFS, _ := newCVFlags()
	for _, fs := range []*flag.FlagSet{trainFS, cvFS} {
		fs.VisitAll(func(f *flag.Flag) {
			_, specific := table[f.Name]
			if specific == contains(algoIndependentFlags, f.Name) {
				t.Errorf("%s --%s: in algoFlags' table %v and in the algorithm-independent list %v; want exactly one", fs.Name(), f.Name, specific, !specific)
			}
		})
	}
	values := map[string]string{"basis": "5", "patience": "3", "curve": "true", "grid-basis": "2,4", "c": "2", "grid-c": "1,2",
		"svr-epsilon": "0.1", "solver": "batched", "host-rows": "true", "active-set": "5", "eps": "0.1", "q": "0.9", "nz": "3", "nz-frac": "0.5",
		"epsilon": "0.5", "grid-epsilon": "0.1,0.2", "fit": "backfit", "method": "rs", "bound": "true", "delta": "0.1", "alpha": "0.5",
		"checkpoint": "ck", "checkpoint-every": "1m", "resume": "ck", "time-limit": "1h"}
	for name, algos := range table {
		v, ok := values[name]
		if !ok {
			t.Errorf("--%s: no test value", name)
			continue
		}
		for _, a := range learn.Algorithms() {
			m := modelFlags{Settings: learn.Settings{Algo: a.Name, Kernel: "rbf", C: 1}}
			set := map[string]bool{name: true, "val-frac": true}
			if name == "nz" || name == "nz-frac" {
				m.Nz, m.NzFrac = 3, 0.5
			}
			m.Basis, m.Patience, m.ActiveSet, m.Eps, m.Q, m.Fit, m.Method = 5, 3, 5, 0.1, 0.9, "backfit", "rs"
			err := m.validate(set)
			applies := contains(algos, a.Name)
			switch {
			case applies && err != nil:
				t.Errorf("--%s %s with --algo %s: %v", name, v, a.Name, err)
			case !applies && (err == nil || !strings.Contains(err.Error(), "does not apply to --algo "+a.Name)):
				t.Errorf("--%s %s with --algo %s: %v, want it refused", name, v, a.Name, err)
			}
		}
	}
	h := mustRun(t, t.TempDir(), "train", "--help")
	if !strings.Contains(h.stdout, "Flags for some algorithms only") || !strings.Contains(h.stdout, "--curve") {
		t.Errorf("train --help does not show the flag table:\n%s", h.stdout)
	}
}

// TestIssue16Small runs the CLI on each of the smaller defects.
func TestIssue16Small(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	csv := filepath.Join(dir, "moons.csv")
	lastCol := filepath.Join(dir, "last.csv")
	{
		ds, err := loadData(train, nil)
		if err != nil {
			t.Fatal(err)
		}
		var a, b strings.Builder
		for i := range ds.Len() {
			fmt.Fprintf(&a, "%g,%g,%g\n", ds.Y[i], ds.X.At(i, 0), ds.X.At(i, 1))
			fmt.Fprintf(&b, "%g,%g,%g\n", ds.X.At(i, 0), ds.X.At(i, 1), ds.Y[i])
		}
		os.WriteFile(csv, []byte(a.String()), 0o644)
		os.WriteFile(lastCol, []byte(b.String()), 0o644)
	}
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte("1e300 1:0.5 2:1\n2 1:0.25 2:0.5\n3 1:0.1 2:0.9\n4 1:0.7 2:0.2\n"), 0o644)
	model := filepath.Join(dir, "moons.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--gamma", "4", "--basis", "10", "--curve", "--model", model, "--quiet")
	// The test file with labels 0 and 2 instead of the model's −1 and +1.
	foreign := filepath.Join(dir, "foreign.txt")
	{
		raw, _ := os.ReadFile(test)
		var b strings.Builder
		for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			lab, rest, _ := strings.Cut(l, " ")
			if lab == "-1" {
				lab = "0"
			} else {
				lab = "2"
			}
			fmt.Fprintf(&b, "%s %s\n", lab, rest)
		}
		os.WriteFile(foreign, []byte(b.String()), 0o644)
	}

	type check func(t *testing.T, r runResult)
	stdoutHas := func(want ...string) check {
		return func(t *testing.T, r runResult) {
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		}
	}
	cases := []struct {
		name string
		args []string
		fail []string // wantFail's fragments; nil: must succeed
		not  string   // must not be on stderr
		then check
	}{
		{"csv label column said", []string{"train", "--data", csv, "--algo", "svm", "--quiet"}, nil, "",
			stdoutHas("labels from CSV column 0 (the first")},
		{"csv label column json", []string{"train", "--data", csv, "--algo", "svm", "--json", "--quiet"}, nil, "",
			stdoutHas(`"label_column":0`)},
		{"csv last column", []string{"train", "--data", lastCol, "--label-column", "-1", "--algo", "svm", "--quiet"}, nil, "",
			stdoutHas("labels from CSV column 2 (the last)")},
		{"csv --header on libsvm", []string{"train", "--data", train, "--format", "csv", "--header", "--algo", "svm"},
			[]string{"not a number", "--format libsvm"}, "use --header", nil},
		{"basis 0", []string{"train", "--data", train, "--basis", "0"}, []string{"--basis 0", "at least 1"}, "", nil},
		{"nz 0", []string{"train", "--data", train, "--algo", "slmc", "--nz", "0"}, []string{"--nz 0", "at least 1"}, "", nil},
		{"active-set 0", []string{"train", "--data", train, "--algo", "skmp", "--active-set", "0"}, []string{"--active-set 0", "at least 1"}, "", nil},
		{"patience without val-frac", []string{"train", "--data", train, "--patience", "5"}, []string{"--patience", "--val-frac"}, "", nil},
		{"patience -1", []string{"train", "--data", train, "--val-frac", "0.25", "--patience", "-1"}, []string{"--patience -1"}, "", nil},
		{"patience 0 runs every step", []string{"train", "--data", train, "--algo", "kmp", "--gamma", "4", "--val-frac", "0.25", "--patience", "0", "--basis", "30", "--curve", "--quiet", "--model", filepath.Join(dir, "p0.model")}, nil, "",
			func(t *testing.T, r runResult) {
				m, err := learn.LoadModel(testEngine(t), filepath.Join(dir, "p0.model"))
				if err != nil {
					t.Fatal(err)
				}
				if c := m.Header.Curve; len(c) == 0 || c[len(c)-1].N < 30 {
					t.Errorf("--patience 0 --basis 30: the curve ends at step %v, want every step", c)
				}
			}},
		{"threads 0 is GOMAXPROCS", []string{"train", "--data", train, "--algo", "svm", "--threads", "0", "--quiet"}, nil, "", nil},
		{"threads -1", []string{"train", "--data", train, "--threads", "-1"}, []string{"--threads -1"}, "", nil},
		{"curve with svm", []string{"train", "--data", train, "--algo", "svm", "--curve"}, []string{"--curve does not apply to --algo svm"}, "", nil},
		{"c with kmp", []string{"train", "--data", train, "--algo", "kmp", "--c", "3"}, []string{"--c does not apply to --algo kmp"}, "", nil},
		{"grid-c with kmp", []string{"cv", "--data", train, "--algo", "kmp", "--grid-c", "1,2"}, []string{"--grid-c does not apply"}, "", nil},
		{"label 1e300", []string{"train", "--data", big, "--regression", "--algo", "kmp"}, []string{"big.txt", "example 1", "1e+300", "float32 range"}, "Inf", nil},
		{"label 1e300 svm", []string{"train", "--data", big, "--regression", "--algo", "svm", "--json"}, []string{"float32 range"}, "Inf", nil},
		{"foreign labels", []string{"predict", "--model", model, "--data", foreign}, nil, "",
			func(t *testing.T, r runResult) {
				if !strings.Contains(r.stderr, "warning: 100 of 100 examples") || !strings.Contains(r.stderr, "(0 2)") || !strings.Contains(r.stderr, "not the model's classes (-1 1)") {
					t.Errorf("no warning on stderr: %q", r.stderr)
				}
			}},
		{"foreign labels json", []string{"predict", "--model", model, "--data", foreign, "--json"}, nil, "", stdoutHas(`"foreign_labels":100`)},
		{"own labels: no warning", []string{"predict", "--model", model, "--data", test}, nil, "warning", nil},
		{"predict --quiet", []string{"predict", "--model", model, "--data", test, "--quiet"}, nil, "",
			func(t *testing.T, r runResult) {
				if r.stdout != "" {
					t.Errorf("predict --quiet printed %q", r.stdout)
				}
			}},
		{"plot --threads", []string{"plot", "--model", model, "--threads", "1", "--out", filepath.Join(dir, "plots")}, nil, "", stdoutHas("moons-curve.png")},
		{"plot --threads -1", []string{"plot", "--model", model, "--threads", "-1"}, []string{"--threads -1"}, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r runResult
			if c.fail != nil {
				wantFail(t, dir, c.fail, c.args...)
				r = runPursuit(t, dir, c.args...)
			} else {
				r = mustRun(t, dir, c.args...)
			}
			if c.not != "" && strings.Contains(r.stderr, c.not) {
				t.Errorf("stderr has %q: %s", c.not, r.stderr)
			}
			if c.then != nil {
				c.then(t, r)
			}
		})
	}
}

// TestBasisCountsKernelFunctions checks that --basis N gives N kernel basis
// functions, the bias apart (issue 16: --basis 274 gave 273), and at most N
// for the algorithms that may choose a function again; with early stopping
// N is the cap.
func TestBasisCountsKernelFunctions(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	for _, algo := range []string{"kmp", "kmp-backfit", "kmp-tanh", "kmp-basic", "skmp"} {
		for _, n := range []int{1, 7, 60} {
			for _, early := range []bool{false, true} {
				args := []string{"train", "--data", train, "--algo", algo, "--gamma", "4", "--basis", fmt.Sprint(n), "--json", "--quiet"}
				if early {
					args = append(args, "--val-frac", "0.25")
				}
				var res resultJSON
				decodeJSON(t, mustRun(t, dir, args...).stdout, &res)
				exact := !early && algo != "kmp-basic" && algo != "skmp"
				if (exact && res.NBasis != n) || res.NBasis > n || res.NBasis < 1 {
					t.Errorf("%s --basis %d (early stopping %v): %d basis functions", algo, n, early, res.NBasis)
				}
			}
		}
	}
}

// TestCurveAxis checks the learning curve's labels: the marker names the
// step kept and the basis functions the table counts, and the x axis does
// not claim a function per step for basic matching pursuit.
func TestCurveAxis(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	moons := twoMoons(200, 0.2, 3)
	for _, c := range []struct {
		variant kmp.Variant
		repick  bool
	}{{kmp.PreFit, false}, {kmp.Basic, true}} {
		l, err := kmpTestLearner(c.variant, 4, learn.Settings{Basis: 12, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		f, err := l.Fit(e, moons.X, moons.Y, pursuit.Matrix{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := &learn.File{Models: []learn.Model{f}}
		xlabel, mark, markLabel := m.CurveAxis()
		kept := f.(*learn.KMPModel).KeptSteps()
		want := fmt.Sprintf("kept: step %d, %d basis functions", kept, f.NBasis())
		if mark != float64(kept) || markLabel != want {
			t.Errorf("%v: mark %v %q, want %d %q", c.variant, mark, markLabel, kept, want)
		}
		if strings.Contains(xlabel, "again") != c.repick {
			t.Errorf("%v: x axis %q", c.variant, xlabel)
		}
	}
}

// TestDemoTableShowsSettings checks that the demo's table shows the split,
// γ and C (issue 16: they were hidden).
func TestDemoTableShowsSettings(t *testing.T) {
	dir := t.TempDir()
	r := mustRun(t, dir, "demo", "--small", "--algo", "kmp,svm", "--quiet", "--out", filepath.Join(dir, "d"))
	for _, w := range []string{"train/val/test", "γ", " C ", "120/40/80", "160/0/80", "0.025"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("demo table lacks %q:\n%s", w, r.stdout)
		}
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[1] == "svm" && f[4] != "10" {
			t.Errorf("svm row shows C %q, want 10: %s", f[4], l)
		}
	}
}

// TestPredictLIBSVMModelKinds checks the LIBSVM models predict reads (a
// two-class C-SVC or an ε-SVR, kernels 0–3) and that the others get a clear
// error, on models made by LIBSVM's svm-train.
func TestPredictLIBSVMModelKinds(t *testing.T) {
	svmTrain, err := exec.LookPath("svm-train")
	if err != nil {
		t.Skip("svm-train not installed (apt-get install libsvm-tools)")
	}
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	// A precomputed-kernel file: "label 0:i 1:K(i,1) ...", linear kernel.
	ds, err := loadData(train, nil)
	if err != nil {
		t.Fatal(err)
	}
	pre := filepath.Join(dir, "pre.txt")
	{
		var b strings.Builder
		for i := range 40 {
			fmt.Fprintf(&b, "%g 0:%d", ds.Y[i], i+1)
			for j := range 40 {
				k := ds.X.At(i, 0)*ds.X.At(j, 0) + ds.X.At(i, 1)*ds.X.At(j, 1)
				fmt.Fprintf(&b, " %d:%g", j+1, k)
			}
			b.WriteString("\n")
		}
		os.WriteFile(pre, []byte(b.String()), 0o644)
	}
	cases := []struct {
		name string
		args []string
		data string
		fail string // "" when predict must read it
	}{
		{"C-SVC linear", []string{"-s", "0", "-t", "0"}, train, ""},
		{"C-SVC poly", []string{"-s", "0", "-t", "1"}, train, ""},
		{"C-SVC rbf", []string{"-s", "0", "-t", "2"}, train, ""},
		{"C-SVC sigmoid", []string{"-s", "0", "-t", "3"}, train, ""},
		{"epsilon-SVR", []string{"-s", "3", "-t", "2"}, train, ""},
		{"nu-SVC", []string{"-s", "1", "-t", "2"}, train, "nu_svc"},
		{"one-class", []string{"-s", "2", "-t", "2"}, train, "one_class"},
		{"nu-SVR", []string{"-s", "4", "-t", "2"}, train, "nu_svr"},
		{"precomputed", []string{"-s", "0", "-t", "4"}, pre, "precomputed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".model")
			cmd := exec.Command(svmTrain, append(append([]string{"-q"}, c.args...), c.data, model)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("svm-train %v: %v\n%s", c.args, err, out)
			}
			if c.fail == "" {
				mustRun(t, dir, "predict", "--model", model, "--data", train, "--quiet")
				return
			}
			wantFail(t, dir, []string{"LIBSVM model", c.fail, "not supported"}, "predict", "--model", model, "--data", c.data)
		})
	}
}
