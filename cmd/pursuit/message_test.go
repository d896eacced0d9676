package main

import (
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

// The CLI's one-line errors (userMessage: learn.UserMessage, whose own test
// holds the expected texts) of the issue-30 examples pass the CLI's
// error-line check, and lines that keep a package name do not.
func TestUserMessage(t *testing.T) {
	for _, in := range []string{
		"train svm: svm: bad input: x",
		`load model nu.model: LIBSVM model: svm: LIBSVM model line 1: svm_type "nu_svc" is not supported`,
		"the file is truncated or corrupted: modelfile: payload cut short (4974 of 30666 bytes): corrupt or truncated model file",
		`backend "cuda" is not available: asm.New: AVX2/FMA assembly backend unavailable`,
		"--k 0: must be at least 1",
		"a\nb:  c",
	} {
		if why := badUserLine("pursuit x: " + userMessage(in)); why != "" {
			t.Errorf("%q: %s", userMessage(in), why)
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
