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
	if len(kb) != m*m || len(y) != m || len(c) != m || len(a) != m || limit < 0 {
		return 0, fmt.Errorf("cuda: %s: %w: %d variables, block of %d, %d labels, %d bounds, %d α, limit %d",
			op, pursuit.ErrShape, m, len(kb), len(y), len(c), len(a), limit)
	}
	if m == 0 || limit == 0 {
		return 0, nil
	}
	var steps float64
	err := b.do(func() error {
		// One allocation: kb | y | c | g | a | the step count.
		n := int64(m)*int64(m) + 4*int64(m) + 1
		mem, err := b.ensure(slotSub, n*8)
		if err != nil {
			return err
		}
		at := func(off int64) uintptr { return uintptr(mem.ptr) + uintptr(off*8) }
		offY := int64(m) * int64(m)
		offC, offG, offA, offOut := offY+int64(m), offY+2*int64(m), offY+3*int64(m), offY+4*int64(m)
		for _, up := range []struct {
			off int64
			v   []float64
		}{{0, kb}, {offY, y}, {offC, c}, {offG, g}, {offA, a}} {
			if err := b.toDevice(mem.ptr+cu.DevicePtr(up.off*8), unsafe.Pointer(&up.v[0]), int64(len(up.v))*8); err != nil {
				return fmt.Errorf("cuda: %s: copying the subproblem to the device: %w", op, err)
			}
		}
		p := smoSubParams(at(offG), at(offA), at(offOut), at(0), at(offY), at(offC), m, eps, limit)
		if err := b.launch(b.fn.smoSub, nameSMOSub, 1, 1, subThreads, 1, p); err != nil {
			return err
		}
		for _, down := range []struct {
			off int64
			dst unsafe.Pointer
			n   int64
		}{{offG, unsafe.Pointer(&g[0]), int64(m)}, {offA, unsafe.Pointer(&a[0]), int64(m)}, {offOut, unsafe.Pointer(&steps), 1}} {
			if err := b.fromDevice(down.dst, mem.ptr+cu.DevicePtr(down.off*8), down.n*8); err != nil {
				return fmt.Errorf("cuda: %s: copying the result from the device: %w", op, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int(steps), nil
}
