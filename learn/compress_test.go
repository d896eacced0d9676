package learn_test

import (
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestCompressTradeoff compresses a one-vs-rest SVM to two sizes and
// checks the table: the original first, fewer vectors per row, errors
// and timings measured, the models saved as made.
func TestCompressTradeoff(t *testing.T) {
	e := newEngine(t)
	ds := blobs(150, 3, 9)
	plan := learn.LabelPlan{Task: learn.TaskOneVsRest, Classes: []float64{1, 2, 3}}
	l := learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: pursuit.NewRBF(0.5), C: 1, Seed: 1}}
	ms, err := learn.Train(e, l, plan, ds.X, ds.Y, pursuit.Matrix{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := learn.FileSource(learn.NewFile(plan, 2, l.Params.Kernel, ms))
	if err != nil {
		t.Fatal(err)
	}
	saved := 0
	c := learn.Compress{Config: slmc.CompressConfig{Seed: 1}, Fractions: []float64{0.1, 0.3},
		Save: func(i int, m *learn.File) error { saved++; return nil }}
	tab, err := c.Run(e, src, ds, ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 3 || saved != 2 || tab.C != src.DefaultC() {
		t.Fatalf("%d rows, %d saved, C %v: want 3 rows, 2 saved, C %v", len(tab.Rows), saved, tab.C, src.DefaultC())
	}
	if tab.Rows[0].Vectors != src.Vectors || tab.Rows[1].Vectors >= tab.Rows[2].Vectors || tab.Rows[2].Vectors >= src.Vectors {
		t.Errorf("vectors %d, %d, %d (original %d)", tab.Rows[0].Vectors, tab.Rows[1].Vectors, tab.Rows[2].Vectors, src.Vectors)
	}
	for i, r := range tab.Rows {
		if !(r.PredictSeconds > 0) || !(r.Error >= 0 && r.Error < 0.5) || (i > 0) != (r.Model != nil) {
			t.Errorf("row %d: %+v", i, r)
		}
	}
}
