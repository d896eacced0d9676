package engine

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit/backend"
)

// Kernel is a kernel specification; see backend.Kernel.
type Kernel = backend.Kernel

// Matrix is a dense row-major float32 matrix; see backend.Matrix.
type Matrix = backend.Matrix

// RBF returns the Gaussian kernel exp(−γ‖x−z‖²).
func RBF(gamma float64) Kernel { return Kernel{Kind: backend.RBF, Gamma: gamma} }

// RBFSigma returns the Gaussian kernel in the width form exp(−‖x−z‖²/σ²)
// used by Vincent & Bengio, i.e. RBF(1/σ²).
func RBFSigma(sigma float64) Kernel { return RBF(1 / (sigma * sigma)) }

// Sigma returns the width σ of an RBF kernel in the form exp(−‖x−z‖²/σ²).
func Sigma(k Kernel) float64 { return 1 / math.Sqrt(k.Gamma) }

// Linear returns the kernel x·z.
func Linear() Kernel { return Kernel{Kind: backend.Linear} }

// Poly returns the polynomial kernel (γ x·z + c0)^degree.
func Poly(gamma, coef0 float64, degree int) Kernel {
	return Kernel{Kind: backend.Polynomial, Gamma: gamma, Coef0: coef0, Degree: degree}
}

// Sigmoid returns the kernel tanh(γ x·z + c0).
func Sigmoid(gamma, coef0 float64) Kernel {
	return Kernel{Kind: backend.Sigmoid, Gamma: gamma, Coef0: coef0}
}

// ParseKernel builds a kernel from its name (rbf, linear, poly, sigmoid) and
// parameters, with LIBSVM's defaults where a parameter is zero: γ = 1/dim,
// degree 3. It returns a clear error for an unknown name or bad parameter.
func ParseKernel(name string, gamma, coef0 float64, degree, dim int) (Kernel, error) {
	var k Kernel
	switch name {
	case "rbf", "gaussian":
		k = RBF(gamma)
	case "linear":
		k = Linear()
	case "poly", "polynomial":
		if degree == 0 {
			degree = 3
		}
		k = Poly(gamma, coef0, degree)
	case "sigmoid", "tanh":
		k = Sigmoid(gamma, coef0)
	default:
		return Kernel{}, fmt.Errorf("unknown kernel %q (want rbf, linear, poly or sigmoid)", name)
	}
	if k.Kind != backend.Linear && gamma == 0 && dim > 0 {
		k.Gamma = 1 / float64(dim)
	}
	if err := k.Validate(); err != nil {
		return Kernel{}, err
	}
	return k, nil
}
