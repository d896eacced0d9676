package backend

import (
	"fmt"
	"math"
)

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
