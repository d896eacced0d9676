//go:build cuda

package cuda

import (
	"fmt"
	"unsafe"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit"
)

// Sparse operands (pursuit.CSR rows) on the device.
//
// A kernel block or gather with a sparse operand streams one operand's CSR
// rows against the other's rows densified in batches, as the CPU backends
// do (package backend's sparse path) and with the same roles: a sparse b
// is streamed against batches of rows of a (dense or sparse); a dense b is
// the batch side against streamed sparse rows of a. The roles depend on the
// storage of the operands only. A batch of up to G rows (a multiple of 32
// whose transposed block fits the WithChunkBytes budget) is densified
// transposed on the device (csr_densify_t into a zeroed block, or
// dense_densify_t), and csr_kernel computes every streamed row's values
// with the batch, one warp per streamed row, each lane one batch row,
// summing the streamed row's products in the order of its non-zeros and
// applying the kernel transform. A value's bits thus depend on its two rows
// only, never on the batch, the grid or which call computes it: the
// prepared forms give the plain ones' values, and a kernel row has the same
// bits in every gather (backend.Preparer). Squared norms of sparse rows
// come from csr_sq_norms, the same arithmetic for a row in every call.
//
// Prepare uploads a sparse matrix's offsets (rebased to 0, int64), column
// indices and values, and keeps them resident; a gather of its own rows
// (the SMO and stochastic-KMP pattern K(X[idx], X)) then ships only idx.
// Host operands go up per call: the streamed operand in slabs of rows of at
// most WithChunkBytes bytes, the batch side per batch (only the rows
// gathered, compacted on the host).

// spRows is one operand of a sparse kernel operation: rows sel[r] (r when
// sel is nil) of the host matrix m, which is resident as p when p is not
// nil (p.M == m).
type spRows struct {
	m     pursuit.Matrix
	sel   []int
	norms []float32 // the caller's squared norms of m's rows, or nil
	p     *cudaPrepared
}

func (s spRows) n() int {
	if s.sel != nil {
		return len(s.sel)
	}
	return s.m.Rows
}

func (s spRows) row(r int) int {
	if s.sel != nil {
		return s.sel[r]
	}
	return r
}

// spOut is where a sparse kernel operation's values go: the host matrix
// host (through scratch, region by region) or the device matrix dev.
type spOut struct {
	host pursuit.Matrix
	dev  *devMatrix
}

// devCSRView is a CSR operand's rows on the device for csr_kernel,
// csr_sq_norms and csr_densify_t: row r is row sel[r] of the offsets off
// (r when sel is 0).
type devCSRView struct {
	off, idx, val, sel cu.DevicePtr
}

// liveBytes allocates device memory owned by a handle, as a 1×(bytes/4)
// device matrix (freed by the handle's Release or by Close; worker thread).
func (b *Backend) liveBytes(bytes int64, what string) (*devMatrix, error) {
	mem, err := b.alloc(bytes, what)
	if err != nil {
		return nil, err
	}
	n := int(max(bytes/4, 1))
	m := &devMatrix{owner: b, mem: mem, rows: 1, cols: n, ld: n}
	b.live[m] = struct{}{}
	return m, nil
}

// stageCSR compacts rows [r0, r1) of s (a sparse operand) on the host: the
// offsets rebased to 0 and the rows' indices and values (slices of m's own
// arrays when the rows are contiguous, else copies in the worker's
// staging).
func (b *Backend) stageCSR(s spRows, r0, r1 int) (off []int64, idx []int32, val []float32) {
	c := s.m.Sparse
	b.stageOff = growI(b.stageOff, r1-r0+1)
	off = b.stageOff[:r1-r0+1]
	if s.sel == nil {
		base := c.Offsets[r0]
		for r := r0; r <= r1; r++ {
			off[r-r0] = c.Offsets[r] - base
		}
		end := c.Offsets[r1]
		return off, c.Indices[base:end], c.Values[base:end]
	}
	var nnz int64
	off[0] = 0
	for r := r0; r < r1; r++ {
		i := s.sel[r]
		nnz += c.Offsets[i+1] - c.Offsets[i]
		off[r-r0+1] = nnz
	}
	if int64(cap(b.stageIdx)) < nnz {
		b.stageIdx = make([]int32, nnz, nnz+nnz/4)
	}
	if int64(cap(b.stageVal)) < nnz {
		b.stageVal = make([]float32, nnz, nnz+nnz/4)
	}
	idx, val = b.stageIdx[:nnz], b.stageVal[:nnz]
	for r := r0; r < r1; r++ {
		ri, rv := s.m.SparseRow(s.sel[r])
		o := off[r-r0]
		copy(idx[o:], ri)
		copy(val[o:], rv)
	}
	return off, idx, val
}

