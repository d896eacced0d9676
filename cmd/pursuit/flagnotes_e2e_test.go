package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// Flag values that were accepted without a word now get one (issue 30,
// item 11): contradictory --quiet --progress, a --mem-budget unit spelled
// loosely, a budget over the machine's memory, and an active set larger
// than the training set.
func TestFlagNotes(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	wantFail(t, dir, []string{"--quiet and --progress lines contradict"}, "train", "--data", train, "--quiet", "--progress", "lines")
	mustRun(t, dir, "train", "--data", train, "--quiet", "--progress", "off")
	for _, c := range []struct{ budget, want string }{
		{"512mb", "512MB = 512000000 bytes (SI units; 512MiB would be 536870912)"},
		{"4G", "4GiB = 4294967296 bytes (IEC units; 4GB would be 4000000000)"},
		{"1.5gib", ""}, // IEC spelled in lower case: still a note
	} {
		r := mustRun(t, dir, "train", "--data", train, "--quiet", "--mem-budget", c.budget)
		if !strings.Contains(r.stderr, "note: --mem-budget "+c.budget+" taken as") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--mem-budget %s: stderr %q", c.budget, r.stderr)
		}
	}
	for _, exact := range []string{"512MiB", "1GB"} {
		if r := mustRun(t, dir, "train", "--data", train, "--quiet", "--mem-budget", exact); strings.Contains(r.stderr, "note:") {
			t.Errorf("--mem-budget %s: a note for an exact unit: %q", exact, r.stderr)
		}
	}
	if total, ok := engine.MachineMemory(); ok && total < 100<<40 {
		r := mustRun(t, dir, "predict", "--model", trainModel(t, dir, train), "--data", train, "--quiet", "--mem-budget", "100TiB")
		if !strings.Contains(r.stderr, "warning: --mem-budget 100TiB is more than this machine's") {
			t.Errorf("--mem-budget 100TiB: stderr %q", r.stderr)
		}
	}
	r := mustRun(t, dir, "train", "--data", train, "--algo", "skmp", "--active-set", "100000", "--quiet", "--json")
	if !strings.Contains(r.stderr, "warning: --active-set 100000 is more than the 200 training examples: each step searches all 200") {
		t.Errorf("--active-set 100000 on 200 rows: stderr %q", r.stderr)
	}
}

func trainModel(t *testing.T, dir, train string) string {
	t.Helper()
	path := filepath.Join(dir, "notes.model")
	mustRun(t, dir, "train", "--data", train, "--basis", "5", "--model", path, "--quiet")
	return path
}

// cv takes --grid-basis for mpkfda, to which --basis applies (issue 30,
// item 10): each setting trains with its own number of basis vectors.
func TestCVGridBasisMPKFDA(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	r := mustRun(t, dir, "cv", "--data", train, "--algo", "mpkfda", "--gamma", "2", "--grid-basis", "2,6", "--folds", "3", "--json", "--quiet")
	var out cvJSON
	decodeJSON(t, r.stdout, &out)
	if len(out.Grid) != 2 {
		t.Fatalf("%d grid points, want 2", len(out.Grid))
	}
	for i, want := range []int{2, 6} {
		p := out.Grid[i]
		if p.Basis == nil || *p.Basis != want || p.NBasis != float64(want) {
			t.Errorf("grid point %d: basis %v, %v basis vectors on average; want %d", i, p.Basis, p.NBasis, want)
		}
	}
}

// subspace checks --threads, --gamma and --sigma as train does (one check
// of the shared flags for every command), and a budget error suggests no
// mode the command lacks (issue 30, item 9).
func TestSubspaceFlagsCheckedAsTrain(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--threads", "-1"}, "--threads -1: must be 0"},
		{[]string{"--gamma", "0"}, "--gamma 0: must be positive"},
		{[]string{"--sigma", "0"}, "--sigma 0: must be positive"},
		{[]string{"--gamma", "1", "--sigma", "1"}, "not both"},
	} {
		for _, cmd := range []string{"subspace", "train"} {
			wantFail(t, dir, []string{c.want}, append([]string{cmd, "--data", train}, c.args...)...)
		}
	}
	r := runPursuit(t, dir, "subspace", "--data", train, "--k", "5", "--mem-budget", "10KiB")
	if r.code != exitError || !strings.Contains(r.stderr, "raise it with --mem-budget") || strings.Contains(r.stderr, "mode") {
		t.Errorf("subspace over budget: exit %d, %q", r.code, r.stderr)
	}
}

