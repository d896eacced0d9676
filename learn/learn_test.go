package learn_test

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// blobs returns n points of k Gaussian blobs in 2-D, labelled 1..k.
func blobs(n, k int, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 1))
	x := pursuit.NewMatrix(n, 2)
	y := make([]float64, n)
	for i := range n {
		c := i % k
		a := 2 * math.Pi * float64(c) / float64(k)
		x.Set(i, 0, float32(2*math.Cos(a)+0.5*r.NormFloat64()))
		x.Set(i, 1, float32(2*math.Sin(a)+0.5*r.NormFloat64()))
		y[i] = float64(c + 1)
	}
	return &data.Dataset{X: x, Y: y, Name: "blobs"}
}

func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestEveryLearner trains every learner of the module through the
// contract (Train for a binary task, and one-vs-rest where the learner
// classifies), round-trips every model through the registry and the model
// file, and checks that the decisions survive.
func TestEveryLearner(t *testing.T) {
	e := newEngine(t)
	rbf := pursuit.NewRBF(0.5)
	two, three := blobs(120, 2, 1), blobs(150, 3, 2)
	wave := blobs(100, 1, 3)
	for i := range wave.Y {
		wave.Y[i] = math.Sin(float64(wave.X.At(i, 0))) + 0.1*float64(wave.X.At(i, 1))
	}
	kmpCfg := kmp.Config{Variant: kmp.PreFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{rbf}, Bias: true, Seed: 1}
	kmpReg := kmpCfg
	kmpReg.Task = kmp.Regression
	svr := svm.Params{Type: svm.EpsilonSVR, Kernel: rbf, Epsilon: 0.1, C: 1, Seed: 1}
	binary := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	ovr := learn.LabelPlan{Task: learn.TaskOneVsRest, Classes: []float64{1, 2, 3}}
	ovo := learn.LabelPlan{Task: learn.TaskOneVsOne, Classes: []float64{1, 2, 3}}
	reg := learn.LabelPlan{Task: learn.TaskRegression}
	for _, c := range []struct {
		name string
		l    learn.Learner
		plan learn.LabelPlan
		ds   *data.Dataset
	}{
		{"kmp", learn.KMP{Config: kmpCfg, Basis: 10}, binary, two},
		{"kmp", learn.KMP{Config: kmpCfg, Basis: 10}, ovr, three},
		{"kmp", learn.KMP{Config: kmpReg, Basis: 10}, reg, wave},
		{"svm", learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: rbf, C: 1, Seed: 1}}, binary, two},
		{"svm", learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: rbf, C: 1, Seed: 1}}, ovr, three},
		{"svm", learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: rbf, C: 1, Seed: 1}}, ovo, three},
		{"svm", learn.SVM{Params: svr}, reg, wave},
		{"bpdn", learn.BPDN{Kernel: rbf, Params: bpdn.Params{Epsilon: 0.1}}, reg, wave},
		{"mpkfda", learn.MPKFDA{Config: greedy.KFDAConfig{Kernel: rbf, Steps: 8, Seed: 1}}, binary, two},
		{"mpkfda", learn.MPKFDA{Config: greedy.KFDAConfig{Kernel: rbf, Steps: 8, Seed: 1}}, ovr, three},
		{"slmc", learn.SLMC{Config: slmc.Config{Kernel: rbf, C: 1, NumXV: 4, Init: slmc.InitKMeans, Seed: 1}}, binary, two},
		{"slmc", learn.SLMC{Config: slmc.Config{Kernel: rbf, C: 1, NumXV: 4, Init: slmc.InitKMeans, Seed: 1}}, ovr, three},
	} {
		t.Run(c.name+"/"+c.plan.Task, func(t *testing.T) {
			ms, err := learn.Train(e, c.l, c.plan, c.ds.X, c.ds.Y, pursuit.Matrix{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := learn.Outputs(ms), c.plan.NumModels(); got != want {
				t.Fatalf("%d outputs, want %d", got, want)
			}
			for _, m := range ms {
				if m.Kind() != c.name {
					t.Errorf("kind %q, want %q", m.Kind(), c.name)
				}
				var b bytes.Buffer
				if err := m.Save(&b); err != nil {
					t.Fatal(err)
				}
				back, err := learn.Load(m.Kind(), &b, 1<<20)
				if err != nil {
					t.Fatalf("registry: %v", err)
				}
				if back.NBasis() != m.NBasis() || back.Kind() != m.Kind() {
					t.Errorf("loaded: %d basis functions of kind %s, saved %d of %s", back.NBasis(), back.Kind(), m.NBasis(), m.Kind())
				}
			}
			f := learn.NewFile(c.plan, c.ds.Dim(), rbf, ms)
			want, err := f.Decisions(e, c.ds.X)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := f.Write(&b); err != nil {
				t.Fatal(err)
			}
			back, err := learn.ParseModel(b.Bytes(), 1<<20)
			if err != nil {
				t.Fatalf("model file: %v", err)
			}
			got, err := back.Decisions(e, c.ds.X)
			if err != nil {
				t.Fatal(err)
			}
			for o := range want {
				for i := range want[o] {
					if math.Abs(got[o][i]-want[o][i]) > 1e-9*(1+math.Abs(want[o][i])) {
						t.Fatalf("output %d row %d: %v after the round trip, %v before", o, i, got[o][i], want[o][i])
					}
				}
			}
			if c.plan.Task != learn.TaskRegression {
				errRate, err := f.ErrorRate(e, c.ds.X, c.ds.Y)
				if err != nil {
					t.Fatal(err)
				}
				if errRate > 0.2 {
					t.Errorf("training error %.3f on well separated blobs", errRate)
				}
			}
		})
	}
}

// TestRegistry: an unknown kind is refused, a registered one is found.
func TestRegistry(t *testing.T) {
	if _, err := learn.Load("no-such-kind", bytes.NewReader(nil), 0); err == nil {
		t.Fatal("unknown kind accepted")
	}
	learn.Register("test-svm", func(kind string, r io.Reader, max int64) (learn.Model, error) {
		return learn.Load("svm", r, max)
	})
	found := false
	for _, k := range learn.Kinds() {
		found = found || k == "test-svm"
	}
	if !found {
		t.Fatalf("Kinds() = %v lacks the registered kind", learn.Kinds())
	}
}

// TestPairs checks the one-vs-one pair order (LIBSVM's).
func TestPairs(t *testing.T) {
	p := learn.LabelPlan{Task: learn.TaskOneVsOne, Classes: []float64{1, 2, 3, 4}}
	want := [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}
	for k, w := range want {
		if i, j := p.Pair(k); i != w[0] || j != w[1] {
			t.Errorf("pair %d: (%d, %d), want %v", k, i, j, w)
		}
	}
}
