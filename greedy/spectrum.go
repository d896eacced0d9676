package greedy

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Spectrum is what the PCA bounds (bound.GlobalPCA, bound.LocalPCA) need
// from the training kernel matrix.
type Spectrum struct {
	Lambda  []float64 // eigenvalues of K, ascending
	Centred []float64 // eigenvalues of (I − 11ᵀ/m) K (I − 11ᵀ/m), ascending
	Diag    []float64 // κ(x_i, x_i)
}

// KernelSpectrum computes the kernel matrix of x through the engine and its
// eigenvalues and those of the centred matrix with gonum (O(m³): for the
// training sets of bound plots, a few thousand points).
func KernelSpectrum(e *engine.Engine, kern pursuit.Kernel, x pursuit.Matrix) (*Spectrum, error) {
	if err := e.RequireOneRank("greedy.KernelSpectrum"); err != nil {
		return nil, err
	}
	m := x.Rows
	if m == 0 {
		return nil, configErr("kernel spectrum: no points")
	}
	if err := e.Reserve(fmt.Sprintf("two %d×%d float64 matrices for the kernel spectrum", m, m), 2*int64(m)*int64(m)*8); err != nil {
		return nil, err
	}
	K, err := kernelMatrix(e, kern, x)
	if err != nil {
		return nil, fmt.Errorf("kernel spectrum: %w", err)
	}
	S := mat.NewSymDense(m, nil)
	sp := &Spectrum{Diag: make([]float64, m)}
	rowMean := make([]float64, m)
	var all float64
	for i := range m {
		for j := i; j < m; j++ {
			S.SetSym(i, j, (float64(K.At(i, j))+float64(K.At(j, i)))/2)
		}
		sp.Diag[i] = float64(K.At(i, i))
	}
	for i := range m {
		for j := range m {
			rowMean[i] += S.At(i, j)
		}
		all += rowMean[i]
		rowMean[i] /= float64(m)
	}
	all /= float64(m) * float64(m)
	var es mat.EigenSym
	if !es.Factorize(S, false) {
		return nil, fmt.Errorf("kernel spectrum: the eigen-decomposition of K did not converge")
	}
	sp.Lambda = es.Values(nil)
	for i := range m {
		for j := i; j < m; j++ {
			S.SetSym(i, j, S.At(i, j)-rowMean[i]-rowMean[j]+all)
		}
	}
	if !es.Factorize(S, false) {
		return nil, fmt.Errorf("kernel spectrum: the eigen-decomposition of the centred K did not converge")
	}
	sp.Centred = es.Values(nil)
	return sp, nil
}
