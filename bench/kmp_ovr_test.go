package bench

// One-vs-rest pre-fitting KMP on USPS with all ten classes' steps in one
// dictionary pass (kmp's lock-step, engine.DictProductsSets) against ten
// separate binary runs, in one process: N = 274 kernel functions per class
// (275 steps with the constant function in the dictionary, as in
// TestKMPUSPS), RBF γ = 1/128. It prints the wall-clock and CPU-time
// (user+sys) ratios, of whole training and of the stepping alone, and
// fails unless every class chose the same atoms with the same
// coefficients both ways.
//
//	PURSUIT_KMP_OVR=1 go test ./bench -run TestKMPOneVsRestPass -v -timeout 30m

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
)

// cpuTime is the process's user+sys time so far.
func cpuTime(t testing.TB) time.Duration {
	c, ok := backendtest.CPUTime()
	if !ok {
		t.Skip("no CPU time on this system")
	}
	return c
}

func TestKMPOneVsRestPass(t *testing.T) {
	if os.Getenv("PURSUIT_KMP_OVR") == "" {
		t.Skip("set PURSUIT_KMP_OVR=1 to run (takes minutes)")
	}
	train := loadShared(t, "usps", "usps.train.gz")
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := kmp.Config{Variant: kmp.PreFit, Task: kmp.Classification,
		Kernels: []pursuit.Kernel{pursuit.NewRBF(1.0 / 128)}, N: 275, Bias: true}
	t.Logf("backend %s (%s); train %d×%d; %d steps per class", e.BackendName(), e.Reason(), train.Len(), train.Dim(), cfg.N)

	// Ten separate binary runs.
	w0, c0 := time.Now(), cpuTime(t)
	var sepSteps time.Duration
	sep := make([]*kmp.Model, 10)
	for dg := range 10 {
		if sep[dg], err = kmp.Train(e, train.X, signsOf(train.Y, float64(dg)), cfg); err != nil {
			t.Fatal(err)
		}
		c := sep[dg].Outputs[0].Curve
		sepSteps += c[len(c)-1].Elapsed
	}
	sepWall, sepCPU := time.Since(w0), cpuTime(t)-c0

	// One one-vs-rest run, the ten classes in lock-step.
	w0, c0 = time.Now(), cpuTime(t)
	ovr, err := kmp.TrainOneVsRest(e, train.X, train.Y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ovrWall, ovrCPU := time.Since(w0), cpuTime(t)-c0
	for dg, c := range ovr.Classes {
		if c != float64(dg) {
			t.Fatalf("classes %v, want the digits 0…9", ovr.Classes)
		}
	}
	var ovrSteps time.Duration // the outputs step together: the longest
	for _, o := range ovr.Outputs {
		ovrSteps = max(ovrSteps, o.Curve[len(o.Curve)-1].Elapsed)
	}

	// The same atoms and coefficients per class.
	same := true
	for dg := range 10 {
		a, b := ovr.Outputs[dg], sep[dg].Outputs[0]
		if len(a.Curve) != len(b.Curve) {
			t.Errorf("digit %d: %d steps one-vs-rest, %d alone", dg, len(a.Curve), len(b.Curve))
			same = false
			continue
		}
		for i := range a.Curve {
			if a.Curve[i].Support != b.Curve[i].Support {
				t.Errorf("digit %d step %d: support %d one-vs-rest, %d alone", dg, i+1, a.Curve[i].Support, b.Curve[i].Support)
				same = false
				break
			}
		}
		wb := map[int]float64{}
		for s, v := range b.Coef {
			wb[sep[dg].SupportIndex[s]] = v
		}
		worst := math.Abs(a.Bias-b.Bias) / math.Max(math.Abs(b.Bias), 1e-300)
		for s, v := range a.Coef {
			if v != 0 {
				r := ovr.SupportIndex[s]
				worst = math.Max(worst, math.Abs(v-wb[r])/math.Abs(wb[r]))
			}
		}
		if worst > 1e-12 {
			t.Errorf("digit %d: coefficients differ by %.2g relative", dg, worst)
			same = false
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("ten binary runs: %v wall, %v CPU, %v stepping", sepWall.Round(time.Millisecond), sepCPU.Round(time.Millisecond), sepSteps.Round(time.Millisecond))
	t.Logf("one-vs-rest:     %v wall, %v CPU, %v stepping", ovrWall.Round(time.Millisecond), ovrCPU.Round(time.Millisecond), ovrSteps.Round(time.Millisecond))
	t.Logf("ratio (ten binary / one-vs-rest): wall %.2f×, CPU %.2f×, stepping %.2f×; same atoms and coefficients: %v; load average %s",
		sepWall.Seconds()/ovrWall.Seconds(), sepCPU.Seconds()/ovrCPU.Seconds(), sepSteps.Seconds()/ovrSteps.Seconds(), same, string(load[:len(load)-1]))
}
