package learn

import (
	"fmt"
	"math"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

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
