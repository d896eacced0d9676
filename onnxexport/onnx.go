package onnxexport

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/onnxexport/internal/onnxpb"
	"github.com/pursuit-ml/pursuit/svm"
)

// The names of the graph's input and outputs.
const (
	Input  = "X"      // float [N, F]: the unscaled features
	Label  = "label"  // int64 or string [N]: a classifier's predicted label
	Scores = "scores" // float [N, S]: a classifier's decision values
	Value  = "value"  // float [N, 1]: a regressor's prediction
)

// The versions written: IR version 8 (ONNX 1.10 and later read it), the
// ai.onnx.ml operator set 1 (SVMClassifier, SVMRegressor and Scaler have had
// no later version) and the default operator set 13, which the graph does
// not use but runtimes expect to be declared.
const (
	irVersion     = 8
	mlDomain      = "ai.onnx.ml"
	mlOpset       = 1
	defaultOpset  = 13
	producerName  = "pursuit"
	scaledFeature = "X_scaled"
)

// ErrNotExpressible is wrapped by the errors of models that have no ONNX
// form here: a kernel ONNX's SVM operators lack or a model type other than
// C-SVC and ε-SVR.
var ErrNotExpressible = errors.New("not expressible as an ONNX SVM")

// Option changes what Marshal writes.
type Option func(*options)

type options struct {
	doc, producerVersion string
	svmOperators         bool
}

// SVMOperators writes the ai.onnx.ml graph (Scaler, SVMClassifier or
// SVMRegressor), which computes in float32, instead of the default float64
// graph of standard operators.
func SVMOperators() Option { return func(o *options) { o.svmOperators = true } }

// WithDoc sets the model's doc_string (a line saying what the model is).
func WithDoc(doc string) Option { return func(o *options) { o.doc = doc } }

// WithProducerVersion sets the model's producer_version (producer_name is
// "pursuit").
func WithProducerVersion(v string) Option { return func(o *options) { o.producerVersion = v } }

// Write writes m, with the scaler s in front (nil or mode none: none), to w
// as an ONNX model; see Marshal.
func Write(w io.Writer, m *svm.Model, s *data.Scaler, opts ...Option) error {
	b, err := Marshal(m, s, opts...)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("onnxexport: writing the model: %w", err)
	}
	return nil
}

