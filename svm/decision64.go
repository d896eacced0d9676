package svm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Rows64 is a set of sparse float64 rows, as a LIBSVM file holds them:
// row i has the features Index[i] (0-based, increasing) with the values
// Value[i]; Cols is one more than the largest index. It is the input of the
// float64 prediction path (Decision64), which reproduces LIBSVM's
// svm-predict: the data and the support vectors as their text gives them,
// kernels in float64.
type Rows64 struct {
	Index [][]int32
	Value [][]float64
	Cols  int
}

// Len returns the number of rows.
func (r *Rows64) Len() int { return len(r.Index) }

// set fills row i from n (feature, value) pairs given by at, in
// increasing feature order, dropping zeros.
func (r *Rows64) set(i, n int, at func(t int) (int, float64)) {
	idx, val := make([]int32, 0, n), make([]float64, 0, n)
	for t := range n {
		j, v := at(t)
		if v != 0 {
			idx, val = append(idx, int32(j)), append(val, v)
		}
	}
	r.Index[i], r.Value[i] = idx, val
}

// Rows64Of returns the rows of x (dense or sparse) as float64 rows, each
// value exactly x's.
func Rows64Of(x pursuit.Matrix) *Rows64 {
	r := &Rows64{Index: make([][]int32, x.Rows), Value: make([][]float64, x.Rows), Cols: x.Cols}
	for i := range x.Rows {
		if x.IsSparse() {
			c := x.Sparse
			lo, hi := c.Offsets[i], c.Offsets[i+1]
			r.set(i, int(hi-lo), func(t int) (int, float64) {
				return int(c.Indices[lo+int64(t)]), float64(c.Values[lo+int64(t)])
			})
			continue
		}
		row := x.Row(i)
		r.set(i, len(row), func(t int) (int, float64) { return t, float64(row[t]) })
	}
	return r
}

// ReadRows64 reads LIBSVM-format data ("label index:value …", indices from
// 1) with every value in float64, as svm-predict reads it, returning the
// rows and the labels. Indices need not be sorted; a repeated index is an
// error.
func ReadRows64(r io.Reader) (*Rows64, []float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	out := &Rows64{}
	var y []float64
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		label, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("svm: data line %d: bad label %q", line, f[0])
		}
		type pair struct {
			j int32
			v float64
		}
		ps := make([]pair, 0, len(f)-1)
		for _, tok := range f[1:] {
			is, vs, ok := strings.Cut(tok, ":")
			j, err1 := strconv.Atoi(is)
			v, err2 := strconv.ParseFloat(vs, 64)
			if !ok || err1 != nil || err2 != nil || j < 1 || j > 1<<30 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("svm: data line %d: %q is not index:value", line, tok)
			}
			ps = append(ps, pair{int32(j - 1), v})
		}
		sort.Slice(ps, func(a, b int) bool { return ps[a].j < ps[b].j })
		for t := 1; t < len(ps); t++ {
			if ps[t].j == ps[t-1].j {
				return nil, nil, fmt.Errorf("svm: data line %d: feature %d given twice", line, ps[t].j+1)
			}
		}
		if n := len(ps); n > 0 {
			out.Cols = max(out.Cols, int(ps[n-1].j)+1)
		}
		out.Index, out.Value = append(out.Index, nil), append(out.Value, nil)
		out.set(len(out.Index)-1, len(ps), func(t int) (int, float64) { return int(ps[t].j), ps[t].v })
		y = append(y, label)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("svm: reading data: %w", err)
	}
	return out, y, nil
}

// dot64 returns x·z of two sparse rows.
func dot64(xi []int32, xv []float64, zi []int32, zv []float64) float64 {
	var s float64
	for a, b := 0, 0; a < len(xi) && b < len(zi); {
		switch {
		case xi[a] == zi[b]:
			s += xv[a] * zv[b]
			a++
			b++
		case xi[a] < zi[b]:
			a++
		default:
			b++
		}
	}
	return s
}

// sqDist64 returns ‖x − z‖² of two sparse rows, the differences taken
// feature by feature (no cancellation of ‖x‖² + ‖z‖² − 2x·z).
func sqDist64(xi []int32, xv []float64, zi []int32, zv []float64) float64 {
	var s float64
	a, b := 0, 0
	for a < len(xi) || b < len(zi) {
		var d float64
		switch {
		case b == len(zi) || (a < len(xi) && xi[a] < zi[b]):
			d = xv[a]
			a++
		case a == len(xi) || zi[b] < xi[a]:
			d = zv[b]
			b++
		default:
			d = xv[a] - zv[b]
			a++
			b++
		}
		s += d * d
	}
	return s
}

