package kmp

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// The model file is package modelfile's frame — magic, format version,
// payload length, the JSON payload and the SHA-256 of header and payload.
// Version 1 files (before the shared frame) checksummed the payload alone;
// Load still reads them, Save writes version 2.
const (
	fileMagic   = "PURSUIT-KMP\n"
	fileVersion = 2
	// legacyVersion is the pre-modelfile version, read but not written.
	legacyVersion = 1
)

// ErrCorrupt is wrapped by Load's errors for damaged or truncated files.
var ErrCorrupt = modelfile.ErrCorrupt

// ErrNotModel is wrapped by Load's error for input that is not a KMP model
// file at all (another kind of file: wrong magic).
var ErrNotModel = modelfile.ErrMagic

type fileStep struct {
	Step      int      `json:"step"`
	Basis     int      `json:"basis"`
	Atom      int      `json:"atom"`
	Support   int      `json:"support"`
	Kernel    int      `json:"kernel"`
	Output    int      `json:"output"`
	Residual  *float64 `json:"residual"`
	TrainLoss *float64 `json:"train_loss"`
	TrainErr  *float64 `json:"train_err"`
	ValLoss   *float64 `json:"val_loss"`
	ValErr    *float64 `json:"val_err"`
	ElapsedNS int64    `json:"elapsed_ns"`
}

type fileOutput struct {
	Coef  []float64  `json:"coef"`
	Bias  float64    `json:"bias"`
	Steps int        `json:"steps"`
	Curve []fileStep `json:"curve"`
	Stop  string     `json:"stop,omitempty"`
}

type fileModel struct {
	Task         string             `json:"task"`
	Loss         string             `json:"loss"`
	Variant      string             `json:"variant"`
	Classes      []float64          `json:"classes,omitempty"`
	Kernels      []modelfile.Kernel `json:"kernels"`
	CustomKernel string             `json:"custom_kernel,omitempty"`
	HasCustom    bool               `json:"has_custom,omitempty"`
	Scaler       *data.Scaler       `json:"scaler,omitempty"`
	Rows         int                `json:"support_rows"`
	Cols         int                `json:"support_cols"`
	Support      []float32          `json:"support"`
	// SupportSparse holds sparse support vectors (Support is then empty).
	SupportSparse *modelfile.SparseRows `json:"support_sparse,omitempty"`
	SupportIndex  []int                 `json:"support_index"`
	SupportKernel []int                 `json:"support_kernel"`
	Outputs       []fileOutput          `json:"outputs"`
}

