//go:build cuda

package cuda

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// svmPool is a batched SVM solver's pool of kernel rows on the device
// (backend.SVMPool): slots rows of the prepared matrix's n kernel values,
// the labels and the variables' points, all resident; a working set's
// slots, keys and weights and the whole gradient cross the bus each outer
// iteration, never the rows.
type svmPool struct {
	owner    *Backend
	p        *cudaPrepared
	k        pursuit.Kernel
	n        int        // points (row length)
	nv       int        // variables
	rows     *devMatrix // slots×n float32
	y        *devMatrix // nv float64 labels (2·nv float32 words)
	kidx     *devMatrix // nv int64 points, or nil (variable t is point t)
	released atomic.Bool
}

// NewSVMPool makes the device pool of a batched SVM solver; see
// backend.SVMDevice. x must be a dense matrix prepared by this backend.
func (b *Backend) NewSVMPool(x backend.Prepared, k pursuit.Kernel, slots int, y []float64, kidx []int) (backend.SVMPool, error) {
	const op = "NewSVMPool"
	p, err := b.prepared(op, x)
	if err != nil {
		return nil, err
	}
	if p.x == nil {
		return nil, fmt.Errorf("cuda: %s: %w: a sparse prepared matrix (the device pool takes dense rows)", op, pursuit.ErrShape)
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", op, err)
	}
	n, nv := p.M.Rows, len(y)
	switch {
	case slots < 1 || n == 0 || nv == 0:
		return nil, fmt.Errorf("cuda: %s: %w: %d slots, %d points, %d variables", op, pursuit.ErrShape, slots, n, nv)
	case kidx == nil && nv != n:
		return nil, fmt.Errorf("cuda: %s: %w: %d variables over %d points need their points", op, pursuit.ErrShape, nv, n)
	case kidx != nil && len(kidx) != nv:
		return nil, fmt.Errorf("cuda: %s: %w: %d points for %d variables", op, pursuit.ErrShape, len(kidx), nv)
	}
	for t, i := range kidx {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("cuda: %s: %w: variable %d's point %d is outside [0, %d)", op, pursuit.ErrShape, t, i, n)
		}
	}
	sp := &svmPool{owner: b, p: p, k: k, n: n, nv: nv}
	err = b.do(func() error {
		var err error
		if sp.rows, err = b.liveMatrix(slots, n, fmt.Sprintf("the SVM's %d kernel rows of %d points", slots, n)); err != nil {
			return err
		}
		if sp.y, err = b.liveMatrix(1, 2*nv, "the SVM's labels"); err != nil {
			return err
		}
		if err := b.toDevice(sp.y.mem.ptr, unsafe.Pointer(&y[0]), int64(nv)*8); err != nil {
			return fmt.Errorf("cuda: %s: copying the labels: %w", op, err)
		}
		if kidx != nil {
			if sp.kidx, err = b.liveMatrix(1, 2*nv, "the SVM's variable points"); err != nil {
				return err
			}
			ki := make([]int64, nv)
			for t, i := range kidx {
				ki[t] = int64(i)
			}
			if err := b.toDevice(sp.kidx.mem.ptr, unsafe.Pointer(&ki[0]), int64(nv)*8); err != nil {
				return fmt.Errorf("cuda: %s: copying the variable points: %w", op, err)
			}
		}
		return nil
	})
	if err != nil {
		_ = sp.Release()
		return nil, err
	}
	return sp, nil
}

func (sp *svmPool) check(op string) error {
	if sp.released.Load() {
		return fmt.Errorf("cuda: %s: %w: the SVM pool was released", op, backend.ErrPrepared)
	}
	if sp.p.Released() {
		return fmt.Errorf("cuda: %s: %w: the SVM pool's prepared matrix was released", op, backend.ErrPrepared)
	}
	return nil
}

// checkSlots checks that every slot is in the pool.
func (sp *svmPool) checkSlots(op string, slots []int) error {
	for r, s := range slots {
		if s < 0 || s >= sp.rows.rows {
			return fmt.Errorf("cuda: %s: %w: slot %d (entry %d) is outside the pool's %d", op, pursuit.ErrShape, s, r, sp.rows.rows)
		}
	}
	return nil
}

// Fill computes the kernel rows of the points idx into the slots, in runs
// of consecutive slots (one gathered kernel block each).
func (sp *svmPool) Fill(slots, idx []int) error {
	const op = "SVMPool.Fill"
	if err := sp.check(op); err != nil {
		return err
	}
	if len(slots) != len(idx) {
		return fmt.Errorf("cuda: %s: %w: %d slots for %d rows", op, pursuit.ErrShape, len(slots), len(idx))
	}
	if err := sp.checkSlots(op, slots); err != nil {
		return err
	}
	for r, i := range idx {
		if i < 0 || i >= sp.n {
			return fmt.Errorf("cuda: %s: %w: point %d (entry %d) is outside [0, %d)", op, pursuit.ErrShape, i, r, sp.n)
		}
	}
	b := sp.owner
	return b.do(func() error {
		for r0 := 0; r0 < len(slots); {
			r1 := r0 + 1
			for r1 < len(slots) && slots[r1] == slots[r1-1]+1 {
				r1++
			}
			ip, err := b.uploadIdx(idx[r0:r1])
			if err != nil {
				return err
			}
			dst := &devMatrix{owner: b, mem: devMem{ptr: sp.rows.at(slots[r0], 0), bytes: int64(r1-r0) * int64(sp.n) * 4},
				rows: r1 - r0, cols: sp.n, ld: sp.n, scratch: true}
			if err := b.kernelBlockDev(dst, sp.k, sp.p.x, sp.p.n, ip, r1-r0, sp.p.x, sp.p.n); err != nil {
				return err
			}
			if err := syncDevice(op); err != nil { // the indices' slot is reused by the next run
				return err
			}
			r0 = r1
		}
		return nil
	})
}