// The demo's footer names every algorithm that trains on all of the data,
// from the algorithm table (issue 30, item 13: it named svm and slmc, not
// mpkfda).
func TestDemoFooterNamesFullDataAlgorithms(t *testing.T) {
	got := learn.DemoFullData()
	for _, want := range []string{"svm", "slmc", "mpkfda"} {
		if !strings.Contains(strings.Join(got, " "), want) {
			t.Errorf("the footer's list %v lacks %s", got, want)
		}
	}
	var b strings.Builder
	if err := (&learn.DemoReport{}).WriteText(&b, []string{"svm", "mpkfda", "slmc"}); err != nil || !strings.Contains(b.String(), "; svm, mpkfda and slmc train on all of it.") {
		t.Errorf("the footer: %q (%v)", b.String(), err)
	}
}

// bound has no meaningless --bound flag, and for a model that does not
// record its training set (a LIBSVM model) it checks what it can: every
// support vector must be a row of --data; what it cannot check it says
// (issue 30, item 8).
func TestBoundChecksItsData(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	path := filepath.Join(dir, "svm.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--scale", "none", "--gamma", "2", "--model", path, "--quiet")
	wantFail(t, dir, []string{"flag provided but not defined: --bound"}, "bound", "--model", path, "--data", train, "--bound")
	// The model's LIBSVM payload, as svm-train would write it.
	_, _, pays := splitModel(t, readFile(t, path))
	lib := filepath.Join(dir, "lib.model")
	writeFile(t, lib, pays[0])
	r := mustRun(t, dir, "bound", "--model", lib, "--data", train)
	if !strings.Contains(r.stderr, "does not record how many examples it was trained on") || !strings.Contains(r.stdout, "Theorem 2") {
		t.Errorf("bound on a LIBSVM model: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	wantFail(t, dir, []string{"basis vectors are not rows of", "not the data the model was trained on"}, "bound", "--model", lib, "--data", test)
	// A message about the bound names no flag the user did not give.
	reg := filepath.Join(dir, "reg.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--regression", "--model", reg, "--quiet")
	r = runPursuit(t, dir, "bound", "--model", reg, "--data", train)
	if r.code != exitError || !strings.Contains(r.stderr, "--alpha") || strings.Contains(r.stderr, "--bound") {
		t.Errorf("bound on a regressor without --alpha: exit %d, %q", r.code, r.stderr)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// cv --grid NAME=LIST takes any numeric training flag of the algorithm,
// validated as on the command line (issue 30, item 10).
func TestCVGridAnyNumericFlag(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	r := mustRun(t, dir, "cv", "--data", train, "--algo", "slmc", "--gamma", "2", "--grid", "nz=3,6", "--folds", "3", "--json", "--quiet")
	var out cvJSON
	decodeJSON(t, r.stdout, &out)
	if len(out.Grid) != 2 {
		t.Fatalf("%d grid points, want 2", len(out.Grid))
	}
	for i, want := range []float64{3, 6} {
		p := out.Grid[i]
		if p.Settings["nz"] != want || p.NBasis != want {
			t.Errorf("grid point %d: settings %v, %v expansion vectors; want nz %v", i, p.Settings, p.NBasis, want)
		}
	}
	r = mustRun(t, dir, "cv", "--data", train, "--algo", "svm", "--kernel", "poly", "--grid", "degree=2,3", "--grid", "coef0=0,1", "--folds", "3", "--json", "--quiet")
	decodeJSON(t, r.stdout, &out)
	if len(out.Grid) != 4 || out.Best.Settings == nil {
		t.Errorf("poly degree × coef0: %d points, best %+v", len(out.Grid), out.Best)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--algo", "svm", "--grid", "nz=3"}, "--nz does not apply to --algo svm"},
		{[]string{"--algo", "svm", "--grid", "degree=2"}, "--degree applies to the poly kernel only"},
		{[]string{"--algo", "svm", "--grid", "gamma=2"}, "use --grid-gamma"},
		{[]string{"--algo", "slmc", "--grid", "nz=0"}, "--nz 0: must be at least 1"},
		{[]string{"--algo", "slmc", "--grid", "nz=x"}, `"x" is not a value of --nz`},
		{[]string{"--algo", "slmc", "--nz", "3", "--grid", "nz=4"}, "not both"},
		{[]string{"--algo", "svm", "--grid", "seed=1,2"}, "not a numeric training flag"},
		{[]string{"--algo", "svm", "--grid", "degree"}, "want NAME=V1,V2"},
	} {
		wantFail(t, dir, []string{c.want}, append([]string{"cv", "--data", train}, c.args...)...)
	}
}
