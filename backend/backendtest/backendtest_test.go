package backendtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// The suite is tested on a deliberately simple float32 backend (which must
// pass: the tolerances are not tighter than plain float32 arithmetic allows)
// and on broken variants of it (which must fail: the checks detect what they
// claim to).

// naive is a straightforward backend: sequential float32 inner products,
// float32 transforms, float64 dictionary accumulation unless dict32.
type naive struct {
	dict32     bool // accumulate DictProducts in float32 (wrong)
	skew       bool // perturb one kernel value by 1e-4 relative (wrong)
	noStride   bool // assume Stride == Cols in KernelBlock (wrong)
	spill      bool // write one element past each kernel-block row (wrong)
	panicShape bool // panic instead of returning shape errors (wrong)
	rankOff    bool // drop the last vector of rank updates (wrong)
	noClamp    bool // let the RBF distance go negative (wrong)
	sparseLast bool // drop the last non-zero of each sparse row (wrong)
	denseOnly  bool // reject sparse operands with backend.ErrSparse (allowed)
}

// sparseRejected returns the refusal of a dense-only naive backend for
// sparse operands among ms, or nil.
func (n *naive) sparseRejected(ms ...pursuit.Matrix) error {
	for _, m := range ms {
		if n.denseOnly && m.IsSparse() {
			return fmt.Errorf("naive: %w: %w", pursuit.ErrShape, backend.ErrSparse)
		}
	}
	return nil
}

func (n *naive) Name() string { return "naive" }

func dot32(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func (n *naive) SqNorms(dst []float32, x pursuit.Matrix) error {
	if err := backend.CheckSqNorms(dst, x); err != nil {
		return err
	}
	if err := n.sparseRejected(x); err != nil {
		return err
	}
	for i := range x.Rows {
		dst[i] = dot32(n.row(x, i), n.row(x, i))
	}
	return nil
}

func (n *naive) kernel32(k pursuit.Kernel, a, b []float32, an, bn float32) float32 {
	dot := dot32(a, b)
	g, c := float32(k.Gamma), float32(k.Coef0)
	switch k.Kind {
	case pursuit.Linear:
		return dot
	case pursuit.Polynomial:
		t := g*dot + c
		r := float32(1)
		for range k.Degree {
			r *= t
		}
		return r
	case pursuit.RBF:
		d := an + bn - 2*dot
		if d < 0 && !n.noClamp {
			d = 0
		}
		return float32(math.Exp(float64(-g * d)))
	case pursuit.Sigmoid:
		return float32(math.Tanh(float64(g*dot + c)))
	}
	return float32(math.NaN())
}

func (n *naive) row(m pursuit.Matrix, i int) []float32 {
	if m.IsSparse() {
		r := m.RowTo(make([]float32, m.Cols), i)
		if idx, _ := m.SparseRow(i); n.sparseLast && len(idx) > 0 {
			r[idx[len(idx)-1]] = 0
		}
		return r
	}
	if n.noStride && m.Cols > 0 {
		return m.Data[i*m.Cols : (i+1)*m.Cols]
	}
	return m.Row(i)
}

func (n *naive) KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b pursuit.Matrix, bNorms []float32) error {
	if n.panicShape && a.Cols != b.Cols {
		panic("features differ")
	}
	if err := backend.CheckKernelBlock(dst, k, a, aNorms, b, bNorms); err != nil {
		return err
	}
	idx := make([]int, a.Rows)
	for i := range idx {
		idx[i] = i
	}
	return n.KernelGather(dst, k, a, aNorms, idx, b, bNorms)
}

func (n *naive) KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32) error {
	if err := backend.CheckKernelGather(dst, k, a, aNorms, idx, b, bNorms); err != nil {
		return err
	}
	if err := n.sparseRejected(a, b); err != nil {
		return err
	}
	if bNorms == nil {
		bNorms = make([]float32, b.Rows)
		for j := range b.Rows {
			bNorms[j] = dot32(n.row(b, j), n.row(b, j))
		}
	}
	for r, i := range idx {
		ar := n.row(a, i)
		an := dot32(ar, ar)
		if aNorms != nil {
			an = aNorms[i]
		}
		for j := range b.Rows {
			br := n.row(b, j)
			bn := bNorms[j]
			v := n.kernel32(k, ar, br, an, bn)
			if n.skew && r == dst.Rows-1 && j == dst.Cols-1 {
				v += 1e-4 * (float32(math.Abs(float64(v))) + 1)
			}
			dst.Set(r, j, v)
		}
		if n.spill && dst.Cols > 0 {
			dst.Data[r*dst.Stride+dst.Cols : r*dst.Stride+dst.Cols+1][0] = 0
		}
	}
	return nil
}

func (n *naive) DictProducts(dst []float64, dict pursuit.Matrix, vecs pursuit.Matrix) error {
	if err := backend.CheckDictProducts(dst, dict, vecs); err != nil {
		return err
	}
	for j := range vecs.Rows {
		for i := range dict.Rows {
			if n.dict32 {
				dst[j*dict.Rows+i] = float64(dot32(dict.Row(i), vecs.Row(j)))
				continue
			}
			var s float64
			for p, x := range dict.Row(i) {
				s += float64(x) * float64(vecs.At(j, p))
			}
			dst[j*dict.Rows+i] = s
		}
	}
	return nil
}

