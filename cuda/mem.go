//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// devMem is one device allocation.
type devMem struct {
	ptr   cu.DevicePtr
	bytes int64
}

// devMatrix is a float32 matrix in device memory with leading dimension ld
// (elements): a scratch view, or memory owned by a prepared operand or a
// resident block (listed in Backend.live and freed on Close).
type devMatrix struct {
	owner      *Backend
	mem        devMem
	rows, cols int
	ld         int
	freed      bool
	scratch    bool // a view of a scratch slot, not handed to users
}

// free releases the matrix's device memory (worker thread); freeing twice
// is a no-op.
func (m *devMatrix) free() error {
	if m.freed || m.scratch {
		return nil
	}
	m.freed = true
	delete(m.owner.live, m)
	if m.mem.ptr == 0 {
		return nil
	}
	err := cu.MemFree(m.mem.ptr)
	m.mem.ptr = 0
	return err
}

// at returns the device address of element (i, j).
func (m *devMatrix) at(i, j int) cu.DevicePtr {
	return m.mem.ptr + cu.DevicePtr((i*m.ld+j)*4)
}

// slot names a scratch allocation reused by the host-slice methods.
type slot uint8

const (
	slotA slot = iota
	slotB
	slotC
	slotANorms
	slotBNorms
	slotIdx
	slotPart
	slotOut64
	slotIn64
	slotU
	slotV
	// sparse operands (sparse.go): the streamed rows, the batch rows and
	// the transposed batch
	slotSOff
	slotSIdx
	slotSVal
	slotSNorms
	slotTOff
	slotTIdx
	slotTVal
	slotTNorms
	slotT
	// the batched SVM solver's subproblem (subproblem.go)
	slotSub
	// the batched SVM solver's device pool (svmpool.go): the working set's
	// slots, keys and weights, and the whole gradient
	slotSVMIdx
	slotSVMKey
	slotSVMW
	slotSVMG
)

// alloc allocates device memory (worker thread). Zero sizes get a small
// allocation so that every buffer has a valid address.
func (b *Backend) alloc(bytes int64, what string) (devMem, error) {
	if bytes < 256 {
		bytes = 256
	}
	p, err := cu.MemAlloc(bytes)
	if err != nil {
		if errors.Is(err, cu.OutOfMemory) {
			err = fmt.Errorf("%w: %w", backend.ErrDeviceMemory, err)
		}
		free, total, _ := cu.MemInfo()
		return devMem{}, fmt.Errorf("cuda: allocating %.1f MiB for %s on %s (%.1f of %.1f MiB free): %w",
			float64(bytes)/(1<<20), what, b.info.name, float64(free)/(1<<20), float64(total)/(1<<20), err)
	}
	return devMem{ptr: p, bytes: bytes}, nil
}

// ensure returns scratch slot s with at least bytes bytes, growing it by at
// least half when it must grow so that varying sizes settle quickly
// (worker thread).
func (b *Backend) ensure(s slot, bytes int64) (devMem, error) {
	m := b.scratch[s]
	if m != nil && m.bytes >= bytes {
		return *m, nil
	}
	if m != nil {
		if bytes < m.bytes+m.bytes/2 {
			bytes = m.bytes + m.bytes/2
		}
		if err := cu.MemFree(m.ptr); err != nil {
			return devMem{}, fmt.Errorf("cuda: freeing scratch: %w", err)
		}
		delete(b.scratch, s)
	}
	nm, err := b.alloc(bytes, "scratch")
	if err != nil {
		return devMem{}, err
	}
	b.scratch[s] = &nm
	return nm, nil
}

// hostSpan returns the elements of m from its first to its last element and
// whether uploading that span (leading dimension m.Stride) wastes little
// compared with packing the rows.
func hostSpan(m pursuit.Matrix) ([]float32, bool) {
	if m.Rows == 0 || m.Cols == 0 {
		return nil, true
	}
	n := (m.Rows-1)*m.Stride + m.Cols
	return m.Data[:n], m.Rows == 1 || m.Stride <= 2*m.Cols+16
}

// uploadTo copies the host matrix m into device memory mem, returning the
// leading dimension used (worker thread).
func (b *Backend) uploadTo(mem devMem, m pursuit.Matrix, allowStride bool) (int, error) {
	if m.Rows == 0 || m.Cols == 0 {
		return max(m.Cols, 1), nil
	}
	span, cheap := hostSpan(m)
	if allowStride && cheap {
		if err := b.toDevice(mem.ptr, unsafe.Pointer(&span[0]), int64(len(span))*4); err != nil {
			return 0, fmt.Errorf("cuda: copying %d floats to the device: %w", len(span), err)
		}
		ld := m.Stride
		if m.Rows == 1 {
			ld = m.Cols
		}
		return ld, nil
	}
	var src []float32
	if m.Stride == m.Cols {
		src = span
	} else {
		b.stage = grow(b.stage, m.Rows*m.Cols)
		for i := 0; i < m.Rows; i++ {
			copy(b.stage[i*m.Cols:(i+1)*m.Cols], m.Row(i))
		}
		src = b.stage[:m.Rows*m.Cols]
	}
	if err := b.toDevice(mem.ptr, unsafe.Pointer(&src[0]), int64(len(src))*4); err != nil {
		return 0, fmt.Errorf("cuda: copying %d floats to the device: %w", len(src), err)
	}
	return m.Cols, nil
}

