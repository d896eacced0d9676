package data

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

func TestDescribeStorage(t *testing.T) {
	// 4 rows × 1000 features, 4 non-zeros: sparse by the automatic rule.
	text := "1 1:1\n-1 2:1\n1 3:1\n-1 1000:1\n"
	path := writeTemp(t, "s.svm", text)
	sp, err := Load(path, WithStorage(StorageAuto))
	if err != nil {
		t.Fatal(err)
	}
	r := DescribeStorage(sp, StorageAuto, "--storage", "")
	if r.Kind != "sparse" || r.Asked != "auto" || r.NNZ != 4 || math.Abs(r.Density-0.001) > 1e-12 || r.Bytes != sp.X.Bytes() || r.Reason == "" {
		t.Fatalf("sparse report %+v", r)
	}
	de, err := Load(path, WithStorage(StorageDense))
	if err != nil {
		t.Fatal(err)
	}
	r = DescribeStorage(de, StorageAuto, "--storage", "--algo x does not take sparse rows yet")
	if r.Kind != "dense" || r.NNZ != 4 {
		t.Fatalf("dense report %+v", r)
	}
	want := "--algo x does not take sparse rows yet, so the data are held dense (--storage auto; "
	if !strings.HasPrefix(r.Reason, want) {
		t.Fatalf("reason %q, want prefix %q", r.Reason, want)
	}
	if r := DescribeStorage(de, "", "--storage", "any"); r.Asked != "dense" || strings.Contains(r.Reason, "any") {
		t.Fatalf("asked dense: %+v", r)
	}
}

func TestLabelColumnOf(t *testing.T) {
	for _, c := range []struct {
		path   string
		format Format
		col    int
		dim    int
		want   int
		ok     bool
	}{
		{"a.csv", FormatAuto, 0, 3, 0, true},
		{"a.csv", FormatAuto, -1, 3, 3, true},
		{"a.csv", FormatAuto, 2, 3, 2, true},
		{"a.svm", FormatAuto, -1, 3, 0, false},
		{"a.svm", FormatCSV, -2, 3, 2, true},
		{"a.csv", FormatLibSVM, 0, 3, 0, false},
	} {
		got, ok := LabelColumnOf(c.path, c.format, c.col, c.dim)
		if got != c.want || ok != c.ok {
			t.Errorf("LabelColumnOf(%q, %q, %d, %d) = %d, %v; want %d, %v", c.path, c.format, c.col, c.dim, got, ok, c.want, c.ok)
		}
	}
}

func TestScalerWiden(t *testing.T) {
	s := &Scaler{Mode: ScaleMaxAbs, Scale: []float64{0.5, 2}, Offset: []float64{0, 0}}
	w := s.Widen(4)
	if len(w.Scale) != 4 || len(w.Offset) != 4 || w.Scale[2] != 1 || w.Scale[3] != 1 || w.Offset[3] != 0 || w.Scale[1] != 2 {
		t.Fatalf("widened %+v", w)
	}
	if len(s.Scale) != 2 {
		t.Fatal("Widen changed its receiver")
	}
	x, _ := pursuit.MatrixFrom(1, 4, []float32{2, 1, 7, -3})
	if err := w.Apply(x); err != nil {
		t.Fatal(err)
	}
	for j, want := range []float32{1, 2, 7, -3} { // the reference: x·scale per feature, offset 0
		if x.At(0, j) != want {
			t.Errorf("feature %d: %v, want %v", j, x.At(0, j), want)
		}
	}
	bad := &Scaler{Scale: []float64{1}, Offset: nil}
	if bad.Widen(3) != bad {
		t.Error("a damaged scaler should come back as it is")
	}
}

// writeTemp writes text to a file named name in a temporary directory.
func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
