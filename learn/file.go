package learn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
	"github.com/pursuit-ml/pursuit/internal/safefile"
	"github.com/pursuit-ml/pursuit/svm"
)

// The model file wraps each algorithm's own saved model so that one
// `pursuit predict` reads them all. It is an internal/modelfile frame (magic
// "PURSUIT-MODEL\n", version 3, SHA-256 of the whole) around
//
//	<header: one JSON object (Header)>\n
//	<Payload 1><Payload 2>...
//
// The header names the algorithm, the task and class labels, the feature
// count, the feature scaling (applied to data before the algorithm sees it),
// the kernel, training figures and the learning curve, and the byte length
// of each Payload. Each Payload is one model in its algorithm's own Save
// format (one per class for one-vs-rest, or one with every output). Version
// 1 files ("PURSUIT-MODEL 1 <header length> <header CRC-32>\n", the header,
// then the payloads, each with a CRC-32 in the header) are still read.
//
// Version 3 is version 2 with every Payload's vectors exactly dim features
// wide: svm payloads (LIBSVM text, which drops zeros) name the last feature
// on their first support vector. So the header's dim is checked against
// every Payload of a version 3 file; versions 1 and 2 may have svm payloads
// narrower than dim (trailing features zero in every support vector), and
// their other payloads are checked as in version 3.
const (
	ModelMagic   = "PURSUIT-MODEL\n"
	ModelVersion = 3
	// modelVersion2 is read as well: its svm payloads may be narrower than
	// dim.
	modelVersion2 = 2
	// ModelMagicV1 starts a version 1 file.
	ModelMagicV1 = "PURSUIT-MODEL 1 "
)

// Header is the JSON header of a model file.
type Header struct {
	Algorithm string       `json:"algorithm"`
	Labels    LabelPlan    `json:"labels"`
	Dim       int          `json:"dim"`
	Scaler    *data.Scaler `json:"scaler"`
	Kernel    string       `json:"kernel"`
	NBasis    int          `json:"n_basis"`
	Train     TrainSummary `json:"train"`
	Curve     []CurvePoint `json:"curve,omitempty"`
	Payloads  []Payload    `json:"payloads"`
}

// TrainSummary records how the model was trained.
type TrainSummary struct {
	Data         string  `json:"data,omitempty"`
	NTrain       int     `json:"n_train"`
	NVal         int     `json:"n_val"`
	TrainError   float64 `json:"train_error"`
	ValError     float64 `json:"val_error,omitempty"`
	TrainSeconds float64 `json:"train_seconds"`
	Backend      string  `json:"backend"`
	Seed         int64   `json:"seed"`
	Version      string  `json:"version"`
}

// Payload is one model's entry in the header: its byte length (and, in
// version 1 files, its CRC-32).
type Payload struct {
	Bytes int64  `json:"bytes"`
	CRC32 uint32 `json:"crc32,omitempty"` // version 1 files only
}

// File is a model file: the header and the models it holds (one per
// output, or one Multi model with every output). LoadModel and ParseModel
// read one, Write and WriteFile write one.
type File struct {
	Header Header
	Models []Model
}

// Decisions returns the outputs of every binary model on x (already scaled).
func (m *File) Decisions(e *engine.Engine, x pursuit.Matrix) ([][]float64, error) {
	var dec [][]float64
	for _, f := range m.Models {
		var ds [][]float64
		if mf, ok := f.(Multi); ok {
			all, err := mf.DecisionAll(e, x)
			if err != nil {
				return nil, fmt.Errorf("predict: %w", err)
			}
			ds = all
		} else {
			d, err := f.Decision(e, x)
			if err != nil {
				return nil, fmt.Errorf("predict: %w", err)
			}
			ds = [][]float64{d}
		}
		for _, d := range ds {
			if len(d) != x.Rows {
				return nil, fmt.Errorf("predict: %s returned %d outputs for %d examples", m.Header.Algorithm, len(d), x.Rows)
			}
		}
		dec = append(dec, ds...)
	}
	if want := m.Header.Labels.NumModels(); len(dec) != want {
		return nil, fmt.Errorf("predict: %s gave %d outputs per example, the task needs %d", m.Header.Algorithm, len(dec), want)
	}
	return dec, nil
}

