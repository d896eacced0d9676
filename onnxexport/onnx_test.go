package onnxexport_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/onnxrt"
	"github.com/pursuit-ml/pursuit/onnxexport"
	"github.com/pursuit-ml/pursuit/onnxexport/internal/onnxpb"
	"github.com/pursuit-ml/pursuit/svm"
)

// blobs returns n points in d dimensions around one centre per label
// (labels[i%len(labels)] for row i), with features offset and stretched so
// that scaling matters.
func blobs(n, d int, labels []float64, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 11))
	centres := make([][]float64, len(labels))
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range centres[c] {
			centres[c][j] = 3 * rng.NormFloat64()
		}
	}
	ds := &data.Dataset{X: pursuit.NewMatrix(n, d), Y: make([]float64, n), Name: "blobs"}
	for i := range n {
		c := i % len(labels)
		for j := range d {
			ds.X.Set(i, j, float32(100+10*float64(j)+(centres[c][j]+1.5*rng.NormFloat64())*float64(j+1)))
		}
		ds.Y[i] = labels[c]
	}
	return ds
}

// fitScaled trains an svm of p on ds scaled by a scaler of mode fitted to
// it, and returns the model and the scaler.
func fitScaled(t *testing.T, e *engine.Engine, ds *data.Dataset, mode data.ScaleMode, p svm.Params) (*svm.Model, *data.Scaler) {
	t.Helper()
	s, err := data.FitScaler(mode, ds.X)
	if err != nil {
		t.Fatal(err)
	}
	x := cloneMatrix(ds.X)
	if err := s.Apply(x); err != nil {
		t.Fatal(err)
	}
	m, err := svm.Train(e, x, ds.Y, p)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

func cloneMatrix(m pursuit.Matrix) pursuit.Matrix {
	c := pursuit.NewMatrix(m.Rows, m.Cols)
	for i := range m.Rows {
		copy(c.Row(i), m.Row(i))
	}
	return c
}

// TestOnnxRuntimeAgrees exports SVMs that the CLI cannot make (one-vs-one
// multi-class with integer and non-integer labels, on generated data and
// on all ten USPS digits where present) besides binary and ε-SVR ones, as
// the float64 graph and with the SVM operators, runs them with onnxruntime
// on unscaled rows, and checks its labels equal Predict's on the scaled
// rows and its scores (the k(k−1)/2 pairwise values; −d, d for two
// classes) equal DecisionValues64's to 1e-12 relative (float64 graph) or
// Decision's to 1e-5 relative, or within 1e-6·Σ|coef| where both float32
// computations' kernel rounding allows more (SVM operators).
func TestOnnxRuntimeAgrees(t *testing.T) {
	rt := onnxrt.Require(t)
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	type tc struct {
		name        string
		train, test *data.Dataset
		mode        data.ScaleMode
		p           svm.Params
	}
	cases := []tc{
		{"4 classes, int labels", blobs(240, 5, []float64{3, -1, 0, 7}, 1), blobs(200, 5, []float64{3, -1, 0, 7}, 2), data.ScaleMinMax,
			svm.Params{Kernel: pursuit.NewRBF(0.5), C: 10}},
		{"3 classes, labels 0.5 1.5 2.5", blobs(150, 4, []float64{0.5, 1.5, 2.5}, 3), blobs(90, 4, []float64{0.5, 1.5, 2.5}, 4), data.ScaleStandard,
			svm.Params{Kernel: pursuit.NewRBF(0.2), C: 1}},
		{"binary, labels 0.5 1.5", blobs(100, 3, []float64{0.5, 1.5}, 11), blobs(60, 3, []float64{0.5, 1.5}, 12), data.ScaleMinMax,
			svm.Params{Kernel: pursuit.NewRBF(0.5), C: 1}},
		{"binary, sigmoid", blobs(120, 3, []float64{1, 2}, 5), blobs(60, 3, []float64{1, 2}, 6), data.ScaleMinMax,
			svm.Params{Kernel: pursuit.Kernel{Kind: pursuit.Sigmoid, Gamma: 0.1, Coef0: -0.5}, C: 1}},
		{"5 classes, linear", blobs(200, 4, []float64{1, 2, 3, 4, 5}, 7), blobs(100, 4, []float64{1, 2, 3, 4, 5}, 8), data.ScaleMinMax,
			svm.Params{Kernel: pursuit.Kernel{Kind: pursuit.Linear}, C: 1}},
	}
	reg := blobs(150, 3, []float64{0}, 9)
	regTest := blobs(60, 3, []float64{0}, 10)
	for _, d := range []*data.Dataset{reg, regTest} {
		for i := range d.Y {
			d.Y[i] = math.Sin(float64(d.X.At(i, 0))/5) + float64(d.X.At(i, 1))/50
		}
	}
	cases = append(cases, tc{"ε-SVR", reg, regTest, data.ScaleStandard,
		svm.Params{Type: svm.EpsilonSVR, Kernel: pursuit.NewRBF(0.5), C: 10, Epsilon: 0.01}})
	if p, err := data.SharedFile("usps", "usps.train.gz"); err != nil {
		t.Logf("no USPS case: shared data not available (%v)", err)
	} else if usps, err := data.Load(p); err != nil {
		t.Fatal(err)
	} else {
		cases = append(cases, tc{"USPS 10 digits one-vs-one", usps.Subset(seq(0, 800)), usps.Subset(seq(800, 1300)), data.ScaleNone,
			svm.Params{Kernel: pursuit.NewRBF(1.0 / 128), C: 10}})
	}
	dir := t.TempDir()
	for _, g := range []struct {
		name string
		opts []onnxexport.Option
	}{{"float64 graph", nil}, {"SVM operators", []onnxexport.Option{onnxexport.SVMOperators()}}} {
		for _, c := range cases {
			checkRuntime(t, rt, e, dir, g.name, g.opts, c.name, c.train, c.test, c.mode, c.p)
		}
	}
}

// checkRuntime fits and exports one case with opts, runs onnxruntime on its
// test rows and compares. The float64 graph is held to 1e-12 relative
// (decisions below 1 in size taken relative to 1) of DecisionValues64; the
// SVM operators to 1e-5 of Decision, or 1e-6·Σ|coef| where both float32
// computations' kernel rounding allows more.
func checkRuntime(t *testing.T, rt *onnxrt.Runtime, e *engine.Engine, dir, graph string, opts []onnxexport.Option, name string, train, test *data.Dataset, mode data.ScaleMode, p svm.Params) {
	t.Helper()
	name = graph + ", " + name
	float64Graph := len(opts) == 0
	m, s := fitScaled(t, e, train, mode, p)
	path := filepath.Join(dir, "m.onnx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := onnxexport.Write(f, m, s, opts...); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	testPath := filepath.Join(dir, "test.libsvm")
	wf, err := os.Create(testPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteLibSVM(wf, test); err != nil {
		t.Fatal(err)
	}
	wf.Close()
	got, _, err := rt.Run(path, testPath)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	x := cloneMatrix(test.X)
	if err := s.Apply(x); err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(e, x)
	if err != nil {
		t.Fatal(err)
	}
	decide := m.Decision
	if float64Graph {
		decide = m.DecisionValues64
	}
	dec, err := decide(e, x)
	if err != nil {
		t.Fatal(err)
	}
	mass := 0.0
	for _, row := range m.Coef {
		for _, v := range row {
			mass += math.Abs(v)
		}
	}
	nd := m.NumDecision()
	width := nd + 1 // label, scores
	switch {
	case m.Type == svm.EpsilonSVR:
		width = 1
	case nd == 1:
		width = 3 // label, −d, d
	}
	if len(got) != x.Rows {
		t.Fatalf("%s: onnxruntime gave %d rows for %d", name, len(got), x.Rows)
	}
	worst, flips := 0.0, 0
	for i, row := range got {
		if len(row) != width {
			t.Fatalf("%s row %d: onnxruntime gave %v, want %d numbers", name, i+1, row, width)
		}
		var scores []float64
		switch {
		case m.Type == svm.EpsilonSVR:
			scores = row
		case nd == 1:
			if row[1] != -row[2] {
				t.Errorf("%s row %d: binary scores %v are not −d, d", name, i+1, row[1:])
			}
			scores = row[2:]
		default:
			scores = row[1:]
		}
		if m.Type == svm.CSVC && row[0] != pred[i] {
			flips++
			t.Errorf("%s row %d: onnxruntime label %v, Predict %v (decisions %v)", name, i+1, row[0], pred[i], dec[i*nd:(i+1)*nd])
		}
		for p, v := range scores {
			want := dec[i*nd+p]
			rel := math.Abs(v-want) / max(1, math.Abs(want))
			worst = max(worst, rel)
			if float64Graph && rel > 1e-12 || !float64Graph && rel > 1e-5 && math.Abs(v-want) > 1e-6*mass {
				t.Errorf("%s row %d decision %d: onnxruntime %v, Decision %v", name, i+1, p+1, v, want)
			}
		}
	}
	t.Logf("%s: %d rows, %d classes, %d support vectors: %d labels differ, largest relative difference %.2g (Σ|coef| %.3g)",
		name, x.Rows, m.NumClasses(), m.TotalSV(), flips, worst, mass)
}

func seq(lo, hi int) []int {
	idx := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		idx = append(idx, i)
	}
	return idx
}

// decode returns the graph Marshal wrote for m and s with the SVM
// operators.
func decode(t *testing.T, m *svm.Model, s *data.Scaler) *onnxpb.ModelProto {
	t.Helper()
	b, err := onnxexport.Marshal(m, s, onnxexport.SVMOperators())
	if err != nil {
		t.Fatal(err)
	}
	var mp onnxpb.ModelProto
	if err := proto.Unmarshal(b, &mp); err != nil {
		t.Fatal(err)
	}
	return &mp
}

func attr(n *onnxpb.NodeProto, name string) *onnxpb.AttributeProto {
	for _, a := range n.GetAttribute() {
		if a.GetName() == name {
			return a
		}
	}
	return nil
}

// smallModel is a 3-class C-SVC with 2, 1 and 2 support vectors in two
// features.
func smallModel() *svm.Model {
	sv := pursuit.NewMatrix(5, 2)
	for i := range sv.Data {
		sv.Data[i] = float32(i) / 4
	}
	return &svm.Model{
		Type: svm.CSVC, Kernel: pursuit.NewRBF(0.5), Labels: []float64{4, -2, 9}, NumSV: []int{2, 1, 2}, SV: sv,
		Coef: [][]float64{{1, 0.5, -1, 0.25, -0.75}, {0.5, -0.5, 1, -1, 0.125}},
		Rho:  []float64{0.1, -0.2, 0.3},
	}
}

// TestMarshalLayout decodes what Marshal writes and checks it against the
// model: LIBSVM's coefficient rows in order, ρ negated (ONNX adds rho),
// per-class counts, labels, kernel parameters, and a Scaler node only when
// the scaler scales.
func TestMarshalLayout(t *testing.T) {
	m := smallModel()
	s := &data.Scaler{Mode: data.ScaleMinMax, Offset: []float64{1, -2}, Scale: []float64{0.5, 0.25}}
	mp := decode(t, m, s)
	nodes := mp.GetGraph().GetNode()
	if len(nodes) != 2 || nodes[0].GetOpType() != "Scaler" || nodes[1].GetOpType() != "SVMClassifier" {
		t.Fatalf("nodes %v, want Scaler then SVMClassifier", nodes)
	}
	if got := attr(nodes[0], "offset").GetFloats(); !slices.Equal(got, []float32{1, -2}) {
		t.Errorf("scaler offset %v", got)
	}
	svmNode := nodes[1]
	var coef []float32
	for _, row := range m.Coef {
		for _, v := range row {
			coef = append(coef, float32(v))
		}
	}
	if got := attr(svmNode, "coefficients").GetFloats(); !slices.Equal(got, coef) {
		t.Errorf("coefficients %v, want %v", got, coef)
	}
	for i, r := range attr(svmNode, "rho").GetFloats() {
		if r != float32(-m.Rho[i]) {
			t.Errorf("rho[%d] = %v, want −ρ = %v", i, r, -m.Rho[i])
		}
	}
	if got := attr(svmNode, "vectors_per_class").GetInts(); !slices.Equal(got, []int64{2, 1, 2}) {
		t.Errorf("vectors_per_class %v", got)
	}
	if got := attr(svmNode, "classlabels_ints").GetInts(); !slices.Equal(got, []int64{4, -2, 9}) {
		t.Errorf("classlabels_ints %v", got)
	}
	if got := attr(svmNode, "kernel_params").GetFloats(); !slices.Equal(got, []float32{0.5, 0, 0}) {
		t.Errorf("kernel_params %v, want [γ 0 0]", got)
	}
	if got := attr(svmNode, "support_vectors").GetFloats(); !slices.Equal(got, m.SV.Data) {
		t.Errorf("support_vectors %v, want %v", got, m.SV.Data)
	}
	if got := mp.GetGraph().GetOutput()[1].GetType().GetTensorType().GetShape().GetDim()[1].GetDimValue(); got != 3 {
		t.Errorf("scores have %d columns, want 3 (pairs of 3 classes)", got)
	}

	// No Scaler node for scaling "none"; string labels for fractional ones.
	m.Labels = []float64{0.5, 1, 2}
	mp = decode(t, m, &data.Scaler{Mode: data.ScaleNone, Offset: []float64{0, 0}, Scale: []float64{1, 1}})
	nodes = mp.GetGraph().GetNode()
	if len(nodes) != 1 || nodes[0].GetInput()[0] != onnxexport.Input {
		t.Fatalf("nodes %v, want one SVMClassifier on the input", nodes)
	}
	var names []string
	for _, b := range attr(nodes[0], "classlabels_strings").GetStrings() {
		names = append(names, string(b))
	}
	if !slices.Equal(names, []string{"0.5", "1", "2"}) {
		t.Errorf("classlabels_strings %q", names)
	}
}

// TestMarshalRefuses checks the errors: no model, a shape Check refuses,
// a kernel ONNX lacks, a scaler of another width.
func TestMarshalRefuses(t *testing.T) {
	if _, err := onnxexport.Marshal(nil, nil); err == nil {
		t.Error("a nil model was accepted")
	}
	m := smallModel()
	m.Rho = m.Rho[:1]
	if _, err := onnxexport.Marshal(m, nil); err == nil {
		t.Error("a model with too few offsets was accepted")
	}
	m = smallModel()
	m.Kernel = pursuit.Kernel{Kind: pursuit.KernelKind(99), Gamma: 1}
	if _, err := onnxexport.Marshal(m, nil); err == nil {
		t.Error("an unknown kernel was accepted")
	}
	m = smallModel()
	m.Type = svm.Type(7)
	if _, err := onnxexport.Marshal(m, nil); !errors.Is(err, onnxexport.ErrNotExpressible) {
		t.Errorf("an unknown SVM type: %v, want ErrNotExpressible", err)
	}
	s := &data.Scaler{Mode: data.ScaleMinMax, Offset: []float64{0, 0, 0}, Scale: []float64{1, 1, 1}}
	if _, err := onnxexport.Marshal(smallModel(), s); err == nil {
		t.Error("a 3-feature scaler on 2-feature support vectors was accepted")
	}
}
