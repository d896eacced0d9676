package svm

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// RowSource supplies the kernel matrix K of l points to the solver, one row
// (or a batch of rows) at a time. A source implements RowSource and either
// KernelRows (float32 rows) or KernelRows64 (float64 rows); when it
// implements both, the solver uses the float64 rows.
type RowSource interface {
	// Len returns l, the number of points.
	Len() int
	// Diag returns K(i, i) for every point, length l.
	Diag() []float64
}

// KernelRows supplies float32 kernel rows.
type KernelRows interface {
	RowSource
	// Rows writes dst[r][j] = K(idx[r], j) for j < Len(); dst is
	// len(idx)×Len().
	Rows(dst pursuit.Matrix, idx []int) error
}

// KernelRows64 supplies float64 kernel rows.
type KernelRows64 interface {
	RowSource
	// Rows64 writes dst[r*Len()+j] = K(idx[r], j); len(dst) ≥ len(idx)·Len().
	Rows64(dst []float64, idx []int) error
}

// EngineRows computes kernel rows K(X[idx], X) of a data matrix through the
// engine's gathered kernel block, against X prepared once (engine.Prepare:
// packed into the backend's GEMM panels, with the squared row norms, instead
// of once per batch of rows).
type EngineRows struct {
	e    *engine.Engine
	x    pursuit.Matrix
	xp   *engine.Prepared
	k    pursuit.Kernel
	diag []float64
}

// NewEngineRows returns the kernel-row source of the rows of x under kernel k.
func NewEngineRows(e *engine.Engine, x pursuit.Matrix, k pursuit.Kernel) (*EngineRows, error) {
	if e == nil {
		return nil, errors.New("svm: kernel rows: nil engine")
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("svm: kernel rows: data matrix: %w", err)
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("svm: kernel rows: %w", err)
	}
	xp, err := e.Prepare(x)
	if err != nil {
		return nil, fmt.Errorf("svm: kernel rows: %w", err)
	}
	diag := make([]float64, x.Rows)
	for i := range diag {
		if k.Kind == pursuit.RBF {
			diag[i] = 1
			continue
		}
		diag[i] = k.FromDot(engine.SqNorm64(x, i), 0)
	}
	return &EngineRows{e: e, x: x, xp: xp, k: k, diag: diag}, nil
}

// Len returns the number of points.
func (r *EngineRows) Len() int { return r.x.Rows }

// Diag returns K(i, i) computed in float64.
func (r *EngineRows) Diag() []float64 { return r.diag }

// Rows computes the kernel rows idx in one gathered block.
func (r *EngineRows) Rows(dst pursuit.Matrix, idx []int) error {
	return r.e.KernelGatherPrepared(dst, r.k, r.x, r.xp.Norms(), idx, r.xp)
}

// Release frees the engine's prepared copy of the data matrix (device
// memory on a GPU); the source must not be used afterwards. The training
// functions release the sources they make.
func (r *EngineRows) Release() error { return r.xp.Release() }

// Gram32 is a precomputed l×l float32 kernel matrix.
type Gram32 struct {
	g    pursuit.Matrix
	diag []float64
}

// NewGram32 wraps a precomputed symmetric l×l kernel matrix (not copied).
func NewGram32(g pursuit.Matrix) (*Gram32, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("svm: Gram matrix: %w", err)
	}
	if g.Rows != g.Cols {
		return nil, fmt.Errorf("svm: Gram matrix must be square, got %d×%d", g.Rows, g.Cols)
	}
	d := make([]float64, g.Rows)
	for i := range d {
		d[i] = float64(g.At(i, i))
		if math.IsNaN(d[i]) || math.IsInf(d[i], 0) {
			return nil, fmt.Errorf("svm: Gram matrix: diagonal entry %d is %v", i, d[i])
		}
	}
	return &Gram32{g: g, diag: d}, nil
}

// Len returns l.
func (g *Gram32) Len() int { return g.g.Rows }

// Diag returns the diagonal.
func (g *Gram32) Diag() []float64 { return g.diag }

// Rows copies rows idx.
func (g *Gram32) Rows(dst pursuit.Matrix, idx []int) error {
	if dst.Rows != len(idx) || dst.Cols != g.g.Rows {
		return fmt.Errorf("svm: Gram rows: destination %d×%d, want %d×%d", dst.Rows, dst.Cols, len(idx), g.g.Rows)
	}
	for r, i := range idx {
		if i < 0 || i >= g.g.Rows {
			return fmt.Errorf("svm: Gram rows: index %d out of range [0, %d)", i, g.g.Rows)
		}
		copy(dst.Row(r), g.g.Row(i))
	}
	return nil
}

// Gram64 is a precomputed l×l float64 kernel matrix, row-major.
type Gram64 struct {
	l    int
	g    []float64
	diag []float64
}

// NewGram64 wraps a precomputed symmetric l×l kernel matrix held row-major
// in g (not copied).
func NewGram64(l int, g []float64) (*Gram64, error) {
	if l <= 0 || len(g) < l*l {
		return nil, fmt.Errorf("svm: Gram matrix: %d values for %d×%d", len(g), l, l)
	}
	d := make([]float64, l)
	for i := range d {
		d[i] = g[i*l+i]
		if math.IsNaN(d[i]) || math.IsInf(d[i], 0) {
			return nil, fmt.Errorf("svm: Gram matrix: diagonal entry %d is %v", i, d[i])
		}
	}
	return &Gram64{l: l, g: g, diag: d}, nil
}

