package engine

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

func env(vals map[string]string) Option {
	return withEnv(func(k string) string { return vals[k] })
}

func TestNewGoExplicit(t *testing.T) {
	e, err := New(WithBackend("go"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if e.BackendName() != BackendGo {
		t.Fatalf("backend %q, want go", e.BackendName())
	}
	if !strings.Contains(e.Reason(), "WithBackend") {
		t.Errorf("reason %q does not say the option chose it", e.Reason())
	}
}

func TestEnvOverride(t *testing.T) {
	e, err := New(env(map[string]string{EnvBackend: "go"}))
	if err != nil {
		t.Fatal(err)
	}
	if e.BackendName() != BackendGo || !strings.Contains(e.Reason(), EnvBackend) {
		t.Fatalf("backend %q reason %q: want go chosen by %s", e.BackendName(), e.Reason(), EnvBackend)
	}
	// The option beats the environment.
	if _, err := New(WithBackend("go"), env(map[string]string{EnvBackend: "nonsense"})); err != nil {
		t.Fatalf("option should override a bad env value: %v", err)
	}
}

func TestUnknownAndUnavailableBackends(t *testing.T) {
	_, err := New(env(map[string]string{EnvBackend: "tpu"}))
	if err == nil || !strings.Contains(err.Error(), `"tpu"`) || !strings.Contains(err.Error(), EnvBackend) {
		t.Fatalf("unknown backend: got %v", err)
	}
	if !cudaBuilt {
		_, err = New(WithBackend("cuda"), env(nil))
		if err == nil || !strings.Contains(err.Error(), "-tags cuda") {
			t.Fatalf("cuda in a CPU build: got %v, want an error naming -tags cuda", err)
		}
	}
}

func TestAutoChoiceExplains(t *testing.T) {
	e, err := New(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.Reason(), "chose "+e.BackendName()) {
		t.Fatalf("reason %q does not name the chosen backend %q", e.Reason(), e.BackendName())
	}
	for _, a := range Backends() {
		if a.Why == "" {
			t.Errorf("backend %s: empty explanation", a.Name)
		}
		if a.Name == BackendGo && !a.Available {
			t.Errorf("the pure-Go backend must always be available")
		}
	}
}

func TestReserve(t *testing.T) {
	e, err := New(WithBackend("go"), WithMemoryBudget(1<<20), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Reserve("small", 1<<10); err != nil {
		t.Fatal(err)
	}
	err = e.Reserve("a 1000×1000 kernel matrix", 4e6)
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "1000×1000") || !strings.Contains(err.Error(), "1.0 MiB") {
		t.Fatalf("over budget: got %v", err)
	}
	a := pursuit.NewMatrix(600, 3)
	if _, err := e.KernelMatrix(pursuit.NewRBF(1), a, nil, a, nil); !errors.Is(err, ErrBudget) {
		t.Fatalf("KernelMatrix over budget: got %v", err)
	}
	if _, err := New(WithMemoryBudget(-1), env(nil)); err == nil {
		t.Fatal("negative budget accepted")
	}
	if !strings.Contains(err.Error(), "raise it with WithMemoryBudget") {
		t.Fatalf("the default message does not name WithMemoryBudget: %v", err)
	}
	// A command names its flag instead, in Reserve's and Hold's errors.
	named, err := New(WithBackend("go"), WithMemoryBudget(1<<20), WithSettingNames("--backend", "--mem-budget"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{named.Reserve("a block", 4e6), named.Hold("the data", 4e6)} {
		if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "raise it with --mem-budget") || strings.Contains(err.Error(), "WithMemoryBudget") {
			t.Fatalf("with WithSettingNames: %v", err)
		}
	}
}

// TestHold checks that held bytes (loaded data) shrink what Reserve and
// Available allow, that over-budget holds fail and charge nothing, and that
// Release gives the bytes back.
func TestHold(t *testing.T) {
	e, err := New(WithBackend("go"), WithMemoryBudget(1<<20), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Hold("training data", 768<<10); err != nil {
		t.Fatal(err)
	}
	if got := e.Available(); got != 256<<10 {
		t.Fatalf("available %d after holding 768 KiB of 1 MiB, want %d", got, 256<<10)
	}
	if err := e.Reserve("a 300 KiB block", 300<<10); !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "768.0 KiB of it held") {
		t.Fatalf("reserve over what the data leaves: got %v", err)
	}
	if err := e.Reserve("a 200 KiB block", 200<<10); err != nil {
		t.Fatalf("reserve within what the data leaves: %v", err)
	}
	if err := e.Hold("test data", 300<<10); !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "test data") {
		t.Fatalf("hold over budget: got %v", err)
	}
	if got := e.Available(); got != 256<<10 {
		t.Fatalf("a failed hold charged %d bytes", 256<<10-got)
	}
	e.Release(768 << 10)
	if got := e.Available(); got != 1<<20 || e.MemoryBudget() != 1<<20 {
		t.Fatalf("available %d, budget %d after release, want both %d", got, e.MemoryBudget(), 1<<20)
	}
	if err := e.Reserve("a 1000 KiB block", 1000<<10); err != nil {
		t.Fatal(err)
	}
}

func TestKernelMatrixMatchesEval(t *testing.T) {
	e, err := New(WithBackend("go"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	a := pursuit.NewMatrix(5, 3)
	b := pursuit.NewMatrix(4, 3)
	for i := range a.Data {
		a.Data[i] = float32(i%7) / 7
	}
	for i := range b.Data {
		b.Data[i] = float32(i%5) / 5
	}
	k := pursuit.NewRBF(0.7)
	km, err := e.KernelMatrix(k, a, nil, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < b.Rows; j++ {
			if got, want := float64(km.At(i, j)), k.Eval(a.Row(i), b.Row(j)); math.Abs(got-want) > 1e-6 {
				t.Errorf("K[%d][%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

func TestDetectCPU(t *testing.T) {
	info := DetectCPU()
	if info.GOMAXPROCS < 1 || info.LogicalCores < 0 {
		t.Fatalf("implausible CPU info %+v", info)
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{{512, "512 B"}, {1536, "1.5 KiB"}, {4 << 30, "4.0 GiB"}} {
		if got := FormatBytes(c.in); got != c.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDetectCPUUsable: the CPU report counts the CPUs this process may use
// (a 2-CPU container on a 254-core host must not report 254).
func TestDetectCPUUsable(t *testing.T) {
	c := DetectCPU()
	if c.UsableCPUs != runtime.NumCPU() || c.UsableCPUs < 1 {
		t.Fatalf("UsableCPUs = %d, runtime.NumCPU() = %d", c.UsableCPUs, runtime.NumCPU())
	}
}
