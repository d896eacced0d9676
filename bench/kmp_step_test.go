package bench

// Pre-fitting's step time against the memory-bandwidth bound of one pass
// over the dictionary, for l = M = 7291 (the USPS training set, RBF
// γ = 1/128): the bound is bytes(D) / streaming bandwidth, the bandwidth
// measured in the same run by ../shared/tools/machine-limits.sh (one core,
// C loops; needs gcc and python3-numpy) or given as PURSUIT_STREAM_GBPS.
//
//	go test ./bench -run '^$' -bench BenchmarkKMPPreFitStep -benchtime 20x
//
// Each iteration is one DictProducts pass with the four vectors a
// pre-fitting step streams (R and the newest q, each split in two float32
// halves); the whole step (pass, scores, arg-max, re-orthogonalisation,
// curve bookkeeping) is timed once from a 60-step training run. Reported:
// pass-ms, step-ms, bound-ms and the fractions bound/pass and bound/step
// (1 = at the bandwidth bound).

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/data"
	"github.com/pursuit-ml/pursuit/kmp"
)

// kmpStreamGBps returns the streaming bandwidth (GB/s, the "dot" read loop
// on one core) and where it came from.
func kmpStreamGBps(b *testing.B) (float64, string) {
	if s := os.Getenv("PURSUIT_STREAM_GBPS"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			b.Fatalf("PURSUIT_STREAM_GBPS=%q", s)
		}
		return v, "PURSUIT_STREAM_GBPS"
	}
	dir, err := data.SharedDir()
	if err != nil {
		b.Skipf("no shared folder for machine-limits.sh: %v", err)
	}
	script := filepath.Join(filepath.Dir(dir), "tools", "machine-limits.sh")
	out, err := exec.Command("bash", script).Output()
	if err != nil {
		b.Skipf("machine-limits.sh failed (needs gcc and python3-numpy): %v", err)
	}
	var lim struct {
		Dot   float64 `json:"stream_dot_gbps"`
		Triad float64 `json:"stream_triad_gbps"`
	}
	if err := json.Unmarshal(out, &lim); err != nil || lim.Dot <= 0 {
		b.Skipf("machine-limits.sh printed %q: %v", out, err)
	}
	b.Logf("machine limits: %s", out)
	return lim.Dot, "machine-limits.sh stream_dot_gbps"
}

func BenchmarkKMPPreFitStep(b *testing.B) {
	train := kmpLoad(b, "usps", "usps.train.gz")
	e, err := engine.New()
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	gbps, src := kmpStreamGBps(b)
	l := train.Len()
	k := engine.RBF(1.0 / 128)

	// A full pre-fitting run: the step time from the learning curve.
	const steps, skip = 60, 10
	m, err := kmp.Train(e, train.X, signsOf(train.Y, 8), kmp.Config{Variant: kmp.PreFit, Kernels: []backend.Kernel{k}, N: steps})
	if err != nil {
		b.Fatal(err)
	}
	c := m.Outputs[0].Curve
	step := (c[steps-1].Elapsed - c[skip-1].Elapsed) / time.Duration(steps-skip)

	// The pass alone.
	d, err := e.KernelMatrix(k, train.X, nil, train.X, nil)
	if err != nil {
		b.Fatal(err)
	}
	vecs := backend.NewMatrix(4, l)
	for i := range vecs.Data {
		vecs.Data[i] = float32(i%7) - 3
	}
	dst := make([]float64, 4*l)
	be := e.Backend()
	b.SetBytes(int64(l) * int64(l) * 4)
	b.ResetTimer()
	for range b.N {
		if err := be.DictProducts(dst, d, vecs); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	pass := b.Elapsed() / time.Duration(b.N)
	bound := float64(l) * float64(l) * 4 / (gbps * 1e9) // seconds
	b.ReportMetric(float64(pass.Microseconds())/1000, "pass-ms")
	b.ReportMetric(float64(step.Microseconds())/1000, "step-ms")
	b.ReportMetric(bound*1000, "bound-ms")
	b.ReportMetric(bound/pass.Seconds(), "bound/pass")
	b.ReportMetric(bound/step.Seconds(), "bound/step")
	b.Logf("l = M = %d, dictionary %.0f MB, backend %s, %s = %.1f GB/s: bound %.2f ms, pass %.2f ms (%.2f of the bound's speed), step %.2f ms (%.2f)",
		l, float64(l)*float64(l)*4/1e6, e.BackendName(), src, gbps, bound*1000,
		float64(pass.Microseconds())/1000, bound/pass.Seconds(), float64(step.Microseconds())/1000, bound/step.Seconds())
}

// signsOf maps labels to +1 for class pos and −1 for the others.
func signsOf(y []float64, pos float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = -1
		if v == pos {
			out[i] = 1
		}
	}
	return out
}