// uploadCSR uploads rows [r0, r1) of the sparse host operand s into the
// scratch slots off, idx and val (worker thread).
func (b *Backend) uploadCSR(slots [3]slot, s spRows, r0, r1 int) (devCSRView, error) {
	off, idx, val := b.stageCSR(s, r0, r1)
	om, err := b.ensure(slots[0], int64(len(off))*8)
	if err != nil {
		return devCSRView{}, err
	}
	im, err := b.ensure(slots[1], int64(len(idx))*4)
	if err != nil {
		return devCSRView{}, err
	}
	vm, err := b.ensure(slots[2], int64(len(val))*4)
	if err != nil {
		return devCSRView{}, err
	}
	if err := b.toDevice(om.ptr, unsafe.Pointer(&off[0]), int64(len(off))*8); err != nil {
		return devCSRView{}, fmt.Errorf("cuda: copying %d sparse offsets to the device: %w", len(off), err)
	}
	if len(idx) > 0 {
		if err := b.toDevice(im.ptr, unsafe.Pointer(&idx[0]), int64(len(idx))*4); err != nil {
			return devCSRView{}, fmt.Errorf("cuda: copying %d sparse indices to the device: %w", len(idx), err)
		}
		if err := b.toDevice(vm.ptr, unsafe.Pointer(&val[0]), int64(len(val))*4); err != nil {
			return devCSRView{}, fmt.Errorf("cuda: copying %d sparse values to the device: %w", len(val), err)
		}
	}
	return devCSRView{off: om.ptr, idx: im.ptr, val: vm.ptr}, nil
}

// csrNormsDev writes the squared norms of n rows of v to out.
func (b *Backend) csrNormsDev(out cu.DevicePtr, v devCSRView, n int) error {
	if n == 0 {
		return nil
	}
	p := csrSqNormsParams(uintptr(out), uintptr(v.off), uintptr(v.val), uintptr(v.sel), n)
	return b.launch(b.fn.csrSqNorms, nameCSRSqNorms, ceilDiv(n, snRowsPer), 1, snThreads, 1, p)
}

// hostNorms uploads norms[s.row(r)] for r in [r0, r1) into slot sl.
func (b *Backend) hostNorms(sl slot, s spRows, r0, r1 int) (cu.DevicePtr, error) {
	b.stageNorm = grow(b.stageNorm, max(r1-r0, 1))
	for r := r0; r < r1; r++ {
		b.stageNorm[r-r0] = s.norms[s.row(r)]
	}
	mem, err := b.ensure(sl, int64(r1-r0)*4)
	if err != nil {
		return 0, err
	}
	if r1 > r0 {
		if err := b.toDevice(mem.ptr, unsafe.Pointer(&b.stageNorm[0]), int64(r1-r0)*4); err != nil {
			return 0, fmt.Errorf("cuda: copying %d norms to the device: %w", r1-r0, err)
		}
	}
	return mem.ptr, nil
}

// streamSlab returns the end of the slab of streamed rows that starts at
// s0: all rows of a resident operand, else rows whose offsets, indices and
// values take at most the chunk budget (at least one row).
func (b *Backend) streamSlab(s spRows, s0 int) int {
	n := s.n()
	if s.p != nil {
		return n
	}
	c := s.m.Sparse
	var bytes int64
	s1 := s0
	for s1 < n {
		i := s.row(s1)
		rb := 8 + 8*(c.Offsets[i+1]-c.Offsets[i])
		if s1 > s0 && bytes+rb > b.chunkBytes {
			break
		}
		bytes += rb
		s1++
	}
	return s1
}

