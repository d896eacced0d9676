package engine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/cpuid/v2"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// EnvBackend is the environment variable that forces a backend (go, avx2,
// cuda) when no WithBackend option is given.
const EnvBackend = "PURSUIT_BACKEND"

// DefaultMemoryBudget is the memory budget for large allocations (kernel
// matrices, dictionaries, caches) when none is given: 4 GiB.
const DefaultMemoryBudget int64 = 4 << 30

// Backend names.
const (
	BackendGo   = "go"
	BackendAVX2 = "avx2"
	// BackendAVX2Only is the assembly backend with its AVX-512 kernels
	// off, even on a CPU that has AVX-512 (asm.WithAVX512(false)); its
	// Name is "avx2" too.
	BackendAVX2Only = "avx2-only"
	BackendCUDA     = "cuda"
)

type options struct {
	backend string
	threads int
	budget  int64
	env     func(string) string
	comm    comm.Comm
	// How messages name WithBackend and WithMemoryBudget.
	backendName, budgetName string
}

// Option configures New.
type Option func(*options)

// WithBackend names the backend to use (go, avx2, avx2-only, cuda, or auto for the
// automatic choice). It overrides PURSUIT_BACKEND.
func WithBackend(name string) Option { return func(o *options) { o.backend = name } }

// WithThreads sets the number of CPU threads the CPU backends use
// (≤ 0 means GOMAXPROCS).
func WithThreads(n int) Option { return func(o *options) { o.threads = n } }

// WithMemoryBudget sets the budget in bytes for large allocations; see
// Engine.Reserve.
func WithMemoryBudget(bytes int64) Option { return func(o *options) { o.budget = bytes } }

// WithComm sets the communicator of a run across processes (package
// engine/comm); without it the engine is a single process (comm.Single).
func WithComm(c comm.Comm) Option { return func(o *options) { o.comm = c } }

// WithSettingNames sets how the engine's messages name the WithBackend and
// WithMemoryBudget options, for a caller whose users set them otherwise
// (a command's flags: "--backend", "--mem-budget").
func WithSettingNames(backend, budget string) Option {
	return func(o *options) { o.backendName, o.budgetName = backend, budget }
}

// withEnv replaces os.Getenv, for tests.
func withEnv(getenv func(string) string) Option { return func(o *options) { o.env = getenv } }

// Engine runs the hot operations of the algorithms on the chosen backend.
// An Engine may be shared by goroutines only if its backend allows it; the
// CPU backends parallelise each call internally, so one caller at a time is
// the intended use.
type Engine struct {
	be      backend.Backend
	scan    hostScanner // be's SMO scans and ScoredArgMax, or the host CPU's (hostScans)
	reason  string
	threads int
	slots   chan struct{} // Threads()−1 worker slots (see For and Borrow)
	budget  int64
	held    atomic.Int64 // bytes charged by Hold and not yet released
	// sparseCPU runs kernel operations with sparse operands: be, or the
	// host CPU driver when be rejects them (sparse.go); set once.
	sparseOnce sync.Once
	sparseCPU  backend.Backend
	comm       comm.Comm
	// raiseBudget is how budget errors tell the user to raise the budget
	// (WithSettingNames).
	raiseBudget string
}

// New creates an engine, choosing the backend: the one named by WithBackend,
// else by PURSUIT_BACKEND, else the fastest available (cuda, avx2, go in that
// order). Naming a backend that cannot run here is an error saying why.
func New(opts ...Option) (*Engine, error) {
	o := options{budget: DefaultMemoryBudget, env: os.Getenv, backendName: "the WithBackend option", budgetName: "WithMemoryBudget"}
	for _, opt := range opts {
		opt(&o)
	}
	if o.threads <= 0 {
		o.threads = runtime.GOMAXPROCS(0)
	}
	if o.budget <= 0 {
		return nil, fmt.Errorf("engine: memory budget must be positive, got %d bytes", o.budget)
	}
	name, source := o.backend, o.backendName
	if name == "" {
		name, source = strings.TrimSpace(o.env(EnvBackend)), EnvBackend
	}
	name = strings.ToLower(name)
	if o.comm == nil {
		o.comm = &comm.Single{}
	}
	e := &Engine{threads: o.threads, slots: make(chan struct{}, o.threads-1), budget: o.budget, comm: o.comm, raiseBudget: o.budgetName}
	switch name {
	case "", "auto":
		be, reason := autoChoose(o.threads)
		e.be, e.scan, e.reason = be, hostScans(be), reason
		return e, nil
	case BackendGo, BackendAVX2, BackendAVX2Only, BackendCUDA:
		be, why, err := open(name, o.threads)
		if err != nil {
			return nil, fmt.Errorf("engine: backend %q requested by %s is not available: %w", name, source, err)
		}
		e.be, e.scan, e.reason = be, hostScans(be), fmt.Sprintf("requested by %s (%s)", source, why)
		return e, nil
	default:
		return nil, fmt.Errorf("engine: unknown backend %q from %s (want go, avx2, avx2-only, cuda or auto)", name, source)
	}
}

