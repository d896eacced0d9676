package asm

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/klauspost/cpuid/v2"
	"github.com/pursuit-ml/pursuit/backend"
)

// Option configures New.
type Option func(*options)

type options struct {
	threads int
	avx2    bool // use the AVX2 kernels (masked by the CPU's features)
	fma     bool // use FMA3 (the AVX2 kernels need it too)
	avx512  bool // use the AVX-512F GEMM micro-kernel where the CPU has it
}

// WithThreads sets how many goroutines the backend uses for one operation;
// n ≤ 0 means GOMAXPROCS.
func WithThreads(n int) Option { return func(o *options) { o.threads = n } }

// WithAVX2 enables (the default, when the CPU has it) or disables the AVX2
// assembly kernels. Disabling masks the feature: the backend then runs the
// pure-Go kernels (backend.GoKernels) in the same driver.
// Enabling cannot add a feature the CPU lacks.
func WithAVX2(enabled bool) Option { return func(o *options) { o.avx2 = enabled } }

// WithFMA enables or disables the use of FMA3. The assembly kernels all use
// FMA, so WithFMA(false) selects the pure-Go kernels like WithAVX2(false).
func WithFMA(enabled bool) Option { return func(o *options) { o.fma = enabled } }

// WithAVX512 enables (the default, when the CPU has AVX-512F and VL) or disables the
// AVX-512 kernels: the SGEMM micro-kernel and RBF transform of KernelBlock
// and KernelGather, and the 4- and 8-vector DictProducts kernels; the rest
// is AVX2 either way. It has no effect when the AVX2 kernels are off.
func WithAVX512(enabled bool) Option { return func(o *options) { o.avx512 = enabled } }

// Available reports whether this CPU and build can run the assembly backend,
// and why not when it cannot.
func Available() (ok bool, why string) {
	if !asmBuilt {
		return false, fmt.Sprintf("built without assembly (GOARCH=%s, or the purego build tag)", runtime.GOARCH)
	}
	var missing []string
	if !cpuid.CPU.Supports(cpuid.AVX2) {
		missing = append(missing, "AVX2")
	}
	if !cpuid.CPU.Supports(cpuid.FMA3) {
		missing = append(missing, "FMA3")
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("CPU %q lacks %v", cpuid.CPU.BrandName, missing)
	}
	return true, fmt.Sprintf("CPU %q has AVX2 and FMA3", cpuid.CPU.BrandName)
}

// ErrUnavailable is wrapped by New's error when the assembly cannot run.
var ErrUnavailable = errors.New("AVX2/FMA assembly backend unavailable")

// New returns the AVX2/FMA backend (Name "avx2"). It fails, wrapping
// ErrUnavailable, when Available reports false; options that disable
// features only ever take paths away (see WithAVX2).
func New(opts ...Option) (backend.Backend, error) {
	if ok, why := Available(); !ok {
		return nil, fmt.Errorf("asm.New: %w: %s", ErrUnavailable, why)
	}
	return newBackend(opts...), nil
}

// newBackend builds the backend on any build and CPU: the assembly kernels
// are used only when built in, present on the CPU and not masked by options.
// Tests use it to run the pure-Go kernels under the purego tag as well.
func newBackend(opts ...Option) *Backend {
	o := options{threads: 0, avx2: true, fma: true, avx512: true}
	for _, opt := range opts {
		opt(&o)
	}
	if o.threads <= 0 {
		o.threads = runtime.GOMAXPROCS(0)
	}
	useAsm := asmBuilt && o.avx2 && o.fma &&
		cpuid.CPU.Supports(cpuid.AVX2) && cpuid.CPU.Supports(cpuid.FMA3)
	b := &Backend{asm: useAsm}
	k := goKernels()
	if useAsm {
		// The dot kernels use ymm16–31, which need AVX512VL beside F.
		b.avx512 = o.avx512 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL)
		k = asmKernels(b.avx512)
	}
	b.CPU = backend.NewCPU("avx2", o.threads, k)
	return b
}
