package backend

import "github.com/pursuit-ml/pursuit"

// SetProducts is the optional capability of a backend that computes the
// products of a dictionary with several sets of vectors in one pass over
// the dictionary: one-vs-rest KMP steps every class at once, and with each
// block of the dictionary read from memory once and applied to every
// class's vectors while it is in cache, the pass runs at the speed of the
// dot kernels rather than at the memory's. Find it by type assertion (the
// engine does: engine.Engine.DictProductsSets, which falls back to
// DictProducts block by block on backends without it).
type SetProducts interface {
	// DictProductsSets sets dst[s][j·dict.Rows+i] = ⟨d_i, v_j⟩ for every row
	// v_j of sets[s]. Each set's products are, bit for bit, those of
	// DictProducts(dst[s], dict, sets[s]), whatever the other sets: a
	// class of one-vs-rest KMP chooses the atoms its binary run chooses.
	DictProductsSets(dst [][]float64, dict pursuit.Matrix, sets []pursuit.Matrix) error
}