// Len returns l.
func (g *Gram64) Len() int { return g.l }

// Diag returns the diagonal.
func (g *Gram64) Diag() []float64 { return g.diag }

// Rows64 copies rows idx.
func (g *Gram64) Rows64(dst []float64, idx []int) error {
	if len(dst) < len(idx)*g.l {
		return fmt.Errorf("svm: Gram rows: destination holds %d values, want %d", len(dst), len(idx)*g.l)
	}
	for r, i := range idx {
		if i < 0 || i >= g.l {
			return fmt.Errorf("svm: Gram rows: index %d out of range [0, %d)", i, g.l)
		}
		copy(dst[r*g.l:(r+1)*g.l], g.g[i*g.l:(i+1)*g.l])
	}
	return nil
}

// Linear64 is the linear kernel K(i, j) = φ_i·φ_j of explicit float64
// feature vectors (SLMC's φ_z(x_i)), computed in float64.
type Linear64 struct {
	n, d int
	x    []float64
	diag []float64
	tmp  []float64
}

// NewLinear64 wraps n feature vectors of dimension d held row-major in x
// (not copied).
func NewLinear64(n, d int, x []float64) (*Linear64, error) {
	if n <= 0 || d <= 0 || len(x) < n*d {
		return nil, fmt.Errorf("svm: linear features: %d values for %d×%d", len(x), n, d)
	}
	diag := make([]float64, n)
	for i := range diag {
		var s float64
		for _, v := range x[i*d : (i+1)*d] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("svm: linear features: row %d holds %v", i, v)
			}
			s += v * v
		}
		diag[i] = s
	}
	return &Linear64{n: n, d: d, x: x, diag: diag}, nil
}

// Len returns n.
func (f *Linear64) Len() int { return f.n }

// Diag returns ‖φ_i‖².
func (f *Linear64) Diag() []float64 { return f.diag }

// Rows64 computes dst = φ[idx] φᵀ: one pass over the n feature vectors,
// each against four requested rows at a time (each product summed in
// order over the features), in parallel over the vectors. gonum's DGEMM
// took three to four times as long for this shape (a batch of 8 rows
// against 50,000 × 107 features: 94 ms against 32 ms on one core), and the
// rows are what SLMC's inner SVM spends its time on.
func (f *Linear64) Rows64(dst []float64, idx []int) error {
	m := len(idx)
	if len(dst) < m*f.n {
		return fmt.Errorf("svm: linear rows: destination holds %d values, want %d", len(dst), m*f.n)
	}
	if cap(f.tmp) < m*f.d {
		f.tmp = make([]float64, m*f.d)
	}
	a := f.tmp[:m*f.d]
	for r, i := range idx {
		if i < 0 || i >= f.n {
			return fmt.Errorf("svm: linear rows: index %d out of range [0, %d)", i, f.n)
		}
		copy(a[r*f.d:(r+1)*f.d], f.x[i*f.d:(i+1)*f.d])
	}
	parts := 1
	if work := m * f.n * f.d; work >= 1<<18 {
		parts = min(runtime.GOMAXPROCS(0), max(1, f.n/256))
	}
	if parts == 1 {
		linearRows(dst, a, m, f.x, f.d, f.n, 0, f.n)
		return nil
	}
	var wg sync.WaitGroup
	chunk := (f.n + parts - 1) / parts
	for lo := 0; lo < f.n; lo += chunk {
		hi := min(lo+chunk, f.n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			linearRows(dst, a, m, f.x, f.d, f.n, lo, hi)
		}()
	}
	wg.Wait()
	return nil
}

// linearRows writes dst[b·n+i] = a_b·x_i for the m rows a_b of a and the
// vectors x_i, i in [lo, hi), of the n×d row-major x.
func linearRows(dst, a []float64, m int, x []float64, d, n, lo, hi int) {
	for i := lo; i < hi; i++ {
		xi := x[i*d : (i+1)*d : (i+1)*d]
		b := 0
		for ; b+4 <= m; b += 4 {
			a0 := a[b*d : b*d+len(xi)]
			a1 := a[(b+1)*d : (b+1)*d+len(xi)]
			a2 := a[(b+2)*d : (b+2)*d+len(xi)]
			a3 := a[(b+3)*d : (b+3)*d+len(xi)]
			var s0, s1, s2, s3 float64
			for k, v := range xi {
				s0 += v * a0[k]
				s1 += v * a1[k]
				s2 += v * a2[k]
				s3 += v * a3[k]
			}
			dst[b*n+i], dst[(b+1)*n+i], dst[(b+2)*n+i], dst[(b+3)*n+i] = s0, s1, s2, s3
		}
		for ; b < m; b++ {
			ab := a[b*d : b*d+len(xi)]
			var s float64
			for k, v := range xi {
				s += v * ab[k]
			}
			dst[b*n+i] = s
		}
	}
}
