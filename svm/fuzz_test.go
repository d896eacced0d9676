package svm

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/fuzzlimit"
)

// fuzzModelBytes keeps the fuzzer's dense support-vector matrices small (and
// exercises the reader's memory guard).
const fuzzModelBytes = fuzzlimit.Budget

// FuzzReadLIBSVMModel: the reader never panics; what it accepts passes the
// model's own check, writes back, reads back to the same model (up to the
// trailing all-zero features the text format does not keep) and gives the
// same decision values; what it refuses gets an error that names the
// format.
func FuzzReadLIBSVMModel(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzReadLIBSVMModel (written by
	// TestWriteFuzzSeeds from tiny trained models and svm-train) plus a
	// few hand-made edge cases.
	for _, s := range []string{
		"svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.1\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:0.5 3:1\n-1 2:0.25\n",
		"svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho 0 0 0\nlabel 1 2 3\nnr_sv -1 2 2\nSV\n1 1 1:1\n1 1 2:1\n1 1 3:1\n",
		"svm_type epsilon_svr\nkernel_type polynomial\ndegree 3\ngamma 1\ncoef0 1\nnr_class 2\ntotal_sv 1000000000000\nrho 0\nSV\n1 1:1\n",
		"svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nSV\n1 16777216:1\n1 16777216:1\n",
	} {
		f.Add([]byte(s))
	}
	e, err := engine.New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzlimit.Timed(t, func() {
			m, err := readLIBSVMModel(bytes.NewReader(in), fuzzModelBytes)
			if err != nil {
				if m != nil {
					t.Fatalf("error %v with a non-nil model", err)
				}
				if msg := err.Error(); len(msg) < 4 || msg[:4] != "svm:" {
					t.Fatalf("error %q does not say where it comes from", msg)
				}
				return
			}
			if err := m.check(); err != nil {
				t.Fatalf("accepted a model that fails its own check: %v", err)
			}
			// What the file declares is what was read: a coefficient row per
			// other class of SV.Rows values, k(k−1)/2 rho values, and per-class
			// counts that add up to the support vectors.
			k := m.NumClasses()
			nsv := 0
			for _, n := range m.NumSV {
				nsv += n
			}
			if len(m.Rho) != k*(k-1)/2 || m.Type == CSVC && (len(m.Coef) != k-1 || len(m.NumSV) != k || nsv != m.SV.Rows) {
				t.Fatalf("accepted %d classes with %d rho values, %d coefficient rows and counts %v for %d support vectors", k, len(m.Rho), len(m.Coef), m.NumSV, m.SV.Rows)
			}
			for c := range m.Coef {
				if len(m.Coef[c]) != m.SV.Rows {
					t.Fatalf("accepted %d coefficients in row %d for %d support vectors", len(m.Coef[c]), c, m.SV.Rows)
				}
			}
			if m.SV.Bytes() > fuzzModelBytes {
				t.Fatalf("accepted a %d×%d matrix (sparse %v) of %d bytes, over the %d-byte budget", m.SV.Rows, m.SV.Cols, m.SV.IsSparse(), m.SV.Bytes(), fuzzModelBytes)
			}
			if !m.SV.IsSparse() && data.Density(m.SV.Rows, m.SV.Cols, data.CountNonZeros(m.SV)) < data.SparseDensity {
				t.Fatalf("a %d×%d model at density %v held dense", m.SV.Rows, m.SV.Cols, data.Density(m.SV.Rows, m.SV.Cols, data.CountNonZeros(m.SV)))
			}
			var buf bytes.Buffer
			if err := m.WriteLIBSVM(&buf); err != nil {
				t.Fatalf("writing an accepted model: %v", err)
			}
			back, err := readLIBSVMModel(bytes.NewReader(buf.Bytes()), fuzzModelBytes)
			if err != nil {
				t.Fatalf("reading back a written model: %v\n%s", err, buf.Bytes())
			}
			sameLIBSVMModel(t, m, back)
			// Written again, the text is the same (a fixed point).
			var buf2 bytes.Buffer
			if err := back.WriteLIBSVM(&buf2); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
				t.Fatalf("the model written twice differs:\n%s\nvs\n%s", buf.Bytes(), buf2.Bytes())
			}
			// Same decisions (and no panic) on a few points, for models
			// whose kernel blocks fit the budget (a sparse kernel's
			// scratch is 4 bytes a feature).
			if 16*int64(m.SV.Cols) > fuzzModelBytes {
				return
			}
			x := pursuit.NewMatrix(3, max(m.SV.Cols, 1))
			for i := range x.Rows {
				for j := range x.Cols {
					x.Set(i, j, float32(math.Sin(float64(3*i+j+1))))
				}
			}
			d1, err := m.Decision(e, x)
			if err != nil {
				t.Fatalf("decision of an accepted model: %v", err)
			}
			d2, err := back.Decision(e, x)
			if err != nil {
				t.Fatalf("decision of the model read back: %v", err)
			}
			for i := range d1 {
				if !(d1[i] == d2[i] || math.IsNaN(d1[i]) && math.IsNaN(d2[i])) {
					t.Fatalf("decision %d: %v, after a write and read %v", i, d1[i], d2[i])
				}
			}
			if _, err := m.Predict(e, x); err != nil {
				t.Fatalf("predict with an accepted model: %v", err)
			}
		})
	})
}