// PrefixDecisions returns, for each n in ns, the decisions as if training
// had stopped after n steps; ok is false when an algorithm cannot predict
// so.
func (m *File) PrefixDecisions(e *engine.Engine, x pursuit.Matrix, ns []int) ([][][]float64, bool, error) {
	out := make([][][]float64, len(ns))
	for _, f := range m.Models {
		pd, ok := f.(Prefixer)
		if !ok || !pd.CanPrefix() {
			return nil, false, nil
		}
		d, err := pd.PrefixDecisions(e, x, ns)
		if err != nil {
			return nil, true, fmt.Errorf("predict with early steps only: %w", err)
		}
		for i := range ns {
			out[i] = append(out[i], d[i]...)
		}
	}
	return out, true, nil
}

// PrefixSizes returns, for each n in ns, the number of basis functions
// after n steps; ok is false when an algorithm cannot say.
func (m *File) PrefixSizes(ns []int) ([]int, bool, error) {
	out := make([]int, len(ns))
	for _, f := range m.Models {
		pd, ok := f.(Prefixer)
		if !ok || !pd.CanPrefix() {
			return nil, false, nil
		}
		s, err := pd.PrefixSizes(ns)
		if err != nil {
			return nil, true, err
		}
		for i := range ns {
			out[i] += s[i]
		}
	}
	return out, true, nil
}

// NBasis is the total number of basis functions over the binary models.
func (m *File) NBasis() int {
	n := 0
	for _, f := range m.Models {
		n += f.NBasis()
	}
	return n
}

// Write writes the model file to w and returns its size in bytes.
func (m *File) Write(w io.Writer) (int64, error) {
	var body bytes.Buffer
	var pay [][]byte
	m.Header.Payloads = m.Header.Payloads[:0]
	for k, f := range m.Models {
		var b bytes.Buffer
		if err := f.Save(&b); err != nil {
			return 0, fmt.Errorf("save %s model %d: %w", m.Header.Algorithm, k+1, err)
		}
		pay = append(pay, b.Bytes())
		m.Header.Payloads = append(m.Header.Payloads, Payload{Bytes: int64(b.Len())})
	}
	hdr, err := json.Marshal(&m.Header)
	if err != nil {
		return 0, fmt.Errorf("save model header: %w", err)
	}
	body.Write(hdr)
	body.WriteByte('\n')
	for _, p := range pay {
		body.Write(p)
	}
	cw := &countWriter{w: w}
	if err := modelfile.Write(cw, ModelMagic, ModelVersion, body.Bytes()); err != nil {
		return cw.n, fmt.Errorf("save model: %w", err)
	}
	return cw.n, nil
}

// Size returns the number of bytes the model file takes.
func (m *File) Size() (int64, error) { return m.Write(io.Discard) }

