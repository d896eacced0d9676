package bench

import (
	"fmt"
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

// TestSKMPCovlikeStep trains stochastic KMP as `pursuit train --algo skmp
// --gamma 0.125 --active-set 228 --seed 1` does (min-max scaling, a bias)
// on the covtype-like set (covtypeLike(80000, 1): 50k training, 30k test
// points) and reports the time per step against the basis size n: back-
// fitting's step includes projecting the chosen atom on its l × n float64
// basis, so each reported step time is given over the time of one pass over
// that basis (n·l·8 bytes) at $PURSUIT_BW GB/s (measure it with
// ../shared/tools/machine-limits.sh, stream_dot_gbps; default 32).
// PURSUIT_SKMP_FIT picks the variant (backfit, the default, or basic),
// PURSUIT_SKMP_STEPS the steps (default 2400). Run alone:
//
//	PURSUIT_SKMP=1 go test ./bench -run TestSKMPCovlikeStep -v -timeout 1h
func TestSKMPCovlikeStep(t *testing.T) {
	skmpSkip(t)
	steps := 2400
	if v := os.Getenv("PURSUIT_SKMP_STEPS"); v != "" {
		var err error
		if steps, err = strconv.Atoi(v); err != nil || steps < 100 {
			t.Fatalf("PURSUIT_SKMP_STEPS = %q", v)
		}
	}
	bw := 32.0
	if v := os.Getenv("PURSUIT_BW"); v != "" {
		var err error
		if bw, err = strconv.ParseFloat(v, 64); err != nil || !(bw > 0) {
			t.Fatalf("PURSUIT_BW = %q", v)
		}
	}
	variant := kmp.BackFit
	if os.Getenv("PURSUIT_SKMP_FIT") == "basic" {
		variant = kmp.Basic
	}
	const nTrain = 50000
	x, y := covtypeLike(80000, 1)
	xtr, ytr := x.Slice(0, nTrain, 0, x.Cols), y[:nTrain]
	xte, yte := x.Slice(nTrain, x.Rows, 0, x.Cols), y[nTrain:]
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	cfg := kmp.Config{Variant: variant, Task: kmp.Classification, Kernels: []pursuit.Kernel{pursuit.NewRBF(0.125)}, Bias: true,
		Scale: data.ScaleMinMax, N: steps, Seed: 1, Stochastic: &kmp.Stochastic{ActiveSet: 228}}
	var stamps []time.Duration
	var basis []int
	cfg.Progress = func(st kmp.Step) {
		stamps = append(stamps, st.Elapsed)
		basis = append(basis, st.Basis)
	}
	m, wall, wrong := trainAndCount(t, e, xtr, ytr, xte, yte, cfg)
	var b strings.Builder
	fmt.Fprintf(&b, "%v stochastic KMP (s = 228) on covtype-like 50k × 54, backend %s, %d threads: %d steps in %v, %d basis functions, test error %.2f%% (30k points), peak RSS %.0f MB\n",
		variant, e.BackendName(), e.Threads(), len(stamps), wall.Round(time.Millisecond), m.Support.Rows, 100*float64(wrong)/float64(len(yte)), float64(peakRSS())/1e6)
	fmt.Fprintf(&b, "%6s %6s %12s %14s %8s\n", "steps", "basis", "ms/step", "pass ms @BW", "ratio")
	const win = 50
	for _, at := range []int{200, 600, 1200, 1800, 2400} {
		if at > len(stamps) || at <= win {
			continue
		}
		step := (stamps[at-1] - stamps[at-1-win]).Seconds() / win
		n := basis[at-1]
		pass := float64(n) * nTrain * 8 / (bw * 1e9)
		fmt.Fprintf(&b, "%6d %6d %12.2f %14.2f %8.2f\n", at, n, 1e3*step, 1e3*pass, step/pass)
	}
	fmt.Fprintf(&b, "ms/step: mean over the %d steps before; pass: one pass over the l × n float64 basis at %.1f GB/s; load average %s", win, bw, loadAvg())
	t.Log(b.String())
}