// Decision64 is Decision in float64 throughout: the kernel values
// (pursuit.Kernel.FromDot of float64 products and distances, RBF distances
// as Σ(x_k − z_k)² in pursuit.SqDistF64's four lanes), their sums and the
// support vectors as the model file gave them (a model read by ReadLIBSVMModel keeps its values in float64;
// otherwise SV's float32 values, exactly). It reproduces LIBSVM's
// svm-predict (within a few float64 roundings) where the float32 kernel
// blocks of Decision are accurate to about 1e-6 relative. Rows run in
// parallel on the engine's threads (engine.Engine.For); its backend is not
// used.
func (m *Model) Decision64(e *engine.Engine, x *Rows64) ([]float64, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("svm: Decision64: nil rows")
	}
	if len(x.Value) != len(x.Index) {
		return nil, fmt.Errorf("svm: Decision64: %d index rows but %d value rows", len(x.Index), len(x.Value))
	}
	for i := range x.Index {
		if len(x.Index[i]) != len(x.Value[i]) {
			return nil, fmt.Errorf("svm: Decision64: row %d has %d indices but %d values", i, len(x.Index[i]), len(x.Value[i]))
		}
	}
	sv := m.sv64
	if sv == nil || sv.Len() != m.SV.Rows {
		sv = Rows64Of(m.SV)
	}
	kern := m.Kernel
	rbf := kern.Kind == pursuit.RBF
	// Support vectors with at least half their values non-zero are written
	// out dense once (when the budget has room), and each row as it comes:
	// the lanes of pursuit.SqDistF64 give the same bits as the sparse
	// merge, at about twice its speed.
	width := max(x.Cols, sv.Cols)
	var dense []float64
	if nnz := rows64NonZeros(sv); nnz*2 >= int64(sv.Len())*int64(width) && width > 0 &&
		e.Reserve("the float64 support vectors written out dense", int64(sv.Len())*int64(width)*8) == nil {
		dense = make([]float64, sv.Len()*width)
		for s := range sv.Len() {
			row := dense[s*width : (s+1)*width]
			for t, j := range sv.Index[s] {
				row[j] = sv.Value[s][t]
			}
		}
	}
	return m.sums64(e, x.Len(), func() func(kv []float64, r int) {
		var xd []float64
		if dense != nil {
			xd = make([]float64, width)
		}
		return func(kv []float64, r int) {
			xi, xv := x.Index[r], x.Value[r]
			if dense != nil {
				clear(xd)
				for t, j := range xi {
					xd[j] = xv[t]
				}
				for s := range kv {
					z := dense[s*width : (s+1)*width]
					if rbf {
						kv[s] = kern.FromDot(0, pursuit.SqDistF64(xd, z))
					} else {
						kv[s] = kern.FromDot(pursuit.DotF64(xd, z), 0)
					}
				}
				return
			}
			for s := range kv {
				zi, zv := sv.Index[s], sv.Value[s]
				if rbf {
					kv[s] = kern.FromDot(0, pursuit.SqDistSparseF64(xi, xv, zi, zv))
				} else {
					kv[s] = kern.FromDot(pursuit.DotSparseF64(xi, xv, zi, zv), 0)
				}
			}
		}
	}), nil
}

// rows64NonZeros is the number of values r holds.
func rows64NonZeros(r *Rows64) int64 {
	var n int64
	for _, v := range r.Value {
		n += int64(len(v))
	}
	return n
}

// DecisionValues64 is Decision on the float64 path for x as stored (dense
// or sparse float32 rows): a model that keeps its support vectors as a
// LIBSVM file gave them in float64 (read by ReadLIBSVMModel, not
// UseFloat32Vectors) is Decision64 on x's values; any other takes its
// kernel values from pursuit.Kernel.Values64, the same bits for either
// storage and on every backend, dense rows and support vectors converted
// to float64 once (the vectors' copy checked against e's memory budget).
// The one-vs-one sums are Decision64's. Missing trailing features (x
// narrower than the support vectors, or the reverse) are zero, as in
// Decision.
func (m *Model) DecisionValues64(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("svm: decision: %w", err)
	}
	if m.sv64 != nil && m.sv64.Len() == m.SV.Rows {
		return m.Decision64(e, Rows64Of(x))
	}
	sv, kern := m.SV, m.Kernel
	var sv64 []float64
	if !x.IsSparse() {
		sv64 = e.Float64Rows("the float64 copy of the support vectors", sv)
	}
	return m.sums64(e, x.Rows, func() func(kv []float64, r int) {
		var x64 []float64
		return func(kv []float64, r int) {
			if sv64 == nil {
				kern.Values64(kv, x, r, sv)
				return
			}
			x64 = pursuit.Float64Row(x64, x.Row(r))
			for s := range kv {
				kv[s] = kern.Value64(x64, sv64[s*sv.Cols:(s+1)*sv.Cols])
			}
		}
	}), nil
}

// sums64 returns the n rows' decision values (NumDecision per row) from
// their kernel values against the support vectors, which values(), called
// once per goroutine, writes for row r; rows run in parallel on e's
// threads.
func (m *Model) sums64(e *engine.Engine, n int, values func() func(kv []float64, r int)) []float64 {
	nsv := m.SV.Rows
	nd := m.NumDecision()
	k := m.NumClasses()
	start := make([]int, k+1)
	if m.Type == CSVC {
		for c := range k {
			start[c+1] = start[c] + m.NumSV[c]
		}
	}
	out := make([]float64, n*nd)
	e.For(n, 0, func(lo, hi int) {
		kv := make([]float64, nsv)
		fill := values()
		for r := lo; r < hi; r++ {
			fill(kv, r)
			dst := out[r*nd : (r+1)*nd]
			if nd == 1 {
				var s float64
				for t, c := range m.Coef[0] {
					s += c * kv[t]
				}
				dst[0] = s - m.Rho[0]
				continue
			}
			p := 0
			for i := range k {
				for j := i + 1; j < k; j++ {
					var s float64
					for t, c := range m.Coef[j-1][start[i]:start[i+1]] {
						s += c * kv[start[i]+t]
					}
					for t, c := range m.Coef[i][start[j]:start[j+1]] {
						s += c * kv[start[j]+t]
					}
					dst[p] = s - m.Rho[p]
					p++
				}
			}
		}
	})
	return out
}

// Predict64 is Predict on the float64 path (Decision64): labels by
// LIBSVM's one-vs-one voting, or regression values.
func (m *Model) Predict64(e *engine.Engine, x *Rows64) ([]float64, error) {
	dec, err := m.Decision64(e, x)
	if err != nil {
		return nil, err
	}
	return m.vote(dec, x.Len()), nil
}
