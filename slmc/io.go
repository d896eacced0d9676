package slmc

import (
	"fmt"
	"io"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// The model file is package modelfile's frame — magic, format version
// (uint32 little-endian), payload length (uint64 little-endian), a JSON
// payload, and the SHA-256 of all that — around a fileModel.
const (
	fileMagic   = "PURSUIT-SLMC\n"
	fileVersion = 1
)

// ErrCorrupt is wrapped by Load's errors for damaged or truncated files.
var ErrCorrupt = modelfile.ErrCorrupt

type fileModel struct {
	Method string           `json:"method"`
	Kernel modelfile.Kernel `json:"kernel"`
	Rows   int              `json:"rows"`
	Cols   int              `json:"cols"`
	XV     []float32        `json:"xv"` // row-major, Rows×Cols
	Beta   []float64        `json:"beta"`
	Bias   float64          `json:"bias"`
}

// Save writes the model in a versioned, checksummed binary frame around a
// JSON payload. Numbers are written exactly (shortest round-trip form), so
// a loaded model gives the same decision values.
func (m *Model) Save(w io.Writer) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("slmc: save: %w", err)
	}
	k := m.Kernel
	fm := fileModel{
		Method: m.Method,
		Kernel: modelfile.KernelOf(k),
		Rows:   m.XV.Rows, Cols: m.XV.Cols,
		XV:   make([]float32, 0, m.XV.Rows*m.XV.Cols),
		Beta: m.Beta, Bias: m.Bias,
	}
	if fm.Beta == nil {
		fm.Beta = []float64{}
	}
	for i := range m.XV.Rows {
		fm.XV = append(fm.XV, m.XV.Row(i)...)
	}
	if err := modelfile.WriteJSON(w, fileMagic, fileVersion, &fm); err != nil { // non-finite expansion vectors fail to encode
		return fmt.Errorf("slmc: save: %w", err)
	}
	return nil
}

// Load reads a model written by Save. It reads r to its end. A damaged or
// truncated file gives an error wrapping ErrCorrupt; a file of another kind
// or version is refused with an error saying so.
func Load(r io.Reader) (*Model, error) {
	_, payload, err := modelfile.Read(r, fileMagic, func(v uint32) error {
		if v != fileVersion {
			return fmt.Errorf("unsupported SLMC model file version %d (this build reads version %d)", v, fileVersion)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("slmc: load: %w", err)
	}
	var fm fileModel
	if err := modelfile.DecodeJSON(payload, &fm); err != nil {
		return nil, fmt.Errorf("slmc: load: %w", err)
	}
	return fm.model()
}

func (fm *fileModel) model() (*Model, error) {
	kernel, err := fm.Kernel.Kernel()
	if err != nil {
		return nil, fmt.Errorf("slmc: load: %w", err)
	}
	if fm.Method == "" {
		return nil, fmt.Errorf("slmc: load: the model names no method")
	}
	shapeOK := fm.Rows >= 0 && fm.Cols >= 0
	if shapeOK && fm.Rows > 0 {
		shapeOK = fm.Cols > 0 && len(fm.XV)%fm.Rows == 0 && len(fm.XV)/fm.Rows == fm.Cols
	} else if shapeOK {
		shapeOK = len(fm.XV) == 0
	}
	if !shapeOK {
		return nil, fmt.Errorf("slmc: load: rows %d × cols %d expansion vectors, but the file holds %d values", fm.Rows, fm.Cols, len(fm.XV))
	}
	xv := pursuit.Matrix{Rows: fm.Rows, Cols: fm.Cols, Stride: fm.Cols, Data: fm.XV}
	if xv.Data == nil {
		xv.Data = []float32{}
	}
	m := &Model{
		Method: fm.Method,
		Kernel: kernel,
		XV:     xv, Beta: fm.Beta, Bias: fm.Bias,
	}
	if m.Beta == nil {
		m.Beta = []float64{}
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("slmc: load: %w", err)
	}
	return m, nil
}
