package svm

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Model is a trained SVM in LIBSVM's layout, for C-SVC (binary or
// one-vs-one multi-class) and ε-SVR.
//
// With k = len(Labels) classes (k = 2 for binary, and Labels nil for
// ε-SVR), the support vectors SV are grouped by class (NumSV[c] of class
// Labels[c], in training order), Coef has k−1 rows of len(SV) coefficients
// and Rho has k(k−1)/2 entries, one per pair (i, j), i < j, in the order
// (0,1), (0,2), …, (1,2), …. The decision value of pair (i, j) is
//
//	f_ij(x) = Σ_{s ∈ class i} Coef[j−1][s] K(sv_s, x) + Σ_{s ∈ class j} Coef[i][s] K(sv_s, x) − Rho[p]
//
// and is positive for class Labels[i]. For binary and ε-SVR models this is
// f(x) = Σ_s Coef[0][s] K(sv_s, x) − Rho[0], with Coef[0][s] = y_s α_s (or
// α_s − α*_s) and bias b = −Rho[0]; see Binary.
type Model struct {
	Type    Type
	Kernel  pursuit.Kernel
	Labels  []float64      // class labels in model order (nil for ε-SVR)
	NumSV   []int          // support vectors per class (nil for ε-SVR)
	SV      pursuit.Matrix // support vectors, one per row
	SVIndex []int          // training-set indices of the SVs (nil when read from a file)
	Coef    [][]float64    // k−1 rows of len(SV) coefficients
	Rho     []float64      // k(k−1)/2 offsets
	ProbA   []float64      // Platt sigmoid slopes, one per pair (nil without probability)
	ProbB   []float64      // Platt sigmoid offsets
	// Stats describes the training of each pair (nil when read from a file).
	Stats []TrainStats
	// sv64 holds the support vectors as a LIBSVM file wrote them, in
	// float64, for Decision64 (nil: SV's values are the model's).
	sv64 *Rows64
}

// UseFloat32Vectors makes Decision64 take the support vectors from SV's
// float32 values rather than from the file's decimals. That is right for a
// model Pursuit trained: its vectors were float32 when it was trained, and
// the file spells each as its shortest float32 decimal, which read as a
// float64 is a different number (by up to 3e-8 relative; enough, times a
// hard ε-tube's coefficients, to leave the tube). A model svm-train wrote
// keeps its float64 values.
func (m *Model) UseFloat32Vectors() { m.sv64 = nil }

// TrainStats records the solver's result for one binary subproblem.
type TrainStats struct {
	Obj       float64 // dual objective, LIBSVM's "obj"
	Rho       float64
	Iter      int
	OuterIter int // the batched solver's outer iterations (0 for SMO)
	// DeviceSubproblems counts the batched solver's subproblems solved on
	// the device (0 on the CPU backends and for SMO).
	DeviceSubproblems int
	// DeviceRows counts the kernel rows the batched solver computed into
	// its pool on the device (engine.NewSVMPool; 0 when they came to the
	// host).
	DeviceRows int
	NumSV      int
	NumBSV     int
	Converged  bool
	// Kernel rows computed and cache hits/misses.
	RowsComputed, CacheHits, CacheMisses int
}

// NumClasses returns the number of classes (2 for ε-SVR, as LIBSVM writes).
func (m *Model) NumClasses() int {
	if m.Type == EpsilonSVR {
		return 2
	}
	return len(m.Labels)
}

// NumDecision returns how many decision values Decision gives per example:
// k(k−1)/2 for a k-class model, 1 for binary and ε-SVR.
func (m *Model) NumDecision() int { return len(m.Rho) }

// TotalSV returns the number of support vectors.
func (m *Model) TotalSV() int { return m.SV.Rows }

// Binary returns the coefficients and bias of a binary C-SVC or ε-SVR
// model: f(x) = Σ_s coef[s] K(sv_s, x) + b (positive f means Labels[0],
// which is +1 for ±1 labels). It fails for a multi-class model.
func (m *Model) Binary() (coef []float64, b float64, err error) {
	if len(m.Rho) != 1 || len(m.Coef) != 1 {
		return nil, 0, fmt.Errorf("svm: Binary: model has %d classes", m.NumClasses())
	}
	return m.Coef[0], -m.Rho[0], nil
}

// Check reports whether the model is usable: a valid kernel and support
// vectors, and coefficient, offset and per-class counts that fit the
// number of classes and support vectors. Exporters call it before they
// write a model in another format.
func (m *Model) Check() error { return m.check() }

