package slmc

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Model is a sparse kernel classifier f(x) = Σ_u Beta[u]·K(z_u, x) + Bias
// with expansion vectors z_u, the rows of XV. The predicted class is +1 where
// f(x) > 0 and −1 otherwise.
type Model struct {
	Method string         // "slmc", "rs", "mrs", "rsvm", "mrsvm", "skfd"
	Kernel pursuit.Kernel // the kernel K
	XV     pursuit.Matrix // Nz×d expansion vectors
	Beta   []float64      // Nz expansion coefficients
	Bias   float64
}

// NumXV returns the number of expansion vectors.
func (m *Model) NumXV() int { return m.XV.Rows }

// Validate reports whether the model is well formed.
func (m *Model) Validate() error {
	if m == nil {
		return fmt.Errorf("slmc: nil model")
	}
	if err := m.Kernel.Validate(); err != nil {
		return fmt.Errorf("slmc: model kernel: %w", err)
	}
	if err := m.XV.Validate(); err != nil {
		return fmt.Errorf("slmc: model expansion vectors: %w", err)
	}
	if len(m.Beta) != m.XV.Rows {
		return fmt.Errorf("slmc: model has %d coefficients for %d expansion vectors", len(m.Beta), m.XV.Rows)
	}
	for i, b := range m.Beta {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return fmt.Errorf("slmc: model coefficient %d is %v", i, b)
		}
	}
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return fmt.Errorf("slmc: model bias is %v", m.Bias)
	}
	return nil
}

// decisionBlock is the number of rows of x scored per kernel block.
const decisionBlock = 4096

// Decision returns f(x_i) for every row of x, computing the kernel blocks
// through the engine.
func (m *Model) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("slmc: Decision needs an engine")
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("slmc: Decision: %w", err)
	}
	if x.Cols != m.XV.Cols {
		return nil, fmt.Errorf("slmc: Decision: data have %d features, the model %d", x.Cols, m.XV.Cols)
	}
	out := make([]float64, x.Rows)
	if m.XV.Rows == 0 {
		for i := range out {
			out[i] = m.Bias
		}
		return out, nil
	}
	for r0 := 0; r0 < x.Rows; r0 += decisionBlock {
		r1 := min(r0+decisionBlock, x.Rows)
		blk := pursuit.NewMatrix(r1-r0, m.XV.Rows)
		if err := e.KernelBlock(blk, m.Kernel, x.Slice(r0, r1, 0, x.Cols), nil, m.XV, nil); err != nil {
			return nil, fmt.Errorf("slmc: Decision kernel block: %w", err)
		}
		for i := r0; i < r1; i++ {
			s := m.Bias
			for u, k := range blk.Row(i - r0) {
				s += m.Beta[u] * float64(k)
			}
			out[i] = s
		}
	}
	return out, nil
}

// Predict returns the ±1 class of every row of x.
func (m *Model) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	f, err := m.Decision(e, x)
	if err != nil {
		return nil, err
	}
	for i, v := range f {
		f[i] = sign(v)
	}
	return f, nil
}

// ErrorRate returns the fraction of rows of x whose predicted class differs
// from the ±1 label in y.
func (m *Model) ErrorRate(e *engine.Engine, x pursuit.Matrix, y []float64) (float64, error) {
	if len(y) != x.Rows {
		return 0, fmt.Errorf("slmc: ErrorRate: %d labels for %d rows", len(y), x.Rows)
	}
	f, err := m.Decision(e, x)
	if err != nil {
		return 0, err
	}
	return errorRate(f, y), nil
}

func sign(v float64) float64 {
	if v > 0 {
		return 1
	}
	return -1
}

// errorRate counts sign(f_i) ≠ y_i.
func errorRate(f, y []float64) float64 {
	if len(f) == 0 {
		return 0
	}
	var wrong int
	for i, v := range f {
		if sign(v) != y[i] {
			wrong++
		}
	}
	return float64(wrong) / float64(len(f))
}

// newModel packs float64 expansion vectors into a Model.
func newModel(method string, k pursuit.Kernel, z *mat.Dense, beta []float64, bias float64) *Model {
	return &Model{Method: method, Kernel: k, XV: toMatrix32(z), Beta: beta, Bias: bias}
}

// Expansion is an existing kernel machine f(x) = Σ_i Coef[i]·K(s_i, x) + Bias
// with vectors s_i, the rows of Vectors — typically an SVM whose Coef are
// y_i α_i. The reduced-set methods approximate it.
type Expansion struct {
	Kernel  pursuit.Kernel
	Vectors pursuit.Matrix
	Coef    []float64
	Bias    float64
}

// Validate reports whether the expansion is well formed.
func (x *Expansion) Validate() error {
	if x == nil {
		return fmt.Errorf("slmc: nil expansion")
	}
	if err := x.Kernel.Validate(); err != nil {
		return fmt.Errorf("slmc: expansion kernel: %w", err)
	}
	if err := x.Vectors.Validate(); err != nil {
		return fmt.Errorf("slmc: expansion vectors: %w", err)
	}
	if x.Vectors.Rows == 0 {
		return fmt.Errorf("slmc: expansion has no vectors")
	}
	if len(x.Coef) != x.Vectors.Rows {
		return fmt.Errorf("slmc: expansion has %d coefficients for %d vectors", len(x.Coef), x.Vectors.Rows)
	}
	for i, c := range x.Coef {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("slmc: expansion coefficient %d is %v", i, c)
		}
	}
	return nil
}

// AsModel returns the expansion as a Model (method "svm"), to score it.
func (x *Expansion) AsModel() *Model {
	return &Model{Method: "svm", Kernel: x.Kernel, XV: x.Vectors, Beta: x.Coef, Bias: x.Bias}
}
