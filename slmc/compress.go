package slmc

import (
	"fmt"
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// Compression methods for CompressConfig.Method.
const (
	MethodSLMC = "slmc" // SLMC started from a random subset of the machine's support vectors
	MethodMRS  = "mrs"  // Burges' reduced set, coefficients refitted as the SVM on their span (eq. 45)
	MethodRS   = "rs"   // Burges' reduced set, coefficients and bias fitted to the SVM's decision values at its SVs
)

// CompressConfig configures Compress.
type CompressConfig struct {
	// Method is MethodSLMC (the default, ""), MethodMRS or MethodRS. All
	// three need the RBF kernel (their gradients are derived for
	// exp(−γ‖x−z‖²)); another kernel is refused with an error wrapping
	// ErrKernel and pursuit.ErrConfig.
	Method string
	// NumXV is the number of expansion vectors of each binary machine
	// (capped, for a one-vs-one model, at the machine's own vector count).
	// 0: Fraction.
	NumXV int
	// Fraction sizes each machine as round(Fraction·its vectors), at
	// least 1. Used when NumXV is 0; default 0.1 (the paper's 10%).
	Fraction float64
	// C is the SVM cost of SLMC's and MRS's inner problem. 0: the largest
	// |coefficient| of the model, which is the C it was trained with when
	// any support vector is at its bound, and otherwise the smallest C
	// that gives the same SVM.
	C    float64
	Seed uint64 // the initial vectors of SLMC (a random subset of the SVs)
	// Solver and Optim tune SLMC's inner SVM and its L-BFGS (and MRS's
	// final fit); RS tunes the reduced set of RS and MRS.
	Solver SolverOptions
	Optim  OptimOptions
	RS     RSOptions
	// Progress, if not nil, receives one line per machine started and
	// finished, every ProgressEvery L-BFGS iterations of SLMC, and at least
	// every 30 s of the reduced set's greedy phase (RS and MRS).
	Progress func(line string)
	// ProgressEvery is the iteration interval of SLMC's progress lines
	// (default 10); a line also comes when 30 s have passed since the last.
	ProgressEvery int
}

// progressGap is the longest time between two of Compress's progress lines
// during SLMC's minimisation.
const progressGap = 30 * time.Second

// Machine is one compressed binary machine of a Compressed model: its
// decision Model.Decision is positive for the class Labels[Pos] and
// negative for Labels[Neg].
type Machine struct {
	Pos, Neg int
	Model    *Model
	// Original is the number of vectors the machine had in the SVM (its
	// support vectors with a non-zero coefficient).
	Original int
	// Stop says why SLMC's minimisation stopped ("" for RS and MRS).
	Stop string
}

// Compressed is an SVM compressed by Compress: one machine for a binary
// model, k(k−1)/2 for a k-class one-vs-one model, in LIBSVM's pair order
// (0,1), (0,2), …, (1,2), …, each with its own expansion vectors.
type Compressed struct {
	Labels   []float64 // the SVM's class labels, in its order
	Kernel   pursuit.Kernel
	Machines []Machine
	Method   string
}

// NumXV returns the number of expansion vectors over all machines (the
// kernel evaluations a prediction costs).
func (c *Compressed) NumXV() int {
	n := 0
	for _, m := range c.Machines {
		n += m.Model.NumXV()
	}
	return n
}

// Predict returns the predicted label of each row of x: the sign of the
// machine for a binary model, LIBSVM's one-vs-one vote for a multi-class
// one (ties to the class listed first in Labels), so that the SVM returned
// by SVM predicts the same.
func (c *Compressed) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	k := len(c.Labels)
	votes := make([]int, x.Rows*k)
	for _, m := range c.Machines {
		d, err := m.Model.Decision(e, x)
		if err != nil {
			return nil, err
		}
		for r, v := range d {
			if v > 0 {
				votes[r*k+m.Pos]++
			} else {
				votes[r*k+m.Neg]++
			}
		}
	}
	out := make([]float64, x.Rows)
	for r := range out {
		v := votes[r*k : (r+1)*k]
		best := 0
		for i := 1; i < k; i++ {
			if v[i] > v[best] {
				best = i
			}
		}
		out[r] = c.Labels[best]
	}
	return out, nil
}