// check validates the model's shapes.
func (m *Model) check() error {
	if err := m.Kernel.Validate(); err != nil {
		return fmt.Errorf("svm: model kernel: %w", err)
	}
	if err := m.SV.Validate(); err != nil {
		return fmt.Errorf("svm: model support vectors: %w", err)
	}
	k := m.NumClasses()
	if k < 2 {
		return fmt.Errorf("svm: model has %d classes", k)
	}
	if len(m.Coef) != k-1 || len(m.Rho) != k*(k-1)/2 {
		return fmt.Errorf("svm: model with %d classes has %d coefficient rows and %d offsets", k, len(m.Coef), len(m.Rho))
	}
	for _, c := range m.Coef {
		if len(c) != m.SV.Rows {
			return fmt.Errorf("svm: model has %d coefficients for %d support vectors", len(c), m.SV.Rows)
		}
	}
	if m.Type == CSVC {
		if len(m.NumSV) != k {
			return fmt.Errorf("svm: model has %d per-class SV counts for %d classes", len(m.NumSV), k)
		}
		t := 0
		for c, n := range m.NumSV {
			if n < 0 || n > m.SV.Rows {
				return fmt.Errorf("svm: model gives class %d %d support vectors (of %d)", c+1, n, m.SV.Rows)
			}
			t += n
		}
		if t != m.SV.Rows {
			return fmt.Errorf("svm: model per-class SV counts sum to %d, not %d", t, m.SV.Rows)
		}
	}
	return nil
}

// kernelBlocks calls f with consecutive row blocks of x and the kernel block
// K(x[r0:r1], SV), the block being at most about 32 MiB.
func (m *Model) kernelBlocks(e *engine.Engine, x pursuit.Matrix, f func(r0 int, kv pursuit.Matrix)) error {
	if e == nil {
		return fmt.Errorf("svm: nil engine")
	}
	if err := m.check(); err != nil {
		return err
	}
	if err := x.Validate(); err != nil {
		return fmt.Errorf("svm: input matrix: %w", err)
	}
	sv := m.SV
	if x.Cols != sv.Cols && x.IsSparse() != sv.IsSparse() {
		// The dense one of a sparse and a dense operand of different
		// widths is widened as sparse rows (its non-zeros), not padded
		// to the other's width, which may be vast.
		if x.IsSparse() {
			sv = sparseRows(sv)
		} else {
			x = sparseRows(x)
		}
	}
	switch {
	case x.Cols < sv.Cols:
		x = padCols(x, sv.Cols)
	case x.Cols > sv.Cols:
		sv = padCols(sv, x.Cols)
	}
	if sv.Rows == 0 || x.Rows == 0 {
		return nil
	}
	svNorms, err := e.SqNorms(sv)
	if err != nil {
		return fmt.Errorf("svm: support-vector norms: %w", err)
	}
	// Blocks of at most 4 MB of kernel values (the 32 MB blocks this took
	// before made the prediction of rcv1-shaped test rows the peak of a
	// train --test run: 55 MB, 27 MB with 4), of equal rows, so that no
	// block is a short tail, which would take the backend's few-rows path
	// and its other rounding.
	chunk := max(1, (4<<20)/(4*sv.Rows))
	chunk = (x.Rows + (x.Rows+chunk-1)/chunk - 1) / ((x.Rows + chunk - 1) / chunk)
	if err := e.Reserve("an SVM decision kernel block", int64(chunk)*int64(sv.Rows)*4); err != nil {
		return err
	}
	buf := make([]float32, chunk*sv.Rows)
	for r0 := 0; r0 < x.Rows; r0 += chunk {
		r1 := min(r0+chunk, x.Rows)
		kv := pursuit.Matrix{Rows: r1 - r0, Cols: sv.Rows, Stride: sv.Rows, Data: buf[:(r1-r0)*sv.Rows]}
		if err := e.KernelBlock(kv, m.Kernel, x.Slice(r0, r1, 0, x.Cols), nil, sv, svNorms); err != nil {
			return fmt.Errorf("svm: decision kernel block: %w", err)
		}
		f(r0, kv)
	}
	return nil
}

