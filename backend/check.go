package backend

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
)

// Argument checks shared by every Backend implementation, so that all of them
// reject the same inputs with the same messages.

// CheckSqNorms validates the arguments of SqNorms.
func CheckSqNorms(dst []float32, x pursuit.Matrix) error {
	if err := x.Validate(); err != nil {
		return shapeErr("SqNorms", "x: %v", err)
	}
	if len(dst) < x.Rows {
		return shapeErr("SqNorms", "dst has %d elements for %d rows", len(dst), x.Rows)
	}
	return nil
}

// CheckKernelBlock validates the arguments of KernelBlock.
func CheckKernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b pursuit.Matrix, bNorms []float32) error {
	return checkKernelOp("KernelBlock", dst, k, a, aNorms, nil, b, bNorms)
}

// CheckKernelGather validates the arguments of KernelGather.
func CheckKernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32) error {
	if idx == nil {
		idx = []int{} // a gather of no rows, not KernelBlock's identity
	}
	return checkKernelOp("KernelGather", dst, k, a, aNorms, idx, b, bNorms)
}

// checkKernelOp validates a kernel block (idx nil) or gather: dst is
// len(idx)×b.Rows (a.Rows×b.Rows for a block) and every idx[r] a row of a.
func checkKernelOp(op string, dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32) error {
	return checkKernel(op, dst, k, a, aNorms, idx, b, bNorms, false)
}

// checkKernel is checkKernelOp; bValid says that b was validated before
// (a prepared operand, which must not change while its handle is in use),
// so that a call does not read all of a sparse b's indices again.
func checkKernel(op string, dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32, bValid bool) error {
	if err := k.Validate(); err != nil {
		return shapeErrPlain(op, err)
	}
	if err := checkOperands(op, dst, a, idx, b, bValid); err != nil {
		return err
	}
	rows := a.Rows
	if idx != nil {
		rows = len(idx)
	}
	if dst.Rows != rows || dst.Cols != b.Rows {
		return shapeErr(op, "dst is %d×%d, want %d×%d", dst.Rows, dst.Cols, rows, b.Rows)
	}
	if aNorms != nil && len(aNorms) < a.Rows {
		return shapeErr(op, "aNorms has %d elements for %d rows", len(aNorms), a.Rows)
	}
	if bNorms != nil && len(bNorms) < b.Rows {
		return shapeErr(op, "bNorms has %d elements for %d rows", len(bNorms), b.Rows)
	}
	return nil
}

// checkOperands validates dst, a and b (b not when bValid). Of a sparse a
// gathered by idx only the rows idx are read, so only they are validated
// beyond its shape and offsets: Validate reads every index, and an SMO
// solver's gathers of a few rows of X would read all of X's indices each
// time.
func checkOperands(op string, dst, a pursuit.Matrix, idx []int, b pursuit.Matrix, bValid bool) error {
	if err := dst.Validate(); err != nil {
		return shapeErr(op, "dst: %v", err)
	}
	for r, i := range idx {
		if i < 0 || i >= a.Rows {
			return shapeErr(op, "idx[%d] = %d is outside [0, %d)", r, i, a.Rows)
		}
	}
	// a is the prepared b itself (an SMO solver's K(X[idx], X)): validated
	// when it was prepared.
	same := bValid && a.IsSparse() && a.Sparse == b.Sparse && a.Rows == b.Rows && a.Cols == b.Cols
	if !same {
		if err := validateRows(a, idx); err != nil {
			return shapeErr(op, "a: %v", err)
		}
	}
	if !bValid {
		if err := b.Validate(); err != nil {
			return shapeErr(op, "b: %v", err)
		}
	}
	if a.Cols != b.Cols {
		return shapeErr(op, "a has %d features, b has %d", a.Cols, b.Cols)
	}
	return nil
}

// validateRows validates m, or for a sparse m and idx not nil its shape,
// its offsets array and the rows idx (whose indices in range).
func validateRows(m pursuit.Matrix, idx []int) error {
	if !m.IsSparse() || idx == nil {
		return m.Validate()
	}
	shape := pursuit.Matrix{Rows: 0, Cols: m.Cols, Sparse: &pursuit.CSR{Offsets: m.Sparse.Offsets[:min(1, len(m.Sparse.Offsets))], Indices: m.Sparse.Indices, Values: m.Sparse.Values}}
	if m.Rows < 0 || len(m.Sparse.Offsets) != m.Rows+1 {
		return m.Validate() // its message
	}
	if err := shape.Validate(); err != nil {
		return err
	}
	for _, i := range idx {
		if err := m.Slice(i, i+1, 0, m.Cols).Validate(); err != nil {
			return fmt.Errorf("row %d: %v", i, err)
		}
	}
	return nil
}

