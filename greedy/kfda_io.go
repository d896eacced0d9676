package greedy

import (
	"fmt"
	"io"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// The MP-KFDA model file is package modelfile's frame (magic, version,
// payload length, JSON payload, SHA-256) around a kfdaFile.
const (
	kfdaMagic   = "PURSUIT-MPKFDA\n"
	kfdaVersion = 1
)

// ErrCorrupt is wrapped by LoadKFDA's errors for damaged or truncated
// files.
var ErrCorrupt = modelfile.ErrCorrupt

type kfdaFile struct {
	Kernel  modelfile.Kernel `json:"kernel"`
	Rows    int              `json:"rows"`
	Cols    int              `json:"cols"`
	Centres []float32        `json:"centres"` // row-major, Rows×Cols
	// CentresSparse holds sparse centres (Centres is then empty).
	CentresSparse *modelfile.SparseRows `json:"centres_sparse,omitempty"`
	Index         []int                 `json:"index"`
	Alpha         []float64             `json:"alpha"`
	Bias          float64               `json:"bias"`
	W             []float64             `json:"w"`
	Scores        []float64             `json:"scores"`
}

// Check reports the first inconsistency of a model (shapes, non-finite
// numbers, an invalid kernel), so that a loaded model cannot panic later.
func (f *KFDA) Check() error {
	k := len(f.Alpha)
	switch {
	case k == 0:
		return fmt.Errorf("MP-KFDA model has no basis vectors")
	case f.Centres.Rows != k || f.Centres.Cols < 1 || f.Centres.Validate() != nil:
		return fmt.Errorf("MP-KFDA model has %d coefficients for %d×%d centres", k, f.Centres.Rows, f.Centres.Cols)
	case len(f.Index) != k || len(f.W) != k || len(f.Scores) != k:
		return fmt.Errorf("MP-KFDA model: %d indices, %d Fisher weights and %d scores for %d coefficients", len(f.Index), len(f.W), len(f.Scores), k)
	}
	if err := f.Kernel.Validate(); err != nil {
		return fmt.Errorf("MP-KFDA model: %w", err)
	}
	for _, v := range [][]float64{f.Alpha, f.W, f.Scores, {f.Bias}} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("MP-KFDA model holds a non-finite number %v", x)
			}
		}
	}
	for r := range k {
		var bad error
		f.Centres.ForEachNonZero(r, func(_ int, v float32) {
			if bad == nil && (math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)) {
				bad = fmt.Errorf("MP-KFDA model: centre %d holds %v", r, v)
			}
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

// Save writes the model in a versioned, checksummed frame around a JSON
// payload (numbers in shortest round-trip form: a loaded model decides
// exactly as the saved one).
func (f *KFDA) Save(w io.Writer) error {
	if err := f.Check(); err != nil {
		return fmt.Errorf("greedy: save: %w", err)
	}
	k := f.Kernel
	fm := kfdaFile{
		Kernel: modelfile.KernelOf(k),
		Rows:   f.Centres.Rows, Cols: f.Centres.Cols,
		Index: f.Index, Alpha: f.Alpha, Bias: f.Bias, W: f.W, Scores: f.Scores,
	}
	if f.Centres.IsSparse() {
		// Sparse centres are written sparse: O(non-zeros).
		fm.Centres, fm.CentresSparse = []float32{}, modelfile.SparseRowsOf(f.Centres)
	} else {
		for r := range f.Centres.Rows {
			fm.Centres = append(fm.Centres, f.Centres.Row(r)...)
		}
	}
	if err := modelfile.WriteJSON(w, kfdaMagic, kfdaVersion, &fm); err != nil {
		return fmt.Errorf("greedy: save: %w", err)
	}
	return nil
}

// LoadKFDA reads a model written by KFDA.Save, to the end of r. A damaged or
// truncated file gives an error wrapping ErrCorrupt; another kind of file
// or version is refused with an error saying so.
func LoadKFDA(r io.Reader) (*KFDA, error) {
	_, payload, err := modelfile.Read(r, kfdaMagic, func(v uint32) error {
		if v != kfdaVersion {
			return fmt.Errorf("unsupported MP-KFDA model file version %d (this build reads version %d)", v, kfdaVersion)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("greedy: load: %w", err)
	}
	var fm kfdaFile
	if err := modelfile.DecodeJSON(payload, &fm); err != nil {
		return nil, fmt.Errorf("greedy: load: %w", err)
	}
	kernel, err := fm.Kernel.Kernel()
	if err != nil {
		return nil, fmt.Errorf("greedy: load: %w", err)
	}
	centres := pursuit.Matrix{Rows: fm.Rows, Cols: fm.Cols, Stride: fm.Cols, Data: fm.Centres}
	switch {
	case fm.Rows < 1 || fm.Cols < 1:
		return nil, fmt.Errorf("greedy: load: rows %d × cols %d centres", fm.Rows, fm.Cols)
	case fm.CentresSparse != nil:
		if len(fm.Centres) != 0 {
			return nil, fmt.Errorf("greedy: load: the file holds both dense and sparse centres")
		}
		if centres, err = fm.CentresSparse.Matrix(fm.Rows, fm.Cols); err != nil {
			return nil, fmt.Errorf("greedy: load: centres: %w", err)
		}
	case !modelfile.FitsShape(fm.Rows, fm.Cols, len(fm.Centres)):
		return nil, fmt.Errorf("greedy: load: rows %d × cols %d centres, but the file holds %d centre values", fm.Rows, fm.Cols, len(fm.Centres))
	}
	f := &KFDA{
		Kernel:  kernel,
		Centres: centres,
		Index:   fm.Index, Alpha: fm.Alpha, Bias: fm.Bias, W: fm.W, Scores: fm.Scores,
	}
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("greedy: load: %w", err)
	}
	return f, nil
}
