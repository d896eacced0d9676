package data

import (
	"fmt"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
)

// Dataset is a set of examples held in memory: row i of X is example i and
// Y[i] its label (classification) or target (regression). X is dense or,
// for sparse LIBSVM data (WithStorage), compressed sparse rows; every
// operation of this package takes both.
type Dataset struct {
	X    pursuit.Matrix // n×d float32, dense with Stride == Cols or sparse
	Y    []float64      // labels (classification) or targets (regression), len n
	Name string         // file name or description, used in error messages
}

// Len returns the number of examples.
func (d *Dataset) Len() int { return d.X.Rows }

// Dim returns the number of features.
func (d *Dataset) Dim() int { return d.X.Cols }

// Subset returns a new Dataset holding copies of the rows idx (in that order;
// repeats allowed). It panics if an index is out of range, like a slice
// expression.
func (d *Dataset) Subset(idx []int) *Dataset {
	if d.X.IsSparse() {
		return d.subsetSparse(idx)
	}
	out := &Dataset{
		X:    pursuit.NewMatrix(len(idx), d.X.Cols),
		Y:    make([]float64, len(idx)),
		Name: d.Name,
	}
	for k, i := range idx {
		if i < 0 || i >= d.X.Rows {
			panic(fmt.Sprintf("data: Subset index %d out of range [0, %d) in %s", i, d.X.Rows, d.Name))
		}
		copy(out.X.Row(k), d.X.Row(i))
		out.Y[k] = d.Y[i]
	}
	return out
}

// TrainTest splits d into copies of its first n rows, the training set,
// and the rest, the test set, named after d with " (train)" and " (test)"
// (a generated set cut in two: its rows are in random order already).
func (d *Dataset) TrainTest(n int) (train, test *Dataset) {
	a, b := make([]int, n), make([]int, d.Len()-n)
	for i := range a {
		a[i] = i
	}
	for i := range b {
		b[i] = n + i
	}
	train, test = d.Subset(a), d.Subset(b)
	train.Name, test.Name = d.Name+" (train)", d.Name+" (test)"
	return train, test
}

// Reorder permutes the examples in place so that example k becomes the
// former example order[k], with one row of scratch memory (sparse rows: a
// copy of the non-zeros, as rows differ in length): a split can then make
// its parts contiguous views (View) of one matrix instead of copies. order
// must be a permutation of 0..Len()-1.
func (d *Dataset) Reorder(order []int) error {
	n := d.X.Rows
	if len(order) != n {
		return fmt.Errorf("data: Reorder of %d examples with %d indices in %s", n, len(order), d.Name)
	}
	done := make([]bool, n)
	for _, i := range order {
		if i < 0 || i >= n || done[i] {
			return fmt.Errorf("data: Reorder index %d is out of range [0, %d) or repeated in %s", i, n, d.Name)
		}
		done[i] = true
	}
	if d.X.IsSparse() {
		d.reorderSparse(order)
		return nil
	}
	clear(done)
	tmp := make([]float32, d.X.Cols)
	for start := range n {
		if done[start] {
			continue
		}
		copy(tmp, d.X.Row(start))
		ty := d.Y[start]
		for k := start; ; {
			done[k] = true
			src := order[k]
			if src == start {
				copy(d.X.Row(k), tmp)
				d.Y[k] = ty
				break
			}
			copy(d.X.Row(k), d.X.Row(src))
			d.Y[k] = d.Y[src]
			k = src
		}
	}
	return nil
}

// View returns the examples [r0, r1) as a Dataset sharing d's memory.
func (d *Dataset) View(r0, r1 int) *Dataset {
	return &Dataset{X: d.X.Slice(r0, r1, 0, d.X.Cols), Y: d.Y[r0:r1:r1], Name: d.Name}
}

// Bytes returns the memory the examples take: the float32 matrix (dense or
// sparse, pursuit.Matrix.Bytes) and the float64 labels.
func (d *Dataset) Bytes() int64 { return d.X.Bytes() + int64(len(d.Y))*8 }