// open opens one named backend.
func open(name string, threads int) (backend.Backend, string, error) {
	switch name {
	case BackendGo:
		return backend.NewGo(threads), fmt.Sprintf("portable pure-Go backend, %d threads", threads), nil
	case BackendAVX2:
		return newAVX2(threads, true)
	case BackendAVX2Only:
		return newAVX2(threads, false)
	case BackendCUDA:
		return newCUDA(threads)
	}
	return nil, "", fmt.Errorf("unknown backend %q", name)
}

// hostScanner is the scans over host slices the engine runs on the host
// CPU whatever computes the kernels: the SMO scans and ScoredArgMax.
type hostScanner interface {
	backend.SMOScanner
	ScoredArgMax(s, n []float64, skip []bool) (int, float64)
}

// hostScans returns be's scans (backend.SMOScanner and its ScoredArgMax),
// or, for a backend without SMO scans (a device), the fastest CPU driver's:
// an SMO solver's state and a matching-pursuit search's scores are in host
// memory whatever computes the kernel rows and products, and every
// implementation gives the references' results bit for bit. (With CUDA's
// kernel rows and the references' scalar loops, the 15k covtype-like
// problem took 1.20 s on an H100 machine, where the CPU backend alone is
// faster.)
func hostScans(be backend.Backend) hostScanner {
	if sc, ok := be.(hostScanner); ok {
		return sc
	}
	if cpu, _, err := newAVX2(1, true); err == nil {
		if sc, ok := cpu.(hostScanner); ok {
			return sc
		}
	}
	return backend.NewGo(1).(hostScanner)
}

// autoChoose picks the fastest backend that opens, recording why the faster
// ones were passed over.
func autoChoose(threads int) (backend.Backend, string) {
	var skipped []string
	for _, name := range []string{BackendCUDA, BackendAVX2} {
		be, why, err := open(name, threads)
		if err == nil {
			return be, strings.Join(append(skipped, "chose "+name+": "+why), "; ")
		}
		skipped = append(skipped, fmt.Sprintf("not %s: %v", name, err))
	}
	be, why, _ := open(BackendGo, threads)
	return be, strings.Join(append(skipped, "chose go: "+why), "; ")
}

// Backend returns the backend the engine runs on.
func (e *Engine) Backend() backend.Backend { return e.be }

// BackendName returns the chosen backend's name (go, avx2, cuda).
func (e *Engine) BackendName() string { return e.be.Name() }

// Reason says why this backend was chosen, and why faster ones were not.
func (e *Engine) Reason() string { return e.reason }

// Comm returns the communicator the engine trains across processes with
// (comm.Single unless WithComm gave another).
func (e *Engine) Comm() comm.Comm { return e.comm }

// RequireOneRank returns nil when the engine's communicator has one rank,
// and otherwise an error wrapping comm.ErrNotDistributed that names method:
// training functions that do not split their rows across ranks call it
// first, so that a multi-rank run never trains each rank on its own shard
// alone and returns a silently wrong model.
func (e *Engine) RequireOneRank(method string) error {
	if e == nil || e.comm == nil {
		return nil // the caller reports the nil engine
	}
	if n := e.comm.Size(); n > 1 {
		return fmt.Errorf("%s: %w (the run has %d ranks)", method, comm.ErrNotDistributed, n)
	}
	return nil
}

// Threads returns the number of CPU threads the CPU backends use.
func (e *Engine) Threads() int {
	if e == nil {
		return 1
	}
	return e.threads
}

// MemoryBudget returns the whole memory budget in bytes.
func (e *Engine) MemoryBudget() int64 { return e.budget }

// Available returns the part of the budget that Hold has not charged: what
// one large allocation may use.
func (e *Engine) Available() int64 { return e.budget - e.held.Load() }

// ErrBudget is wrapped by the errors Reserve and Hold return.
var ErrBudget = errors.New("memory budget exceeded")

// Reserve checks that an allocation of the given size fits what is
// available of the engine's memory budget, returning an error that names
// what was being allocated, its size and the budget, so callers fail with a
// message instead of an out-of-memory kill. It suggests raising the budget
// only: a caller that has a cheaper mode names it itself.
func (e *Engine) Reserve(what string, bytes int64) error {
	if avail := e.Available(); bytes < 0 || bytes > avail {
		return fmt.Errorf("%s needs %s but the memory budget is %s%s (raise it with %s): %w",
			what, FormatBytes(bytes), FormatBytes(e.budget), e.heldNote(avail), e.raiseBudget, ErrBudget)
	}
	return nil
}

