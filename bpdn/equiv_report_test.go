package bpdn

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/svm"
)

// Report and WriteText carry the Equivalence's figures as they are, the
// box +Inf written "inf".
func TestEquivReport(t *testing.T) {
	q := &Equivalence{Certificate: Certificate{MaxDA: 1e-9, NormA: 2, DB: 1e-10, SameSupport: true, NSV: [2]int{4, 4}, Agree: true},
		BPDN: &Solution{B: 0.5, Iter: 7}, SMO: &svm.Solution{Iter: 30, Bias: 0.5}, SMOC: 20, BPDNSeconds: 1, SMOSeconds: 2, GramSeconds: 3}
	k := pursuit.NewRBF(0.5)
	r := q.Report("d.svm", 50, k, "go", 0.1, math.Inf(1))
	if r.C != "inf" || r.N != 50 || r.B != 0.5 || r.SMOIter != 30 || r.BPDNIter != 7 || r.Seconds != [2]float64{1, 2} || r.GramSeconds != 3 || !r.Agree || r.NSV != [2]int{4, 4} {
		t.Errorf("report %+v", r)
	}
	if r2 := q.Report("d", 1, k, "go", 0.1, 10); r2.C != "10" {
		t.Errorf("C = 10 written %q", r2.C)
	}
	var b bytes.Buffer
	if err := q.WriteText(&b, "d.svm", 50, 3, k, "go", 0.1, math.Inf(1), 1e-10); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "problem      ε = 0.1, C = inf; the SVR by SMO with C = 20, tolerance 1e-10\n") {
		t.Errorf("text:\n%s", b.String())
	}
}
