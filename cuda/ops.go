//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// launch starts fn on the default stream (worker thread).
func (b *Backend) launch(fn cu.Function, name string, gx, gy, bx, by int, p params) error {
	ptrs := make([]unsafe.Pointer, len(p.w))
	for i := range p.w {
		ptrs[i] = unsafe.Pointer(&p.w[i])
	}
	if err := fn.Launch(gx, gy, 1, bx, by, 1, 0, cu.Stream{}, ptrs); err != nil {
		return fmt.Errorf("cuda: launching %s (grid %d×%d, block %d×%d): %w", name, gx, gy, bx, by, err)
	}
	return nil
}

// syncDevice waits for the device and attributes an asynchronous failure to op.
func syncDevice(op string) error {
	if err := cu.Synchronize(); err != nil {
		return fmt.Errorf("cuda: %s failed on the device: %w", op, err)
	}
	return nil
}

// ---- device-side operations (worker thread) ------------------------------

// sqNormsDev writes the squared row norms of x to out.
func (b *Backend) sqNormsDev(out cu.DevicePtr, x *devMatrix) error {
	if x.rows == 0 {
		return nil
	}
	p := sqNormsParams(uintptr(out), uintptr(x.mem.ptr), x.ld, x.rows, x.cols)
	return b.launch(b.fn.sqNorms, nameSqNorms, ceilDiv(x.rows, snRowsPer), 1, snThreads, 1, p)
}

// normsFor returns n's address, or computes the norms of x into slot s when
// n is nil.
func (b *Backend) normsFor(n *devMatrix, x *devMatrix, s slot) (cu.DevicePtr, error) {
	if n != nil {
		return n.mem.ptr, nil
	}
	mem, err := b.ensure(s, int64(x.rows)*4)
	if err != nil {
		return 0, err
	}
	return mem.ptr, b.sqNormsDev(mem.ptr, x)
}

// kernelBlockDev computes dst (rows×bm.rows) = k(a_{g(i)}, b_j) where g is
// idx (device, rows entries) or the identity when idx is 0.
func (b *Backend) kernelBlockDev(dst *devMatrix, k pursuit.Kernel, a, aN *devMatrix, idx cu.DevicePtr, rows int, bm, bN *devMatrix) error {
	if rows == 0 || bm.rows == 0 {
		return nil
	}
	var aNorm, bNorm cu.DevicePtr
	if k.Kind == pursuit.RBF {
		var err error
		if aNorm, err = b.normsFor(aN, a, slotANorms); err != nil {
			return err
		}
		if bNorm, err = b.normsFor(bN, bm, slotBNorms); err != nil {
			return err
		}
	}
	// gridDim.y is limited: large row counts go in slabs of rows.
	const slab = maxGridY * kbTile
	for r0 := 0; r0 < rows; r0 += slab {
		m := min(slab, rows-r0)
		aPtr, idxPtr, anPtr := a.at(r0, 0), cu.DevicePtr(0), aNorm
		if idx != 0 {
			aPtr, idxPtr = a.mem.ptr, idx+cu.DevicePtr(8*r0)
		} else if aNorm != 0 {
			anPtr = aNorm + cu.DevicePtr(4*r0)
		}
		p := kernelBlockParams(uintptr(dst.at(r0, 0)), dst.ld, uintptr(aPtr), a.ld, uintptr(idxPtr), uintptr(anPtr),
			uintptr(bm.mem.ptr), bm.ld, uintptr(bNorm), m, bm.rows, a.cols, int(k.Kind), k.Gamma, k.Coef0, k.Degree)
		if err := b.launch(b.fn.kernelBlock, nameKernelBlock, ceilDiv(bm.rows, kbTile), ceilDiv(m, kbTile), kbThreads, 1, p); err != nil {
			return err
		}
	}
	return nil
}

