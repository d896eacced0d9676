//go:build mpi && cgo

package comm

/*
#cgo pkg-config: mpi
#include <mpi.h>
#include <stdlib.h>

// Wrappers: MPI_COMM_WORLD, MPI_IN_PLACE and the datatypes are macros cgo
// cannot always use directly.
static int p_init(int *provided) {
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, provided);
}
static int p_serialized(int provided) { return provided >= MPI_THREAD_SERIALIZED; }
static int p_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int p_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int p_sum(double *buf, int n) {
	return MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
typedef struct { double value; int index; } p_double_int;
static int p_maxloc(double *value, int *index) {
	p_double_int in = { *value, *index }, out;
	int rc = MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
	*value = out.value;
	*index = out.index;
	return rc;
}
static int p_bcast(void *buf, int n, int root) {
	return MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
}
static int p_allgatherv(double *send, int n, double *recv, int *counts, int *displs) {
	return MPI_Allgatherv(send, n, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
}
static int p_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static void p_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
static int p_finalize(void) { return MPI_Finalize(); }
static int p_version(char *buf, int *len) { return MPI_Get_library_version(buf, len); }
static int p_maxversion(void) { return MPI_MAX_LIBRARY_VERSION_STRING; }
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

const mpiBuilt = true

// launcherVars are environment variables that MPI launchers set in the
// processes they start: Open MPI's mpirun, PMIx (srun --mpi=pmix, prterun),
// PMI-1/2 (MPICH's Hydra, srun --mpi=pmi2).
var launcherVars = []string{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}

// world is the process's one MPI communicator: MPI can be initialised once
// per process, so World hands out the same one every time.
var world struct {
	once sync.Once
	comm Comm
	err  error
}

// World returns the communicator of the processes launched together. In a
// process started by an MPI launcher it initialises MPI (once per process)
// and returns the MPI communicator; started without one (no launcher
// variable among OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK, PMI_SIZE) it
// runs as one rank and returns Single without touching MPI.
func World() (Comm, error) {
	world.once.Do(func() {
		launched := false
		for _, v := range launcherVars {
			if _, ok := os.LookupEnv(v); ok {
				launched = true
			}
		}
		if !launched {
			world.comm = &Single{}
			return
		}
		world.comm, world.err = newMPI()
	})
	return world.comm, world.err
}

// mpiComm initialises and finalises MPI on one goroutine locked to its OS
// thread. It asks for MPI_THREAD_SERIALIZED: when MPI provides it (Open MPI
// and MPICH do), collectives are called directly from the calling goroutine
// (whatever OS thread it runs on; a Comm is used by one goroutine at a time,
// so calls never overlap); otherwise (MPI_THREAD_FUNNELED or less) every call
// is handed to the MPI thread, which costs two thread switches per call.
type mpiComm struct {
	rank, size int
	version    string
	direct     bool // MPI_THREAD_SERIALIZED provided
	calls      chan func()
	closed     bool
}

var _ Comm = (*mpiComm)(nil)

func newMPI() (*mpiComm, error) {
	c := &mpiComm{calls: make(chan func())}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		var provided C.int
		if rc := C.p_init(&provided); rc != C.MPI_SUCCESS {
			ready <- fmt.Errorf("comm: MPI_Init_thread failed with code %d", int(rc))
			return
		}
		var r, s C.int
		C.p_rank(&r)
		C.p_size(&s)
		c.rank, c.size = int(r), int(s)
		// PURSUIT_MPI_FUNNELED=1 forces the hand-over path (CI tests both).
		c.direct = C.p_serialized(provided) != 0 && os.Getenv("PURSUIT_MPI_FUNNELED") == ""
		buf := make([]byte, int(C.p_maxversion()))
		var n C.int
		C.p_version((*C.char)(unsafe.Pointer(&buf[0])), &n)
		c.version = strings.TrimSpace(strings.SplitN(string(buf[:n]), ",", 2)[0])
		ready <- nil
		for f := range c.calls {
			f()
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// do runs f on the MPI thread and waits for it.
func (c *mpiComm) do(f func() C.int) error {
	if c.closed {
		return fmt.Errorf("comm: MPI rank %d: %w", c.rank, ErrClosed)
	}
	var rc C.int
	if c.direct {
		rc = f()
	} else {
		c.hop(func() { rc = f() })
	}
	if rc != C.MPI_SUCCESS {
		// Unreachable with MPI's default handler (errors are fatal), kept
		// for handlers that return.
		return fmt.Errorf("comm: MPI call failed on rank %d with code %d", c.rank, int(rc))
	}
	return nil
}

// hop runs f on the MPI thread and waits for it.
func (c *mpiComm) hop(f func()) {
	done := make(chan struct{})
	c.calls <- func() { f(); close(done) }
	<-done
}

func (c *mpiComm) Rank() int { return c.rank }
func (c *mpiComm) Size() int { return c.size }
func (c *mpiComm) Describe() string {
	level := "serialized"
	if !c.direct {
		level = "funneled"
	}
	return fmt.Sprintf("MPI rank %d of %d (%s, thread level %s)", c.rank, c.size, c.version, level)
}

func (c *mpiComm) AllreduceSum(buf []float64) error {
	if len(buf) > math.MaxInt32 {
		return fmt.Errorf("comm: AllreduceSum of %d values exceeds MPI's 32-bit count: %w", len(buf), ErrArgument)
	}
	if len(buf) == 0 {
		return c.do(func() C.int { return C.p_sum(nil, 0) })
	}
	return c.do(func() C.int { return C.p_sum((*C.double)(unsafe.Pointer(&buf[0])), C.int(len(buf))) })
}

func (c *mpiComm) AllreduceMaxLoc(value float64, index int) (float64, int, error) {
	argErr := checkIndex(index)
	if argErr != nil {
		// Take part anyway, so the other ranks do not wait forever, with a
		// pair that never wins; then report the error here.
		value, index = math.Inf(-1), math.MaxInt32
	}
	v, i := C.double(maxLocValue(value)), C.int(index)
	if err := c.do(func() C.int { return C.p_maxloc(&v, &i) }); err != nil {
		return 0, 0, err
	}
	if argErr != nil {
		return 0, 0, argErr
	}
	return float64(v), int(i), nil
}

func (c *mpiComm) bcast(op string, p unsafe.Pointer, bytes int, root int) error {
	if err := checkRoot(op, root, c.size); err != nil {
		return err
	}
	if bytes > math.MaxInt32 {
		return fmt.Errorf("comm: %s of %d bytes exceeds MPI's 32-bit count: %w", op, bytes, ErrArgument)
	}
	return c.do(func() C.int { return C.p_bcast(p, C.int(bytes), C.int(root)) })
}

func (c *mpiComm) BcastBytes(buf []byte, root int) error {
	if len(buf) == 0 {
		return c.bcast("BcastBytes", nil, 0, root)
	}
	return c.bcast("BcastBytes", unsafe.Pointer(&buf[0]), len(buf), root)
}

func (c *mpiComm) BcastFloat32(buf []float32, root int) error {
	if len(buf) == 0 {
		return c.bcast("BcastFloat32", nil, 0, root)
	}
	return c.bcast("BcastFloat32", unsafe.Pointer(&buf[0]), 4*len(buf), root)
}

func (c *mpiComm) BcastFloat64(buf []float64, root int) error {
	if len(buf) == 0 {
		return c.bcast("BcastFloat64", nil, 0, root)
	}
	return c.bcast("BcastFloat64", unsafe.Pointer(&buf[0]), 8*len(buf), root)
}

func (c *mpiComm) Allgatherv(send []float64, counts []int, recv []float64) error {
	if err := checkGather(c.rank, send, counts, recv, c.size); err != nil {
		return err
	}
	// C arrays: cgo forbids passing Go memory that holds Go pointers, and
	// C.int differs from Go's int.
	cc := unsafe.Slice((*C.int)(C.malloc(C.size_t(2*c.size)*C.sizeof_int)), 2*c.size)
	defer C.free(unsafe.Pointer(&cc[0]))
	off := 0
	for r, n := range counts {
		cc[r], cc[c.size+r] = C.int(n), C.int(off)
		off += n
	}
	var sp, rp *C.double
	if len(send) > 0 {
		sp = (*C.double)(unsafe.Pointer(&send[0]))
	}
	if len(recv) > 0 {
		rp = (*C.double)(unsafe.Pointer(&recv[0]))
	}
	return c.do(func() C.int { return C.p_allgatherv(sp, C.int(len(send)), rp, &cc[0], &cc[c.size]) })
}

func (c *mpiComm) Barrier() error { return c.do(func() C.int { return C.p_barrier() }) }

// Abort prints err and stops every rank of the job (MPI_Abort with exit
// code 1); it does not return while MPI is running.
func (c *mpiComm) Abort(err error) {
	fmt.Fprintf(os.Stderr, "pursuit: rank %d of %d aborting the job: %v\n", c.rank, c.size, err)
	if c.closed {
		os.Exit(1)
	}
	c.calls <- func() { C.p_abort(1) }
	select {} // MPI_Abort does not return
}

// Close calls MPI_Finalize (collective: every rank must close) and ends the
// MPI thread. MPI cannot be initialised again in this process.
func (c *mpiComm) Close() error {
	if c.closed {
		return nil
	}
	// MPI_Finalize on the thread that initialised MPI.
	var rc C.int
	c.hop(func() { rc = C.p_finalize() })
	c.closed = true
	var err error
	if rc != C.MPI_SUCCESS {
		err = fmt.Errorf("comm: MPI_Finalize failed on rank %d with code %d", c.rank, int(rc))
	}
	close(c.calls)
	return err
}