// Marshal returns m as the bytes of an ONNX model whose graph takes Input
// (float [N, F], F the model's feature count) and applies s first when s
// scales (x' = (x − offset)·scale). It fails for a model m.Check refuses, a
// scaler whose feature count differs from the support vectors', and a
// kernel or type ONNX lacks (an error wrapping ErrNotExpressible).
//
// By default the graph is the float64 graph of standard operators (see
// graph64.go): a C-SVC gives Label and Scores (double), an ε-SVR Value
// (double [N, 1]), equal to pursuit predict's decisions to about 1e-12
// relative, on any runtime of the default operator set 13. With
// SVMOperators the graph is ai.onnx.ml's Scaler followed by SVMClassifier
// (Label, Scores float) or SVMRegressor (Value float): the operators ONNX
// tooling knows as SVMs, which hold the coefficients, offsets and scaler
// in float32 and compute in float32 (the support vectors, already float32,
// are written as they are), within about 1e-6 of a decision per unit of
// Σ|coefficient|.
//
// The classifier gives LIBSVM's labels: one-vs-one votes over the
// k(k−1)/2 pairs, ties to the class listed first. Its scores are the
// pairwise decision values in LIBSVM's order ((1,2), (1,3), …, (k−1,k)),
// positive where the pair's first class wins; for two classes there are two
// columns, −d and d, with d the decision value of the pair (Labels[0],
// Labels[1]). A model's Platt probabilities (ProbA, ProbB) are left out:
// with them, onnxruntime would choose labels by probability and no longer
// agree with svm-predict without -b. Labels are written as int64 when every
// label is an integer, as strings (%g) otherwise.
func Marshal(m *svm.Model, s *data.Scaler, opts ...Option) ([]byte, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	g, err := graph(m, s, o.svmOperators)
	if err != nil {
		return nil, err
	}
	mp := &onnxpb.ModelProto{
		IrVersion:       proto.Int64(irVersion),
		ProducerName:    proto.String(producerName),
		ProducerVersion: optString(o.producerVersion),
		DocString:       optString(o.doc),
		OpsetImport: []*onnxpb.OperatorSetIdProto{
			{Domain: proto.String(""), Version: proto.Int64(defaultOpset)},
			{Domain: proto.String(mlDomain), Version: proto.Int64(mlOpset)},
		},
		Graph: g,
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(mp)
	if err != nil {
		return nil, fmt.Errorf("onnxexport: encoding the model: %w", err)
	}
	return b, nil
}

// graph builds the model's graph: the float64 graph (graph64), or with
// svmOperators [Scaler →] SVMClassifier | SVMRegressor.
func graph(m *svm.Model, s *data.Scaler, svmOperators bool) (*onnxpb.GraphProto, error) {
	if m == nil {
		return nil, errors.New("onnxexport: no model")
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("onnxexport: %w", err)
	}
	kernel, params, err := kernelAttrs(m.Kernel)
	if err != nil {
		return nil, err
	}
	features := m.SV.Cols
	if s != nil {
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("onnxexport: %w", err)
		}
		if s.Dim() != features {
			return nil, fmt.Errorf("onnxexport: the scaler has %d features and the support vectors %d", s.Dim(), features)
		}
	}
	if !svmOperators {
		return graph64(m, s)
	}
	g := &onnxpb.GraphProto{
		Name:  proto.String("pursuit_" + m.Type.String()),
		Input: []*onnxpb.ValueInfoProto{tensorInfo(Input, onnxpb.TensorProto_FLOAT, dimParam("N"), dimValue(features))},
	}
	x := Input
	if s != nil && s.Mode != data.ScaleNone {
		g.Node = append(g.Node, &onnxpb.NodeProto{
			Name:      proto.String("scaler"),
			OpType:    proto.String("Scaler"),
			Domain:    proto.String(mlDomain),
			Input:     []string{Input},
			Output:    []string{scaledFeature},
			Attribute: []*onnxpb.AttributeProto{floats("offset", s.Offset), floats("scale", s.Scale)},
		})
		x = scaledFeature
	}
	common := []*onnxpb.AttributeProto{
		str("kernel_type", kernel),
		floats("kernel_params", params),
		float32s("support_vectors", denseRows(m.SV)),
		floats("coefficients", concat(m.Coef)),
		floats("rho", negate(m.Rho)), // ONNX adds rho where LIBSVM subtracts ρ
		str("post_transform", "NONE"),
	}
	switch m.Type {
	case svm.EpsilonSVR:
		g.Node = append(g.Node, &onnxpb.NodeProto{
			Name:      proto.String("svm"),
			OpType:    proto.String("SVMRegressor"),
			Domain:    proto.String(mlDomain),
			Input:     []string{x},
			Output:    []string{Value},
			Attribute: append(common, integer("n_supports", int64(m.SV.Rows)), integer("one_class", 0)),
		})
		g.Output = []*onnxpb.ValueInfoProto{tensorInfo(Value, onnxpb.TensorProto_FLOAT, dimParam("N"), dimValue(1))}
	case svm.CSVC:
		perClass := make([]int64, len(m.NumSV))
		for i, n := range m.NumSV {
			perClass[i] = int64(n)
		}
		labels, labelType := classLabels(m.Labels)
		attrs := append(common, ints("vectors_per_class", perClass), labels)
		g.Node = append(g.Node, &onnxpb.NodeProto{
			Name:      proto.String("svm"),
			OpType:    proto.String("SVMClassifier"),
			Domain:    proto.String(mlDomain),
			Input:     []string{x},
			Output:    []string{Label, Scores},
			Attribute: attrs,
		})
		k := len(m.Labels)
		g.Output = []*onnxpb.ValueInfoProto{
			tensorInfo(Label, labelType, dimParam("N")),
			tensorInfo(Scores, onnxpb.TensorProto_FLOAT, dimParam("N"), dimValue(max(2, k*(k-1)/2))),
		}
	default:
		return nil, fmt.Errorf("onnxexport: an SVM of type %s: %w (C-SVC and ε-SVR are)", m.Type, ErrNotExpressible)
	}
	return g, nil
}