func optF(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func fromOpt(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// Save writes the model in the versioned, checksummed format. A custom
// kernel is saved by name only.
func (m *Model) Save(w io.Writer) error {
	if err := m.Check(); err != nil {
		return fmt.Errorf("kmp: save: %w", err)
	}
	fm := fileModel{
		Task: m.Task.String(), Loss: m.Loss.String(), Variant: m.Variant.String(), Classes: m.Classes,
		Scaler: m.Scaler, Rows: m.Support.Rows, Cols: m.Support.Cols,
		SupportIndex: m.SupportIndex, SupportKernel: m.SupportKernel,
	}
	for _, k := range m.Kernels {
		fm.Kernels = append(fm.Kernels, modelfile.KernelOf(k))
	}
	if m.Custom != nil {
		fm.HasCustom, fm.CustomKernel = true, m.Custom.Name
	}
	if m.Support.IsSparse() {
		// Sparse support vectors are written sparse: O(non-zeros).
		fm.Support, fm.SupportSparse = []float32{}, modelfile.SparseRowsOf(m.Support)
	} else {
		fm.Support = make([]float32, 0, m.Support.Rows*m.Support.Cols)
		for i := range m.Support.Rows {
			fm.Support = append(fm.Support, m.Support.Row(i)...)
		}
	}
	for _, o := range m.Outputs {
		fo := fileOutput{Coef: o.Coef, Bias: o.Bias, Steps: o.Steps, Stop: string(o.Stop), Curve: make([]fileStep, 0, len(o.Curve))}
		for _, s := range o.Curve {
			fo.Curve = append(fo.Curve, fileStep{
				Step: s.Step, Basis: s.Basis, Atom: s.Atom, Support: s.Support, Kernel: s.Kernel, Output: s.Output,
				Residual: optF(s.Residual), TrainLoss: optF(s.TrainLoss), TrainErr: optF(s.TrainErr),
				ValLoss: optF(s.ValLoss), ValErr: optF(s.ValErr), ElapsedNS: int64(s.Elapsed),
			})
		}
		fm.Outputs = append(fm.Outputs, fo)
	}
	if err := modelfile.WriteJSON(w, fileMagic, fileVersion, &fm); err != nil {
		return fmt.Errorf("kmp: save: %w", err)
	}
	return nil
}

// LoadOption configures Load.
type LoadOption func(*loadOptions)

type loadOptions struct{ custom map[string]KernelFunc }

// WithKernelFunc supplies the function of a custom kernel saved by name.
func WithKernelFunc(name string, f KernelFunc) LoadOption {
	return func(o *loadOptions) {
		if o.custom == nil {
			o.custom = map[string]KernelFunc{}
		}
		o.custom[name] = f
	}
}

// Load reads a model written by Save. Damaged and truncated files give an
// error wrapping ErrCorrupt. A model with a custom kernel loads without its
// function unless WithKernelFunc supplies it (Decision then fails).
func Load(r io.Reader, opts ...LoadOption) (*Model, error) {
	var lo loadOptions
	for _, o := range opts {
		o(&lo)
	}
	_, payload, err := modelfile.ReadLegacy(r, fileMagic, func(v uint32) error {
		if v != fileVersion && v != legacyVersion {
			return fmt.Errorf("unsupported model file version %d (this build reads versions %d and %d)", v, legacyVersion, fileVersion)
		}
		return nil
	}, func(v uint32) bool { return v == legacyVersion })
	if err != nil {
		return nil, fmt.Errorf("kmp: load: %w", err)
	}
	var fm fileModel
	if err := modelfile.DecodeJSON(payload, &fm); err != nil {
		return nil, fmt.Errorf("kmp: load: %w", err)
	}
	return fromFile(&fm, &lo)
}

func fromFile(fm *fileModel, lo *loadOptions) (*Model, error) {
	m := &Model{Classes: fm.Classes, Scaler: fm.Scaler, SupportIndex: fm.SupportIndex, SupportKernel: fm.SupportKernel}
	var err error
	switch fm.Task {
	case Classification.String():
		m.Task = Classification
	case Regression.String():
		m.Task = Regression
	default:
		return nil, fmt.Errorf("kmp: load: unknown task %q", fm.Task)
	}
	if m.Loss, err = ParseLoss(fm.Loss); err != nil {
		return nil, fmt.Errorf("kmp: load: %w", err)
	}
	if m.Variant, err = ParseVariant(fm.Variant); err != nil {
		return nil, fmt.Errorf("kmp: load: %w", err)
	}
	for i, fk := range fm.Kernels {
		k, err := fk.Kernel()
		if err != nil {
			return nil, fmt.Errorf("kmp: load: kernel %d: %w", i, err)
		}
		m.Kernels = append(m.Kernels, k)
	}
	if fm.HasCustom {
		m.Custom = &CustomKernel{Name: fm.CustomKernel, Func: lo.custom[fm.CustomKernel]}
	}
	switch {
	case fm.SupportSparse != nil:
		if len(fm.Support) != 0 {
			return nil, fmt.Errorf("kmp: load: the file holds both dense and sparse support vectors")
		}
		if m.Support, err = fm.SupportSparse.Matrix(fm.Rows, fm.Cols); err != nil {
			return nil, fmt.Errorf("kmp: load: support vectors: %w", err)
		}
	case !modelfile.FitsShape(fm.Rows, fm.Cols, len(fm.Support)):
		return nil, fmt.Errorf("kmp: load: support_rows %d × support_cols %d support vectors, but the file holds %d support values", fm.Rows, fm.Cols, len(fm.Support))
	default:
		m.Support = pursuit.Matrix{Rows: fm.Rows, Cols: fm.Cols, Stride: fm.Cols, Data: fm.Support}
	}
	if m.SupportIndex == nil {
		m.SupportIndex = []int{}
	}
	if m.SupportKernel == nil {
		m.SupportKernel = []int{}
	}
	for i, fo := range fm.Outputs {
		o := Output{Coef: fo.Coef, Bias: fo.Bias, Steps: fo.Steps, Stop: StopReason(fo.Stop)}
		switch o.Stop {
		case "", StopPatience, StopFitted, StopExhausted, StopOrthogonal:
		default:
			return nil, fmt.Errorf("kmp: load: output %d has unknown stop reason %q", i, fo.Stop)
		}
		if o.Coef == nil {
			o.Coef = []float64{}
		}
		for _, s := range fo.Curve {
			o.Curve = append(o.Curve, Step{
				Step: s.Step, Basis: s.Basis, Atom: s.Atom, Support: s.Support, Kernel: s.Kernel, Output: s.Output,
				Residual: fromOpt(s.Residual), TrainLoss: fromOpt(s.TrainLoss), TrainErr: fromOpt(s.TrainErr),
				ValLoss: fromOpt(s.ValLoss), ValErr: fromOpt(s.ValErr), Elapsed: time.Duration(s.ElapsedNS),
			})
		}
		m.Outputs = append(m.Outputs, o)
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("kmp: load: %w", err)
	}
	return m, nil
}