// Classes returns the distinct labels in increasing order.
func (d *Dataset) Classes() []float64 { return distinct(d.Y) }

// Validate reports whether the Dataset is well formed: a valid matrix (dense
// with Stride == Cols, or sparse rows with increasing columns), one label
// per row, and only finite labels and features.
func (d *Dataset) Validate() error {
	if err := d.X.Validate(); err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	if !d.X.IsSparse() && d.X.Rows > 0 && d.X.Stride != d.X.Cols {
		return fmt.Errorf("%s: matrix stride %d differs from its %d columns", d.Name, d.X.Stride, d.X.Cols)
	}
	if len(d.Y) != d.X.Rows {
		return fmt.Errorf("%s: %d labels for %d rows", d.Name, len(d.Y), d.X.Rows)
	}
	for i, y := range d.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("%s: example %d: label %v is not finite", d.Name, i+1, y)
		}
	}
	if i, j, v, ok := firstNonFinite(d.X); ok {
		return fmt.Errorf("%s: example %d: feature %d is %v, not finite", d.Name, i+1, j+1, v)
	}
	return nil
}

// firstNonFinite returns the first non-finite value of x (row, column), if
// any, dense or sparse.
func firstNonFinite(x pursuit.Matrix) (i, j int, v float32, ok bool) {
	for i := range x.Rows {
		if x.IsSparse() {
			idx, val := x.SparseRow(i)
			for k, v := range val {
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					return i, int(idx[k]), v, true
				}
			}
			continue
		}
		for j, v := range x.Row(i) {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return i, j, v, true
			}
		}
	}
	return 0, 0, 0, false
}

// subsetSparse is Subset for sparse rows: the copy holds the rows'
// non-zeros only.
func (d *Dataset) subsetSparse(idx []int) *Dataset {
	var nnz int64
	c := d.X.Sparse
	for _, i := range idx {
		if i < 0 || i >= d.X.Rows {
			panic(fmt.Sprintf("data: Subset index %d out of range [0, %d) in %s", i, d.X.Rows, d.Name))
		}
		nnz += c.Offsets[i+1] - c.Offsets[i]
	}
	off := make([]int64, 1, len(idx)+1)
	ind := make([]int32, 0, nnz)
	val := make([]float32, 0, nnz)
	y := make([]float64, len(idx))
	for k, i := range idx {
		ri, rv := d.X.SparseRow(i)
		ind = append(ind, ri...)
		val = append(val, rv...)
		off = append(off, int64(len(ind)))
		y[k] = d.Y[i]
	}
	x := pursuit.Matrix{Rows: len(idx), Cols: d.X.Cols, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
	return &Dataset{X: x, Y: y, Name: d.Name}
}

// reorderSparse is Reorder for sparse rows (order checked): the rows'
// non-zeros are copied out in the new order and back into the same span of
// the arrays, so views of d's rows stay views of its storage.
func (d *Dataset) reorderSparse(order []int) {
	c := d.X.Sparse
	base, end := c.Offsets[0], c.Offsets[d.X.Rows]
	ind := make([]int32, 0, end-base)
	val := make([]float32, 0, end-base)
	lens := make([]int64, len(order))
	y := make([]float64, len(order))
	for k, i := range order {
		ri, rv := d.X.SparseRow(i)
		ind = append(ind, ri...)
		val = append(val, rv...)
		lens[k] = int64(len(ri))
		y[k] = d.Y[i]
	}
	copy(c.Indices[base:end], ind)
	copy(c.Values[base:end], val)
	copy(d.Y, y)
	p := base
	for k, l := range lens {
		c.Offsets[k] = p
		p += l
	}
	c.Offsets[len(order)] = p
}

// distinct returns the distinct values of y in increasing order. NaN values
// (which a loaded Dataset never holds) are dropped.
func distinct(y []float64) []float64 {
	s := make([]float64, 0, len(y))
	for _, v := range y {
		if !math.IsNaN(v) {
			s = append(s, v)
		}
	}
	slices.Sort(s)
	return slices.Clone(slices.Compact(s)) // not a prefix of len(y) values kept alive
}