// Solve builds the working set's block from the rows in the slots and runs
// the subproblem on it; see backend.SVMPool.
func (sp *svmPool) Solve(slots, keys []int, y, c, g, a []float64, eps float64, limit int) (int, error) {
	const op = "SVMPool.Solve"
	if err := sp.check(op); err != nil {
		return 0, err
	}
	m := len(g)
	if len(slots) != m || len(keys) != m {
		return 0, fmt.Errorf("cuda: %s: %w: %d slots and %d points for %d variables", op, pursuit.ErrShape, len(slots), len(keys), m)
	}
	if err := checkSub(op, y, c, g, a, limit); err != nil {
		return 0, err
	}
	if err := sp.checkSlots(op, slots); err != nil {
		return 0, err
	}
	for r, k := range keys {
		if k < 0 || k >= sp.n {
			return 0, fmt.Errorf("cuda: %s: %w: point %d (entry %d) is outside [0, %d)", op, pursuit.ErrShape, k, r, sp.n)
		}
	}
	if m == 0 || limit == 0 {
		return 0, nil
	}
	b := sp.owner
	var steps int
	err := b.do(func() error {
		mem, err := b.ensure(slotSub, subBytes(m))
		if err != nil {
			return err
		}
		sl, err := b.upload64(slotSVMIdx, slots)
		if err != nil {
			return err
		}
		kp, err := b.upload64(slotSVMKey, keys)
		if err != nil {
			return err
		}
		tiles := (m + svbTile - 1) / svbTile
		p := svmBlockParams(uintptr(mem.ptr), uintptr(sp.rows.mem.ptr), sp.n, uintptr(sl), uintptr(kp), m)
		if err := b.launch(b.fn.svmBlock, nameSVMBlock, tiles, tiles, svbTile, svbTile, p); err != nil {
			return err
		}
		steps, err = b.solveSub(op, mem, y, c, g, a, eps, limit)
		return err
	})
	return steps, err
}

// Update adds the working set's rows, weighted, to the whole gradient g
// (sent and returned); see backend.SVMPool.
func (sp *svmPool) Update(slots []int, w []float64, g []float64) error {
	const op = "SVMPool.Update"
	if err := sp.check(op); err != nil {
		return err
	}
	if len(slots) != len(w) || len(g) != sp.nv {
		return fmt.Errorf("cuda: %s: %w: %d slots, %d weights, a gradient of %d for %d variables", op, pursuit.ErrShape, len(slots), len(w), len(g), sp.nv)
	}
	if err := sp.checkSlots(op, slots); err != nil {
		return err
	}
	if len(slots) == 0 {
		return nil
	}
	b := sp.owner
	return b.do(func() error {
		gm, err := b.ensure(slotSVMG, int64(sp.nv)*8)
		if err != nil {
			return err
		}
		wm, err := b.ensure(slotSVMW, int64(len(w))*8)
		if err != nil {
			return err
		}
		sl, err := b.upload64(slotSVMIdx, slots)
		if err != nil {
			return err
		}
		if err := b.toDevice(gm.ptr, unsafe.Pointer(&g[0]), int64(sp.nv)*8); err != nil {
			return fmt.Errorf("cuda: %s: copying the gradient to the device: %w", op, err)
		}
		if err := b.toDevice(wm.ptr, unsafe.Pointer(&w[0]), int64(len(w))*8); err != nil {
			return fmt.Errorf("cuda: %s: copying the weights to the device: %w", op, err)
		}
		var kidx uintptr
		if sp.kidx != nil {
			kidx = uintptr(sp.kidx.mem.ptr)
		}
		nb := min(elementBlocks(sp.nv), 4*max(b.info.sms, 1))
		p := svmUpdateParams(uintptr(gm.ptr), uintptr(sp.y.mem.ptr), uintptr(sp.rows.mem.ptr), sp.n, uintptr(sl), uintptr(wm.ptr), len(w), kidx, sp.nv)
		if err := b.launch(b.fn.svmUpdate, nameSVMUpdate, nb, 1, svuThreads, 1, p); err != nil {
			return err
		}
		if err := b.fromDevice(unsafe.Pointer(&g[0]), gm.ptr, int64(sp.nv)*8); err != nil {
			return fmt.Errorf("cuda: %s: copying the gradient from the device: %w", op, err)
		}
		return nil
	})
}

// Release frees the pool's device memory.
func (sp *svmPool) Release() error {
	if !sp.released.CompareAndSwap(false, true) {
		return nil
	}
	err := sp.owner.do(func() error {
		var first error
		for _, m := range []*devMatrix{sp.rows, sp.y, sp.kidx} {
			if m != nil {
				if err := m.free(); err != nil && first == nil {
					first = err
				}
			}
		}
		return first
	})
	if err == errClosed {
		return nil
	}
	return err
}
