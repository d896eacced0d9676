package main

import (
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

// userMessage drops the package names and the parts that only restate
// another (issue 30, item 6); the messages are the examples.
func TestUserMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"train svm: svm: bad input: x", "train svm: bad input: x"},
		{`load model nu.model: LIBSVM model: svm: LIBSVM model line 1: svm_type "nu_svc" is not supported`,
			`load model nu.model: LIBSVM model line 1: svm_type "nu_svc" is not supported`},
		{"the file is truncated or corrupted: modelfile: payload cut short (4974 of 30666 bytes): corrupt or truncated model file",
			"the file is truncated or corrupted: payload cut short (4974 of 30666 bytes)"},
		{`backend "cuda" is not available: asm.New: AVX2/FMA assembly backend unavailable`,
			`backend "cuda" is not available: AVX2/FMA assembly backend unavailable`},
		{"--k 0: must be at least 1", "--k 0: must be at least 1"},
		{"a\nb:  c", "a b: c"},
	} {
		if got := userMessage(c.in); got != c.want {
			t.Errorf("%q\n→ %q\nwant %q", c.in, got, c.want)
		}
		if why := badUserLine("pursuit x: " + userMessage(c.in)); why != "" {
			t.Errorf("%q: %s", userMessage(c.in), why)
		}
	}
	for _, bad := range []string{"pursuit train: train svm: svm: bad input", "pursuit predict: load model: kmp: x", "pursuit bound: --bound: bound: x"} {
		if badUserLine(bad) == "" {
			t.Errorf("%q passed the check", bad)
		}
	}
}

// badUserLine says what is wrong with an error line of the CLI ("" when
// nothing): a Go package name as a part, or a word repeated across a
// colon ("train svm: svm: ..."). wantFail runs it on every error the CLI
// tests provoke.
func badUserLine(line string) string {
	parts := strings.Split(strings.TrimSpace(line), ": ")
	for i, p := range parts {
		if learn.IsPackageName(p) {
			return "names the Go package " + p
		}
		if i == 0 {
			continue
		}
		prev := strings.Fields(strings.ToLower(parts[i-1]))
		next := strings.Fields(strings.ToLower(p))
		if len(prev) > 0 && len(next) > 0 && prev[len(prev)-1] == next[0] {
			return "repeats " + next[0] + " across a colon"
		}
	}
	return ""
}
