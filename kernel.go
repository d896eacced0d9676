package pursuit

import (
	"fmt"
	"math"
)

// KernelKind names a kernel function.
type KernelKind uint8

// The kernel functions a Backend computes in blocks.
const (
	Linear     KernelKind = iota + 1 // x·z
	Polynomial                       // (γ x·z + c0)^degree
	RBF                              // exp(−γ ‖x−z‖²)
	Sigmoid                          // tanh(γ x·z + c0)
)

func (k KernelKind) String() string {
	switch k {
	case Linear:
		return "linear"
	case Polynomial:
		return "poly"
	case RBF:
		return "rbf"
	case Sigmoid:
		return "sigmoid"
	}
	return fmt.Sprintf("KernelKind(%d)", uint8(k))
}

// Kernel specifies a kernel function and its parameters, with LIBSVM's
// conventions: Linear ignores Gamma, Coef0 and Degree.
type Kernel struct {
	Kind   KernelKind
	Gamma  float64
	Coef0  float64
	Degree int
}

// Validate reports an error for an unknown kind or parameters that make the
// kernel meaningless (γ ≤ 0 or not finite, degree < 1, c0 not finite).
func (k Kernel) Validate() error {
	switch k.Kind {
	case Linear:
		return nil
	case Polynomial, RBF, Sigmoid:
	default:
		return fmt.Errorf("unknown kernel kind %d", uint8(k.Kind))
	}
	if !(k.Gamma > 0) || math.IsInf(k.Gamma, 0) {
		return fmt.Errorf("%s kernel: gamma must be positive and finite, got %v", k.Kind, k.Gamma)
	}
	if math.IsNaN(k.Coef0) || math.IsInf(k.Coef0, 0) {
		return fmt.Errorf("%s kernel: coef0 must be finite, got %v", k.Kind, k.Coef0)
	}
	if k.Kind == Polynomial && k.Degree < 1 {
		return fmt.Errorf("poly kernel: degree must be ≥ 1, got %d", k.Degree)
	}
	return nil
}

// String formats the kernel as "rbf(gamma=0.0078125)" and the like.
func (k Kernel) String() string {
	switch k.Kind {
	case Linear:
		return "linear"
	case Polynomial:
		return fmt.Sprintf("poly(gamma=%g, coef0=%g, degree=%d)", k.Gamma, k.Coef0, k.Degree)
	case RBF:
		return fmt.Sprintf("rbf(gamma=%g)", k.Gamma)
	case Sigmoid:
		return fmt.Sprintf("sigmoid(gamma=%g, coef0=%g)", k.Gamma, k.Coef0)
	}
	return k.Kind.String()
}

// Eval evaluates the kernel on two vectors in float64. It is the scalar
// reference the fast paths are tested against, and is fine for a handful of
// evaluations; use a Backend for blocks.
func (k Kernel) Eval(x, z []float32) float64 {
	var dot, dist float64
	for i := range x {
		a, b := float64(x[i]), float64(z[i])
		dot += a * b
		dist += (a - b) * (a - b)
	}
	return k.FromDot(dot, dist)
}

// EvalRows evaluates the kernel in float64 between row i of a and row j
// of b, each dense or sparse (absent features are zero), with Eval's sums:
// the terms in feature order, so that dense and sparse storage of the same
// rows give the same bits. It is the scalar reference for whole rows.
func (k Kernel) EvalRows(a Matrix, i int, b Matrix, j int) float64 {
	if !a.IsSparse() && !b.IsSparse() {
		return k.Eval(a.Row(i), b.Row(j))
	}
	ai, av := rowEntries(a, i)
	bi, bv := rowEntries(b, j)
	var dot, dist float64
	p, q := 0, 0
	for p < len(av) || q < len(bv) {
		var d float64
		switch {
		case q == len(bv) || (p < len(av) && entryIndex(ai, p) < entryIndex(bi, q)):
			d = float64(av[p])
			p++
		case p == len(av) || entryIndex(bi, q) < entryIndex(ai, p):
			d = float64(bv[q])
			q++
		default:
			x, z := float64(av[p]), float64(bv[q])
			dot += x * z
			d = x - z
			p++
			q++
		}
		dist += d * d
	}
	return k.FromDot(dot, dist)
}

