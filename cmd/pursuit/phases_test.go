package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/pursuit-ml/pursuit/data"
)

// TestTrainPhases checks that train --test holds the test rows only after
// training and the training rows only until then: the test file is checked
// at the start (a bad one is refused before any training) without its rows
// being held, the training set is collectable once the test phase starts,
// and the test error is the one predict gives with the saved model. With
// --bound the training rows are kept (the bound reads them after the
// test), and the error is the same.
func TestTrainPhases(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	model := filepath.Join(dir, "m.model")
	args := []string{"train", "--data", train, "--test", test, "--algo", "skmp", "--fit", "basic", "--gamma", "2", "--basis", "20", "--active-set", "30", "--model", model, "--quiet"}

	type seen struct{ trainRows weak.Pointer[float32] }
	gone := func(p weak.Pointer[float32]) bool { runtime.GC(); return p.Value() == nil }
	var phases []string
	var w seen
	defer func() { phaseHook = nil }()
	phaseHook = func(phase string, sets ...*data.Dataset) {
		phases = append(phases, phase)
		switch phase {
		case "loaded":
			if len(sets) != 1 {
				t.Errorf("%d sets held at the start, want the training set alone", len(sets))
			}
			w = seen{weak.Make(&sets[0].X.Data[0])}
		case "train":
			if gone(w.trainRows) {
				t.Error("the training rows are gone as training starts")
			}
		case "test":
			if !gone(w.trainRows) {
				t.Error("the training rows are still reachable as the test phase starts")
			}
		}
	}
	var so, se bytes.Buffer
	if code := run(&env{stdout: &so, stderr: &se}, args); code != exitOK {
		t.Fatalf("train: exit %d: %s", code, se.String())
	}
	if got := strings.Join(phases, " "); got != "loaded train test" {
		t.Errorf("phases %q, want %q", got, "loaded train test")
	}
	testLine := regexp.MustCompile(`(?m)^test +error ([0-9.]+%)`)
	m := testLine.FindStringSubmatch(so.String())
	if m == nil {
		t.Fatalf("no test error in:\n%s", so.String())
	}
	pr := mustRun(t, dir, "predict", "--model", model, "--data", test)
	if !strings.Contains(pr.stdout, "error "+m[1]) {
		t.Errorf("train's test error %s; predict says:\n%s", m[1], pr.stdout)
	}

	// A test file bad at its last line is refused before training.
	bad := filepath.Join(dir, "bad.test")
	writeFile(t, bad, append(readFile(t, test), "1 1:0.5 1:0.5\n"...))
	phases = nil
	se.Reset()
	if code := run(&env{stdout: &so, stderr: &se}, append(slices.Clone(args[:3]), append([]string{"--test", bad}, args[5:]...)...)); code == exitOK {
		t.Fatal("train took a test file with a repeated index")
	}
	if got := strings.Join(phases, " "); got != "" || !strings.Contains(se.String(), "bad.test:101") {
		t.Errorf("bad test file: phases %q, stderr %q; want no phase and the file's line 101", got, se.String())
	}

	// --bound reads the training rows after the test phase: they stay.
	phases, w = nil, seen{}
	phaseHook = func(phase string, sets ...*data.Dataset) {
		phases = append(phases, phase)
		switch phase {
		case "loaded":
			w.trainRows = weak.Make(&sets[0].X.Data[0])
		case "test":
			if gone(w.trainRows) {
				t.Error("--bound: the training rows are gone as the test phase starts")
			}
		}
	}
	so.Reset()
	if code := run(&env{stdout: &so, stderr: &se}, append(args, "--bound")); code != exitOK {
		t.Fatalf("train --bound: exit %d: %s", code, se.String())
	}
	if got := strings.Join(phases, " "); got != "loaded train test" {
		t.Errorf("--bound: phases %q, want %q", got, "loaded train test")
	}
	if mb := testLine.FindStringSubmatch(so.String()); mb == nil || mb[1] != m[1] {
		t.Errorf("--bound: test error %v, want %s", mb, m[1])
	}

	// --curve takes the training and test sets together: one phase.
	phases = nil
	phaseHook = func(phase string, _ ...*data.Dataset) { phases = append(phases, phase) }
	so.Reset()
	if code := run(&env{stdout: &so, stderr: &se}, append(args, "--curve")); code != exitOK {
		t.Fatalf("train --curve: exit %d: %s", code, se.String())
	}
	if got := strings.Join(phases, " "); got != "train" {
		t.Errorf("--curve: phases %q, want %q", got, "train")
	}
	if mc := testLine.FindStringSubmatch(so.String()); mc == nil || mc[1] != m[1] {
		t.Errorf("--curve: test error %v, want %s", mc, m[1])
	}
}