// SVM returns the compressed model as an svm.Model in LIBSVM's layout
// (C-SVC, the same labels in the same order), which WriteLIBSVM writes for
// svm-predict and which predicts what Predict predicts: machine (i, j)'s
// expansion vectors are stored in class i's group with their coefficients
// in row j−1 and zeros in every other row, so each pair's decision value is
// exactly its machine's (LIBSVM shares a class's vectors between its pairs;
// a zero coefficient leaves a vector out of a pair). The machines must be in
// LIBSVM's pair order, as Compress returns them.
func (c *Compressed) SVM() (*svm.Model, error) {
	k := len(c.Labels)
	if k < 2 || len(c.Machines) != k*(k-1)/2 {
		return nil, fmt.Errorf("slmc: %d machines for %d classes", len(c.Machines), k)
	}
	groups := make([][]int, k) // machines whose vectors go into class i's group
	p := 0
	for i := range k {
		for j := i + 1; j < k; j++ {
			m := c.Machines[p]
			if m.Pos != i || m.Neg != j {
				return nil, fmt.Errorf("slmc: machine %d separates classes %d and %d, LIBSVM's order wants %d and %d", p, m.Pos, m.Neg, i, j)
			}
			groups[i] = append(groups[i], p)
			p++
		}
	}
	total, dim := c.NumXV(), 0
	for _, m := range c.Machines {
		dim = max(dim, m.Model.XV.Cols)
	}
	out := &svm.Model{Type: svm.CSVC, Kernel: c.Kernel, Labels: append([]float64(nil), c.Labels...),
		NumSV: make([]int, k), SV: pursuit.NewMatrix(total, dim), Coef: make([][]float64, k-1), Rho: make([]float64, len(c.Machines))}
	for r := range out.Coef {
		out.Coef[r] = make([]float64, total)
	}
	s := 0
	for i, g := range groups {
		for _, p := range g {
			m := c.Machines[p]
			out.Rho[p] = -m.Model.Bias
			for u := range m.Model.NumXV() {
				copy(out.SV.Row(s), m.Model.XV.Row(u))
				out.Coef[m.Neg-1][s] = m.Model.Beta[u]
				s++
			}
			out.NumSV[i] += m.Model.NumXV()
		}
	}
	return out, nil
}

// pairExpansion returns the binary machine (i, j) of the C-SVC m as an
// expansion positive for Labels[i], keeping the vectors with a non-zero
// coefficient. x.Cols ≥ m.SV.Cols: narrower vectors are widened with zeros.
func pairExpansion(m *svm.Model, i, j, p, cols int) *Expansion {
	k := len(m.Labels)
	start := make([]int, k+1)
	for c := range k {
		start[c+1] = start[c] + m.NumSV[c]
	}
	var idx []int
	var coef []float64
	add := func(c, row int) {
		for s := start[c]; s < start[c+1]; s++ {
			if v := m.Coef[row][s]; v != 0 {
				idx = append(idx, s)
				coef = append(coef, v)
			}
		}
	}
	add(i, j-1)
	add(j, i)
	v := pursuit.NewMatrix(len(idx), cols)
	for r, s := range idx {
		m.SV.RowTo(v.Row(r), s) // dense or sparse support vectors
	}
	return &Expansion{Kernel: m.Kernel, Vectors: v, Coef: coef, Bias: -m.Rho[p]}
}

