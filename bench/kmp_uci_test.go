package bench

// UCI reproduction of Vincent & Bengio (2002), Table 3: KMP-MSE (pre-fitting)
// and KMP-tanh (back-fitting with the tanh loss; the paper refits by
// conjugate gradients, Pursuit by Newton's method to the same optimum)
// on Wisconsin breast cancer, Sonar, Pima and Ionosphere, kernel
// exp(−‖x−z‖²/σ²) with the paper's σ, 50 random train/validation/test thirds,
// the number of basis functions chosen by early stopping on the validation
// third (stop 20 steps after the best validation error; a second table with
// patience 40 shows how much the stopping rule matters on Sonar). Features are min-max scaled to [-1, 1] on the training third.
// Whether the constant function (the bias) is in the dictionary is also
// chosen on the validation third, per split: it matters (with σ = 2 on 60
// min-max-scaled features the Sonar kernel is very local, and a bias pulls
// test points far from every centre to the majority class).
//
//	PURSUIT_KMP_REPRO=1 go test ./bench -run TestKMPUCI -v -timeout 1h
//
// PURSUIT_KMP_SPLITS (default 50) sets the number of splits,
// PURSUIT_KMP_UCI (e.g. "sonar,pima") restricts the datasets.

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
)

type kmpUCISet struct {
	name            string
	sigma           float64
	mseErr, tanhErr float64 // paper's mean test error, %
	mseSV, tanhSV   int     // paper's rounded mean #SV
	svmErr          float64
	svmSV           int
}

var kmpUCISets = []kmpUCISet{
	{"wisconsin", 4, 3.40, 3.49, 7, 21, 3.41, 42},
	{"sonar", 2, 21.0, 26.6, 39, 14, 20.6, 46},
	{"pima", 6, 23.9, 24.0, 7, 27, 24.1, 146},
	{"ionosphere", 2, 6.87, 6.85, 50, 41, 6.51, 68},
}

// kmpUCIRun trains one configuration on one split and returns the test
// error rate and the number of support vectors kept. With biasOnVal it
// trains with and without the constant function in the dictionary and keeps
// the one with the lower validation error (ties: fewer support vectors).
func kmpUCIRun(t *testing.T, e *engine.Engine, d *data.Dataset, parts [][]int, cfg kmp.Config, biasOnVal bool) (float64, int) {
	tr, va, te := d.Subset(parts[0]), d.Subset(parts[1]), d.Subset(parts[2])
	cfg.ValX, cfg.ValY = va.X, va.Y
	cfg.Scale = data.ScaleMinMax
	m, err := kmp.Train(e, tr.X, tr.Y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if biasOnVal {
		c2 := cfg
		c2.Bias = !cfg.Bias
		m2, err := kmp.Train(e, tr.X, tr.Y, c2)
		if err != nil {
			t.Fatal(err)
		}
		o1, o2 := m.Outputs[0], m2.Outputs[0]
		v1, v2 := o1.Curve[o1.Steps-1].ValErr, o2.Curve[o2.Steps-1].ValErr
		if v2 < v1 || (v2 == v1 && m2.Size().SupportVectors < m.Size().SupportVectors) {
			m = m2
		}
	}
	p, err := m.Predict(e, te.X)
	if err != nil {
		t.Fatal(err)
	}
	errs := 0
	for i := range p {
		if p[i] != te.Y[i] {
			errs++
		}
	}
	return float64(errs) / float64(len(p)), m.Size().SupportVectors
}

func TestKMPUCI(t *testing.T) {
	kmpRepro(t)
	splits := 50
	if s := os.Getenv("PURSUIT_KMP_SPLITS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("PURSUIT_KMP_SPLITS=%q", s)
		}
		splits = n
	}
	only := os.Getenv("PURSUIT_KMP_UCI")
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var b strings.Builder
	// Two early-stopping protocols: stop 20 steps after the best validation
	// error (the one checked against the paper), and a longer look, 40
	// steps, which finds better Sonar models than the paper reports.
	var fails []string
	for _, patience := range []int{20, 40} {
		fmt.Fprintf(&b, "\nUCI (Table 3): mean test error over %d random thirds, early stopping (patience %d; and bias or not) on validation; min-max [-1,1] on the training third\n", splits, patience)
		fmt.Fprintf(&b, "%-11s %5s | %-22s | %-22s | %s\n", "dataset", "σ", "KMP-MSE err (#SV)", "KMP-tanh err (#SV)", "paper: MSE, tanh, SVM")
		for _, set := range kmpUCISets {
			if only != "" && !strings.Contains(only, set.name) {
				continue
			}
			d := loadShared(t, "uci", set.name+".gz")
			k := []pursuit.Kernel{pursuit.NewRBFSigma(set.sigma)}
			cfgs := []kmp.Config{
				{Variant: kmp.PreFit, Kernels: k, Bias: true, Patience: patience},
				{Loss: kmp.Tanh, Variant: kmp.BackFit, Kernels: k, Bias: true, RefitEvery: 1, N: 100, Patience: patience},
			}
			var sumErr, sumSV [2]float64
			start := time.Now()
			for s := range splits {
				parts := data.Split(d.Len(), []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, uint64(1000+s), nil)
				for c, cfg := range cfgs {
					er, sv := kmpUCIRun(t, e, d, parts, cfg, true)
					sumErr[c] += er
					sumSV[c] += float64(sv)
				}
			}
			n := float64(splits)
			mse, tanh := 100*sumErr[0]/n, 100*sumErr[1]/n
			fmt.Fprintf(&b, "%-11s %5.1f | %6.2f%% (%5.1f)        | %6.2f%% (%5.1f)        | %.2f%% (%d), %.2f%% (%d), %.2f%% (%d)   [%v]\n",
				set.name, set.sigma, mse, sumSV[0]/n, tanh, sumSV[1]/n,
				set.mseErr, set.mseSV, set.tanhErr, set.tanhSV, set.svmErr, set.svmSV, time.Since(start).Round(time.Millisecond))
			if patience != 20 {
				continue
			}
			if math.Abs(mse-set.mseErr) > 2 {
				fails = append(fails, fmt.Sprintf("%s KMP-MSE %.2f%% vs paper %.2f%%", set.name, mse, set.mseErr))
			}
			if math.Abs(tanh-set.tanhErr) > 2 {
				fails = append(fails, fmt.Sprintf("%s KMP-tanh %.2f%% vs paper %.2f%%", set.name, tanh, set.tanhErr))
			}
		}
	}
	t.Log(b.String())
	for _, f := range fails {
		t.Errorf("more than 2 points from the paper: %s", f)
	}
}
