package svm

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
)

// A LIBSVM model's declared sizes are checked against what the file holds
// and the memory limit before anything is allocated for them, and no check
// is quadratic in a declared count.
func TestReadLIBSVMModelDeclaredSizes(t *testing.T) {
	var wide strings.Builder
	wide.WriteString("svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 128\nrho 0\nSV\n")
	for range 128 {
		wide.WriteString("1 16777216:1\n")
	}
	// 128 support vectors at feature 16777216 are 128 non-zeros: read
	// sparse (O(non-zeros)), not as a 8 GiB dense matrix.
	t0 := time.Now()
	m, err := ReadLIBSVMModel(strings.NewReader(wide.String()), WithModelMemoryLimit(4<<30))
	if err != nil || !m.SV.IsSparse() || m.SV.Cols != 16777216 || m.SV.NNZ() != 128 || m.SV.At(5, 16777215) != 1 {
		t.Errorf("128 support vectors at feature 16777216 under 4 GiB: %v", err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("reading the wide model took %v", d)
	}
	// Under a limit below their sparse size (float32 rows: 8 bytes a
	// non-zero and 8 a row of total_sv, 1,032 bytes up front; their
	// float64 copy: 12 a non-zero and 48 a row) they are refused at the
	// support vector that goes over: 1,032 + 68·7 > 1,500.
	_, err = ReadLIBSVMModel(strings.NewReader(wide.String()), WithModelMemoryLimit(1500))
	if !errors.Is(err, ErrModelTooLarge) || !strings.Contains(err.Error(), "support vector 7:") ||
		!strings.Contains(err.Error(), "line 13") || !strings.Contains(err.Error(), "total_sv 128") {
		t.Errorf("128 support vectors under 1500 bytes: %v", err)
	}
	// An index above int32 is refused with its line.
	_, err = ReadLIBSVMModel(strings.NewReader("svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 2147483648:1\n"))
	if err == nil || !strings.Contains(err.Error(), "line 7") || !strings.Contains(err.Error(), "2147483648") {
		t.Errorf("index 2^31: %v", err)
	}

	// 300,000 distinct labels: refused against nr_class, in linear time.
	labels := make([]string, 300_000)
	for i := range labels {
		labels[i] = fmt.Sprint(i)
	}
	for _, head := range []string{"svm_type c_svc\nnr_class 2\n", "svm_type c_svc\n"} {
		text := head + "label " + strings.Join(labels, " ") + "\n"
		t0 = time.Now()
		_, err = ReadLIBSVMModel(strings.NewReader(text))
		if err == nil || !strings.Contains(err.Error(), "label") {
			t.Errorf("300,000 labels after %q: %v", head, err)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("300,000 labels after %q took %v", head, d)
		}
	}
	// Without nr_class first, many distinct labels still parse in linear
	// time (a set, not a scan of the earlier ones) up to the class limit.
	text := "svm_type c_svc\nlabel " + strings.Join(labels[:maxClasses], " ") + " 5\n"
	if _, err := ReadLIBSVMModel(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "more than the 65536 classes") {
		t.Errorf("65,537 labels: %v", err)
	}
	text = "svm_type c_svc\nlabel " + strings.Join(labels[:1000], " ") + " 5\n"
	if _, err := ReadLIBSVMModel(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "label 5 is listed twice") {
		t.Errorf("a repeated label among 1,001: %v", err)
	}
	for _, nr := range []string{"99999999999999", "-3", "65537"} {
		_, err := ReadLIBSVMModel(strings.NewReader("svm_type c_svc\nnr_class " + nr + "\n"))
		if err == nil || !strings.Contains(err.Error(), "nr_class") || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("nr_class %s: %v", nr, err)
		}
	}
	// A declared total_sv far beyond the limit is refused at the first
	// feature, without overflow.
	_, err = ReadLIBSVMModel(strings.NewReader("svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 9000000000000000000\nrho 0\nSV\n1 3:1\n"))
	if !errors.Is(err, ErrModelTooLarge) {
		t.Errorf("total_sv 9e18: %v", err)
	}
}

// WriteLIBSVM keeps the feature count: the first support vector names the
// last feature even when it is zero, and the model reads back as wide.
func TestWriteLIBSVMKeepsWidth(t *testing.T) {
	m := &Model{Type: EpsilonSVR, Kernel: pursuit.Kernel{Kind: pursuit.Linear}, Rho: []float64{0},
		Coef: [][]float64{{1, -1}}, SV: pursuit.NewMatrix(2, 5)}
	m.SV.Set(0, 0, 1)
	m.SV.Set(1, 2, 2)
	var buf bytes.Buffer
	if err := m.WriteLIBSVM(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n1 1:1 5:0 \n-1 3:2 \n") {
		t.Errorf("support vectors written as\n%s", buf.String())
	}
	back, err := ReadLIBSVMModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.SV.Cols != 5 || back.SV.At(1, 2) != 2 || back.SV.At(0, 4) != 0 {
		t.Errorf("read back %d features: %v", back.SV.Cols, back.SV.Data)
	}
}