// dictDev writes <dict_i, vecs_j> to out[j*dict.rows+i] (float64).
func (b *Backend) dictDev(out cu.DevicePtr, dict, vecs *devMatrix) error {
	rows, cols := dict.rows, dict.cols
	if rows == 0 || vecs.rows == 0 {
		return nil
	}
	// Split the long dimension into chunks so that small dictionaries still
	// fill the device; chunks are summed in a fixed order (deterministic).
	chunk, nchunks := dictChunks(rows, cols, b.info.sms)
	part, err := b.ensure(slotPart, int64(rows)*int64(nchunks)*dpMaxVecs*8)
	if err != nil {
		return err
	}
	for g := 0; g < vecs.rows; g += dpMaxVecs {
		nv := min(dpMaxVecs, vecs.rows-g)
		p := dictPartialParams(uintptr(part.ptr), uintptr(dict.mem.ptr), dict.ld, uintptr(vecs.at(g, 0)), vecs.ld, rows, cols, nv, chunk)
		if err := b.launch(b.fn.dictPartial, nameDictPartial, rows, nchunks, dpThreads, 1, p); err != nil {
			return err
		}
		q := dictReduceParams(uintptr(out+cu.DevicePtr(8*g*rows)), uintptr(part.ptr), rows, nchunks, nv)
		if err := b.launch(b.fn.dictReduce, nameDictReduce, ceilDiv(rows*nv, 256), 1, 256, 1, q); err != nil {
			return err
		}
	}
	return nil
}

// rankDev applies d += alpha Σ_t u_t v_tᵀ.
func (b *Backend) rankDev(d *devMatrix, alpha float32, u, v *devMatrix) error {
	if d.rows == 0 || d.cols == 0 || u.rows == 0 {
		return nil
	}
	p := rankUpdateParams(uintptr(d.mem.ptr), d.ld, d.rows, d.cols, float64(alpha), uintptr(u.mem.ptr), u.ld, uintptr(v.mem.ptr), v.ld, u.rows)
	return b.launch(b.fn.rankUpdate, nameRankUpdate, ceilDiv(d.cols, ruBX), min(ceilDiv(d.rows, ruBY), maxGridY), ruBX, ruBY, p)
}

// ---- backend.Backend on host slices ----------------------------------------
//
// Each call copies its operands to reused scratch buffers on the device, runs
// the kernels and copies the result back. That is right for one-off blocks;
// algorithms that call repeatedly on the same data keep it on the device
// through backend.Preparer and backend.ResidentBlock (prepared.go).

// anySparse reports whether one of ms is sparse (its kernel operation then
// takes the sparse path of sparse.go).
func anySparse(ms ...pursuit.Matrix) bool {
	for _, m := range ms {
		if m.IsSparse() {
			return true
		}
	}
	return false
}

// SqNorms writes ‖x_i‖² into dst[:x.Rows].
func (b *Backend) SqNorms(dst []float32, x pursuit.Matrix) error {
	if err := backend.CheckSqNorms(dst, x); err != nil {
		return err
	}
	if x.Rows == 0 {
		return nil
	}
	if x.IsSparse() {
		return b.do(func() error { return b.sparseSqNorms(dst, x) })
	}
	return b.do(func() error {
		return b.inSlabs(x.Rows, int64(x.Cols)*4, func(r0, r1 int) error {
			xd, err := b.scratchMatrix(slotA, x.Slice(r0, r1, 0, x.Cols))
			if err != nil {
				return err
			}
			out, err := b.ensure(slotC, int64(r1-r0)*4)
			if err != nil {
				return err
			}
			if err := b.sqNormsDev(out.ptr, xd); err != nil {
				return err
			}
			if err := syncDevice("SqNorms"); err != nil {
				return err
			}
			if err := b.fromDevice(unsafe.Pointer(&dst[r0]), out.ptr, int64(r1-r0)*4); err != nil {
				return fmt.Errorf("cuda: SqNorms: copying the result: %w", err)
			}
			return nil
		})
	})
}

