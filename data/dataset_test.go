package data

import (
	"math/rand/v2"
	"slices"

	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

func TestSubset(t *testing.T) {
	d := &Dataset{X: matrix(t, [][]float32{{1, 2}, {3, 4}, {5, 6}}), Y: []float64{1, 2, 3}, Name: "s"}
	s := d.Subset([]int{2, 0, 2})
	wantRows(t, s, []float64{3, 1, 3}, [][]float64{{5, 6}, {1, 2}, {5, 6}})
	s.X.Set(0, 0, 9)
	s.Y[0] = 9
	if d.X.At(2, 0) != 5 || d.Y[2] != 3 {
		t.Error("Subset shares storage")
	}
	if e := d.Subset(nil); e.Len() != 0 || e.Dim() != 2 {
		t.Errorf("empty subset %d×%d", e.Len(), e.Dim())
	}
}

func TestValidate(t *testing.T) {
	d := &Dataset{X: matrix(t, [][]float32{{1, 2}}), Y: []float64{1}, Name: "v"}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	d.X.Set(0, 1, float32(math.Inf(1)))
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "v: example 1: feature 2") {
		t.Errorf("Inf: %v", err)
	}
	d.Y = nil
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "0 labels for 1 rows") {
		t.Errorf("labels: %v", err)
	}
}

func TestSharedDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PURSUIT_DATASETS", dir)
	if got, err := SharedDir(); err != nil || got != dir {
		t.Errorf("SharedDir with env = %q, %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, "x.gz"), nil, 0o644)
	if p, err := SharedFile("x.gz"); err != nil || p != filepath.Join(dir, "x.gz") {
		t.Errorf("SharedFile = %q, %v", p, err)
	}
	if _, err := SharedFile("nope.gz"); err == nil {
		t.Error("SharedFile found a missing file")
	}
	t.Setenv("PURSUIT_DATASETS", filepath.Join(dir, "absent"))
	if _, err := SharedDir(); err == nil || !strings.Contains(err.Error(), "PURSUIT_DATASETS") {
		t.Errorf("absent dir: %v", err)
	}
	// Without the variable: ../shared/datasets beside the module root, when
	// that exists.
	t.Setenv("PURSUIT_DATASETS", "")
	got, err := SharedDir()
	if err != nil {
		t.Skipf("no shared datasets beside the module root: %v", err)
	}
	if filepath.Base(got) != "datasets" || filepath.Base(filepath.Dir(got)) != "shared" {
		t.Errorf("SharedDir = %q", got)
	}
}

// TestReorder checks Reorder against Subset (the copying reference) on
// random permutations, and that the views of the result share its memory.
func TestReorder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 7, 50} {
		d := &Dataset{X: pursuit.NewMatrix(n, 3), Y: make([]float64, n), Name: "t"}
		for i := range n {
			d.Y[i] = float64(i)
			for j := range 3 {
				d.X.Set(i, j, float32(10*i+j))
			}
		}
		order := r.Perm(n)
		want := d.Subset(order)
		if err := d.Reorder(order); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if d.Y[i] != want.Y[i] || !slices.Equal(d.X.Row(i), want.X.Row(i)) {
				t.Fatalf("n=%d row %d: %v %v, want %v %v", n, i, d.Y[i], d.X.Row(i), want.Y[i], want.X.Row(i))
			}
		}
		v := d.View(n/2, n)
		if v.Len() != n-n/2 || (v.Len() > 0 && &v.X.Row(0)[0] != &d.X.Row(n / 2)[0]) || v.Validate() != nil {
			t.Fatalf("view of rows %d..%d: %d rows, shared %v", n/2, n, v.Len(), v.Len() > 0 && &v.X.Row(0)[0] == &d.X.Row(n / 2)[0])
		}
	}
	d := &Dataset{X: pursuit.NewMatrix(3, 1), Y: make([]float64, 3)}
	for _, bad := range [][]int{{0, 1}, {0, 1, 1}, {0, 1, 3}, {-1, 0, 1}} {
		if err := d.Reorder(bad); err == nil {
			t.Errorf("Reorder(%v) accepted", bad)
		}
	}
}

func TestTrainTest(t *testing.T) {
	ds := TwoMoons(10, 0.1, 1)
	tr, te := ds.TrainTest(7)
	if tr.Len() != 7 || te.Len() != 3 || te.Y[0] != ds.Y[7] || te.X.At(2, 1) != ds.X.At(9, 1) || tr.Name != ds.Name+" (train)" || te.Name != ds.Name+" (test)" {
		t.Fatalf("TrainTest(7) of 10: %d and %d rows, names %q %q", tr.Len(), te.Len(), tr.Name, te.Name)
	}
}