func (n *naive) RankUpdate(d pursuit.Matrix, alpha float32, u pursuit.Matrix, v pursuit.Matrix) error {
	if err := backend.CheckRankUpdate(d, u, v); err != nil {
		return err
	}
	k := u.Rows
	if n.rankOff && k > 0 {
		k--
	}
	for i := range d.Rows {
		for j := range d.Cols {
			var s float32
			for t := range k {
				s += u.At(t, i) * v.At(t, j)
			}
			d.Set(i, j, d.At(i, j)+alpha*s)
		}
	}
	return nil
}

func (n *naive) ScoredArgMax(s, nn []float64, skip []bool) (int, float64) {
	return backend.ScoredArgMaxRef(s, nn, skip)
}

// naiveSets adds backend.SetProducts to naive: each set through
// DictProducts, or, with reversed (wrong), summed from the last feature
// down, which rounds differently from DictProducts.
type naiveSets struct {
	naive
	reversed bool
}

func (n *naiveSets) DictProductsSets(dst [][]float64, dict pursuit.Matrix, sets []pursuit.Matrix) error {
	if err := backend.CheckDictProductsSets(dst, dict, sets); err != nil {
		return err
	}
	for s, v := range sets {
		if !n.reversed {
			if err := n.DictProducts(dst[s], dict, v); err != nil {
				return err
			}
			continue
		}
		for j := range v.Rows {
			for i := range dict.Rows {
				var sum float64
				for p := dict.Cols - 1; p >= 0; p-- {
					sum += float64(dict.At(i, p)) * float64(v.At(j, p))
				}
				dst[s][j*dict.Rows+i] = sum
			}
		}
	}
	return nil
}

func TestNaivePasses(t *testing.T) {
	Run(t, &naive{})
	Run(t, &naiveSets{})
	Run(t, &naive{denseOnly: true})
}

// recorder collects failures instead of failing the test.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) { r.msgs = append(r.msgs, fmt.Sprint(args...)) }

func TestSuiteDetectsBugs(t *testing.T) {
	if raceEnabled {
		t.Skip("single-goroutine checks of the suite itself; nothing for the race detector")
	}
	cases := []struct {
		name string
		be   *naive
		run  func(testing.TB, backend.Backend)
	}{
		{"float32 dictionary accumulation", &naive{dict32: true}, testDictProducts},
		{"skewed kernel value", &naive{skew: true}, testKernelBlock},
		{"skewed gathered value", &naive{skew: true}, testKernelGather},
		{"ignores stride", &naive{noStride: true}, testKernelBlock},
		{"writes past rows", &naive{spill: true}, testKernelBlock},
		{"panics on shapes", &naive{panicShape: true}, testErrors},
		{"drops a rank-update vector", &naive{rankOff: true}, testRankUpdate},
		{"no clamp of the RBF distance", &naive{noClamp: true}, testKernelBlock},
		{"drops a sparse non-zero", &naive{sparseLast: true}, testSparse},
	}
	rec := &recorder{TB: t}
	testSetProducts(rec, &naiveSets{reversed: true})
	if len(rec.msgs) == 0 {
		t.Errorf("set products summed in another order: the suite found nothing wrong")
	} else {
		t.Logf("set products summed in another order: %d failures, first: %s", len(rec.msgs), rec.msgs[0])
	}
	for _, c := range cases {
		rec := &recorder{TB: t}
		c.run(rec, c.be)
		if len(rec.msgs) == 0 {
			t.Errorf("%s: the suite found nothing wrong", c.name)
		} else {
			t.Logf("%s: %d failures, first: %s", c.name, len(rec.msgs), rec.msgs[0])
		}
	}
}

// TestRunAccurateDetectsCancellation checks that the accuracy case fails a
// backend that takes RBF distances as ‖a‖²+‖b‖²−2a·b in float32 (the naive
// one, and the pure-Go backend), and that a float64 evaluation passes it.
func TestRunAccurateDetectsCancellation(t *testing.T) {
	for _, ops := range []KernelOps{&naive{}, backend.NewGo(2)} {
		rec := &recorder{TB: t}
		worst := RunAccurate(rec, ops)
		if len(rec.msgs) == 0 {
			t.Errorf("%T: cancelling float32 distances passed RunAccurate (worst error %.3g)", ops, worst)
		} else {
			t.Logf("%T: %d failures (worst error %.3g), first: %s", ops, len(rec.msgs), worst, rec.msgs[0])
		}
	}
	if worst := RunAccurate(t, exact64{}); worst > AccurateTol {
		t.Errorf("float64 reference: worst error %.3g", worst)
	}
}

// exact64 computes kernel values with pursuit.Kernel.Eval, rounded to
// float32.
type exact64 struct{}

func (exact64) KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, _ []float32, b pursuit.Matrix, _ []float32) error {
	for i := range a.Rows {
		for j := range b.Rows {
			dst.Set(i, j, float32(k.Eval(a.Row(i), b.Row(j))))
		}
	}
	return nil
}

func (exact64) KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, _ []float32, idx []int, b pursuit.Matrix, _ []float32) error {
	for r, i := range idx {
		for j := range b.Rows {
			dst.Set(r, j, float32(k.Eval(a.Row(i), b.Row(j))))
		}
	}
	return nil
}
