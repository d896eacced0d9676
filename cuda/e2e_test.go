//go:build cuda

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
)

// The end-to-end check: stochastic KMP with pre-fitting (Popovici, Bengio &
// Thiran: a random active set searched each step) written against the
// backend operations only, run on the pure-Go backend, on this backend through host slices, and on this backend
// with everything device-resident. All three must choose the same basis
// functions and reach the same residual.

// skmpOps is what one step needs from a backend.
type skmpOps interface {
	// rows fills the s×l kernel rows K(X[idx], X) and their squared norms.
	rows(idx []int) error
	// products returns <d_i, v_j> for vecs = [R, q_1..q_t], laid out j*s+i.
	products(vecs backend.Matrix) ([]float64, error)
	// argmax picks over numerators p[:s] and denominators n.
	argmax(p, n []float64, skip []bool) (int, float64, error)
	// row returns kernel row i of the current block in float64.
	row(i int) ([]float64, error)
	// rowNorms returns the squared norms of the current block's rows.
	rowNorms() []float64
}

type hostOps struct {
	be    backend.Backend
	k     backend.Kernel
	x     backend.Matrix
	xn    []float32
	block backend.Matrix
	bn    []float32
}

func newHostOps(be backend.Backend, k backend.Kernel, x backend.Matrix, s int) (*hostOps, error) {
	o := &hostOps{be: be, k: k, x: x, xn: make([]float32, x.Rows), bn: make([]float32, s)}
	o.block = backend.NewMatrix(s, x.Rows)
	return o, be.SqNorms(o.xn, x)
}

func (o *hostOps) rows(idx []int) error {
	if err := o.be.KernelGather(o.block, o.k, o.x, o.xn, idx, o.x, o.xn); err != nil {
		return err
	}
	return o.be.SqNorms(o.bn, o.block)
}

func (o *hostOps) products(vecs backend.Matrix) ([]float64, error) {
	p := make([]float64, vecs.Rows*o.block.Rows)
	return p, o.be.DictProducts(p, o.block, vecs)
}

func (o *hostOps) argmax(p, n []float64, skip []bool) (int, float64, error) {
	i, s := o.be.ScoredArgMax(p, n, skip)
	return i, s, nil
}

func (o *hostOps) row(i int) ([]float64, error) {
	r := make([]float64, o.block.Cols)
	for j, v := range o.block.Row(i) {
		r[j] = float64(v)
	}
	return r, nil
}

func (o *hostOps) rowNorms() []float64 {
	n := make([]float64, len(o.bn))
	for i, v := range o.bn {
		n[i] = float64(v)
	}
	return n
}

// residentOps keeps X, its norms, the kernel rows and the products on the
// device; per step only idx, the vectors, 2·s numbers and one row move.
type residentOps struct {
	r                Resident
	k                backend.Kernel
	l, s             int
	x, xn, block, bn Buffer
	prod, nbuf       Buffer
	rowBuf, vecs     Buffer
	vecRows          int
	lastIdx          []int
	rowMat, normMat  backend.Matrix
}

func newResidentOps(r Resident, k backend.Kernel, x backend.Matrix, s int) (*residentOps, error) {
	o := &residentOps{r: r, k: k, l: x.Rows, s: s}
	var err error
	if o.x, err = r.Upload(x); err != nil {
		return nil, err
	}
	if o.xn, err = r.Alloc(1, x.Rows); err != nil {
		return nil, err
	}
	if err = r.SqNormsOn(o.xn, o.x); err != nil {
		return nil, err
	}
	if o.block, err = r.Alloc(s, x.Rows); err != nil {
		return nil, err
	}
	if o.bn, err = r.Alloc(1, s); err != nil {
		return nil, err
	}
	if o.nbuf, err = r.AllocF64(s); err != nil {
		return nil, err
	}
	if o.rowBuf, err = r.Alloc(1, x.Rows); err != nil {
		return nil, err
	}
	o.rowMat = backend.NewMatrix(1, x.Rows)
	o.normMat = backend.NewMatrix(1, s)
	return o, nil
}

