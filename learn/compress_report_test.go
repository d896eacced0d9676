package learn

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/svm"
)

const tinyLIBSVM = `svm_type c_svc
kernel_type rbf
gamma 0.5
nr_class 2
total_sv 2
rho 0
label 1 -1
nr_sv 1 1
SV
1 1:1 2:0
-1 1:0 2:1
`

func TestTradeoffReport(t *testing.T) {
	sm, err := svm.ReadLIBSVMModel(strings.NewReader(tinyLIBSVM))
	if err != nil {
		t.Fatal(err)
	}
	src := LIBSVMSource(sm)
	tab := &Tradeoff{C: 2, Rows: []TradeoffRow{
		{Vectors: 2, Error: 0.25, PredictSeconds: 0.004, Speedup: 1},
		{Vectors: 1, Fraction: 0.5, Error: math.NaN(), PredictSeconds: 0.002, Speedup: 2, CompressSeconds: 3},
	}}
	r := tab.Report(src, "m.libsvm", "slmc", []string{"out.model"}, true, "test.svm", 500, "go")
	if r.Machines != 1 || r.Task != TaskBinary || len(r.Classes) != 2 || r.C != 2 || r.NError != 500 {
		t.Fatalf("report header %+v", r)
	}
	src0, c := r.Rows[0], r.Rows[1]
	// 0.004 s for 500 rows is 8 ms per 1000 rows.
	if src0.Model != "m.libsvm" || src0.Method != "svm" || src0.Fraction != nil || *src0.Error != 0.25 || math.Abs(src0.PredictMSPer1000-8) > 1e-12 {
		t.Errorf("source row %+v", src0)
	}
	if c.Model != "out.model" || c.File != "out.model" || c.Method != "slmc" || *c.Fraction != 0.5 || c.Error != nil || c.CompressSeconds != 3 {
		t.Errorf("compressed row %+v", c)
	}
	if r2 := tab.Report(src, "m", "rs", []string{"o"}, false, "e", 0, "go"); r2.Rows[1].Fraction != nil || r2.Rows[0].PredictMSPer1000 != 4000 {
		t.Errorf("without fractions / empty evaluation set: %+v", r2.Rows)
	}
	r.Rows[1].Error = new(float64)
	var b bytes.Buffer
	r.WriteText(&b)
	if !strings.Contains(b.String(), "slmc         0.5        1      0.00%") || !strings.Contains(b.String(), "C = 2\n") {
		t.Errorf("table:\n%s", b.String())
	}
}