// streamRows puts streamed rows [s0, s1) of s on the device, with their
// norms when rbf (worker thread).
func (b *Backend) streamRows(s spRows, s0, s1 int, rbf bool) (devCSRView, cu.DevicePtr, error) {
	if s.p != nil { // resident, all rows (s0 = 0, no sel)
		v := devCSRView{off: s.p.off.mem.ptr, idx: s.p.idx.mem.ptr, val: s.p.val.mem.ptr}
		var norms cu.DevicePtr
		if rbf {
			norms = s.p.n.mem.ptr
		}
		return v, norms, nil
	}
	v, err := b.uploadCSR([3]slot{slotSOff, slotSIdx, slotSVal}, s, s0, s1)
	if err != nil || !rbf {
		return v, 0, err
	}
	if s.norms != nil {
		np, err := b.hostNorms(slotSNorms, s, s0, s1)
		return v, np, err
	}
	mem, err := b.ensure(slotSNorms, int64(s1-s0)*4)
	if err != nil {
		return v, 0, err
	}
	return v, mem.ptr, b.csrNormsDev(mem.ptr, v, s1-s0)
}

// batchRows densifies batch rows [t0, t1) of s transposed into T (d × ldt,
// slot slotT) and returns T and, when rbf, the rows' norms (worker thread).
// devSel holds s.sel on the device when s is resident and gathered.
func (b *Backend) batchRows(s spRows, devSel cu.DevicePtr, t0, t1, ldt, d int, rbf bool) (cu.DevicePtr, cu.DevicePtr, error) {
	g := t1 - t0
	tm, err := b.ensure(slotT, int64(d)*int64(ldt)*4)
	if err != nil {
		return 0, 0, err
	}
	var norms cu.DevicePtr
	if rbf && s.norms != nil && s.p == nil {
		if norms, err = b.hostNorms(slotTNorms, s, t0, t1); err != nil {
			return 0, 0, err
		}
	}
	needNorms := rbf && norms == 0
	var nm devMem
	if needNorms && (s.p == nil || s.m.IsSparse()) {
		if nm, err = b.ensure(slotTNorms, int64(g)*4); err != nil {
			return 0, 0, err
		}
	}
	if !s.m.IsSparse() {
		var x cu.DevicePtr
		ldx := d
		if s.p != nil { // resident, rows t0… (no sel)
			x, ldx = s.p.x.at(t0, 0), s.p.x.ld
			if needNorms {
				norms = s.p.n.mem.ptr + cu.DevicePtr(4*t0)
			}
		} else {
			b.stageRows = grow(b.stageRows, max(g*d, 1))
			for t := t0; t < t1; t++ {
				copy(b.stageRows[(t-t0)*d:(t-t0+1)*d], s.m.Row(s.row(t)))
			}
			xm, err := b.ensure(slotA, int64(g*d)*4)
			if err != nil {
				return 0, 0, err
			}
			if g*d > 0 {
				if err := b.toDevice(xm.ptr, unsafe.Pointer(&b.stageRows[0]), int64(g*d)*4); err != nil {
					return 0, 0, fmt.Errorf("cuda: copying %d floats to the device: %w", g*d, err)
				}
			}
			x = xm.ptr
			if needNorms {
				norms = nm.ptr
				p := sqNormsParams(uintptr(norms), uintptr(x), d, g, d)
				if err := b.launch(b.fn.sqNorms, nameSqNorms, ceilDiv(g, snRowsPer), 1, snThreads, 1, p); err != nil {
					return 0, 0, err
				}
			}
		}
		if d > 0 {
			p := denseDensifyTParams(uintptr(tm.ptr), ldt, uintptr(x), ldx, g, d)
			if err := b.launch(b.fn.denseDensify, nameDenseDensify, ceilDiv(d, trTile), ceilDiv(g, trTile), trTile, trBY, p); err != nil {
				return 0, 0, err
			}
		}
		return tm.ptr, norms, nil
	}
	var v devCSRView
	if s.p != nil {
		v = devCSRView{off: s.p.off.mem.ptr, idx: s.p.idx.mem.ptr, val: s.p.val.mem.ptr}
		if devSel != 0 {
			v.sel = devSel + cu.DevicePtr(8*t0)
		} else {
			v.off += cu.DevicePtr(8 * t0)
		}
	} else if v, err = b.uploadCSR([3]slot{slotTOff, slotTIdx, slotTVal}, s, t0, t1); err != nil {
		return 0, 0, err
	}
	if d > 0 {
		if err := b.fillZero(tm.ptr, int64(d)*int64(ldt)); err != nil {
			return 0, 0, err
		}
		p := csrDensifyTParams(uintptr(tm.ptr), ldt, uintptr(v.off), uintptr(v.idx), uintptr(v.val), uintptr(v.sel), g)
		if err := b.launch(b.fn.csrDensifyT, nameCSRDensifyT, ceilDiv(g, snRowsPer), 1, snThreads, 1, p); err != nil {
			return 0, 0, err
		}
	}
	if needNorms {
		norms = nm.ptr
		if err := b.csrNormsDev(norms, v, g); err != nil {
			return 0, 0, err
		}
	}
	return tm.ptr, norms, nil
}