// sparseRows returns the non-zeros of a dense m as sparse rows (m itself
// when it is sparse).
func sparseRows(m pursuit.Matrix) pursuit.Matrix {
	if m.IsSparse() {
		return m
	}
	off := make([]int64, 1, m.Rows+1)
	var ind []int32
	var val []float32
	for i := range m.Rows {
		for j, v := range m.Row(i) {
			if v != 0 {
				ind = append(ind, int32(j))
				val = append(val, v)
			}
		}
		off = append(off, int64(len(ind)))
	}
	return pursuit.Matrix{Rows: m.Rows, Cols: m.Cols, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
}

// padCols returns m widened to cols columns with zeros: a copy of dense
// rows, the same storage for sparse ones (their non-zeros stay where they
// are).
func padCols(m pursuit.Matrix, cols int) pursuit.Matrix {
	if m.IsSparse() {
		m.Cols = cols
		return m
	}
	out := pursuit.NewMatrix(m.Rows, cols)
	for i := range m.Rows {
		copy(out.Row(i), m.Row(i))
	}
	return out
}

// Decision returns the decision values of the rows of x: NumDecision()
// values per row, row-major (LIBSVM's order for multi-class). Missing
// trailing features (x narrower than the support vectors, or the reverse)
// are zero.
func (m *Model) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	nd := m.NumDecision()
	out := make([]float64, x.Rows*nd)
	k := m.NumClasses()
	start := make([]int, k+1)
	if m.Type == CSVC {
		for c := range k {
			start[c+1] = start[c] + m.NumSV[c]
		}
	}
	err := m.kernelBlocks(e, x, func(r0 int, kv pursuit.Matrix) {
		for r := range kv.Rows {
			row := kv.Row(r)
			dst := out[(r0+r)*nd : (r0+r+1)*nd]
			if nd == 1 {
				var s float64
				for t, c := range m.Coef[0] {
					s += c * float64(row[t])
				}
				dst[0] = s - m.Rho[0]
				continue
			}
			p := 0
			for i := range k {
				for j := i + 1; j < k; j++ {
					var s float64
					ci := m.Coef[j-1][start[i]:start[i+1]]
					for t, c := range ci {
						s += c * float64(row[start[i]+t])
					}
					cj := m.Coef[i][start[j]:start[j+1]]
					for t, c := range cj {
						s += c * float64(row[start[j]+t])
					}
					dst[p] = s - m.Rho[p]
					p++
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Predict returns the predicted label (C-SVC, by LIBSVM's one-vs-one
// voting, ties to the class listed first) or regression value (ε-SVR) of
// each row of x.
func (m *Model) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	dec, err := m.Decision(e, x)
	if err != nil {
		return nil, err
	}
	return m.vote(dec, x.Rows), nil
}

// vote turns the decision values of rows rows into labels by LIBSVM's
// one-vs-one voting (C-SVC), or returns them (ε-SVR).
func (m *Model) vote(dec []float64, rows int) []float64 {
	if m.Type == EpsilonSVR {
		return dec
	}
	k := m.NumClasses()
	nd := m.NumDecision()
	out := make([]float64, rows)
	votes := make([]int, k)
	for r := range rows {
		clear(votes)
		p := 0
		for i := range k {
			for j := i + 1; j < k; j++ {
				if dec[r*nd+p] > 0 {
					votes[i]++
				} else {
					votes[j]++
				}
				p++
			}
		}
		best := 0
		for c := 1; c < k; c++ {
			if votes[c] > votes[best] {
				best = c
			}
		}
		out[r] = m.Labels[best]
	}
	return out
}

// PredictProbability returns, for each row of x, the probability of each
// class (k values per row, in Labels order) from the Platt sigmoids and
// pairwise coupling (Wu, Lin & Weng 2004, as LIBSVM). The model must have
// been trained with Probability.
func (m *Model) PredictProbability(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	if m.Type != CSVC || len(m.ProbA) != len(m.Rho) || len(m.ProbB) != len(m.Rho) {
		return nil, fmt.Errorf("svm: the model has no probability information (train with Params.Probability)")
	}
	dec, err := m.Decision(e, x)
	if err != nil {
		return nil, err
	}
	k := m.NumClasses()
	nd := m.NumDecision()
	out := make([]float64, x.Rows*k)
	r2 := make([][]float64, k)
	for i := range r2 {
		r2[i] = make([]float64, k)
	}
	const minProb = 1e-7
	for r := range x.Rows {
		p := 0
		for i := range k {
			for j := i + 1; j < k; j++ {
				v := sigmoidPredict(dec[r*nd+p], m.ProbA[p], m.ProbB[p])
				v = math.Min(math.Max(v, minProb), 1-minProb)
				r2[i][j], r2[j][i] = v, 1-v
				p++
			}
		}
		if k == 2 {
			out[r*k], out[r*k+1] = r2[0][1], r2[1][0]
			continue
		}
		multiclassProbability(r2, out[r*k:(r+1)*k])
	}
	return out, nil
}