func (e *Engine) heldNote(avail int64) string {
	if avail == e.budget {
		return ""
	}
	return fmt.Sprintf(", %s of it held by the data", FormatBytes(e.budget-avail))
}

// Hold charges bytes that stay allocated while the engine works (a loaded
// data set and its working copies) to the budget, so that Reserve and
// Available see only what is left; it fails with ErrBudget, charging
// nothing, when they do not fit. Release gives them back.
func (e *Engine) Hold(what string, bytes int64) error {
	for {
		held := e.held.Load()
		if bytes < 0 || bytes > e.budget-held {
			return fmt.Errorf("%s needs %s but the memory budget is %s%s (raise it with %s): %w",
				what, FormatBytes(bytes), FormatBytes(e.budget), e.heldNote(e.budget-held), e.raiseBudget, ErrBudget)
		}
		if e.held.CompareAndSwap(held, held+bytes) {
			return nil
		}
	}
}

// Release returns bytes charged by Hold to the budget.
func (e *Engine) Release(bytes int64) { e.held.Add(-bytes) }

// FormatBytes formats a byte count with a binary unit.
func FormatBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTP"[exp])
}

// Close releases the backend's resources (device memory for CUDA).
func (e *Engine) Close() error {
	if c, ok := e.be.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// SqNorms returns the squared row norms of x.
func (e *Engine) SqNorms(x pursuit.Matrix) ([]float32, error) {
	out := make([]float32, x.Rows)
	if err := e.sparseBackend(x).SqNorms(out, x); err != nil {
		return nil, err
	}
	return out, nil
}

// KernelMatrix allocates and fills K(a, b) (a.Rows×b.Rows) within the memory
// budget. aNorms and bNorms may be nil.
func (e *Engine) KernelMatrix(k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b pursuit.Matrix, bNorms []float32) (pursuit.Matrix, error) {
	if err := e.Reserve(fmt.Sprintf("a %d×%d kernel matrix", a.Rows, b.Rows), int64(a.Rows)*int64(b.Rows)*4); err != nil {
		return pursuit.Matrix{}, err
	}
	dst := pursuit.NewMatrix(a.Rows, b.Rows)
	if err := e.KernelBlock(dst, k, a, aNorms, b, bNorms); err != nil {
		return pursuit.Matrix{}, err
	}
	return dst, nil
}

// CPUInfo describes the processor as cpuid sees it.
type CPUInfo struct {
	Brand          string   `json:"brand"`
	PhysicalCores  int      `json:"physical_cores"` // of the whole package, as cpuid reports it
	LogicalCores   int      `json:"logical_cores"`  // of the whole package, as cpuid reports it
	UsableCPUs     int      `json:"usable_cpus"`    // CPUs this process may run on (affinity mask, runtime.NumCPU)
	GOMAXPROCS     int      `json:"gomaxprocs"`
	Features       []string `json:"features"`
	L1D, L2, L3    int      `json:"-"`
	CacheSizesText string   `json:"caches"`
}

// DetectCPU reports the CPU's brand, core counts and the SIMD features that
// matter to Pursuit.
func DetectCPU() CPUInfo {
	c := cpuid.CPU
	info := CPUInfo{
		Brand: c.BrandName, PhysicalCores: c.PhysicalCores, LogicalCores: c.LogicalCores,
		UsableCPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		L1D: c.Cache.L1D, L2: c.Cache.L2, L3: c.Cache.L3,
	}
	for _, f := range []struct {
		id   cpuid.FeatureID
		name string
	}{{cpuid.SSE4, "SSE4.1"}, {cpuid.AVX, "AVX"}, {cpuid.AVX2, "AVX2"}, {cpuid.FMA3, "FMA"}, {cpuid.AVX512F, "AVX512F"}, {cpuid.ASIMD, "NEON"}} {
		if c.Supports(f.id) {
			info.Features = append(info.Features, f.name)
		}
	}
	info.CacheSizesText = fmt.Sprintf("L1d %s, L2 %s, L3 %s", cacheSize(c.Cache.L1D), cacheSize(c.Cache.L2), cacheSize(c.Cache.L3))
	return info
}

func cacheSize(b int) string {
	if b <= 0 {
		return "unknown"
	}
	return FormatBytes(int64(b))
}

// Availability says whether one backend can run here, and why (not).
type Availability struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Why       string `json:"why"`
}

// Backends lists every backend with whether it can run in this process.
func Backends() []Availability {
	var out []Availability
	for _, name := range []string{BackendCUDA, BackendAVX2, BackendAVX2Only, BackendGo} {
		be, why, err := open(name, runtime.GOMAXPROCS(0))
		a := Availability{Name: name, Available: err == nil, Why: why}
		if err != nil {
			a.Why = err.Error()
		} else if c, ok := be.(interface{ Close() error }); ok {
			_ = c.Close()
		}
		out = append(out, a)
	}
	return out
}