// fillZero zeroes n floats at p.
func (b *Backend) fillZero(p cu.DevicePtr, n int64) error {
	if n == 0 {
		return nil
	}
	blocks := int(min((n+vcThreads-1)/vcThreads, 4096))
	return b.launch(b.fn.fillZero, nameFillZero, blocks, 1, vcThreads, 1, fillZeroParams(uintptr(p), int(n)))
}

// batchGroup is how many batch rows one densified batch holds: a multiple
// of skCols whose transposed block (d floats a row) and host output region
// (s floats a row, when hostOut) fit the chunk budget, at least skCols and
// at most the n rows rounded up (and what one launch's grid takes).
func (b *Backend) batchGroup(n, d, s int, hostOut bool) int {
	per := int64(d) * 4
	if hostOut {
		per += int64(s) * 4
	}
	g := int64(skCols)
	if per > 0 {
		g = max(g, b.chunkBytes/per/skCols*skCols)
	}
	g = min(g, maxGridY*skCols) // csr_kernel's gridDim.y
	return int(min(g, int64(ceilDiv(max(n, 1), skCols)*skCols)))
}

// sparseKernel computes the kernel values of the rows of a with the rows
// of bs (one of them sparse) into out (worker thread, arguments checked).
func (b *Backend) sparseKernel(op string, out spOut, k pursuit.Kernel, a, bs spRows) error {
	n, m := a.n(), bs.n()
	if n == 0 || m == 0 {
		return nil
	}
	str, bat, trans := a, bs, 0
	if bs.m.IsSparse() {
		str, bat, trans = bs, a, 1
	}
	d := a.m.Cols
	rbf := k.Kind == pursuit.RBF
	hostOut := out.dev == nil
	var devSel cu.DevicePtr
	if bat.p != nil && bat.sel != nil {
		var err error
		if devSel, err = b.uploadIdx(bat.sel); err != nil {
			return err
		}
	}
	for s0 := 0; s0 < str.n(); {
		s1 := b.streamSlab(str, s0)
		sv, sn, err := b.streamRows(str, s0, s1, rbf)
		if err != nil {
			return err
		}
		S := s1 - s0
		G := b.batchGroup(bat.n(), d, S, hostOut)
		for t0 := 0; t0 < bat.n(); t0 += G {
			t1 := min(bat.n(), t0+G)
			ldt := ceilDiv(t1-t0, skCols) * skCols
			T, tn, err := b.batchRows(bat, devSel, t0, t1, ldt, d, rbf)
			if err != nil {
				return err
			}
			r0, r1, c0, c1 := s0, s1, t0, t1
			if trans == 1 {
				r0, r1, c0, c1 = t0, t1, s0, s1
			}
			var cd *devMatrix
			if hostOut {
				if cd, err = b.scratchOut(slotC, r1-r0, c1-c0); err != nil {
					return err
				}
			} else {
				cd = &devMatrix{owner: b, mem: devMem{ptr: out.dev.at(r0, c0)}, rows: r1 - r0, cols: c1 - c0, ld: out.dev.ld, scratch: true}
			}
			p := csrKernelParams(uintptr(cd.mem.ptr), cd.ld, trans, uintptr(sv.off), uintptr(sv.idx), uintptr(sv.val), uintptr(sv.sel), S,
				uintptr(T), ldt, t1-t0, uintptr(sn), uintptr(tn), int(k.Kind), k.Gamma, k.Coef0, k.Degree)
			if err := b.launch(b.fn.csrKernel, nameCSRKernel, ceilDiv(S, skRows), ceilDiv(t1-t0, skCols), skThreads, 1, p); err != nil {
				return err
			}
			if hostOut {
				if err := syncDevice(op); err != nil {
					return err
				}
				if err := b.download(out.host.Slice(r0, r1, c0, c1), cd); err != nil {
					return err
				}
			}
		}
		s0 = s1
	}
	return nil
}