// sameLIBSVMModel fails unless b is a (the model as its text file keeps
// it: SVs compared on their common features, the rest being zero).
func sameLIBSVMModel(t *testing.T, a, b *Model) {
	t.Helper()
	if a.Type != b.Type || a.Kernel.Kind != b.Kernel.Kind || a.SV.Rows != b.SV.Rows {
		t.Fatalf("type/kernel/SV count changed: %v %v %d vs %v %v %d", a.Type, a.Kernel, a.SV.Rows, b.Type, b.Kernel, b.SV.Rows)
	}
	if a.Kernel.Kind != pursuit.Linear && (a.Kernel.Gamma != b.Kernel.Gamma || a.Kernel.Kind != pursuit.RBF && a.Kernel.Coef0 != b.Kernel.Coef0 ||
		a.Kernel.Kind == pursuit.Polynomial && a.Kernel.Degree != b.Kernel.Degree) {
		t.Fatalf("kernel changed: %+v vs %+v", a.Kernel, b.Kernel)
	}
	if !slices.Equal(a.Rho, b.Rho) || len(a.Coef) != len(b.Coef) {
		t.Fatalf("rho or coefficient rows changed: %v vs %v", a.Rho, b.Rho)
	}
	for c := range a.Coef {
		if !slices.Equal(a.Coef[c], b.Coef[c]) {
			t.Fatalf("coefficient row %d changed: %v vs %v", c, a.Coef[c], b.Coef[c])
		}
	}
	if a.Type == CSVC && (!slices.Equal(a.Labels, b.Labels) || !slices.Equal(a.NumSV, b.NumSV) ||
		!slices.Equal(a.ProbA, b.ProbA) || !slices.Equal(a.ProbB, b.ProbB)) {
		t.Fatalf("labels, counts or Platt parameters changed: %v %v %v %v vs %v %v %v %v",
			a.Labels, a.NumSV, a.ProbA, a.ProbB, b.Labels, b.NumSV, b.ProbA, b.ProbB)
	}
	for s := range a.SV.Rows {
		ja, va := nonZeros(a.SV, s)
		jb, vb := nonZeros(b.SV, s)
		if !slices.Equal(ja, jb) || !slices.Equal(va, vb) {
			t.Fatalf("support vector %d: features %v values %v, read back %v %v", s, ja, va, jb, vb)
		}
	}
}

// nonZeros returns the columns and values of the non-zeros of row i of x,
// dense or sparse.
func nonZeros(x pursuit.Matrix, i int) ([]int32, []float32) {
	var js []int32
	var vs []float32
	if x.IsSparse() {
		ri, rv := x.SparseRow(i)
		for p, v := range rv {
			if v != 0 {
				js, vs = append(js, ri[p]), append(vs, v)
			}
		}
		return js, vs
	}
	for j, v := range x.Row(i) {
		if v != 0 {
			js, vs = append(js, int32(j)), append(vs, v)
		}
	}
	return js, vs
}