// KernelBlock writes dst[i][j] = k(a_i, b_j).
func (b *Backend) KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, bm pursuit.Matrix, bNorms []float32) error {
	if err := backend.CheckKernelBlock(dst, k, a, aNorms, bm, bNorms); err != nil {
		return err
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	if anySparse(a, bm) {
		return b.do(func() error {
			return b.sparseKernel("KernelBlock", spOut{host: dst}, k, spRows{m: a, norms: aNorms}, spRows{m: bm, norms: bNorms})
		})
	}
	return b.do(func() error { return b.hostKernel("KernelBlock", dst, k, a, aNorms, bm, bNorms) })
}

// KernelGather writes dst[r][j] = k(a_{idx[r]}, b_j). The rows a[idx] are
// gathered on the host, so only they cross the bus.
func (b *Backend) KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, bm pursuit.Matrix, bNorms []float32) error {
	if err := backend.CheckKernelGather(dst, k, a, aNorms, idx, bm, bNorms); err != nil {
		return err
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	if anySparse(a, bm) {
		return b.do(func() error {
			return b.sparseKernel("KernelGather", spOut{host: dst}, k, spRows{m: a, sel: idx, norms: aNorms}, spRows{m: bm, norms: bNorms})
		})
	}
	g := pursuit.NewMatrix(len(idx), a.Cols)
	var gn []float32
	if aNorms != nil {
		gn = make([]float32, len(idx))
	}
	for r, i := range idx {
		copy(g.Row(r), a.Row(i))
		if gn != nil {
			gn[r] = aNorms[i]
		}
	}
	return b.do(func() error { return b.hostKernel("KernelGather", dst, k, g, gn, bm, bNorms) })
}

// slabRows is how many rows of rowBytes bytes a host-slice call moves to
// the device at once, so that operands larger than the device memory (or
// than the WithChunkBytes budget) are processed in slabs.
func (b *Backend) slabRows(rowBytes int64, rows int) int {
	if rowBytes <= 0 {
		return max(rows, 1)
	}
	return int(max(1, min(int64(max(rows, 1)), b.chunkBytes/rowBytes)))
}

// inSlabs runs f over rows [0, rows) in slabs of consecutive rows of
// rowBytes bytes each (worker thread): as many as slabRows allows and, once
// an operand did not fit the device, as streamBytes allows; a slab that
// does not fit (backend.ErrDeviceMemory) is halved and run again, and the
// size that fits is kept for later calls. f must be repeatable (it writes
// its slab's results whole).
func (b *Backend) inSlabs(rows int, rowBytes int64, f func(r0, r1 int) error) error {
	rowBytes = max(rowBytes, 1)
	n := b.slabRows(rowBytes, rows)
	if b.streamBytes > 0 {
		n = int(max(1, min(int64(n), b.streamBytes/rowBytes)))
	}
	for r0 := 0; r0 < rows; {
		r1 := min(rows, r0+n)
		err := f(r0, r1)
		if errors.Is(err, backend.ErrDeviceMemory) && r1-r0 > 1 {
			n = (r1 - r0) / 2
			b.streamBytes = int64(n) * rowBytes
			continue
		}
		if err != nil {
			return err
		}
		r0 = r1
	}
	return nil
}

// hostKernel runs a kernel block on host operands (worker thread): b once,
// then a and dst in slabs of rows. A b that does not fit the device
// (backend.ErrDeviceMemory) streams through it in slabs of its rows, halved
// until they fit, the slab size kept for later calls (streamBytes): each
// kernel value is computed alike whatever slab its column is in.
func (b *Backend) hostKernel(op string, dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, bm pursuit.Matrix, bNorms []float32) error {
	if int64(bm.Rows)*int64(bm.Cols)*4 <= b.streamBytes || b.streamBytes == 0 {
		// b whole, unless it fails to fit: then in slabs.
		err := b.hostKernelSlab(op, dst, k, a, aNorms, bm, bNorms)
		if !errors.Is(err, backend.ErrDeviceMemory) || bm.Rows < 2 {
			return err
		}
		b.streamBytes = int64(bm.Rows/2) * int64(max(bm.Cols, 1)) * 4
	}
	return b.inSlabs(bm.Rows, int64(bm.Cols)*4, func(j0, j1 int) error {
		var bn []float32
		if bNorms != nil {
			bn = bNorms[j0:j1]
		}
		return b.hostKernelSlab(op, dst.Slice(0, dst.Rows, j0, j1), k, a, aNorms, bm.Slice(j0, j1, 0, bm.Cols), bn)
	})
}

// hostKernelSlab is hostKernel for a b that fits the device.
func (b *Backend) hostKernelSlab(op string, dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, bm pursuit.Matrix, bNorms []float32) error {
	bd, err := b.scratchMatrix(slotB, bm)
	if err != nil {
		return err
	}
	var bn *devMatrix
	if k.Kind == pursuit.RBF {
		if bNorms != nil {
			if bn, err = b.scratchVec(slotBNorms, bNorms, bm.Rows); err != nil {
				return err
			}
		} else {
			mem, err := b.ensure(slotBNorms, int64(bm.Rows)*4)
			if err != nil {
				return err
			}
			if err := b.sqNormsDev(mem.ptr, bd); err != nil {
				return err
			}
			bn = &devMatrix{owner: b, mem: mem, rows: 1, cols: bm.Rows, ld: max(bm.Rows, 1), scratch: true}
		}
	}
	return b.kernelOnDeviceB(op, dst, k, a, aNorms, bd, bn)
}

// kernelOnDeviceB runs a kernel block whose b (and, for RBF, its norms bn)
// is on the device: a and dst go through the device in slabs of rows
// (worker thread).
func (b *Backend) kernelOnDeviceB(op string, dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, bd, bn *devMatrix) error {
	return b.inSlabs(a.Rows, int64(a.Cols+bd.rows)*4, func(r0, r1 int) error {
		as := a.Slice(r0, r1, 0, a.Cols)
		ad, err := b.scratchMatrix(slotA, as)
		if err != nil {
			return err
		}
		var an *devMatrix
		if k.Kind == pursuit.RBF && aNorms != nil {
			if an, err = b.scratchVec(slotANorms, aNorms[r0:r1], r1-r0); err != nil {
				return err
			}
		}
		cd, err := b.scratchOut(slotC, r1-r0, bd.rows)
		if err != nil {
			return err
		}
		if err := b.kernelBlockDev(cd, k, ad, an, 0, r1-r0, bd, bn); err != nil {
			return err
		}
		if err := syncDevice(op); err != nil {
			return err
		}
		return b.download(dst.Slice(r0, r1, 0, dst.Cols), cd)
	})
}

// DictProducts computes dst[j*dict.Rows+i] = <d_i, v_j> in one pass over
// dict per group of 8 vectors.
func (b *Backend) DictProducts(dst []float64, dict pursuit.Matrix, vecs pursuit.Matrix) error {
	if err := backend.CheckDictProducts(dst, dict, vecs); err != nil {
		return err
	}
	if dict.Rows*vecs.Rows == 0 {
		return nil
	}
	return b.do(func() error { return b.dictProducts(dst, dict, vecs) })
}

// dictProducts is DictProducts on the worker goroutine, the arguments
// checked.
func (b *Backend) dictProducts(dst []float64, dict pursuit.Matrix, vecs pursuit.Matrix) error {
	vd, err := b.scratchMatrix(slotB, vecs)
	if err != nil {
		return err
	}
	slab := b.slabRows(int64(dict.Cols)*4, dict.Rows)
	for r0 := 0; r0 < dict.Rows; r0 += slab {
		r1 := min(dict.Rows, r0+slab)
		dd, err := b.scratchMatrix(slotA, dict.Slice(r0, r1, 0, dict.Cols))
		if err != nil {
			return err
		}
		m := (r1 - r0) * vecs.Rows
		out, err := b.ensure(slotOut64, int64(m)*8)
		if err != nil {
			return err
		}
		if err := b.dictDev(out.ptr, dd, vd); err != nil {
			return err
		}
		if err := syncDevice("DictProducts"); err != nil {
			return err
		}
		if r0 == 0 && r1 == dict.Rows {
			if err := b.fromDevice(unsafe.Pointer(&dst[0]), out.ptr, int64(m)*8); err != nil {
				return fmt.Errorf("cuda: DictProducts: copying the result: %w", err)
			}
			break
		}
		if cap(b.stage64) < m {
			b.stage64 = make([]float64, m)
		}
		part := b.stage64[:m]
		if err := b.fromDevice(unsafe.Pointer(&part[0]), out.ptr, int64(m)*8); err != nil {
			return fmt.Errorf("cuda: DictProducts: copying the result: %w", err)
		}
		for j := range vecs.Rows {
			copy(dst[j*dict.Rows+r0:j*dict.Rows+r1], part[j*(r1-r0):(j+1)*(r1-r0)])
		}
	}
	return nil
}

var _ backend.SetProducts = (*Backend)(nil)

// DictProductsSets computes every set's products in one DictProducts call
// with the sets' vectors side by side, so that the dictionary crosses the
// bus once for all of them (one-vs-rest pre-fitting: one set per class).
// The kernels sum each vector's products apart from the other vectors'
// (dict_partial's per-vector accumulators, dict_reduce's fixed order of
// chunks), so every set's products are those of its own DictProducts call
// bit for bit, as backend.SetProducts requires.
func (b *Backend) DictProductsSets(dst [][]float64, dict pursuit.Matrix, sets []pursuit.Matrix) error {
	if err := backend.CheckDictProductsSets(dst, dict, sets); err != nil {
		return err
	}
	return b.sideBySide(dst, sets, dict.Rows, func(out []float64, all pursuit.Matrix) error {
		return b.dictProducts(out, dict, all)
	})
}

// sideBySide runs products on the sets' vectors copied side by side into
// one matrix, its k·rows products going to out, and hands each set its
// share of out (worker thread). The side-by-side copies of the vectors and
// of the products are host staging the worker keeps between calls (the
// size of the sets and of dst).
func (b *Backend) sideBySide(dst [][]float64, sets []pursuit.Matrix, rows int, products func(out []float64, all pursuit.Matrix) error) error {
	k := 0
	for _, v := range sets {
		k += v.Rows
	}
	if k == 0 || rows == 0 {
		return nil
	}
	cols := sets[0].Cols
	return b.do(func() error {
		b.stageSets = slices.Grow(b.stageSets[:0], k*cols)[:k*cols]
		all := pursuit.Matrix{Rows: k, Cols: cols, Stride: cols, Data: b.stageSets}
		r := 0
		for _, v := range sets {
			for i := range v.Rows {
				copy(all.Row(r), v.Row(i))
				r++
			}
		}
		b.stageSetsOut = slices.Grow(b.stageSetsOut[:0], k*rows)[:k*rows]
		out := b.stageSetsOut
		if err := products(out, all); err != nil {
			return err
		}
		for s, v := range sets {
			n := v.Rows * rows
			copy(dst[s][:n], out[:n])
			out = out[n:]
		}
		return nil
	})
}

// RankUpdate applies d ← d + alpha·Σ_t u_t v_tᵀ.
func (b *Backend) RankUpdate(d pursuit.Matrix, alpha float32, u pursuit.Matrix, v pursuit.Matrix) error {
	if err := backend.CheckRankUpdate(d, u, v); err != nil {
		return err
	}
	if d.Rows == 0 || d.Cols == 0 || u.Rows == 0 {
		return nil
	}
	return b.do(func() error {
		vd, err := b.scratchMatrix(slotV, v)
		if err != nil {
			return err
		}
		slab := b.slabRows(int64(d.Cols)*4, d.Rows)
		for r0 := 0; r0 < d.Rows; r0 += slab {
			r1 := min(d.Rows, r0+slab)
			ds := d.Slice(r0, r1, 0, d.Cols)
			dd, err := b.scratchMatrix(slotC, ds)
			if err != nil {
				return err
			}
			ud, err := b.scratchMatrix(slotU, u.Slice(0, u.Rows, r0, r1))
			if err != nil {
				return err
			}
			if err := b.rankDev(dd, alpha, ud, vd); err != nil {
				return err
			}
			if err := syncDevice("RankUpdate"); err != nil {
				return err
			}
			if err := b.download(ds, dd); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScoredArgMax scans on the host: copying two float64 vectors to the device
// costs more than the O(M) scan itself.
func (b *Backend) ScoredArgMax(s, n []float64, skip []bool) (int, float64) {
	return backend.ScoredArgMaxRef(s, n, skip)
}
