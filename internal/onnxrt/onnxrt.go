package onnxrt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Runtime is a node with onnxruntime-node and the prediction script.
type Runtime struct {
	node, script, dir string
}

// Root returns the repository's root: the nearest directory at or above the
// working directory that holds go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("onnxrt: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("onnxrt: no go.mod at or above the working directory")
		}
		dir = up
	}
}

// Find returns the runtime of the repository at root: node on PATH,
// root/scripts/onnx-predict.mjs and onnxruntime-node under
// $ONNXRT_DIR or root/.cache/onnxrt. Its error says what is missing.
func Find(root string) (*Runtime, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("node not found (Debian's nodejs)")
	}
	script := filepath.Join(root, "scripts", "onnx-predict.mjs")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("onnxrt: %w", err)
	}
	dir := os.Getenv("ONNXRT_DIR")
	if dir == "" {
		dir = filepath.Join(root, ".cache", "onnxrt")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node", "package.json")); err != nil {
		return nil, fmt.Errorf("onnxruntime-node is not installed in %s (run scripts/onnxruntime.sh)", dir)
	}
	return &Runtime{node: node, script: script, dir: dir}, nil
}

// Require returns the repository's runtime, or skips t saying what is
// missing; under CI (CI set in the environment), where .ci/run installs
// it, a missing runtime fails t instead.
func Require(t testing.TB) *Runtime {
	t.Helper()
	root, err := Root()
	if err == nil {
		var r *Runtime
		if r, err = Find(root); err == nil {
			return r
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("onnxruntime is needed under CI: %v", err)
	}
	t.Skipf("onnxruntime not available: %v", err)
	return nil
}

// Dir returns the folder onnxruntime-node is installed in (node_modules
// under it), for ONNXRT_DIR.
func (r *Runtime) Dir() string { return r.dir }

var timeLine = regexp.MustCompile(`onnxruntime: (\d+) rows in ([0-9.]+) s`)

// Run runs the ONNX model on the data file (LIBSVM text or dense rows) and
// returns one row of numbers per data row (a classifier's label then its
// scores; a regressor's value) and the seconds onnxruntime's run took.
func (r *Runtime) Run(model, data string) ([][]float64, float64, error) {
	cmd := exec.Command(r.node, r.script, model, data, "--time")
	cmd.Env = append(os.Environ(), "ONNXRT_DIR="+r.dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("onnxrt: node %s %s %s: %w\n%s", filepath.Base(r.script), model, data, err, stderr.String())
	}
	m := timeLine.FindStringSubmatch(stderr.String())
	if m == nil {
		return nil, 0, fmt.Errorf("onnxrt: no timing line in %q", stderr.String())
	}
	secs, _ := strconv.ParseFloat(m[2], 64)
	var rows [][]float64
	for n, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if line == "" {
			continue
		}
		var row []float64
		for _, f := range strings.Fields(line) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("onnxrt: output line %d: %q is not a number", n+1, f)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows, secs, nil
}
