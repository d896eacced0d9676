package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
)

// TestCVRegressionTable: cv on a regression task prints the mean squared
// error as a number, not as a percentage (it printed "1812%" for an MSE of
// 18.1).
func TestCVRegressionTable(t *testing.T) {
	dir := t.TempDir()
	n := 120
	ds := &data.Dataset{X: pursuit.NewMatrix(n, 1), Y: make([]float64, n)}
	for i := range n {
		x := -3 + 6*float64(i)/float64(n-1)
		ds.X.Set(i, 0, float32(x))
		ds.Y[i] = 10 * math.Sin(x) // an MSE well above 1 at a poor setting
	}
	path := filepath.Join(dir, "sin.txt")
	writeData(t, path, ds)
	r := mustRun(t, dir, "cv", "--data", path, "--algo", "svm", "--svr-epsilon", "0.05", "--folds", "3", "--grid-gamma", "0.01,2")
	if strings.Contains(r.stdout, "%") || !strings.Contains(r.stdout, "cv MSE") {
		t.Fatalf("regression cv table shows percentages or no MSE column:\n%s", r.stdout)
	}
}
