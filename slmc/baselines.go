package slmc

import (
	"fmt"
	"io"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// FromSVM returns the binary C-SVC model m as an Expansion whose decision
// value is positive for the class label positive (m's coefficients and bias
// are negated when positive is its second class).
func FromSVM(m *svm.Model, positive float64) (*Expansion, error) {
	if m == nil {
		return nil, fmt.Errorf("slmc: nil SVM model")
	}
	if m.Type != svm.CSVC {
		return nil, fmt.Errorf("slmc: SVM model is %v, want a binary c_svc model", m.Type)
	}
	coef, b, err := m.Binary()
	if err != nil {
		return nil, fmt.Errorf("slmc: %w", err)
	}
	sgn := 1.0
	switch {
	case len(m.Labels) == 2 && m.Labels[0] == positive:
	case len(m.Labels) == 2 && m.Labels[1] == positive:
		sgn = -1
	default:
		return nil, fmt.Errorf("slmc: SVM model labels %v do not include the positive class %v", m.Labels, positive)
	}
	c := make([]float64, len(coef))
	for i, v := range coef {
		c[i] = sgn * v
	}
	x := &Expansion{Kernel: m.Kernel, Vectors: m.SV, Coef: c, Bias: sgn * b}
	return x, x.Validate()
}

// ReadSVMExpansion reads a binary C-SVC model in LIBSVM's text format (as
// svm-train writes it) as an Expansion positive for the label positive.
func ReadSVMExpansion(r io.Reader, positive float64) (*Expansion, error) {
	m, err := svm.ReadLIBSVMModel(r)
	if err != nil {
		return nil, err
	}
	return FromSVM(m, positive)
}

// LoadSVMExpansion reads the LIBSVM model file at path; see ReadSVMExpansion.
func LoadSVMExpansion(path string, positive float64) (*Expansion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("slmc: %w", err)
	}
	defer f.Close()
	x, err := ReadSVMExpansion(f, positive)
	if err != nil {
		return nil, fmt.Errorf("slmc: %s: %w", path, err)
	}
	return x, nil
}

// NumXVFraction returns round(frac·#vectors), at least 1: the paper sets Nz
// to 5% or 10% of the SVM's support-vector count.
func (x *Expansion) NumXVFraction(frac float64) int {
	n := int(frac*float64(x.Vectors.Rows) + 0.5)
	return max(n, 1)
}

// SVsAsInit returns nz of the expansion's vectors drawn at random (seeded),
// as initial expansion vectors for Config.InitGiven.
func (x *Expansion) SVsAsInit(nz int, seed uint64) (pursuit.Matrix, error) {
	if nz < 1 || nz > x.Vectors.Rows {
		return pursuit.Matrix{}, fmt.Errorf("slmc: %d initial vectors from %d support vectors", nz, x.Vectors.Rows)
	}
	return pickRows(x.Vectors, randomRows(newRand(seed), x.Vectors.Rows, nz)), nil
}

// RandomXV returns nz distinct rows of x drawn at random (seeded): the
// expansion vectors of RSVM and MRSVM.
func RandomXV(x pursuit.Matrix, nz int, seed uint64) (pursuit.Matrix, error) {
	if err := x.Validate(); err != nil {
		return pursuit.Matrix{}, fmt.Errorf("slmc: RandomXV: %w", err)
	}
	if nz < 1 || nz > x.Rows {
		return pursuit.Matrix{}, fmt.Errorf("slmc: RandomXV: %d vectors from %d rows", nz, x.Rows)
	}
	return pickRows(x, randomRows(newRand(seed), x.Rows, nz)), nil
}

// pickRows copies the rows idx of x, held as x is (sparse rows stay
// sparse).
func pickRows(x pursuit.Matrix, idx []int) pursuit.Matrix { return pursuit.RowsOf(x, idx) }

// ModifiedRS is the paper's MRS (§4.1): the reduced-set vectors of rs with
// coefficients and bias from the SVM restricted to their span (eq. 45)
// instead of the least-squares fit (eq. 47).
func ModifiedRS(e *engine.Engine, x pursuit.Matrix, y []float64, rs *Model, c float64, opt FitOptions) (*Model, error) {
	if err := e.RequireOneRank("slmc.ModifiedRS"); err != nil {
		return nil, err
	}
	if err := rs.Validate(); err != nil {
		return nil, err
	}
	m, err := FitCoefficients(e, x, y, rs.Kernel, rs.XV, c, opt)
	if err != nil {
		return nil, fmt.Errorf("slmc: MRS: %w", err)
	}
	m.Method = "mrs"
	return m, nil
}

// ModifiedRSVM is the paper's MRSVM (§4.2): given expansion vectors (RSVM's
// random training points, see RandomXV), coefficients and bias by eq. 45.
func ModifiedRSVM(e *engine.Engine, x pursuit.Matrix, y []float64, k pursuit.Kernel, xv pursuit.Matrix, c float64, opt FitOptions) (*Model, error) {
	if err := e.RequireOneRank("slmc.ModifiedRSVM"); err != nil {
		return nil, err
	}
	m, err := FitCoefficients(e, x, y, k, xv, c, opt)
	if err != nil {
		return nil, fmt.Errorf("slmc: MRSVM: %w", err)
	}
	m.Method = "mrsvm"
	return m, nil
}

// ReducedSVM is the RSVM of Lee & Mangasarian in the simplified form the
// paper describes (§4.2): with the expansion vectors xv fixed (random
// training points, see RandomXV), the regulariser ½βᵀKzβ is replaced by
// ½βᵀβ, which makes the problem a standard linear C-SVC with bias on the
// empirical kernel map ψ_z(x_i) = K(Z, x_i); β is its weight vector. Any
// kernel is accepted.
func ReducedSVM(e *engine.Engine, x pursuit.Matrix, y []float64, k pursuit.Kernel, xv pursuit.Matrix, c float64, opt FitOptions) (*Model, error) {
	if err := e.RequireOneRank("slmc.ReducedSVM"); err != nil {
		return nil, err
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("slmc: RSVM: %w", err)
	}
	p, z, err := prepareFit(e, x, y, k, xv, c, opt)
	if err != nil {
		return nil, fmt.Errorf("slmc: RSVM: %w", err)
	}
	psi, err := p.psi(z)
	if err != nil {
		return nil, fmt.Errorf("slmc: RSVM: %w", err)
	}
	sol, _, err := solveLinear(mat.DenseCopyOf(psi.T()), p.y, c, p.w, nil, opt.Solver.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("slmc: RSVM: %w", err)
	}
	a := make([]float64, len(sol.Alpha))
	for i, v := range sol.Alpha {
		a[i] = v * p.y[i]
	}
	nz, _ := z.Dims()
	beta := mat.NewVecDense(nz, nil)
	beta.MulVec(psi, mat.NewVecDense(len(a), a))
	return newModel("rsvm", k, z, beta.RawVector().Data, sol.Bias), nil
}
