//go:build cuda

package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit/backend"
)

// ptx holds the kernels of kernels/kernels.cu compiled by `go generate`.
//
//go:embed kernels/kernels.ptx
var ptx string

// minMajor is the oldest compute capability the embedded PTX (target sm_70)
// can be JIT-compiled for.
const minMajor = 7

// Option configures New.
type Option func(*options)

type options struct {
	device     int
	chunkBytes int64
}

// DefaultChunkBytes is how much of one operand a host-slice call moves to
// the device at once (see WithChunkBytes).
const DefaultChunkBytes = 1 << 30

// WithDevice selects the GPU by ordinal (default 0).
func WithDevice(ordinal int) Option { return func(o *options) { o.device = ordinal } }

// WithChunkBytes bounds the device memory a host-slice call uses per
// operand: larger operands (x in SqNorms, the rows of a and dst in
// KernelBlock, the dictionary in DictProducts, d in RankUpdate) go through the
// device in slabs of rows of about this size (at least one row). Default
// DefaultChunkBytes.
func WithChunkBytes(n int64) Option { return func(o *options) { o.chunkBytes = n } }

// Available reports whether a usable CUDA device is present and describes it
// (or says why not). In a binary built with -tags cuda, the driver is
// initialised before main runs: on a machine without a device,
// gorgonia.org/cu ends the process at start-up, so a false result here means
// a device that is present but unusable (too old, or failing).
func Available() (bool, string) {
	d, err := describe(0)
	if err != nil {
		return false, err.Error()
	}
	return true, d.String()
}

// deviceInfo is what New and Available learn about a device.
type deviceInfo struct {
	dev          cu.Device
	ordinal      int
	name         string
	major, minor int
	sms          int
	mem          int64
	driver       int
}

func (d deviceInfo) String() string {
	return fmt.Sprintf("GPU %d: %s (compute %d.%d, %d SMs, %.1f GiB), CUDA driver %d.%d",
		d.ordinal, d.name, d.major, d.minor, d.sms, float64(d.mem)/(1<<30), d.driver/1000, d.driver%1000/10)
}

func describe(ordinal int) (deviceInfo, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return deviceInfo{}, fmt.Errorf("cuda: counting devices: %w", err)
	}
	if ordinal < 0 || ordinal >= n {
		return deviceInfo{}, fmt.Errorf("cuda: device %d requested, %d present", ordinal, n)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return deviceInfo{}, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	d := deviceInfo{dev: dev, ordinal: ordinal, driver: cu.Version()}
	if d.name, err = dev.Name(); err != nil {
		return d, fmt.Errorf("cuda: device %d name: %w", ordinal, err)
	}
	if d.major, d.minor, err = dev.ComputeCapability(); err != nil {
		return d, fmt.Errorf("cuda: device %d compute capability: %w", ordinal, err)
	}
	if d.sms, err = dev.Attribute(cu.MultiprocessorCount); err != nil {
		return d, fmt.Errorf("cuda: device %d multiprocessor count: %w", ordinal, err)
	}
	if d.mem, err = dev.TotalMem(); err != nil {
		return d, fmt.Errorf("cuda: device %d memory: %w", ordinal, err)
	}
	if d.major < minMajor {
		return d, fmt.Errorf("cuda: %s has compute capability %d.%d; the embedded kernels need %d.0 or newer",
			d.name, d.major, d.minor, minMajor)
	}
	return d, nil
}

// Backend is the CUDA implementation of backend.Backend, backend.Preparer
// and backend.ResidentBlock, for dense and sparse (pursuit.CSR) operands
// (sparse.go).
// All driver calls run on one goroutine locked to an OS thread, which owns
// the CUDA context; methods may be called from any goroutine (they are
// serialised). Close releases the device memory and the context.
type Backend struct {
	info       deviceInfo
	chunkBytes int64
	// streamBytes, once an operand b of a host-slice kernel block did not
	// fit the device, is the size of the slabs of b's rows that did
	// (hostKernel); 0 before (worker thread).
	streamBytes int64

	jobs chan job
	done chan struct{}

	// Bytes copied to and from the device (Traffic).
	sentBytes, receivedBytes atomic.Int64

	mu     sync.Mutex // guards closed and the scratch state below
	closed bool

	// Owned by the worker goroutine only.
	ctx     cu.CUContext
	mod     cu.Module
	fn      functions
	scratch map[slot]*devMem
	live    map[*devMatrix]struct{} // prepared operands and resident blocks, freed on Close
	stage   []float32               // host staging for strided copies
	stageI  []int64
	stage64 []float64
	// DictProductsSets' side-by-side vectors and products.
	stageSets    []float32
	stageSetsOut []float64
	// Sparse operands (sparse.go): compacted CSR rows, gathered dense batch
	// rows and norms.
	stageOff  []int64
	stageIdx  []int32
	stageVal  []float32
	stageRows []float32
	stageNorm []float32
}

type functions struct {
	kernelBlock, sqNorms, dictPartial, dictReduce, rankUpdate  cu.Function
	vecPartial, vecCombine, blockRowF64, signMismatch          cu.Function
	csrKernel, csrSqNorms, csrDensifyT, denseDensify, fillZero cu.Function
	smoSub, svmBlock, svmUpdate                                cu.Function
}

type job struct {
	f   func() error
	err chan error
}

