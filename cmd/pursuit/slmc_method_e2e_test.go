package main

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/learn"
)

// TestSLMCMethodsRoundTrip trains every --method of --algo slmc, saves the
// model, predicts with it, and checks that predict reproduces train's test
// error and that both report the method.
func TestSLMCMethodsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	for _, method := range learn.SLMCMethods {
		t.Run(method, func(t *testing.T) {
			model := filepath.Join(dir, method+".model")
			r := mustRun(t, dir, "train", "--data", train, "--test", test, "--algo", "slmc", "--method", method,
				"--gamma", "4", "--c", "10", "--nz", "10", "--model", model, "--json", "--quiet")
			var tr, pr resultJSON
			decodeJSON(t, r.stdout, &tr)
			r = mustRun(t, dir, "predict", "--model", model, "--data", test, "--json", "--out", filepath.Join(dir, method+".pred"))
			decodeJSON(t, r.stdout, &pr)
			if tr.Method != method || pr.Method != method {
				t.Errorf("method reported as %q by train, %q by predict; want %q", tr.Method, pr.Method, method)
			}
			if tr.TestError == nil || pr.TestError == nil || *tr.TestError != *pr.TestError {
				t.Fatalf("train reports test error %v, predict %v", deref(tr.TestError), deref(pr.TestError))
			}
			if tr.NBasis != 10 {
				t.Errorf("%d basis vectors, want 10", tr.NBasis)
			}
			// RSVM's coefficients ignore Kz and are the weakest of the six.
			limit := 0.1
			if method == "rsvm" {
				limit = 0.2
			}
			if *tr.TestError > limit {
				t.Errorf("test error %v on two moons", *tr.TestError)
			}
			iterative := method == "slmc" || method == "skfd"
			if iterative != (tr.Stop != "") {
				t.Errorf("stop reason %q", tr.Stop)
			}
		})
	}
	wantFail(t, dir, []string{"--method", "want one of"}, "train", "--data", train, "--algo", "slmc", "--method", "lasso")
	wantFail(t, dir, []string{"--method", "slmc"}, "train", "--data", train, "--algo", "svm", "--method", "rs")
}

// slowJob writes a ringnorm problem large enough that kmp takes several
// seconds and returns the train arguments.
func slowJob(t *testing.T, dir string) []string {
	t.Helper()
	tr, _ := head(ringnorm(6000, 20, 3), 6000)
	path := filepath.Join(dir, "ring.train")
	writeData(t, path, tr)
	return []string{"train", "--data", path, "--algo", "kmp-backfit", "--gamma", "0.025", "--basis", "3000"}
}

// startWithPipe starts pursuit with stderr to a pipe and returns the
// command and a reader of its stderr.
func startWithPipe(t *testing.T, dir string, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(pursuitBin, args...)
	cmd.Dir = dir
	se, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewReader(se)
}

// TestProgressLinesAndInterrupt runs a slow training with stderr to a pipe:
// --progress auto must print plain progress lines (no control characters),
// and after SIGINT the output must end with a newline; --progress bar draws
// the bar even to the pipe, and SIGINT must end its line too.
func TestProgressLinesAndInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a training for a few seconds")
	}
	dir := t.TempDir()
	args := slowJob(t, dir)
	for _, mode := range []string{"auto", "bar"} {
		t.Run(mode, func(t *testing.T) {
			cmd, se := startWithPipe(t, dir, append(args, "--progress", mode)...)
			var out strings.Builder
			// Read until progress has appeared.
			deadline := time.Now().Add(60 * time.Second)
			for {
				if time.Now().After(deadline) {
					t.Fatalf("no progress after 60 s: %q", out.String())
				}
				b, err := se.ReadByte()
				if err != nil {
					t.Fatalf("stderr closed before any progress: %q (%v)", out.String(), err)
				}
				out.WriteByte(b)
				s := out.String()
				if mode == "auto" && strings.Count(s, "\n") >= 1 && strings.Contains(s, "train kmp-backfit: ") {
					break
				}
				if mode == "bar" && strings.Count(s, "\r") >= 2 {
					break
				}
			}
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(se)
			out.Write(rest)
			err := cmd.Wait()
			s := out.String()
			if !strings.HasSuffix(s, "\n") {
				t.Errorf("stderr after SIGINT does not end with a newline: %q", s)
			}
			if !strings.Contains(s, "interrupted") {
				t.Errorf("no interruption notice: %q", s)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Errorf("exit %v, want status 130", err)
			}
			if mode == "auto" {
				if strings.ContainsAny(s, "\r\x1b") {
					t.Errorf("lines mode wrote control characters: %q", s)
				}
				first := strings.SplitN(s, "\n", 2)[0]
				// --basis 3000 kernel functions: 3000 or 3001 steps with the bias.
				if !regexp.MustCompile(`: \d+/300[01] \(\d+%\)`).MatchString(first) {
					t.Errorf("progress line %q lacks step/total", first)
				}
			}
		})
	}
}
