//go:build cuda

package cuda

import (
	"fmt"
	"unsafe"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit/backend"
)

// devMem is one device allocation.
type devMem struct {
	ptr   cu.DevicePtr
	bytes int64
}

// devMatrix is the Buffer implementation: a float32 matrix with leading
// dimension ld (elements), or a float64 vector (rows 1, ld = cols).
type devMatrix struct {
	owner      *Backend
	mem        devMem
	rows, cols int
	ld         int
	f64        bool
	freed      bool
	scratch    bool // a view of a scratch slot, not handed to users
}

func (m *devMatrix) Rows() int     { return m.rows }
func (m *devMatrix) Cols() int     { return m.cols }
func (m *devMatrix) Float64() bool { return m.f64 }

// Free releases the buffer's device memory.
func (m *devMatrix) Free() error {
	if m.freed || m.scratch {
		return nil
	}
	b := m.owner
	err := b.do(func() error {
		if m.freed {
			return nil
		}
		m.freed = true
		delete(b.live, m)
		if m.mem.ptr == 0 {
			return nil
		}
		err := cu.MemFree(m.mem.ptr)
		m.mem.ptr = 0
		return err
	})
	if err == errClosed {
		return nil // Close freed it
	}
	if err != nil {
		return fmt.Errorf("cuda: freeing a %d×%d buffer: %w", m.rows, m.cols, err)
	}
	return nil
}

// at returns the device address of element (i, j).
func (m *devMatrix) at(i, j int) cu.DevicePtr {
	es := 4
	if m.f64 {
		es = 8
	}
	return m.mem.ptr + cu.DevicePtr((i*m.ld+j)*es)
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
	slotSkip
	slotArgS
	slotArgI
	slotU
	slotV
)

