package engine

import "github.com/pursuit-ml/pursuit"

// Float64Rows returns the rows of a dense m written out in float64, row r
// at [r·m.Cols, (r+1)·m.Cols): the operand of float64 paths that meet each
// row many times (pursuit.Kernel.Value64). It returns nil when m is sparse
// or the copy does not fit e's memory budget (the check names the copy
// what); the caller then converts values as it uses them, with the same
// results.
func (e *Engine) Float64Rows(what string, m pursuit.Matrix) []float64 {
	if m.IsSparse() || e.Reserve(what, int64(m.Rows)*int64(m.Cols)*8) != nil {
		return nil
	}
	out := make([]float64, m.Rows*m.Cols)
	for r := range m.Rows {
		pursuit.Float64Row(out[r*m.Cols:(r+1)*m.Cols], m.Row(r))
	}
	return out
}
