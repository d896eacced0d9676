//go:build cuda

package cuda

import (
	"fmt"
	"unsafe"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit"
)

// SolveSubproblem solves a batched SVM solver's subproblem on the device
// (backend.SubproblemSolver): the m×m block, labels, bounds, gradient and
// α go up, the smo_sub kernel runs the whole inner SMO in one launch of one
// block, and g, α and the step count come back. The results are
// backend.SolveSubproblemRef's bit for bit (the kernel does the host's
// operations in its order, without contraction into FMAs).
func (b *Backend) SolveSubproblem(kb, y, c, g, a []float64, eps float64, limit int) (int, error) {
	const op = "SolveSubproblem"
	m := len(g)
	if len(kb) != m*m {
		return 0, fmt.Errorf("cuda: %s: %w: a block of %d values for %d variables", op, pursuit.ErrShape, len(kb), m)
	}
	if err := checkSub(op, y, c, g, a, limit); err != nil {
		return 0, err
	}
	if m == 0 || limit == 0 {
		return 0, nil
	}
	var steps int
	err := b.do(func() error {
		mem, err := b.ensure(slotSub, subBytes(m))
		if err != nil {
			return err
		}
		if err := b.toDevice(mem.ptr, unsafe.Pointer(&kb[0]), int64(len(kb))*8); err != nil {
			return fmt.Errorf("cuda: %s: copying the block to the device: %w", op, err)
		}
		steps, err = b.solveSub(op, mem, y, c, g, a, eps, limit)
		return err
	})
	return steps, err
}

// checkSub checks a subproblem's vectors.
func checkSub(op string, y, c, g, a []float64, limit int) error {
	m := len(g)
	if len(y) != m || len(c) != m || len(a) != m || limit < 0 {
		return fmt.Errorf("cuda: %s: %w: %d variables, %d labels, %d bounds, %d α, limit %d",
			op, pursuit.ErrShape, m, len(y), len(c), len(a), limit)
	}
	return nil
}

// subBytes is the size of slotSub for m variables: kb | y | c | g | a | the
// step count, all float64.
func subBytes(m int) int64 { return (int64(m)*int64(m) + 4*int64(m) + 1) * 8 }

// solveSub runs smo_sub on the block at the start of mem (slotSub, sized by
// subBytes): y, c, g and a go up, g, a and the step count come back (worker
// thread).
func (b *Backend) solveSub(op string, mem devMem, y, c, g, a []float64, eps float64, limit int) (int, error) {
	m := len(g)
	at := func(off int64) cu.DevicePtr { return mem.ptr + cu.DevicePtr(off*8) }
	offY := int64(m) * int64(m)
	offC, offG, offA, offOut := offY+int64(m), offY+2*int64(m), offY+3*int64(m), offY+4*int64(m)
	for _, up := range []struct {
		off int64
		v   []float64
	}{{offY, y}, {offC, c}, {offG, g}, {offA, a}} {
		if err := b.toDevice(at(up.off), unsafe.Pointer(&up.v[0]), int64(len(up.v))*8); err != nil {
			return 0, fmt.Errorf("cuda: %s: copying the subproblem to the device: %w", op, err)
		}
	}
	p := smoSubParams(uintptr(at(offG)), uintptr(at(offA)), uintptr(at(offOut)), uintptr(at(0)), uintptr(at(offY)), uintptr(at(offC)), m, eps, limit)
	if err := b.launch(b.fn.smoSub, nameSMOSub, 1, 1, subThreads, 1, p); err != nil {
		return 0, err
	}
	var steps float64
	for _, down := range []struct {
		off int64
		dst unsafe.Pointer
		n   int64
	}{{offG, unsafe.Pointer(&g[0]), int64(m)}, {offA, unsafe.Pointer(&a[0]), int64(m)}, {offOut, unsafe.Pointer(&steps), 1}} {
		if err := b.fromDevice(down.dst, at(down.off), down.n*8); err != nil {
			return 0, fmt.Errorf("cuda: %s: copying the result from the device: %w", op, err)
		}
	}
	return int(steps), nil
}