// kernelAttrs returns ONNX's kernel_type and kernel_params [γ, c0, degree]
// for k: ONNX's kernels are LIBSVM's (LINEAR x·z, POLY (γ x·z + c0)^d, RBF
// exp(−γ‖x−z‖²), SIGMOID tanh(γ x·z + c0)).
func kernelAttrs(k pursuit.Kernel) (string, []float64, error) {
	switch k.Kind {
	case pursuit.Linear:
		return "LINEAR", []float64{0, 0, 0}, nil
	case pursuit.Polynomial:
		return "POLY", []float64{k.Gamma, k.Coef0, float64(k.Degree)}, nil
	case pursuit.RBF:
		return "RBF", []float64{k.Gamma, 0, 0}, nil
	case pursuit.Sigmoid:
		return "SIGMOID", []float64{k.Gamma, k.Coef0, 0}, nil
	}
	return "", nil, fmt.Errorf("onnxexport: the %s kernel: %w", k, ErrNotExpressible)
}

// classLabels returns the classlabels_ints attribute when every label is an
// integer that float64 holds exactly, classlabels_strings otherwise, with
// the label output's element type.
func classLabels(labels []float64) (*onnxpb.AttributeProto, onnxpb.TensorProto_DataType) {
	whole := make([]int64, len(labels))
	for i, l := range labels {
		if l != math.Trunc(l) || math.Abs(l) > 1<<53 {
			names := make([]string, len(labels))
			for j, l := range labels {
				names[j] = strconv.FormatFloat(l, 'g', -1, 64)
			}
			return strs("classlabels_strings", names), onnxpb.TensorProto_STRING
		}
		whole[i] = int64(l)
	}
	return ints("classlabels_ints", whole), onnxpb.TensorProto_INT64
}

// denseRows returns m's rows, dense or sparse, one after another as dense
// rows (without the stride's padding): ONNX's support_vectors are dense.
func denseRows(m pursuit.Matrix) []float32 {
	out := make([]float32, m.Rows*m.Cols)
	for i := range m.Rows {
		m.RowTo(out[i*m.Cols:], i)
	}
	return out
}

func concat(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func negate(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = -x
	}
	return out
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return proto.String(s)
}

// The attribute builders: each sets the name, the type and one field.

func floats(name string, v []float64) *onnxpb.AttributeProto {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return float32s(name, f)
}

func float32s(name string, v []float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: v}
}

func ints(name string, v []int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func integer(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func str(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func strs(name string, v []string) *onnxpb.AttributeProto {
	b := make([][]byte, len(v))
	for i, s := range v {
		b[i] = []byte(s)
	}
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRINGS.Enum(), Strings: b}
}

// dim is one dimension of a tensor type: a fixed size or a named one.
type dim = *onnxpb.TensorShapeProto_Dimension

func dimValue(n int) dim {
	return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: int64(n)}}
}

func dimParam(name string) dim {
	return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: name}}
}

// tensorInfo describes a graph input or output: a tensor of elem with the
// given dimensions.
func tensorInfo(name string, elem onnxpb.TensorProto_DataType, dims ...dim) *onnxpb.ValueInfoProto {
	return &onnxpb.ValueInfoProto{
		Name: proto.String(name),
		Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(elem)),
			Shape:    &onnxpb.TensorShapeProto{Dim: dims},
		}}},
	}
}
