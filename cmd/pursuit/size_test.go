package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLISize keeps the command thin (issue 31): its non-test Go files
// hold fewer than 3,000 lines, the rest of the work being the library's.
func TestCLISize(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines, n := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines >= 3000 {
		t.Errorf("cmd/pursuit has %d non-test lines, over issue 31's 3,000: move what an embedding user needs into the library", lines)
	}
	t.Logf("cmd/pursuit: %d non-test lines in %d files", lines, n)
}
