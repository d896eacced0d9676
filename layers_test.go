package pursuit_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/pursuit-ml/pursuit"

// layer is each package's floor in the house (DESIGN.md §1): a package may
// import packages on its own floor or below, never above. Every package of
// the module must be listed, so that a new one is placed deliberately.
var layer = map[string]int{
	// the vocabulary and the leaf helpers
	".": 0, "internal/f32": 0, "internal/par": 0, "internal/activeset": 0,
	"internal/hugemem": 0, "internal/safefile": 0, "internal/fuzzlimit": 0,
	"internal/modelfile": 0, "internal/plot": 0, "internal/onnxrt": 0, "internal/approx": 0, "internal/dot64": 0, "internal/cputime": 0, "internal/residency": 0,
	"onnxexport/internal/onnxpb": 0, "stochastic": 0, "checkpoint": 0,
	// data, the backend interface and its CPU driver, the communicator
	"data": 1, "backend": 1, "engine/comm": 1,
	// backends and the conformance suite
	"asm": 2, "cuda": 2, "backend/backendtest": 2,
	// the engine
	"engine": 3, "engine/enginetest": 4,
	// learners
	"kmp": 5, "svm": 5, "bound": 5, "greedy": 6, "slmc": 6, "bpdn": 6,
	// model export
	"onnxexport": 6,
	// the estimator contract: models, learners, registry, model file,
	// multi-class reduction, cross-validation
	"learn": 7,
	// the command, benchmarks and scripts
	"cmd/pursuit": 8, "bench": 8, "scripts": 8,
}

// driverOnly are the packages learners must not import: they reach the
// backends and the communicator only through package engine.
var driverOnly = []string{"backend", "asm", "cuda", "engine/comm", "backend/backendtest", "engine/enginetest"}

var learners = []string{"kmp", "svm", "slmc", "greedy", "bpdn", "bound", "data"}

// imports returns, for every package directory of the module, the module
// packages its non-test files import (whatever their build tags).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			switch {
			case p == module:
				out[dir] = append(out[dir], ".")
			case strings.HasPrefix(p, module+"/"):
				out[dir] = append(out[dir], strings.TrimPrefix(p, module+"/"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayers fails when a package imports one on a higher floor, or a
// learner imports the CPU driver, a backend or the communicator.
func TestLayers(t *testing.T) {
	all := imports(t)
	dirs := make([]string, 0, len(all))
	for d := range all {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		own, ok := layer[dir]
		if !ok {
			t.Errorf("package %s has no floor in layers_test.go: place it", dir)
			continue
		}
		for _, imp := range all[dir] {
			if l, ok := layer[imp]; ok && l > own {
				t.Errorf("%s (floor %d) imports %s (floor %d): an arrow up", dir, own, imp, l)
			}
		}
	}
	for _, dir := range learners {
		for _, imp := range all[dir] {
			for _, bad := range driverOnly {
				if imp == bad {
					t.Errorf("learner %s imports %s: reach it through package engine", dir, imp)
				}
			}
		}
	}
}