// alloc allocates device memory (worker thread). Zero sizes get a small
// allocation so that every buffer has a valid address.
func (b *Backend) alloc(bytes int64, what string) (devMem, error) {
	if bytes < 256 {
		bytes = 256
	}
	p, err := cu.MemAlloc(bytes)
	if err != nil {
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
func hostSpan(m backend.Matrix) ([]float32, bool) {
	if m.Rows == 0 || m.Cols == 0 {
		return nil, true
	}
	n := (m.Rows-1)*m.Stride + m.Cols
	return m.Data[:n], m.Rows == 1 || m.Stride <= 2*m.Cols+16
}

// uploadTo copies the host matrix m into device memory mem, returning the
// leading dimension used (worker thread).
func (b *Backend) uploadTo(mem devMem, m backend.Matrix, allowStride bool) (int, error) {
	if m.Rows == 0 || m.Cols == 0 {
		return max(m.Cols, 1), nil
	}
	span, cheap := hostSpan(m)
	if allowStride && cheap {
		if err := cu.MemcpyHtoD(mem.ptr, unsafe.Pointer(&span[0]), int64(len(span))*4); err != nil {
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
	if err := cu.MemcpyHtoD(mem.ptr, unsafe.Pointer(&src[0]), int64(len(src))*4); err != nil {
		return 0, fmt.Errorf("cuda: copying %d floats to the device: %w", len(src), err)
	}
	return m.Cols, nil
}

// uploadBytes is the device size uploadTo needs for m.
func uploadBytes(m backend.Matrix, allowStride bool) int64 {
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
func (b *Backend) scratchMatrix(s slot, m backend.Matrix) (*devMatrix, error) {
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
	return b.scratchMatrix(s, backend.Matrix{Rows: 1, Cols: n, Stride: n, Data: v[:n]})
}

// download copies the device matrix src into the host matrix dst, which has
// its shape (worker thread). Host elements outside dst's rows are never
// written.
func (b *Backend) download(dst backend.Matrix, src *devMatrix) error {
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	if src.ld == dst.Cols && dst.Stride == dst.Cols {
		n := dst.Rows * dst.Cols
		if err := cu.MemcpyDtoH(unsafe.Pointer(&dst.Data[0]), src.mem.ptr, int64(n)*4); err != nil {
			return fmt.Errorf("cuda: copying %d floats from the device: %w", n, err)
		}
		return nil
	}
	n := (dst.Rows-1)*src.ld + dst.Cols
	b.stage = grow(b.stage, n)
	if err := cu.MemcpyDtoH(unsafe.Pointer(&b.stage[0]), src.mem.ptr, int64(n)*4); err != nil {
		return fmt.Errorf("cuda: copying %d floats from the device: %w", n, err)
	}
	for i := 0; i < dst.Rows; i++ {
		copy(dst.Row(i), b.stage[i*src.ld:i*src.ld+dst.Cols])
	}
	return nil
}

// uploadIdx copies idx (as int64) into slot slotIdx.
func (b *Backend) uploadIdx(idx []int) (cu.DevicePtr, error) {
	mem, err := b.ensure(slotIdx, int64(len(idx))*8)
	if err != nil {
		return 0, err
	}
	if len(idx) == 0 {
		return mem.ptr, nil
	}
	b.stageI = growI(b.stageI, len(idx))
	for i, v := range idx {
		b.stageI[i] = int64(v)
	}
	if err := cu.MemcpyHtoD(mem.ptr, unsafe.Pointer(&b.stageI[0]), int64(len(idx))*8); err != nil {
		return 0, fmt.Errorf("cuda: copying %d indices to the device: %w", len(idx), err)
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

// ---- Resident buffer management ------------------------------------------

// newBuffer allocates a zeroed buffer handed out to the caller.
func (b *Backend) newBuffer(rows, cols int, f64 bool, what string) (*devMatrix, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("cuda: %s: negative shape %d×%d", what, rows, cols)
	}
	es := int64(4)
	if f64 {
		es = 8
	}
	m := &devMatrix{owner: b, rows: rows, cols: cols, ld: max(cols, 1), f64: f64}
	err := b.do(func() error {
		mem, err := b.alloc(int64(rows)*int64(cols)*es, what)
		if err != nil {
			return err
		}
		if err := cu.MemsetD8(mem.ptr, 0, mem.bytes); err != nil {
			_ = cu.MemFree(mem.ptr)
			return fmt.Errorf("cuda: %s: zeroing: %w", what, err)
		}
		m.mem = mem
		b.live[m] = struct{}{}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Alloc allocates a zeroed rows×cols float32 device matrix.
func (b *Backend) Alloc(rows, cols int) (Buffer, error) {
	return b.newBuffer(rows, cols, false, fmt.Sprintf("Alloc %d×%d", rows, cols))
}

// AllocF64 allocates a zeroed float64 device vector of length n.
func (b *Backend) AllocF64(n int) (Buffer, error) {
	return b.newBuffer(1, n, true, fmt.Sprintf("AllocF64 %d", n))
}

// Upload copies m into a new device matrix.
func (b *Backend) Upload(m backend.Matrix) (Buffer, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: Upload: %w: %v", backend.ErrShape, err)
	}
	d, err := b.newBuffer(m.Rows, m.Cols, false, fmt.Sprintf("Upload %d×%d", m.Rows, m.Cols))
	if err != nil {
		return nil, err
	}
	if err := b.Write(d, m); err != nil {
		_ = d.Free()
		return nil, err
	}
	return d, nil
}

// buffer checks that x is a live buffer of this backend with the wanted
// element type; nil is allowed when optional is set (returns nil).
func (b *Backend) buffer(op, name string, x Buffer, f64, optional bool) (*devMatrix, error) {
	if x == nil {
		if optional {
			return nil, nil
		}
		return nil, fmt.Errorf("cuda: %s: %s is nil", op, name)
	}
	m, ok := x.(*devMatrix)
	if !ok || m == nil || m.owner != b {
		return nil, fmt.Errorf("cuda: %s: %s is not a buffer of this backend", op, name)
	}
	if m.freed {
		return nil, fmt.Errorf("cuda: %s: %s was freed", op, name)
	}
	if m.f64 != f64 {
		want := "float32"
		if f64 {
			want = "float64"
		}
		return nil, fmt.Errorf("cuda: %s: %s must be a %s buffer", op, name, want)
	}
	return m, nil
}

// Write copies the host matrix m into dst (same shape).
func (b *Backend) Write(dst Buffer, m backend.Matrix) error {
	d, err := b.buffer("Write", "dst", dst, false, false)
	if err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("cuda: Write: %w: %v", backend.ErrShape, err)
	}
	if m.Rows != d.rows || m.Cols != d.cols {
		return fmt.Errorf("cuda: Write: %w: host matrix is %d×%d, device buffer %d×%d",
			backend.ErrShape, m.Rows, m.Cols, d.rows, d.cols)
	}
	return b.do(func() error {
		_, err := b.uploadTo(d.mem, m, false) // packed: ld == cols
		return err
	})
}

// Read copies the device matrix src into the host matrix dst (same shape).
func (b *Backend) Read(dst backend.Matrix, src Buffer) error {
	s, err := b.buffer("Read", "src", src, false, false)
	if err != nil {
		return err
	}
	if err := dst.Validate(); err != nil {
		return fmt.Errorf("cuda: Read: %w: %v", backend.ErrShape, err)
	}
	if dst.Rows != s.rows || dst.Cols != s.cols {
		return fmt.Errorf("cuda: Read: %w: host matrix is %d×%d, device buffer %d×%d",
			backend.ErrShape, dst.Rows, dst.Cols, s.rows, s.cols)
	}
	return b.do(func() error { return b.download(dst, s) })
}

// WriteF64 copies src into the float64 vector dst.
func (b *Backend) WriteF64(dst Buffer, src []float64) error {
	d, err := b.buffer("WriteF64", "dst", dst, true, false)
	if err != nil {
		return err
	}
	if len(src) > d.cols {
		return fmt.Errorf("cuda: WriteF64: %w: %d values for a vector of %d", backend.ErrShape, len(src), d.cols)
	}
	if len(src) == 0 {
		return nil
	}
	return b.do(func() error {
		if err := cu.MemcpyHtoD(d.mem.ptr, unsafe.Pointer(&src[0]), int64(len(src))*8); err != nil {
			return fmt.Errorf("cuda: WriteF64: %w", err)
		}
		return nil
	})
}

// ReadF64 copies the first len(dst) elements of the float64 vector src.
func (b *Backend) ReadF64(dst []float64, src Buffer) error {
	s, err := b.buffer("ReadF64", "src", src, true, false)
	if err != nil {
		return err
	}
	if len(dst) > s.cols {
		return fmt.Errorf("cuda: ReadF64: %w: %d values wanted from a vector of %d", backend.ErrShape, len(dst), s.cols)
	}
	if len(dst) == 0 {
		return nil
	}
	return b.do(func() error {
		if err := cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), s.mem.ptr, int64(len(dst))*8); err != nil {
			return fmt.Errorf("cuda: ReadF64: %w", err)
		}
		return nil
	})
}