// rowEntries returns row i of m as feature indices and values: a sparse
// row's non-zeros, or a dense row's values with nil indices (the value at
// position p is feature p).
func rowEntries(m Matrix, i int) ([]int32, []float32) {
	if m.IsSparse() {
		return m.SparseRow(i)
	}
	return nil, m.Row(i)
}

// entryIndex is the feature index of entry p of a row from rowEntries.
func entryIndex(idx []int32, p int) int32 {
	if idx == nil {
		return int32(p)
	}
	return idx[p]
}

// FromDot applies the kernel transform to an inner product x·z (or, for RBF,
// the squared distance ‖x−z‖²; the other argument is ignored).
func (k Kernel) FromDot(dot, sqDist float64) float64 {
	switch k.Kind {
	case Linear:
		return dot
	case Polynomial:
		return math.Pow(k.Gamma*dot+k.Coef0, float64(k.Degree))
	case RBF:
		return math.Exp(-k.Gamma * math.Max(sqDist, 0))
	case Sigmoid:
		return math.Tanh(k.Gamma*dot + k.Coef0)
	}
	return math.NaN()
}

// NewRBF returns the Gaussian kernel exp(−γ‖x−z‖²).
func NewRBF(gamma float64) Kernel { return Kernel{Kind: RBF, Gamma: gamma} }

// NewRBFSigma returns the Gaussian kernel in the width form exp(−‖x−z‖²/σ²)
// used by Vincent & Bengio, i.e. NewRBF(1/σ²).
func NewRBFSigma(sigma float64) Kernel { return NewRBF(1 / (sigma * sigma)) }

// Sigma returns the width σ of an RBF kernel in the form exp(−‖x−z‖²/σ²).
func Sigma(k Kernel) float64 { return 1 / math.Sqrt(k.Gamma) }

// NewLinear returns the kernel x·z.
func NewLinear() Kernel { return Kernel{Kind: Linear} }

// NewPoly returns the polynomial kernel (γ x·z + c0)^degree.
func NewPoly(gamma, coef0 float64, degree int) Kernel {
	return Kernel{Kind: Polynomial, Gamma: gamma, Coef0: coef0, Degree: degree}
}

// NewSigmoid returns the kernel tanh(γ x·z + c0).
func NewSigmoid(gamma, coef0 float64) Kernel {
	return Kernel{Kind: Sigmoid, Gamma: gamma, Coef0: coef0}
}

// ParseKernel builds a kernel from its name (rbf, linear, poly, sigmoid) and
// parameters, with LIBSVM's defaults where a parameter is zero: γ = 1/dim,
// degree 3. It returns a clear error for an unknown name or bad parameter.
func ParseKernel(name string, gamma, coef0 float64, degree, dim int) (Kernel, error) {
	var k Kernel
	switch name {
	case "rbf", "gaussian":
		k = NewRBF(gamma)
	case "linear":
		k = NewLinear()
	case "poly", "polynomial":
		if degree == 0 {
			degree = 3
		}
		k = NewPoly(gamma, coef0, degree)
	case "sigmoid", "tanh":
		k = NewSigmoid(gamma, coef0)
	default:
		return Kernel{}, fmt.Errorf("unknown kernel %q (want rbf, linear, poly or sigmoid)", name)
	}
	if k.Kind != Linear && gamma == 0 && dim > 0 {
		k.Gamma = 1 / float64(dim)
	}
	if err := k.Validate(); err != nil {
		return Kernel{}, err
	}
	return k, nil
}
