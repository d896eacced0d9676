package learn

import (
	"fmt"
	"io"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// DataInfo says how a data set is held in memory and what the
// preprocessing's automatic scaling (ScaleAuto) fits on it: the report of
// `pursuit info --data`, in JSON and as text (WriteText).
type DataInfo struct {
	Data     string              `json:"data"`
	Examples int                 `json:"n_examples"`
	Features int                 `json:"n_features"`
	Storage  *data.StorageReport `json:"storage"`
	// DenseBytes is what dense float32 rows take, for comparison.
	DenseBytes int64 `json:"dense_bytes"`
	// Scale is the scaling ScaleAuto resolves to on these data.
	Scale string `json:"scale"`
	// SparseAlgos are the algorithms that train on sparse rows
	// (SparseAlgorithms).
	SparseAlgos []string `json:"sparse_algorithms"`
}

// DescribeData reports on ds, read from path and held as storage says
// (data.DescribeStorage, taken before any scaling).
func DescribeData(path string, ds *data.Dataset, storage *data.StorageReport) *DataInfo {
	return &DataInfo{Data: path, Examples: ds.Len(), Features: ds.Dim(), Storage: storage,
		DenseBytes: 4 * int64(ds.Len()) * int64(ds.Dim()), Scale: string(data.DefaultScaleMode(ds.X)),
		SparseAlgos: SparseAlgorithms()}
}

// WriteText writes the report as five lines; name(setting) names the
// settings "storage" and "scale" as the reader knows them (nil: by those
// names).
func (d *DataInfo) WriteText(w io.Writer, name func(setting string) string) {
	if name == nil {
		name = func(s string) string { return s }
	}
	st := d.Storage
	fmt.Fprintf(w, "data:      %s: %d examples, %d features, %d non-zeros (density %.3g)\n", d.Data, d.Examples, d.Features, st.NNZ, st.Density)
	fmt.Fprintf(w, "storage:   %s (%s %s): %s\n", st.Kind, name("storage"), st.Asked, st.Reason)
	fmt.Fprintf(w, "memory:    %s for the features (dense rows: %s)\n", engine.FormatBytes(st.Bytes), engine.FormatBytes(d.DenseBytes))
	fmt.Fprintf(w, "scaling:   %s auto fits %s on these data\n", name("scale"), d.Scale)
	fmt.Fprintf(w, "sparse:    the algorithms that train on sparse rows: %s (the others hold the data dense)\n", strings.Join(d.SparseAlgos, ", "))
}
