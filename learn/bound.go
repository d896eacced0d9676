package learn

import (
	"fmt"
	"math"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// boundTheorems says which theorem of Hussain et al. (2011) bounds each
// algorithm's models: Theorem 4 for the KMP family and MP-KFDA (the basis
// spans the function; its coefficients use every label), Theorem 2 for the
// SVM and bpdn (an SVM or SVR is a compression scheme: retrained on its
// support vectors it is the same machine — an extension of the paper,
// which states Theorem 2 for compression schemes in general).
var boundTheorems = map[string]string{
	"kmp": "Theorem 4", "kmp-backfit": "Theorem 4", "kmp-basic": "Theorem 4", "kmp-tanh": "Theorem 4", "skmp": "Theorem 4", "mpkfda": "Theorem 4",
	"svm": "Theorem 2", "bpdn": "Theorem 2",
}

// BoundTheorem says which theorem bounds the models of an algorithm (a
// Header.Algorithm), "" when none does.
func BoundTheorem(algorithm string) string { return boundTheorems[algorithm] }

// Bound is a generalisation bound of a trained model (Hussain et al.
// 2011): with probability at least 1 − Delta, the true error (for a
// regressor: P(|f(x) − y| > Alpha)) is at most Value.
type Bound struct {
	Theorem string   `json:"theorem"`
	M       int      `json:"m"` // training points
	K       int      `json:"k"` // the compression set: training points the basis uses
	T       int      `json:"t"` // training errors outside it
	Delta   float64  `json:"delta"`
	Alpha   *float64 `json:"alpha,omitempty"` // regression only
	Value   float64  `json:"value"`
	Trivial bool     `json:"trivial"` // Value above 1
}

// Bound evaluates the bound for m, one binary classifier or regressor, on
// its training data tr (scaled): k = the training points its basis uses,
// t = its training errors outside them (sign errors, or |f − y| > alpha for
// regression). With strict, every basis vector must be one of tr's rows
// (a data file that should be the training data); otherwise a basis point
// not found still counts in k.
func (m *File) Bound(e *engine.Engine, tr *data.Dataset, delta, alpha float64, strict bool) (*Bound, error) {
	plan := &m.Header.Labels
	if len(m.Models) != 1 || plan.NumModels() != 1 || IsMulti(m.Models[0]) {
		return nil, pursuit.BadInputf("the bounds are for one binary classifier or regressor, not %d outputs", plan.NumModels())
	}
	th := BoundTheorem(m.Header.Algorithm)
	if th == "" {
		return nil, pursuit.Configf("no bound covers %s models: their basis is not a subset of the training points", m.Header.Algorithm)
	}
	f := m.Models[0]
	cs, err := CompressionOf(e, f, tr.X, plan.Targets(tr.Y, 0), plan.Task == TaskRegression, alpha)
	if err != nil {
		return nil, err
	}
	if strict && cs.Found < f.NBasis() {
		return nil, fmt.Errorf("%d of the model's %d basis vectors are not rows of %s: it is not the data the model was trained on", f.NBasis()-cs.Found, f.NBasis(), tr.Name)
	}
	out := &Bound{Theorem: th, M: tr.Len(), K: cs.K, T: cs.T, Delta: delta}
	if plan.Task == TaskRegression {
		out.Alpha = &alpha
	}
	if th == "Theorem 2" {
		out.Value, err = bound.Compression(out.M, out.K, out.T, delta)
	} else {
		out.Value, err = bound.KMP(out.M, out.K, out.T, delta)
	}
	if err != nil {
		return nil, err
	}
	out.Trivial = bound.Trivial(out.Value)
	return out, nil
}

// Compression is a model's compression set on its training data, what the
// sample-compression bounds of package bound take: K training rows are its
// basis, and T of the others are training errors.
type Compression struct {
	// K is the size of the compression set: the basis vectors found among
	// the rows, or the model's basis size when some are not found (a basis
	// point not found among the rows still counts).
	K int
	// T is the number of training errors outside the compression set:
	// sign errors, or |f − y| > alpha for regression.
	T int
	// Found is the number of basis vectors found among the rows: fewer
	// than the model's NBasis means the rows are not its training data.
	Found int
	// InBasis marks the rows that are basis vectors.
	InBasis []bool
}

// CompressionOf computes the compression set of a binary classifier (y
// the ±1 targets) or regressor (regression: y real, errors |f − y| > alpha)
// on its training rows x.
func CompressionOf(e *engine.Engine, f Model, x pursuit.Matrix, y []float64, regression bool, alpha float64) (Compression, error) {
	dec, err := f.Decision(e, x)
	if err != nil {
		return Compression{}, fmt.Errorf("training decisions: %w", err)
	}
	c := Compression{InBasis: CompressionSet(x, f.Basis())}
	for _, in := range c.InBasis {
		if in {
			c.Found++
		}
	}
	c.K = max(c.Found, f.NBasis())
	for i, v := range dec {
		if c.InBasis[i] {
			continue
		}
		wrong := v*y[i] <= 0
		if regression {
			wrong = math.Abs(v-y[i]) > alpha
		}
		if wrong {
			c.T++
		}
	}
	return c, nil
}

// CompressionSet marks the training rows that are basis vectors, each basis
// vector matching one row (so duplicates of a basis point outside the basis
// stay outside). Rows compare without their trailing zeros: a LIBSVM
// model's support vectors end at their last non-zero feature.
func CompressionSet(x, basis pursuit.Matrix) []bool {
	rows := map[string][]int{}
	// A row's key is its non-zeros (column and bits), dense or sparse.
	key := func(m pursuit.Matrix, i int) string {
		var sb strings.Builder
		add := func(j int, v float32) {
			if v != 0 {
				fmt.Fprintf(&sb, "%d:%x,", j, math.Float32bits(v))
			}
		}
		if m.IsSparse() {
			cols, vals := m.SparseRow(i)
			for p, j := range cols {
				add(int(j), vals[p])
			}
		} else {
			for j, v := range m.Row(i) {
				add(j, v)
			}
		}
		return sb.String()
	}
	for i := range x.Rows {
		kk := key(x, i)
		rows[kk] = append(rows[kk], i)
	}
	in := make([]bool, x.Rows)
	for r := range basis.Rows {
		kk := key(basis, r)
		if list := rows[kk]; len(list) > 0 {
			in[list[0]] = true
			rows[kk] = list[1:]
		}
	}
	return in
}

// String states the bound on one line: the confidence, what is bounded,
// the value in percent, the theorem and k, t ("— trivial, above 100%"
// when it says nothing).
func (b *Bound) String() string {
	conf := fmt.Sprintf("with probability ≥ %s%%", TrimFloat(100*(1-b.Delta)))
	what := "the true error is"
	if b.Alpha != nil {
		what = fmt.Sprintf("P(|f(x) − y| > %s) is", TrimFloat(*b.Alpha))
	}
	s := fmt.Sprintf("%s, %s at most %.1f%% (%s, k = %d, t = %d)", conf, what, 100*b.Value, b.Theorem, b.K, b.T)
	if b.Trivial {
		s += " — trivial, above 100%"
	}
	return s
}

// BoundAlgorithms names the algorithms whose models a theorem bounds
// (BoundTheorem), in Algorithms' order.
func BoundAlgorithms() []string {
	return algorithmNames(func(a Algorithm) bool { return BoundTheorem(a.Name) != "" })
}

// ValidateBound checks the settings of File.Bound, "delta" (δ) and
// "alpha" (α), for the models of algorithm algo (regression: a regressor's;
// given names the settings set explicitly): a theorem must bound them, δ
// is in (0, 1), and α is positive and finite for a regressor and not
// given for a classifier. It names the request for a bound "bound".
func ValidateBound(algo string, regression bool, delta, alpha float64, given map[string]bool) error {
	if BoundTheorem(algo) == "" {
		return settingErr("bound", "{bound} does not apply to {algo} %s: its basis is not a subset of the training points (the bounds cover %s)", algo, strings.Join(BoundAlgorithms(), ", "))
	}
	if !(delta > 0 && delta < 1) {
		return settingErr("delta", "{delta} %v: must be in (0, 1)", delta)
	}
	if regression && (!(alpha > 0) || math.IsInf(alpha, 0)) {
		return settingErr("alpha", "{alpha} %v: the bound for a regressor needs the error threshold α > 0 (it is on P(|f(x) − y| > α))", alpha)
	}
	if !regression && given["alpha"] {
		return settingErr("alpha", "{alpha} applies to regression; a classifier's bound is on its error rate")
	}
	return nil
}
