package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// backendOwners are the packages (module-relative directories) allowed to
// hold a backend.Backend: the engine itself, the backends and the benchmarks
// that measure them directly.
var backendOwners = []string{"engine", "backend", "asm", "cuda", "bench"}

// TestAlgorithmsUseTheEngine fails when any non-test file outside the
// backend owners calls a method named Backend (engine.Engine.Backend): the
// algorithms, the CLI and every future package reach the hot operations
// through the engine only (engine/ops.go).
func TestAlgorithmsUseTheEngine(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found above engine: %v", err)
	}
	var scanned int
	var offenders []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || isOwner(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		scanned++
		if backendCalls(f) > 0 {
			offenders = append(offenders, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 20 {
		t.Fatalf("scanned only %d files: the walk is not seeing the module", scanned)
	}
	for _, o := range offenders {
		t.Errorf("%s calls Backend(): use the engine's operations (engine/ops.go) instead", o)
	}
}

func isOwner(rel string) bool {
	for _, o := range backendOwners {
		if rel == o || strings.HasPrefix(rel, o+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// TestPathCheckSeesABypass makes sure the scan can fail: it parses a
// snippet that calls Backend() and expects the selector test to find it.
func TestPathCheckSeesABypass(t *testing.T) {
	src := "package x\nfunc f(e interface{ Backend() any }) { _ = e.Backend() }\n"
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := backendCalls(f); n != 1 {
		t.Fatalf("the scan finds %d calls of Backend() in a snippet with one", n)
	}
}

// backendCalls counts the calls x.Backend() in f.
func backendCalls(f *ast.File) int {
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		if call, ok := node.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Backend" && len(call.Args) == 0 {
				n++
			}
		}
		return true
	})
	return n
}