// sparseSqNorms is SqNorms of a sparse host matrix (worker thread): its
// rows in slabs, csr_sq_norms, the norms back.
func (b *Backend) sparseSqNorms(dst []float32, x pursuit.Matrix) error {
	s := spRows{m: x}
	for r0 := 0; r0 < x.Rows; {
		r1 := b.streamSlab(s, r0)
		v, err := b.uploadCSR([3]slot{slotSOff, slotSIdx, slotSVal}, s, r0, r1)
		if err != nil {
			return err
		}
		out, err := b.ensure(slotC, int64(r1-r0)*4)
		if err != nil {
			return err
		}
		if err := b.csrNormsDev(out.ptr, v, r1-r0); err != nil {
			return err
		}
		if err := syncDevice("SqNorms"); err != nil {
			return err
		}
		if err := b.fromDevice(unsafe.Pointer(&dst[r0]), out.ptr, int64(r1-r0)*4); err != nil {
			return fmt.Errorf("cuda: SqNorms: copying the result: %w", err)
		}
		r0 = r1
	}
	return nil
}

// prepareSparse uploads the CSR of the sparse m (offsets rebased to 0) and
// computes its squared norms on the device (worker thread).
func (b *Backend) prepareSparse(p *cudaPrepared, m pursuit.Matrix) error {
	s := spRows{m: m}
	off, idx, val := b.stageCSR(s, 0, m.Rows)
	var err error
	if p.off, err = b.liveBytes(int64(len(off))*8, "prepared sparse offsets"); err != nil {
		return err
	}
	if p.idx, err = b.liveBytes(int64(len(idx))*4, "prepared sparse indices"); err != nil {
		return err
	}
	if p.val, err = b.liveBytes(int64(len(val))*4, "prepared sparse values"); err != nil {
		return err
	}
	if err := b.toDevice(p.off.mem.ptr, unsafe.Pointer(&off[0]), int64(len(off))*8); err != nil {
		return fmt.Errorf("cuda: copying %d sparse offsets to the device: %w", len(off), err)
	}
	if len(idx) > 0 {
		if err := b.toDevice(p.idx.mem.ptr, unsafe.Pointer(&idx[0]), int64(len(idx))*4); err != nil {
			return fmt.Errorf("cuda: copying %d sparse indices to the device: %w", len(idx), err)
		}
		if err := b.toDevice(p.val.mem.ptr, unsafe.Pointer(&val[0]), int64(len(val))*4); err != nil {
			return fmt.Errorf("cuda: copying %d sparse values to the device: %w", len(val), err)
		}
	}
	if p.n, err = b.liveMatrix(1, m.Rows, "prepared norms"); err != nil {
		return err
	}
	v := devCSRView{off: p.off.mem.ptr, idx: p.idx.mem.ptr, val: p.val.mem.ptr}
	return b.csrNormsDev(p.n.mem.ptr, v, m.Rows)
}

// sameSparse reports whether a is the sparse view m (same arrays, rows and
// shape).
func sameSparse(a, m pursuit.Matrix) bool {
	if !a.IsSparse() || !m.IsSparse() || a.Rows != m.Rows || a.Cols != m.Cols {
		return false
	}
	if a.Sparse == m.Sparse {
		return true
	}
	x, y := a.Sparse, m.Sparse
	return len(x.Offsets) == len(y.Offsets) && len(x.Offsets) > 0 && &x.Offsets[0] == &y.Offsets[0] &&
		len(x.Indices) == len(y.Indices) && len(x.Values) == len(y.Values) &&
		(len(x.Indices) == 0 || &x.Indices[0] == &y.Indices[0]) &&
		(len(x.Values) == 0 || &x.Values[0] == &y.Values[0])
}

// shapeOnly returns a stand-in for the prepared m in argument checks: its
// shape with no non-zeros (a sparse m's indices were validated by Prepare
// and must not change while its handle is in use, so that a call need not
// read them all again).
func (p *cudaPrepared) shapeOnly() pursuit.Matrix {
	if !p.M.IsSparse() {
		return p.M
	}
	p.shapeOnce.Do(func() {
		p.shape = pursuit.Matrix{Rows: p.M.Rows, Cols: p.M.Cols, Sparse: &pursuit.CSR{Offsets: make([]int64, p.M.Rows+1)}}
	})
	return p.shape
}