func (o *residentOps) rows(idx []int) error {
	o.lastIdx = append(o.lastIdx[:0], idx...)
	if err := o.r.KernelGatherOn(o.block, o.k, o.x, o.xn, idx, o.x, o.xn); err != nil {
		return err
	}
	if err := o.r.SqNormsOn(o.bn, o.block); err != nil {
		return err
	}
	return o.r.Read(o.normMat, o.bn)
}

func (o *residentOps) products(vecs backend.Matrix) ([]float64, error) {
	if o.vecs == nil || o.vecRows != vecs.Rows {
		if o.vecs != nil {
			if err := o.vecs.Free(); err != nil {
				return nil, err
			}
			if err := o.prod.Free(); err != nil {
				return nil, err
			}
		}
		var err error
		if o.vecs, err = o.r.Alloc(vecs.Rows, vecs.Cols); err != nil {
			return nil, err
		}
		if o.prod, err = o.r.AllocF64(vecs.Rows * o.s); err != nil {
			return nil, err
		}
		o.vecRows = vecs.Rows
	}
	if err := o.r.Write(o.vecs, vecs); err != nil {
		return nil, err
	}
	if err := o.r.DictProductsOn(o.prod, o.block, o.vecs); err != nil {
		return nil, err
	}
	p := make([]float64, vecs.Rows*o.s)
	return p, o.r.ReadF64(p, o.prod)
}

func (o *residentOps) argmax(_, n []float64, skip []bool) (int, float64, error) {
	if err := o.r.WriteF64(o.nbuf, n); err != nil {
		return 0, 0, err
	}
	// The numerators <d_i, R> are the first s products, already on the device.
	return o.r.ScoredArgMaxOn(o.prod, o.nbuf, skip)
}

func (o *residentOps) row(i int) ([]float64, error) {
	if err := o.r.KernelGatherOn(o.rowBuf, o.k, o.x, o.xn, o.lastIdx[i:i+1], o.x, o.xn); err != nil {
		return nil, err
	}
	if err := o.r.Read(o.rowMat, o.rowBuf); err != nil {
		return nil, err
	}
	r := make([]float64, o.l)
	for j, v := range o.rowMat.Data {
		r[j] = float64(v)
	}
	return r, nil
}

func (o *residentOps) rowNorms() []float64 {
	n := make([]float64, o.s)
	for i, v := range o.normMat.Data {
		n[i] = float64(v)
	}
	return n
}

type skmpResult struct {
	chosen []int
	scores []float64
	resid  []float64 // ‖R‖ after each step
}