// Compress shrinks the C-SVC m — binary, or multi-class one-vs-one as
// svm-train builds it — to a few expansion vectors per binary machine with
// SLMC, MRS or RS (cfg.Method), given the rows x it was trained on and
// their labels y (the model's class labels; a one-vs-one pair is trained
// on the rows of its two classes). A model read with svm.ReadLIBSVMModel
// may have fewer features than x (LIBSVM drops trailing zeros); more is
// refused.
//
// A one-vs-one model is compressed pair by pair, and the pairs do not share
// expansion vectors: SLMC moves each vector to where it serves its own
// pair's margin, and RS approximates each pair's own expansion, so a
// vector shared by two pairs would be a compromise for both. Sizes are per
// pair (cfg.Fraction of the pair's vectors), so the compressed model holds
// about cfg.Fraction of the sum of the pairs' vector counts, which exceeds
// the SVM's total when its support vectors serve several pairs; Compressed
// reports the counts, and SVM stores the result in LIBSVM's layout.
//
// Memory: no matrix over all support vectors or all rows squared is formed.
// SLMC's inner problem is a linear SVM on the pair's rows × Nz whitened
// features (K(Z, X) in float64, its whitened copy, and an SMO cache of at
// most 64 MiB); each is charged to e's memory budget first and refused
// with an error wrapping engine.ErrBudget when it does not fit.
func Compress(e *engine.Engine, m *svm.Model, x pursuit.Matrix, y []float64, cfg CompressConfig) (*Compressed, error) {
	if err := e.RequireOneRank("slmc.Compress"); err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("slmc.Compress needs an engine")
	}
	if m == nil {
		return nil, fmt.Errorf("slmc.Compress: nil SVM model: %w", pursuit.ErrBadInput)
	}
	if m.Type != svm.CSVC {
		return nil, fmt.Errorf("slmc.Compress: the model is %v; only C-SVC classifiers (binary or one-vs-one) can be compressed: %w", m.Type, pursuit.ErrBadInput)
	}
	method := cfg.Method
	if method == "" {
		method = MethodSLMC
	}
	switch method {
	case MethodSLMC, MethodMRS, MethodRS:
	default:
		return nil, fmt.Errorf("slmc.Compress: unknown method %q (want slmc, mrs or rs): %w", method, pursuit.ErrConfig)
	}
	if err := checkRBF(method, m.Kernel); err != nil {
		return nil, fmt.Errorf("%w (%w)", err, pursuit.ErrConfig)
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("slmc.Compress: training matrix: %w", err)
	}
	if len(y) != x.Rows {
		return nil, fmt.Errorf("slmc.Compress: %d labels for %d training rows: %w", len(y), x.Rows, pursuit.ErrBadInput)
	}
	if x.Cols < m.SV.Cols {
		return nil, fmt.Errorf("slmc.Compress: the training data have %d features, the model's support vectors %d: %w", x.Cols, m.SV.Cols, pursuit.ErrBadInput)
	}
	total := m.TotalSV()
	switch {
	case cfg.NumXV < 0 || cfg.NumXV > total:
		return nil, fmt.Errorf("slmc.Compress: %d expansion vectors asked for, the model has %d support vectors: %w", cfg.NumXV, total, pursuit.ErrConfig)
	case cfg.NumXV == 0 && (cfg.Fraction < 0 || cfg.Fraction > 1 || math.IsNaN(cfg.Fraction)):
		return nil, fmt.Errorf("slmc.Compress: fraction %v is not in (0, 1]: %w", cfg.Fraction, pursuit.ErrConfig)
	case cfg.C < 0 || math.IsInf(cfg.C, 0) || math.IsNaN(cfg.C):
		return nil, fmt.Errorf("slmc.Compress: C %v is not positive and finite: %w", cfg.C, pursuit.ErrConfig)
	}
	frac := cfg.Fraction
	if frac == 0 {
		frac = 0.1
	}
	c := cfg.C
	if c == 0 {
		for _, row := range m.Coef {
			for _, v := range row {
				c = math.Max(c, math.Abs(v))
			}
		}
		if !(c > 0) {
			return nil, fmt.Errorf("slmc.Compress: the model's coefficients are all zero: %w", pursuit.ErrBadInput)
		}
	}
	k := len(m.Labels)
	class := make(map[float64]int, k)
	for i, l := range m.Labels {
		class[l] = i
	}
	for r, v := range y {
		if _, ok := class[v]; !ok {
			return nil, fmt.Errorf("slmc.Compress: training row %d has label %v, which is none of the model's classes %v: %w", r+1, v, m.Labels, pursuit.ErrBadInput)
		}
	}
	say := func(format string, args ...any) {
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf(format, args...))
		}
	}
	every := cfg.ProgressEvery
	if every <= 0 {
		every = 10
	}
	out := &Compressed{Labels: append([]float64(nil), m.Labels...), Kernel: m.Kernel, Method: method}
	npairs := k * (k - 1) / 2
	p := 0
	for i := range k {
		for j := i + 1; j < k; j++ {
			name := fmt.Sprintf("machine %d/%d (%v vs %v)", p+1, npairs, m.Labels[i], m.Labels[j])
			exp := pairExpansion(m, i, j, p, x.Cols)
			var rows []int
			var t []float64
			for r, v := range y {
				switch class[v] {
				case i:
					rows, t = append(rows, r), append(t, 1)
				case j:
					rows, t = append(rows, r), append(t, -1)
				}
			}
			nz := cfg.NumXV
			if nz == 0 {
				nz = max(1, int(frac*float64(exp.Vectors.Rows)+0.5))
			}
			nz = min(nz, exp.Vectors.Rows)
			if exp.Vectors.Rows == 0 || len(rows) == 0 {
				return nil, fmt.Errorf("slmc.Compress: %s has %d vectors and %d training rows: %w", name, exp.Vectors.Rows, len(rows), pursuit.ErrBadInput)
			}
			xs := x
			if len(rows) != x.Rows {
				xs = pickRows(x, rows)
			}
			if method != MethodRS {
				// K(Z, X) and its whitened copy in float64, the float64
				// copy of the rows, and the SMO cache.
				n := int64(len(rows))
				need := n*int64(nz)*8*3 + n*int64(x.Cols)*8 + int64(cfg.Solver.cacheMB(len(rows))*(1<<20))
				if err := e.Reserve(fmt.Sprintf("%s: %s's inner problem on %d rows × %d vectors", name, method, n, nz), need); err != nil {
					return nil, fmt.Errorf("slmc.Compress: %w", err)
				}
			}
			say("%s: %s, %d of %d vectors, %d training rows, C = %g", name, method, nz, exp.Vectors.Rows, len(rows), c)
			t0 := time.Now()
			mach := Machine{Pos: i, Neg: j, Original: exp.Vectors.Rows}
			switch method {
			case MethodSLMC:
				init, err := exp.SVsAsInit(nz, cfg.Seed+uint64(p))
				if err != nil {
					return nil, fmt.Errorf("slmc.Compress: %s: %w", name, err)
				}
				oc := cfg.Optim
				user := oc.Progress
				last := time.Duration(0)
				oc.Progress = func(pr Progress) {
					if user != nil {
						user(pr)
					}
					// Every ProgressEvery iterations, and at least every
					// 30 s: an iteration of a large machine (50,000 rows)
					// takes minutes.
					if pr.Iter%every == 0 || pr.Elapsed-last >= progressGap {
						last = pr.Elapsed
						say("%s: iteration %d (%d evaluations, %.0f s), W = %.6g, training error %.4g", name, pr.Iter, pr.Evals, pr.Elapsed.Seconds(), pr.W, pr.TrainError)
					}
				}
				res, err := Train(e, xs, t, Config{Kernel: m.Kernel, C: c, NumXV: nz, Init: InitGiven, InitXV: init,
					Seed: cfg.Seed, Solver: cfg.Solver, Optim: oc})
				if err != nil {
					return nil, fmt.Errorf("slmc.Compress: %s: %w", name, err)
				}
				mach.Model = res.Model
				mach.Stop = fmt.Sprintf("%s after %d iterations", res.Stop, res.Iterations)
			case MethodRS, MethodMRS:
				var eng *engine.Engine
				if exp.Vectors.Rows >= rsBlockMin {
					eng = e // the large-expansion path (see reducedSet)
				}
				ro := cfg.RS
				user := ro.Progress
				last := time.Now()
				ro.Progress = func(v int, res float64) {
					if user != nil {
						user(v, res)
					}
					// At least every 30 s: a vector of a large machine
					// takes seconds.
					if time.Since(last) >= progressGap || v == nz {
						last = time.Now()
						say("%s: reduced set, %d of %d vectors (%.0f s), relative residual %.4g", name, v, nz, time.Since(t0).Seconds(), res)
					}
				}
				rs, err := reducedSet(eng, exp, nz, ro)
				if err != nil {
					return nil, fmt.Errorf("slmc.Compress: %s: %w", name, err)
				}
				mach.Model = rs.Model
				if method == MethodMRS {
					mm, err := ModifiedRS(e, xs, t, rs.Model, c, FitOptions{Solver: cfg.Solver})
					if err != nil {
						return nil, fmt.Errorf("slmc.Compress: %s: %w", name, err)
					}
					mach.Model = mm
				}
			}
			mach.Model.Method = method
			note := ""
			if mach.Stop != "" {
				note = ", stop: " + mach.Stop
			}
			say("%s: done in %.1f s%s", name, time.Since(t0).Seconds(), note)
			out.Machines = append(out.Machines, mach)
			p++
		}
	}
	return out, nil
}
