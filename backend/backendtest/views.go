package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pursuit-ml/pursuit"
)

// guard32 and guard64 are the NaN bit patterns written around and between
// views; a backend that writes outside a view changes them, and one that
// reads outside an input view gets NaN into its results.
var (
	guard32 = math.Float32frombits(0x7fc0dead)
	guard64 = math.Float64frombits(0x7ff8_0000_dead_beef)
)

// layout says where a view sits in its buffer.
type layout struct {
	name string
	pad  int // Stride − Cols
	off  int // index of the view's first element in the buffer
}

// layouts: a compact view (still with guard bands before and after) and an
// unaligned one whose rows are padded and whose first element is at an odd
// offset, so no row starts on a 16-byte boundary pattern the backend could
// rely on.
var layouts = []layout{
	{name: "compact", pad: 0, off: 16},
	{name: "unaligned", pad: 3, off: 5},
}

// tail is the guard band after the last row.
const tail = 19

// view is a Matrix inside a guarded buffer.
type view struct {
	m   pursuit.Matrix
	buf []float32
	off int
}

// newView returns a rows×cols view laid out as l, filled by fill (or left at
// zero when fill is nil); everything in the buffer outside the view is the
// guard NaN.
func newView(rows, cols int, l layout, fill func(i, j int) float32) *view {
	stride := cols + l.pad
	n := l.off + tail
	if rows > 0 {
		n += (rows-1)*stride + cols
	}
	buf := make([]float32, n)
	for i := range buf {
		buf[i] = guard32
	}
	m := pursuit.Matrix{Rows: rows, Cols: cols, Stride: stride}
	if rows > 0 && cols > 0 {
		m.Data = buf[l.off : l.off+(rows-1)*stride+cols]
	}
	v := &view{m: m, buf: buf, off: l.off}
	for i := range rows {
		for j := range cols {
			var x float32
			if fill != nil {
				x = fill(i, j)
			}
			m.Set(i, j, x)
		}
	}
	return v
}

// inside reports whether buffer index p belongs to the view.
func (v *view) inside(p int) bool {
	q := p - v.off
	if q < 0 || v.m.Rows == 0 || v.m.Cols == 0 {
		return false
	}
	return q/v.m.Stride < v.m.Rows && q%v.m.Stride < v.m.Cols
}

// checkGuards returns an error naming the first guard element that changed.
func (v *view) checkGuards() error {
	for p, x := range v.buf {
		if !v.inside(p) && math.Float32bits(x) != math.Float32bits(guard32) {
			return fmt.Errorf("wrote %v outside the %d×%d view (stride %d) at buffer offset %d (view starts at %d)",
				x, v.m.Rows, v.m.Cols, v.m.Stride, p, v.off)
		}
	}
	return nil
}

// snapshot returns a copy of the buffer's bits.
func (v *view) snapshot() []uint32 {
	s := make([]uint32, len(v.buf))
	for i, x := range v.buf {
		s[i] = math.Float32bits(x)
	}
	return s
}

// unchanged returns an error if the buffer differs from snap.
func (v *view) unchanged(snap []uint32) error {
	for i, x := range v.buf {
		if math.Float32bits(x) != snap[i] {
			return fmt.Errorf("input modified at buffer offset %d: %v", i, x)
		}
	}
	return nil
}

// guarded64 is a float64 output slice of length n with guard bands.
type guarded64 struct {
	buf []float64
	s   []float64
}

func newGuarded64(n int) *guarded64 {
	buf := make([]float64, n+8)
	for i := range buf {
		buf[i] = guard64
	}
	return &guarded64{buf: buf, s: buf[3 : 3+n]}
}

func (g *guarded64) checkGuards() error {
	for p, x := range g.buf {
		if (p < 3 || p >= 3+len(g.s)) && math.Float64bits(x) != math.Float64bits(guard64) {
			return fmt.Errorf("wrote %v outside the output (element %d relative to its start, length %d)", x, p-3, len(g.s))
		}
	}
	return nil
}

// guardedF32 is a float32 output slice of length n followed by extra guard
// elements that belong to the slice (len(dst) > needed is allowed by the
// interface) and must not be written either.
type guardedF32 struct {
	buf    []float32
	s      []float32
	needed int
}

func newGuardedF32(needed, extra int) *guardedF32 {
	buf := make([]float32, needed+extra+6)
	for i := range buf {
		buf[i] = guard32
	}
	return &guardedF32{buf: buf, s: buf[3 : 3+needed+extra], needed: needed}
}

func (g *guardedF32) checkGuards() error {
	for p, x := range g.buf {
		if (p < 3 || p >= 3+g.needed) && math.Float32bits(x) != math.Float32bits(guard32) {
			return fmt.Errorf("wrote %v at element %d of a %d-element output (only the first %d may be written)", x, p-3, len(g.s), g.needed)
		}
	}
	return nil
}

// uniform returns a fill function drawing from [lo, hi).
func uniform(rng *rand.Rand, lo, hi float64) func(i, j int) float32 {
	return func(i, j int) float32 { return float32(lo + (hi-lo)*rng.Float64()) }
}

// norms returns the squared row norms of m rounded to float32, followed by
// extra guard NaNs (which the backend must not read).
func norms(m pursuit.Matrix, extra int) []float32 {
	out := make([]float32, m.Rows+extra)
	for i := range out {
		out[i] = guard32
	}
	for i := range m.Rows {
		v, _ := refSqNorm(m.Row(i))
		out[i] = float32(v)
	}
	return out
}