// uploadBytes is the device size uploadTo needs for m.
func uploadBytes(m pursuit.Matrix, allowStride bool) int64 {
	if m.Rows == 0 || m.Cols == 0 {
		return 4
	}
	span, cheap := hostSpan(m)
	if allowStride && cheap {
		return int64(len(span)) * 4
	}
	return int64(m.Rows*m.Cols) * 4
}

// scratchMatrix uploads m into scratch slot s and returns a device view.
func (b *Backend) scratchMatrix(s slot, m pursuit.Matrix) (*devMatrix, error) {
	mem, err := b.ensure(s, uploadBytes(m, true))
	if err != nil {
		return nil, err
	}
	ld, err := b.uploadTo(mem, m, true)
	if err != nil {
		return nil, err
	}
	return &devMatrix{owner: b, mem: mem, rows: m.Rows, cols: m.Cols, ld: ld, scratch: true}, nil
}

// scratchOut returns a packed rows×cols scratch view in slot s.
func (b *Backend) scratchOut(s slot, rows, cols int) (*devMatrix, error) {
	mem, err := b.ensure(s, int64(rows)*int64(cols)*4)
	if err != nil {
		return nil, err
	}
	return &devMatrix{owner: b, mem: mem, rows: rows, cols: cols, ld: max(cols, 1), scratch: true}, nil
}

// scratchVec uploads a float32 vector (nil gives nil) into slot s as a 1×n view.
func (b *Backend) scratchVec(s slot, v []float32, n int) (*devMatrix, error) {
	if v == nil {
		return nil, nil
	}
	return b.scratchMatrix(s, pursuit.Matrix{Rows: 1, Cols: n, Stride: n, Data: v[:n]})
}

// download copies the device matrix src into the host matrix dst, which has
// its shape (worker thread). Host elements outside dst's rows are never
// written.
func (b *Backend) download(dst pursuit.Matrix, src *devMatrix) error {
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	if src.ld == dst.Cols && dst.Stride == dst.Cols {
		n := dst.Rows * dst.Cols
		if err := b.fromDevice(unsafe.Pointer(&dst.Data[0]), src.mem.ptr, int64(n)*4); err != nil {
			return fmt.Errorf("cuda: copying %d floats from the device: %w", n, err)
		}
		return nil
	}
	n := (dst.Rows-1)*src.ld + dst.Cols
	b.stage = grow(b.stage, n)
	if err := b.fromDevice(unsafe.Pointer(&b.stage[0]), src.mem.ptr, int64(n)*4); err != nil {
		return fmt.Errorf("cuda: copying %d floats from the device: %w", n, err)
	}
	for i := 0; i < dst.Rows; i++ {
		copy(dst.Row(i), b.stage[i*src.ld:i*src.ld+dst.Cols])
	}
	return nil
}

// uploadIdx copies idx (as int64) into slot slotIdx.
func (b *Backend) uploadIdx(idx []int) (cu.DevicePtr, error) { return b.upload64(slotIdx, idx) }

// upload64 copies v as int64 into scratch slot s (worker thread).
func (b *Backend) upload64(s slot, v []int) (cu.DevicePtr, error) {
	mem, err := b.ensure(s, int64(len(v))*8)
	if err != nil {
		return 0, err
	}
	if len(v) == 0 {
		return mem.ptr, nil
	}
	b.stageI = growI(b.stageI, len(v))
	for i, x := range v {
		b.stageI[i] = int64(x)
	}
	if err := b.toDevice(mem.ptr, unsafe.Pointer(&b.stageI[0]), int64(len(v))*8); err != nil {
		return 0, fmt.Errorf("cuda: copying %d indices to the device: %w", len(v), err)
	}
	return mem.ptr, nil
}

func grow(s []float32, n int) []float32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float32, n, n+n/4)
}

func growI(s []int64, n int) []int64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int64, n, n+n/4)
}

// toDevice copies n bytes from the host to the device, counting them
// (worker thread).
func (b *Backend) toDevice(dst cu.DevicePtr, src unsafe.Pointer, n int64) error {
	b.sentBytes.Add(n)
	return cu.MemcpyHtoD(dst, src, n)
}

// fromDevice copies n bytes from the device to the host, counting them
// (worker thread).
func (b *Backend) fromDevice(dst unsafe.Pointer, src cu.DevicePtr, n int64) error {
	b.receivedBytes.Add(n)
	return cu.MemcpyDtoH(dst, src, n)
}

// Traffic returns the bytes copied host→device and device→host since the
// backend was opened: what crossed the bus (PCIe or NVLink) for the caller's
// data, the measure the residency of prepared operands and blocks reduces.
func (b *Backend) Traffic() (toDevice, fromDevice int64) {
	return b.sentBytes.Load(), b.receivedBytes.Load()
}