// stochasticKMP runs steps of stochastic KMP with pre-fitting: sample s
// candidates, score <d,R>/‖d⊥‖ with one pass of DictProducts over the kernel
// rows, take the best, orthonormalise it against the basis (twice) and
// deflate the residual.
func stochasticKMP(ops skmpOps, y []float64, steps, s int, seed uint64) (skmpResult, error) {
	l := len(y)
	rng := rand.New(rand.NewPCG(seed, 99))
	r := append([]float64(nil), y...)
	var q [][]float64
	chosen := make(map[int]bool)
	var res skmpResult
	idx := make([]int, s)
	for step := 0; step < steps; step++ {
		perm := rng.Perm(l)
		copy(idx, perm[:s])
		if err := ops.rows(idx); err != nil {
			return res, err
		}
		vecs := backend.NewMatrix(1+len(q), l)
		for j := range l {
			vecs.Set(0, j, float32(r[j]))
			for t := range q {
				vecs.Set(1+t, j, float32(q[t][j]))
			}
		}
		p, err := ops.products(vecs)
		if err != nil {
			return res, err
		}
		norms := ops.rowNorms()
		n := make([]float64, s)
		skip := make([]bool, s)
		for i := range s {
			n[i] = norms[i]
			for t := range q {
				c := p[(1+t)*s+i]
				n[i] -= c * c
			}
			skip[i] = chosen[idx[i]] || n[i] <= 1e-5*norms[i]
		}
		best, score, err := ops.argmax(p[:s], n, skip)
		if err != nil {
			return res, err
		}
		if best < 0 {
			return res, fmt.Errorf("step %d: no eligible candidate", step)
		}
		d, err := ops.row(best)
		if err != nil {
			return res, err
		}
		for range 2 {
			for _, qt := range q {
				c := dot(d, qt)
				for j := range d {
					d[j] -= c * qt[j]
				}
			}
		}
		nd := math.Sqrt(dot(d, d))
		for j := range d {
			d[j] /= nd
		}
		c := dot(d, r)
		for j := range r {
			r[j] -= c * d[j]
		}
		q = append(q, d)
		chosen[idx[best]] = true
		res.chosen = append(res.chosen, idx[best])
		res.scores = append(res.scores, score)
		res.resid = append(res.resid, math.Sqrt(dot(r, r)))
	}
	return res, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// skmpData is a two-class problem: the label is the sign of a smooth
// function of the first two features, with label noise.
func skmpData(l, d int, seed uint64) (backend.Matrix, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := backend.NewMatrix(l, d)
	y := make([]float64, l)
	for i := range l {
		for j := range d {
			x.Set(i, j, float32(2*rng.Float64()-1))
		}
		f := math.Sin(3*float64(x.At(i, 0))) + float64(x.At(i, 1))
		y[i] = 1
		if f < 0 {
			y[i] = -1
		}
		if rng.Float64() < 0.05 {
			y[i] = -y[i]
		}
	}
	return x, y
}

// compareRuns requires the same choices; a differing choice is accepted
// only as a near tie (scores within 1e-4 relative), after which the runs
// are no longer comparable.
func compareRuns(t *testing.T, name string, got, want skmpResult) {
	t.Helper()
	for i := range want.chosen {
		if got.chosen[i] != want.chosen[i] {
			if math.Abs(got.scores[i]-want.scores[i]) <= 1e-4*want.scores[i] {
				t.Logf("%s: step %d: near tie (%d vs %d, scores %v vs %v); stopping the comparison", name, i, got.chosen[i], want.chosen[i], got.scores[i], want.scores[i])
				return
			}
			t.Fatalf("%s: step %d chose %d (score %v), go backend %d (score %v)", name, i, got.chosen[i], got.scores[i], want.chosen[i], want.scores[i])
		}
		if math.Abs(got.scores[i]-want.scores[i]) > 1e-4*want.scores[i] {
			t.Errorf("%s: step %d score %v, go backend %v", name, i, got.scores[i], want.scores[i])
		}
		if math.Abs(got.resid[i]-want.resid[i]) > 1e-4*want.resid[0] {
			t.Errorf("%s: step %d residual %v, go backend %v", name, i, got.resid[i], want.resid[i])
		}
	}
}

func TestStochasticKMPEndToEnd(t *testing.T) {
	be := open(t)
	const l, d, s, steps = 4000, 4, 59, 25
	x, y := skmpData(l, d, 1)
	k := backend.Kernel{Kind: backend.RBF, Gamma: 1}

	goOps, err := newHostOps(backend.NewGo(0), k, x, s)
	if err != nil {
		t.Fatal(err)
	}
	want, err := stochasticKMP(goOps, y, steps, s, 42)
	if err != nil {
		t.Fatal(err)
	}
	// Pre-fitting projects y on a growing subspace: the residual never
	// grows, and 25 RBF functions must explain a good part of this y.
	for i := 1; i < steps; i++ {
		if want.resid[i] > want.resid[i-1]*(1+1e-12) {
			t.Fatalf("reference run: residual grew at step %d: %v → %v", i, want.resid[i-1], want.resid[i])
		}
	}
	if ny := math.Sqrt(dot(y, y)); !(want.resid[steps-1] < 0.9*ny) {
		t.Fatalf("reference run did not fit: ‖y‖ = %v, residual %v after %d steps", ny, want.resid[steps-1], steps)
	}

	hostOps, err := newHostOps(be, k, x, s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stochasticKMP(hostOps, y, steps, s, 42)
	if err != nil {
		t.Fatal(err)
	}
	compareRuns(t, "cuda host slices", got, want)

	resOps, err := newResidentOps(be, k, x, s)
	if err != nil {
		t.Fatal(err)
	}
	got, err = stochasticKMP(resOps, y, steps, s, 42)
	if err != nil {
		t.Fatal(err)
	}
	compareRuns(t, "cuda resident", got, want)
	t.Logf("residual ‖R‖: %.4g → %.4g after %d steps (‖y‖ = %.4g)", want.resid[0], want.resid[steps-1], steps, math.Sqrt(dot(y, y)))
}
