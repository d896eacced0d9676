package data

import "fmt"

// StorageReport says how a data set is held in memory and why. Its JSON
// form is the "storage" object of the pursuit command's outputs.
type StorageReport struct {
	Kind    string  `json:"kind"`      // dense or sparse
	Asked   string  `json:"requested"` // the storage asked for
	Density float64 `json:"density"`   // non-zeros / (rows·features)
	NNZ     int64   `json:"nnz"`       // non-zeros
	Bytes   int64   `json:"bytes"`     // the features' memory
	Reason  string  `json:"reason"`
}

// DescribeStorage reports how ds is held, given the storage asked for (""
// is StorageDense). denseOnly, when not "", says why the rows had to be held
// dense whatever was asked (the algorithm takes dense rows only, say); the
// reason then quotes the request as "setting asked" (e.g. "--storage
// auto") with what the automatic choice would have done. Call it before
// scaling, which may fill in zeros.
func DescribeStorage(ds *Dataset, asked Storage, setting, denseOnly string) *StorageReport {
	if asked == "" {
		asked = StorageDense
	}
	nnz := CountNonZeros(ds.X)
	kind := StorageDense
	if ds.X.IsSparse() {
		kind = StorageSparse
	}
	_, why := ResolveStorage(asked, ds.Len(), ds.Dim(), nnz)
	if denseOnly != "" && asked != StorageDense {
		auto, autoWhy := ResolveStorage(StorageAuto, ds.Len(), ds.Dim(), nnz)
		why = autoWhy
		if auto == StorageSparse || asked == StorageSparse {
			why = fmt.Sprintf("%s, so the data are held dense (%s %s; %s)", denseOnly, setting, asked, autoWhy)
		}
	}
	return &StorageReport{Kind: string(kind), Asked: string(asked), Density: Density(ds.Len(), ds.Dim(), nnz),
		NNZ: nnz, Bytes: ds.X.Bytes(), Reason: why}
}

// LabelColumnOf returns the 0-based column the labels of path were read
// from when it is read as CSV (format resolved as Load does) with dim
// features and the WithLabelColumn value labelColumn; ok is false for a
// LIBSVM file.
func LabelColumnOf(path string, format Format, labelColumn, dim int) (col int, ok bool) {
	if ResolveFormat(path, format) != FormatCSV {
		return 0, false
	}
	if labelColumn < 0 {
		return labelColumn + dim + 1, true // dim features + the label
	}
	return labelColumn, true
}

// Widen returns a copy of s for cols ≥ s.Dim() features: the features
// beyond its own are left as they are (scale 1, offset 0). A damaged
// scaler (Scale and Offset of different lengths) is returned as it is, for
// Apply to report.
func (s *Scaler) Widen(cols int) *Scaler {
	if len(s.Scale) != len(s.Offset) || cols <= len(s.Scale) {
		return s
	}
	w := *s
	w.Scale = append(append([]float64(nil), s.Scale...), make([]float64, cols-len(s.Scale))...)
	for j := len(s.Scale); j < cols; j++ {
		w.Scale[j] = 1
	}
	w.Offset = append(append([]float64(nil), s.Offset...), make([]float64, cols-len(s.Offset))...)
	return &w
}
