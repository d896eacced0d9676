package learn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

func TestWriteFeatures(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFeatures(&b, [][]float64{{1, 0.5}, {-2, 1e-9}}, [][]float64{{3, 0.1}}); err != nil {
		t.Fatal(err)
	}
	if want := "train,1,0.5\ntrain,-2,1e-09\ntest,3,0.1\n"; b.String() != want {
		t.Errorf("WriteFeatures wrote %q, want %q", b.String(), want)
	}
	if got := TrimFloat(95); got != "95" {
		t.Errorf("TrimFloat(95) = %q", got)
	}
	if got := TrimFloat(99.25); got != "99.25" {
		t.Errorf("TrimFloat(99.25) = %q", got)
	}
}

// SparseKCCA's report and features are those of greedy.FitKCCA and
// Transform called directly.
func TestSparseKCCAReport(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ds := data.Ringnorm(60, 4, 3)
	x, y := ds.X, data.Ringnorm(60, 3, 4).X
	kx, _ := pursuit.ParseKernel("rbf", 0.2, 0, 3, 4)
	ky, _ := pursuit.ParseKernel("rbf", 0.2, 0, 3, 3)
	r, err := SparseKCCA(e, kx, ky, x, y, &x, &y, 5, 0.5, 0.05, true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := greedy.FitKCCA(e, x, y, greedy.KCCAConfig{KernelX: kx, KernelY: ky, Steps: 5})
	if err != nil {
		t.Fatal(err)
	}
	zx, zy, err := f.Transform(e, x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.K != len(f.Index) || r.M != 60 || r.NTest != 60 || r.Bound == nil || r.TestCorr == nil {
		t.Fatalf("report %+v", r)
	}
	_, cx := zx.Dims()
	for i, row := range r.TrainFeatures {
		for j, v := range row {
			var want float64
			if j < cx {
				want = zx.At(i, j)
			} else {
				want = zy.At(i, j-cx)
			}
			if v != want {
				t.Fatalf("feature (%d, %d) = %v, want %v", i, j, v, want)
			}
		}
	}
	var b bytes.Buffer
	r.WriteText(&b)
	if !strings.Contains(b.String(), "Theorem 9, k = 5") {
		t.Errorf("text %q", b.String())
	}
}
