package svm

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// blobs returns n points around k centres in d dimensions, labelled by
// centre with the given labels.
func blobs(seed uint64, n, d int, labels []float64, spread float64) (pursuit.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	k := len(labels)
	centres := make([][]float64, k)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range d {
			centres[c][j] = 2 * rng.NormFloat64()
		}
	}
	x := pursuit.NewMatrix(n, d)
	y := make([]float64, n)
	for i := range n {
		c := rng.IntN(k)
		if i < k {
			c = i
		}
		y[i] = labels[c]
		for j := range d {
			x.Set(i, j, float32(centres[c][j]+spread*rng.NormFloat64()))
		}
	}
	return x, y
}

// refDecision evaluates the model's decision values in float64 with the
// scalar kernel, straight from LIBSVM's definition.
func refDecision(m *Model, x []float32) []float64 {
	kv := make([]float64, m.SV.Rows)
	for s := range kv {
		kv[s] = m.Kernel.Eval(m.SV.Row(s), x)
	}
	k := m.NumClasses()
	if len(m.Rho) == 1 {
		var f float64
		for s, c := range m.Coef[0] {
			f += c * kv[s]
		}
		return []float64{f - m.Rho[0]}
	}
	start := make([]int, k+1)
	for c := range k {
		start[c+1] = start[c] + m.NumSV[c]
	}
	var out []float64
	p := 0
	for i := range k {
		for j := i + 1; j < k; j++ {
			var f float64
			for s := start[i]; s < start[i+1]; s++ {
				f += m.Coef[j-1][s] * kv[s]
			}
			for s := start[j]; s < start[j+1]; s++ {
				f += m.Coef[i][s] * kv[s]
			}
			out = append(out, f-m.Rho[p])
			p++
		}
	}
	return out
}