// WriteFile writes the model to path with safefile (replaced atomically,
// through symlinks; see --model's help) and returns its size.
func (m *File) WriteFile(path string) (int64, error) {
	var n int64
	var werr error
	err := safefile.WriteFile(path, 0o666, func(w io.Writer) error {
		n, werr = m.Write(w)
		return werr
	})
	if err != nil {
		if err != werr {
			err = fmt.Errorf("save model: %w", err)
		}
		return 0, err
	}
	return n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ErrNotModel marks a file that is not a pursuit model at all.
var ErrNotModel = errors.New("not a pursuit model file")

// errModelBudget marks a model that does not fit the memory budget.
var errModelBudget = engine.ErrBudget

// LoadModel reads a model file written by save (or a LIBSVM text model)
// within e's memory budget, and charges what the model holds to it. A file
// larger than the budget is refused before it is read, and so is one whose
// dense vectors would not fit (a LIBSVM model with huge feature indices).
func LoadModel(e *engine.Engine, path string) (*File, error) {
	limit := max(e.Available(), 0)
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	// The file is held twice while it is decoded (its bytes and the
	// Payload's copy).
	if need := 2 * st.Size(); need > limit {
		return nil, fmt.Errorf("load model %s: the file is %s and reading it needs about %s, over the %s that --mem-budget leaves (raise --mem-budget): %w",
			path, engine.FormatBytes(st.Size()), engine.FormatBytes(need), engine.FormatBytes(limit), errModelBudget)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	m, err := ParseModel(raw, limit-2*int64(len(raw)))
	if errors.Is(err, svm.ErrModelTooLarge) {
		return nil, fmt.Errorf("load model %s: %w (raise --mem-budget): %w", path, err, errModelBudget)
	}
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	if err := e.Hold("the model "+path, m.VectorBytes()); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return m, nil
}

// VectorBytes is the memory the models' vectors take.
func (m *File) VectorBytes() int64 {
	var n int64
	for _, f := range m.Models {
		b := f.Basis()
		if b.IsSparse() {
			n += b.Bytes()
		} else {
			n += int64(len(b.Data)) * 4
		}
	}
	return n
}

// ParseModel reads a model file's bytes; maxBytes bounds the dense vectors
// a Payload may allocate beyond them (a LIBSVM model's support vectors).
func ParseModel(raw []byte, maxBytes int64) (*File, error) {
	maxBytes = max(maxBytes, 0)
	if bytes.HasPrefix(raw, []byte("svm_type")) {
		return libsvmFile(raw, maxBytes)
	}
	if bytes.HasPrefix(raw, []byte(ModelMagicV1)) {
		return parseModelV1(raw, maxBytes)
	}
	version, body, err := modelfile.Read(bytes.NewReader(raw), ModelMagic, func(v uint32) error {
		if v != ModelVersion && v != modelVersion2 {
			return fmt.Errorf("model file version %d, this pursuit reads versions 1 to %d", v, ModelVersion)
		}
		return nil
	})
	switch {
	case errors.Is(err, modelfile.ErrMagic) && bytes.HasPrefix(raw, []byte(checkpoint.Magic)):
		return nil, fmt.Errorf("%w: it is a training checkpoint (continue it with `pursuit train --resume FILE`)", ErrNotModel)
	case errors.Is(err, modelfile.ErrMagic):
		return nil, fmt.Errorf("%w (it does not start with %q)", ErrNotModel, strings.TrimSpace(ModelMagic))
	case errors.Is(err, modelfile.ErrCorrupt):
		return nil, fmt.Errorf("the file is truncated or corrupted: %w", err)
	case err != nil:
		return nil, err
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return nil, fmt.Errorf("the header is not valid: no end of line after it")
	}
	m, err := parseHeader(body[:nl])
	if err != nil {
		return nil, err
	}
	if err := m.loadPayloads(body[nl+1:], version, maxBytes); err != nil {
		return nil, err
	}
	return m, nil
}

// parseModelV1 reads a version 1 file: a text first line with the header's
// length and CRC-32, and a CRC-32 per Payload in the header.
func parseModelV1(raw []byte, maxBytes int64) (*File, error) {
	nl := bytes.IndexByte(raw, '\n')
	var ver, hlen int
	var hcrc uint32
	if _, err := fmt.Sscanf(string(raw[:max(nl, 0)]), "PURSUIT-MODEL %d %d %x", &ver, &hlen, &hcrc); err != nil || nl < 0 {
		return nil, fmt.Errorf("%w: bad first line %q", ErrNotModel, shorten(string(raw[:max(nl, 0)]), 60))
	}
	rest := raw[nl+1:]
	if hlen < 0 || len(rest) < hlen+1 {
		return nil, fmt.Errorf("the file is truncated (the header needs %d bytes, %d remain)", hlen+1, len(rest))
	}
	hdrBytes := rest[:hlen]
	if crc32.ChecksumIEEE(hdrBytes) != hcrc || rest[hlen] != '\n' {
		return nil, fmt.Errorf("the header is corrupted (checksum mismatch)")
	}
	m, err := parseHeader(hdrBytes)
	if err != nil {
		return nil, err
	}
	if err := m.loadPayloads(rest[hlen+1:], 1, maxBytes); err != nil {
		return nil, err
	}
	return m, nil
}

// parseHeader decodes and checks a model file's JSON header.
func parseHeader(hdrBytes []byte) (*File, error) {
	var m File
	dec := json.NewDecoder(bytes.NewReader(hdrBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m.Header); err != nil {
		return nil, fmt.Errorf("the header is not valid: %w", err)
	}
	if err := m.Header.Labels.Check(); err != nil {
		return nil, fmt.Errorf("the header is not valid: %w", err)
	}
	if m.Header.Dim <= 0 {
		return nil, fmt.Errorf("the header gives %d features", m.Header.Dim)
	}
	if m.Header.Scaler != nil {
		if err := m.Header.Scaler.Check(); err != nil {
			return nil, fmt.Errorf("the header is not valid: %w", err)
		}
		if m.Header.Scaler.Dim() != m.Header.Dim {
			return nil, fmt.Errorf("the header's dim is %d, but its scaler has %d features", m.Header.Dim, m.Header.Scaler.Dim())
		}
	}
	if len(m.Header.Payloads) == 0 || len(m.Header.Payloads) > m.Header.Labels.NumModels() {
		return nil, fmt.Errorf("the header lists %d models for a %s task with %d outputs", len(m.Header.Payloads), m.Header.Labels.Task, m.Header.Labels.NumModels())
	}
	return &m, nil
}

// loadPayloads reads the models of the file body after the header (of a
// file of the given version: 1 checks each Payload's CRC-32) and checks the
// header's dim against the width of each.
func (m *File) loadPayloads(body []byte, version uint32, maxBytes int64) error {
	v1 := version == 1
	for k, p := range m.Header.Payloads {
		if p.Bytes < 0 || int64(len(body)) < p.Bytes {
			return fmt.Errorf("the file is truncated: the header's payloads[%d].bytes is %d, but %d bytes remain for model %d of %d", k, p.Bytes, len(body), k+1, len(m.Header.Payloads))
		}
		b := body[:p.Bytes]
		body = body[p.Bytes:]
		if v1 && crc32.ChecksumIEEE(b) != p.CRC32 {
			return fmt.Errorf("model %d of %d is corrupted (checksum mismatch)", k+1, len(m.Header.Payloads))
		}
		f, err := Load(m.Header.Algorithm, bytes.NewReader(b), maxBytes)
		if err != nil {
			return fmt.Errorf("model %d of %d (%s): %w", k+1, len(m.Header.Payloads), m.Header.Algorithm, err)
		}
		if err := m.checkWidth(f, version); err != nil {
			return fmt.Errorf("model %d of %d (%s): %w", k+1, len(m.Header.Payloads), m.Header.Algorithm, err)
		}
		m.Models = append(m.Models, f)
	}
	if len(body) != 0 {
		return fmt.Errorf("%d unexpected bytes after the last model (corrupted or concatenated file)", len(body))
	}
	if outputs, want := Outputs(m.Models), m.Header.Labels.NumModels(); outputs != want {
		return fmt.Errorf("the models have %d outputs, the %s task needs %d", outputs, m.Header.Labels.Task, want)
	}
	if n := m.NBasis(); n != m.Header.NBasis {
		return fmt.Errorf("the header's n_basis is %d, but the models hold %d basis functions (a damaged or edited file)", m.Header.NBasis, n)
	}
	return nil
}

// checkWidth checks the header's dim against the feature count of a
// Payload's vectors: equal, except that an svm Payload of a version 1 or 2
// file may be narrower (LIBSVM text drops the zeros, and those versions did
// not name the last feature). A Payload with no vectors and no width says
// nothing.
func (m *File) checkWidth(f Model, version uint32) error {
	w := f.Basis().Cols
	_, sparseText := f.(*SVMModel)
	switch {
	case w == 0 || w == m.Header.Dim:
		return nil
	case sparseText && version < ModelVersion && w < m.Header.Dim:
		return nil
	}
	return fmt.Errorf("the header's dim is %d, but the model's vectors have %d features (a damaged or edited file)", m.Header.Dim, w)
}

// libsvmFile reads a model file written by LIBSVM's svm-train (or
// WriteLIBSVM): a binary or multi-class (one-vs-one, SVMOneVsOne) C-SVC or
// an ε-SVR, applied to the data as they are (LIBSVM keeps no scaling; use
// svm-scale's output), with float64 kernels and the support vectors'
// values as the file gives them, as svm-predict.
func libsvmFile(raw []byte, maxBytes int64) (*File, error) {
	sm, err := svm.ReadLIBSVMModel(bytes.NewReader(raw), svm.WithModelMemoryLimit(maxBytes))
	if err != nil {
		return nil, fmt.Errorf("LIBSVM model: %w", err)
	}
	if sm.Type == svm.CSVC && sm.NumClasses() > 2 {
		return oneVsOneFile(sm)
	}
	f, err := NewSVMModel(sm)
	if err != nil {
		return nil, fmt.Errorf("LIBSVM model: %w", err)
	}
	f.exact = true // LIBSVM's kernels are float64: so are an imported model's
	m := &File{Models: []Model{f}}
	m.Header = Header{Algorithm: "svm", Kernel: sm.Kernel.String(), NBasis: sm.TotalSV()}
	switch {
	case sm.Type != svm.CSVC:
		m.Header.Labels = LabelPlan{Task: TaskRegression}
	case sm.Labels[0] == 1:
		m.Header.Labels = LabelPlan{Task: TaskBinary, Classes: []float64{sm.Labels[1], sm.Labels[0]}}
	default:
		// The adapter's decision is positive for Labels[1] then.
		m.Header.Labels = LabelPlan{Task: TaskBinary, Classes: []float64{sm.Labels[0], sm.Labels[1]}}
	}
	return m, nil
}

func shorten(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