var (
	_ backend.Backend          = (*Backend)(nil)
	_ backend.ResidentBlock    = (*Backend)(nil)
	_ backend.SubproblemSolver = (*Backend)(nil)
	_ backend.SVMDevice        = (*Backend)(nil)
)

// errClosed is returned by every method after Close.
var errClosed = errors.New("cuda: backend is closed")

// New opens the CUDA backend on a device: it creates a context on a
// dedicated OS thread and loads the embedded kernels (the driver JIT-compiles
// the PTX for the device the first time; later runs hit its cache).
func New(opts ...Option) (*Backend, error) {
	o := options{chunkBytes: DefaultChunkBytes}
	for _, opt := range opts {
		opt(&o)
	}
	if o.chunkBytes <= 0 {
		return nil, fmt.Errorf("cuda: WithChunkBytes(%d): must be positive", o.chunkBytes)
	}
	info, err := describe(o.device)
	if err != nil {
		return nil, err
	}
	b := &Backend{
		info:       info,
		chunkBytes: o.chunkBytes,
		jobs:       make(chan job),
		done:       make(chan struct{}),
		scratch:    make(map[slot]*devMem),
		live:       make(map[*devMatrix]struct{}),
	}
	started := make(chan error, 1)
	go b.worker(started)
	if err := <-started; err != nil {
		return nil, err
	}
	return b, nil
}

// worker owns the OS thread the context is current on.
func (b *Backend) worker(started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(b.done)
	ctx, err := b.info.dev.MakeContext(cu.SchedAuto)
	if err != nil {
		started <- fmt.Errorf("cuda: creating a context on %s: %w", b.info.name, err)
		return
	}
	b.ctx = ctx
	if err := b.load(); err != nil {
		_ = b.ctx.Destroy()
		started <- err
		return
	}
	started <- nil
	for j := range b.jobs {
		j.err <- j.f()
	}
	b.release()
}

func (b *Backend) load() error {
	logBuf := make([]byte, 8192)
	mod, err := cu.LoadDataEx(ptx, &cu.JITErrorLogBuffer{Buffer: logBuf})
	if err != nil {
		msg := strings.TrimRight(string(logBuf), "\x00 \n")
		return fmt.Errorf("cuda: JIT-compiling the embedded PTX for %s (compute %d.%d): %w: %s",
			b.info.name, b.info.major, b.info.minor, err, msg)
	}
	b.mod = mod
	for _, f := range []struct {
		name string
		dst  *cu.Function
	}{
		{nameKernelBlock, &b.fn.kernelBlock},
		{nameSqNorms, &b.fn.sqNorms},
		{nameDictPartial, &b.fn.dictPartial},
		{nameDictReduce, &b.fn.dictReduce},
		{nameRankUpdate, &b.fn.rankUpdate},
		{nameVecPartial, &b.fn.vecPartial},
		{nameVecCombine, &b.fn.vecCombine},
		{nameBlockRowF64, &b.fn.blockRowF64},
		{nameSignMismatch, &b.fn.signMismatch},
		{nameCSRKernel, &b.fn.csrKernel},
		{nameCSRSqNorms, &b.fn.csrSqNorms},
		{nameCSRDensifyT, &b.fn.csrDensifyT},
		{nameDenseDensify, &b.fn.denseDensify},
		{nameFillZero, &b.fn.fillZero},
		{nameSMOSub, &b.fn.smoSub},
		{nameSVMBlock, &b.fn.svmBlock},
		{nameSVMUpdate, &b.fn.svmUpdate},
	} {
		fn, err := mod.Function(f.name)
		if err != nil {
			return fmt.Errorf("cuda: kernel %s missing from the embedded PTX: %w", f.name, err)
		}
		*f.dst = fn
	}
	return nil
}

// release frees all device memory and the context (worker thread only).
func (b *Backend) release() {
	for m := range b.live {
		if m.mem.ptr != 0 {
			_ = cu.MemFree(m.mem.ptr)
		}
		m.mem.ptr = 0
		m.freed = true
	}
	b.live = nil
	for s, m := range b.scratch {
		if m.ptr != 0 {
			_ = cu.MemFree(m.ptr)
		}
		delete(b.scratch, s)
	}
	_ = b.mod.Unload()
	_ = b.ctx.Destroy()
}

// do runs f on the worker thread and returns its error.
func (b *Backend) do(f func() error) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errClosed
	}
	j := job{f: f, err: make(chan error, 1)}
	b.jobs <- j
	b.mu.Unlock()
	return <-j.err
}

// Close frees every device buffer and destroys the context. Later calls
// return an error; Close itself is idempotent.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.jobs)
	b.mu.Unlock()
	<-b.done
	return nil
}

// Name returns "cuda".
func (b *Backend) Name() string { return "cuda" }

var _ backend.DeviceMemory = (*Backend)(nil)

// MemoryInfo returns the device's free and total memory in bytes.
func (b *Backend) MemoryInfo() (free, total int64, err error) {
	err = b.do(func() error {
		var e error
		if free, total, e = cu.MemInfo(); e != nil {
			return fmt.Errorf("cuda: memory info: %w", e)
		}
		return nil
	})
	return free, total, err
}

// Device describes the GPU the backend runs on.
func (b *Backend) Device() string { return b.info.String() }
