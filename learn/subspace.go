package learn

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

// MaxSpectrum is the largest training set whose m×m eigen-decomposition
// SparseKPCA computes for Theorems 7 and 8 (O(m³) time, m² memory).
const MaxSpectrum = 4000

// SubspacePoint is one k of the sparse kernel PCA curve; nil fields are
// absent (no test set, or a training set too large for the
// eigen-decomposition).
type SubspacePoint struct {
	K             int      `json:"k"`
	TrainResidual float64  `json:"train_residual"`
	TestResidual  *float64 `json:"test_residual"`
	Corollary1    float64  `json:"corollary1"`
	Theorem7      *float64 `json:"theorem7"`
	Theorem8      *float64 `json:"theorem8"`
}

// KPCACurve is sparse kernel PCA with its residuals and bounds after each
// number k of basis vectors (Hussain et al. 2011).
type KPCACurve struct {
	Fit   *greedy.KPCA
	Curve []SubspacePoint
	// MinK is the k where Corollary 1 is smallest, MinValue its value.
	MinK     int
	MinValue float64
	// Spectrum reports whether Theorems 7 and 8 were computed (at most
	// MaxSpectrum training points).
	Spectrum bool
	// TestFeatures are the test points' features (nil without a test set).
	TestFeatures *mat.Dense
}

// SparseKPCA fits sparse kernel PCA with k basis vectors on the rows of x
// (scaled; the kernel must have κ(x,x) ≤ 1, as rbf) and evaluates, after
// each number of basis vectors, the training residual, the test residual
// on test (0 rows: none), Corollary 1 and, for at most MaxSpectrum rows,
// Theorems 7 and 8, all with confidence 1 − delta.
func SparseKPCA(e *engine.Engine, kern pursuit.Kernel, x, test pursuit.Matrix, k int, delta float64) (*KPCACurve, error) {
	fit, err := greedy.FitKPCA(e, x, greedy.KPCAConfig{Kernel: kern, Steps: k})
	if err != nil {
		return nil, err
	}
	m, n := x.Rows, len(fit.Index)
	train := fit.Residuals()
	cor1, err := bound.SubspaceCurve(m, train, 1, delta)
	if err != nil {
		return nil, err
	}
	out := &KPCACurve{Fit: fit}
	var testRes []float64
	if test.Rows > 0 {
		if testRes, out.TestFeatures, err = fit.TestResiduals(e, test); err != nil {
			return nil, err
		}
	}
	var sp *greedy.Spectrum
	if m <= MaxSpectrum {
		if sp, err = greedy.KernelSpectrum(e, kern, x); err != nil {
			return nil, err
		}
		out.Spectrum = true
	}
	for t := 1; t <= n; t++ {
		p := SubspacePoint{K: t, TrainResidual: train[t-1], Corollary1: cor1[t-1]}
		if testRes != nil {
			p.TestResidual = &testRes[t-1]
		}
		if sp != nil {
			v7, err := bound.GlobalPCA(t, sp.Lambda, sp.Diag, 1, delta)
			if err != nil {
				return nil, err
			}
			// Theorem 8 with the eigenvalues of K as printed (see package bound).
			v8, err := bound.LocalPCA(t, sp.Lambda, sp.Centred, 1, bound.LocalPCAConstant, delta)
			if err != nil {
				return nil, err
			}
			p.Theorem7, p.Theorem8 = &v7, &v8
		}
		out.Curve = append(out.Curve, p)
	}
	best := 0
	for i := range cor1 {
		if cor1[i] < cor1[best] {
			best = i
		}
	}
	out.MinK, out.MinValue = best+1, cor1[best]
	return out, nil
}

// SKCCABound is Theorem 9 for the first canonical direction of f, fitted
// on the pairs (x, y): the pairs outside the compression set whose first
// canonical variates differ by more than alpha count as errors.
func SKCCABound(e *engine.Engine, f *greedy.KCCA, x, y pursuit.Matrix, alpha, delta float64) (*Bound, error) {
	px, py, err := f.Transform(e, x, y, 1)
	if err != nil {
		return nil, err
	}
	in := make([]bool, x.Rows)
	for _, i := range f.Index {
		in[i] = true
	}
	t := 0
	for i := range x.Rows {
		if !in[i] && math.Abs(px.At(i, 0)-py.At(i, 0)) > alpha {
			t++
		}
	}
	v, err := bound.SKCCA(x.Rows, len(f.Index), t, delta)
	if err != nil {
		return nil, err
	}
	return &Bound{Theorem: "Theorem 9", M: x.Rows, K: len(f.Index), T: t, Delta: delta, Alpha: &alpha, Value: v, Trivial: bound.Trivial(v)}, nil
}

// FirstCorrelation is |the correlation| of the first canonical variates of
// f on the pairs (x, y) (a test set), and the pairs' features.
func FirstCorrelation(e *engine.Engine, f *greedy.KCCA, x, y pursuit.Matrix) (float64, *mat.Dense, *mat.Dense, error) {
	qx, qy, err := f.Transform(e, x, y, 0)
	if err != nil {
		return 0, nil, nil, err
	}
	return math.Abs(greedy.Correlation(mat.Col(nil, 0, qx), mat.Col(nil, 0, qy))), qx, qy, nil
}