func TestDecisionAndRoundTrip(t *testing.T) {
	e := testEngine(t)
	cases := []struct {
		name   string
		labels []float64
		p      Params
	}{
		{"binary rbf", []float64{-1, 1}, Params{Kernel: pursuit.NewRBF(0.3), C: 2}},
		{"3-class linear", []float64{7, 2, 5}, Params{Kernel: pursuit.NewLinear(), C: 0.5}},
		{"4-class poly", []float64{0, 1, 2, 3}, Params{Kernel: pursuit.NewPoly(0.3, 1, 2), C: 1}},
		{"3-class sigmoid", []float64{1, 2, 3}, Params{Kernel: pursuit.NewSigmoid(0.05, -0.5), C: 1}},
		{"ε-SVR rbf", nil, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 3, Epsilon: 0.1}},
	}
	for _, c := range cases {
		var x pursuit.Matrix
		var y []float64
		if c.labels == nil {
			x, _ = randData(11, 120, 4)
			y = make([]float64, 120)
			for i := range y {
				y[i] = math.Sin(float64(x.At(i, 0))) + 0.3*float64(x.At(i, 1))
			}
		} else {
			x, y = blobs(12, 150, 4, c.labels, 1.2)
		}
		m, err := Train(e, x, y, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.labels != nil && len(m.Labels) != len(c.labels) {
			t.Fatalf("%s: %d labels, want %d", c.name, len(m.Labels), len(c.labels))
		}
		if c.name == "binary rbf" && m.Labels[0] != 1 {
			t.Errorf("binary ±1 model lists %v first, want +1", m.Labels[0])
		}
		dec, err := m.Decision(e, x)
		if err != nil {
			t.Fatal(err)
		}
		nd := m.NumDecision()
		for i := range x.Rows {
			want := refDecision(m, x.Row(i))
			for q := range want {
				if math.Abs(dec[i*nd+q]-want[q]) > 1e-4*math.Max(1, math.Abs(want[q])) {
					t.Fatalf("%s: example %d decision %d: %g, float64 reference %g", c.name, i, q, dec[i*nd+q], want[q])
				}
			}
		}
		// Training accuracy is high on these separable-ish blobs.
		pred, err := m.Predict(e, x)
		if err != nil {
			t.Fatal(err)
		}
		if c.labels != nil {
			if acc := score(CSVC, pred, y); acc < 80 {
				t.Errorf("%s: training accuracy %.1f%%", c.name, acc)
			}
		}
		// Round trip through LIBSVM's text format gives the same decisions.
		var buf bytes.Buffer
		if err := m.WriteLIBSVM(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadLIBSVMModel(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", c.name, err, buf.String()[:min(400, buf.Len())])
		}
		dec2, err := back.Decision(e, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range dec {
			if math.Abs(dec[i]-dec2[i]) > 1e-9*math.Max(1, math.Abs(dec[i])) {
				t.Fatalf("%s: decision %d after round trip %g, before %g", c.name, i, dec2[i], dec[i])
			}
		}
		if back.Kernel != m.Kernel || back.Type != m.Type || back.TotalSV() != m.TotalSV() {
			t.Errorf("%s: round trip changed the model header: %+v vs %+v", c.name, back.Kernel, m.Kernel)
		}
	}
}

func TestDecisionPadsFeatures(t *testing.T) {
	e := testEngine(t)
	x, y := blobs(13, 80, 3, []float64{1, -1}, 1)
	m, err := Train(e, x, y, Params{Kernel: pursuit.NewRBF(0.5), C: 1})
	if err != nil {
		t.Fatal(err)
	}
	wide := padCols(x, 5) // extra zero features change nothing
	d1, err := m.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := m.Decision(e, wide)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d1 {
		if math.Abs(d1[i]-d2[i]) > 1e-5 {
			t.Fatalf("zero-padded input: decision %g vs %g", d2[i], d1[i])
		}
	}
}

func TestReadLIBSVMModelErrors(t *testing.T) {
	good := "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.1\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:0.5 3:1\n-1 2:0.25\n"
	m, err := ReadLIBSVMModel(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if m.SV.Cols != 3 || m.SV.At(0, 2) != 1 || m.SV.At(1, 1) != 0.25 || m.Rho[0] != 0.1 {
		t.Errorf("parsed model wrong: %+v", m)
	}
	bad := []struct{ text, want string }{
		{strings.Replace(good, "c_svc", "nu_svc", 1), "not supported"},
		{strings.Replace(good, "rbf", "precomputed", 1), "not supported"},
		{strings.Replace(good, "total_sv 2", "total_sv 3", 1), "ends after 2 of 3"},
		{strings.Replace(good, "rho 0.1", "rho x", 1), "line 6"},
		{strings.Replace(good, "1 1:0.5", "1 1-0.5", 1), "index:value"},
		{strings.Replace(good, "nr_sv 1 1", "nr_sv 1 2", 1), "sum to 3"},
		{"svm_type c_svc\n", "end of file"},
		{strings.Replace(good, "gamma 0.5", "gamma -1", 1), "gamma"},
	}
	for _, b := range bad {
		_, err := ReadLIBSVMModel(strings.NewReader(b.text))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("model %q: error %v, want one mentioning %q", b.text[:min(40, len(b.text))], err, b.want)
		}
	}
}

func TestOneVsRest(t *testing.T) {
	e := testEngine(t)
	labels := []float64{3, 1, 2}
	x, y := blobs(14, 180, 4, labels, 1.5)
	p := Params{Kernel: pursuit.NewRBF(0.25), C: 5, CacheMB: 0.05} // small cache: rows are evicted and recomputed
	ovr, err := TrainOneVsRest(e, x, y, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := ovr.Classes; len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("classes %v, want [1 2 3]", got)
	}
	sum := 0
	for c, cl := range ovr.Classes {
		// Each machine solves the same problem as a binary Train.
		yc := make([]float64, len(y))
		for i := range y {
			yc[i] = -1
			if y[i] == cl {
				yc[i] = 1
			}
		}
		m, err := Train(e, x, yc, p)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(m.Stats[0].Obj, ovr.Machines[c].Stats[0].Obj); d > 1e-4 {
			t.Errorf("class %v: shared-cache machine obj %g, separate %g", cl, ovr.Machines[c].Stats[0].Obj, m.Stats[0].Obj)
		}
		sum += ovr.Machines[c].TotalSV()
	}
	if ovr.TotalSV() != sum {
		t.Errorf("TotalSV %d, sum %d", ovr.TotalSV(), sum)
	}
	pred, err := ovr.Predict(e, x)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := ovr.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pred {
		best := 0
		for c := range 3 {
			if dec[i*3+c] > dec[i*3+best] {
				best = c
			}
		}
		if pred[i] != ovr.Classes[best] {
			t.Fatalf("example %d: predicted %v, arg-max class %v", i, pred[i], ovr.Classes[best])
		}
	}
	if acc := score(CSVC, pred, y); acc < 85 {
		t.Errorf("one-vs-rest training accuracy %.1f%%", acc)
	}
	cl, err := TrainMulticlass(e, x, y, p, OneVsOne)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cl.(*Model); !ok {
		t.Errorf("TrainMulticlass(OneVsOne) gave %T", cl)
	}
}

func TestProbability(t *testing.T) {
	e := testEngine(t)
	x, y := blobs(15, 240, 3, []float64{1, 2, 3}, 1.8)
	m, err := Train(e, x, y, Params{Kernel: pursuit.NewRBF(0.3), C: 1, Probability: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ProbA) != 3 {
		t.Fatalf("%d sigmoids for 3 classes", len(m.ProbA))
	}
	for q, a := range m.ProbA {
		if !(a < 0) {
			t.Errorf("sigmoid %d slope A = %g, want negative (probability grows with the decision value)", q, a)
		}
	}
	prob, err := m.PredictProbability(e, x)
	if err != nil {
		t.Fatal(err)
	}
	pred, _ := m.Predict(e, x)
	agree := 0
	for i := range x.Rows {
		var s float64
		best := 0
		for c := range 3 {
			v := prob[i*3+c]
			if v < 0 || v > 1 {
				t.Fatalf("probability %g outside [0, 1]", v)
			}
			s += v
			if v > prob[i*3+best] {
				best = c
			}
		}
		if math.Abs(s-1) > 1e-6 {
			t.Fatalf("example %d: probabilities sum to %g", i, s)
		}
		if m.Labels[best] == pred[i] {
			agree++
		}
	}
	if agree < x.Rows*9/10 {
		t.Errorf("most probable class agrees with the vote on %d of %d examples", agree, x.Rows)
	}
	if _, err := Train(e, x, y, Params{Type: EpsilonSVR, Kernel: pursuit.NewRBF(1), C: 1, Probability: true}); err == nil {
		t.Error("ε-SVR with probability: no error")
	}
	noProb, _ := Train(e, x, y, Params{Kernel: pursuit.NewRBF(0.3), C: 1})
	if _, err := noProb.PredictProbability(e, x); err == nil {
		t.Error("PredictProbability without probability information: no error")
	}
}

// TestLIBSVMProbabilityInterop checks that svm-predict -b 1 on our model
// gives our probabilities (they are a deterministic function of the model).
func TestLIBSVMProbabilityInterop(t *testing.T) {
	_, predictBin := libsvmTools(t)
	e := testEngine(t)
	x, y := blobs(16, 200, 3, []float64{1, 2, 3}, 1.8)
	m, err := Train(e, x, y, Params{Kernel: pursuit.NewRBF(0.3), C: 1, Probability: true, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mp, tp := filepath.Join(dir, "m"), filepath.Join(dir, "t")
	var buf bytes.Buffer
	if err := m.WriteLIBSVM(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mp, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	writeData(t, tp, x, y)
	out := filepath.Join(dir, "out")
	if b, err := exec.Command(predictBin, "-b", "1", tp, mp, out).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict -b 1: %v\n%s", err, b)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	header := strings.Fields(lines[0]) // "labels 1 2 3"
	prob, err := m.PredictProbability(e, x)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range lines[1:] {
		f := strings.Fields(line)
		for c := range 3 {
			lab, _ := strconv.ParseFloat(header[c+1], 64)
			v, _ := strconv.ParseFloat(f[c+1], 64)
			ours := prob[i*3+indexOf(m.Labels, lab)]
			if math.Abs(ours-v) > 1e-4 {
				t.Fatalf("example %d class %v: probability %g here, %g in svm-predict", i, lab, ours, v)
			}
		}
	}
}

func indexOf(v []float64, x float64) int {
	for i, u := range v {
		if u == x {
			return i
		}
	}
	return -1
}
