package learn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
)

// TestDescribeData checks the figures of the data report against counts
// made by hand, and the text's setting names.
func TestDescribeData(t *testing.T) {
	src := "1 1:0.5 3:2\n-1 2:1\n1 4:-1\n-1 1:1 2:1 3:1 4:1\n"
	ds, err := data.ReadLibSVM(strings.NewReader(src), "tiny.svm", data.WithStorage(data.StorageSparse))
	if err != nil {
		t.Fatal(err)
	}
	rep := DescribeData("tiny.svm", ds, data.DescribeStorage(ds, data.StorageSparse, "storage", ""))
	if rep.Examples != 4 || rep.Features != 4 || rep.DenseBytes != 4*4*4 || rep.Storage.NNZ != 8 || rep.Storage.Kind != "sparse" {
		t.Errorf("report %+v, storage %+v; want 4 × 4, 64 dense bytes, 8 non-zeros held sparse", rep, rep.Storage)
	}
	if rep.Scale != string(data.DefaultScaleMode(ds.X)) || len(rep.SparseAlgos) != len(SparseAlgorithms()) {
		t.Errorf("scale %q, sparse algorithms %v", rep.Scale, rep.SparseAlgos)
	}
	var plain, named bytes.Buffer
	rep.WriteText(&plain, nil)
	rep.WriteText(&named, func(s string) string { return "--" + s })
	if !strings.Contains(plain.String(), "storage:   sparse (storage sparse)") || !strings.Contains(named.String(), "scaling:   --scale auto fits") ||
		!strings.Contains(plain.String(), "8 non-zeros (density 0.5)") || strings.Count(named.String(), "\n") != 5 {
		t.Errorf("text:\n%s\nnamed:\n%s", plain.String(), named.String())
	}
}