// TestWriteFuzzSeeds regenerates the committed seed corpus of
// FuzzReadLIBSVMModel from tiny trained models (and from svm-train when it
// is installed). It runs only with PURSUIT_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PURSUIT_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set PURSUIT_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzReadLIBSVMModel")
	}
	e := testEngine(t)
	dir := filepath.Join("testdata", "fuzz", "FuzzReadLIBSVMModel")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		t.Helper()
		// The corpus format of go test -fuzz: a version line and one Go
		// literal per argument.
		s := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		labels []float64
		p      Params
	}{
		{"binary-rbf", []float64{1, -1}, Params{Kernel: pursuit.NewRBF(0.5), C: 1}},
		{"three-class-poly", []float64{3, 1, 2}, Params{Kernel: pursuit.Kernel{Kind: pursuit.Polynomial, Gamma: 0.5, Coef0: 1, Degree: 2}, C: 1}},
		{"binary-sigmoid-prob", []float64{2, 7}, Params{Kernel: pursuit.Kernel{Kind: pursuit.Sigmoid, Gamma: 0.1, Coef0: -0.5}, C: 1, Probability: true}},
		{"svr-linear", nil, Params{Type: EpsilonSVR, Kernel: pursuit.NewLinear(), C: 1, Epsilon: 0.1}},
	}
	for i, c := range cases {
		labels := c.labels
		if labels == nil {
			labels = []float64{0.5, -1.5}
		}
		x, y := blobs(uint64(40+i), 24, 3, labels, 1)
		m, err := Train(e, x, y, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var buf bytes.Buffer
		if err := m.WriteLIBSVM(&buf); err != nil {
			t.Fatal(err)
		}
		write(c.name, buf.Bytes())
	}
	bin, err := exec.LookPath("svm-train")
	if err != nil {
		t.Logf("svm-train not installed: no LIBSVM-written seed")
		return
	}
	tmp := t.TempDir()
	x, y := blobs(50, 30, 4, []float64{1, 2, 3}, 1)
	var data bytes.Buffer
	for i := range x.Rows {
		fmt.Fprintf(&data, "%g", y[i])
		for j, v := range x.Row(i) {
			fmt.Fprintf(&data, " %d:%g", j+1, v)
		}
		data.WriteByte('\n')
	}
	dataPath := filepath.Join(tmp, "train.svm")
	if err := os.WriteFile(dataPath, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"svm-train-rbf-prob": {"-q", "-b", "1", "-t", "2", "-g", "0.3"},
		"svm-train-svr-poly": {"-q", "-s", "3", "-t", "1", "-d", "2", "-r", "1"},
	} {
		modelPath := filepath.Join(tmp, name+".model")
		cmd := exec.Command(bin, append(args, dataPath, modelPath)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("svm-train %v: %v\n%s", args, err, out)
		}
		b, err := os.ReadFile(modelPath)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadLIBSVMModel(bytes.NewReader(b)); err != nil {
			t.Fatalf("svm-train's %s model: %v", name, err)
		}
		write(name, b)
	}
}

// Regressions found by FuzzReadLIBSVMModel.
func TestReadLIBSVMModelFuzzRegressions(t *testing.T) {
	e := testEngine(t)
	for _, c := range []struct{ name, text, want string }{
		// Negative per-class counts summing to total_sv made Decision
		// slice out of range.
		{"negative nr_sv", "svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho 0 0 0\nlabel 1 2 3\nnr_sv -1 2 2\nSV\n1 1 1:1\n1 1 2:1\n1 1 3:1\n", "class 1 -1 support vectors"},
		// A huge total_sv was allocated before any support vector was read.
		// Now the declared total_sv is checked against the memory limit at
		// the first feature, and without features against the lines there.
		// Now the declared total_sv is checked against the memory limit
		// before the first support vector (8 bytes a row at least).
		{"huge total_sv", "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1000000000000\nrho 0\nSV\n1 1:1\n", "total_sv 1000000000000 needs at least 7.3 TiB"},
		{"huge total_sv, no features", "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1000000000000\nrho 0\nSV\n1\n", "total_sv 1000000000000 needs at least 7.3 TiB"},
		{"total_sv past the lines", "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1000\nrho 0\nSV\n1\n", "ends after 1 of 1000"},
		// probB without probA was accepted, and lost on writing.
		{"probB alone", "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\nprobB 0\nnr_sv 1 0\nSV\n1 1:1\n", "probA and probB"},
		// Duplicate class labels made an ambiguous classifier.
		{"duplicate labels", "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 1\nnr_sv 1 0\nSV\n1 1:1\n", "listed twice"},
	} {
		m, err := readLIBSVMModel(bytes.NewReader([]byte(c.text)), fuzzModelBytes)
		if err == nil {
			_, derr := m.Decision(e, pursuit.NewMatrix(1, 3))
			t.Fatalf("%s: accepted (decision error %v)", c.name, derr)
		}
		if !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: error %q, want one mentioning %q", c.name, err, c.want)
		}
	}
	// Large feature indices asked for a dense matrix far bigger than the
	// file; the support vectors are now read sparse, 8 bytes a non-zero.
	m, err := readLIBSVMModel(bytes.NewReader([]byte("svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nSV\n1 16777216:1\n1 16777216:1\n")), fuzzModelBytes)
	if err != nil || !m.SV.IsSparse() || m.SV.Cols != 16777216 || m.SV.Bytes() != 8*2+8*3 {
		t.Errorf("two support vectors at feature 16777216: %v", err)
	}
}