// CheckDictProducts validates the arguments of DictProducts.
func CheckDictProducts(dst []float64, dict pursuit.Matrix, vecs pursuit.Matrix) error {
	const op = "DictProducts"
	if err := dict.Validate(); err != nil {
		return shapeErr(op, "dict: %v", err)
	}
	if err := vecs.Validate(); err != nil {
		return shapeErr(op, "vecs: %v", err)
	}
	if err := checkDense(op, "dict", dict, "vecs", vecs); err != nil {
		return err
	}
	if dict.Cols != vecs.Cols {
		return shapeErr(op, "dict rows have length %d, vecs rows %d", dict.Cols, vecs.Cols)
	}
	if len(dst) < dict.Rows*vecs.Rows {
		return shapeErr(op, "dst has %d elements, want %d×%d", len(dst), vecs.Rows, dict.Rows)
	}
	return nil
}

// CheckDictProductsSets validates the arguments of DictProductsSets: one
// destination per set, and each set's as DictProducts'.
func CheckDictProductsSets(dst [][]float64, dict pursuit.Matrix, sets []pursuit.Matrix) error {
	const op = "DictProductsSets"
	if len(dst) != len(sets) {
		return shapeErr(op, "%d destinations for %d vector sets", len(dst), len(sets))
	}
	if err := dict.Validate(); err != nil {
		return shapeErr(op, "dict: %v", err)
	}
	if err := checkDense(op, "dict", dict); err != nil {
		return err
	}
	for s, v := range sets {
		if err := CheckDictProducts(dst[s], dict, v); err != nil {
			return shapeErrPlain(op, fmt.Errorf("set %d: %w", s, err))
		}
	}
	return nil
}

// CheckRankUpdate validates the arguments of RankUpdate.
func CheckRankUpdate(d pursuit.Matrix, u pursuit.Matrix, v pursuit.Matrix) error {
	const op = "RankUpdate"
	if err := d.Validate(); err != nil {
		return shapeErr(op, "d: %v", err)
	}
	if err := u.Validate(); err != nil {
		return shapeErr(op, "u: %v", err)
	}
	if err := v.Validate(); err != nil {
		return shapeErr(op, "v: %v", err)
	}
	if err := checkDense(op, "d", d, "u", u, "v", v); err != nil {
		return err
	}
	if u.Rows != v.Rows {
		return shapeErr(op, "u has %d vectors, v has %d", u.Rows, v.Rows)
	}
	if u.Cols != d.Rows || v.Cols != d.Cols {
		return shapeErr(op, "u vectors have length %d and v vectors %d for a %d×%d matrix", u.Cols, v.Cols, d.Rows, d.Cols)
	}
	return nil
}

// checkDense rejects a sparse operand of an operation that takes dense
// ones only (DictProducts, RankUpdate): args are name, matrix pairs.
func checkDense(op string, args ...any) error {
	for i := 0; i+1 < len(args); i += 2 {
		if m := args[i+1].(pursuit.Matrix); m.IsSparse() {
			return shapeErr(op, "%s is sparse: %s takes dense matrices only (kernel blocks, gathers and norms take sparse ones)", args[i], op)
		}
	}
	return nil
}

func shapeErrPlain(op string, err error) error {
	return &opError{op: op, err: err}
}

type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return e.op + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// ScoredArgMaxRef is the straightforward ScoredArgMax, usable by any backend
// for which the O(M) scan is not worth accelerating.
func ScoredArgMaxRef(s, n []float64, skip []bool) (int, float64) {
	best, bestScore := -1, 0.0
	for k := range s {
		if k >= len(n) || !(n[k] > 0) || (skip != nil && k < len(skip) && skip[k]) {
			continue
		}
		sc := s[k]
		if sc < 0 {
			sc = -sc
		}
		sc /= math.Sqrt(n[k])
		if sc != sc { // NaN
			continue
		}
		if best < 0 || sc > bestScore {
			best, bestScore = k, sc
		}
	}
	return best, bestScore
}
