package onnxexport

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/onnxexport/internal/onnxpb"
	"github.com/pursuit-ml/pursuit/svm"
)

// The float64 graph (the default; see Marshal).
//
// ONNX's SVM operators hold their coefficients and compute their kernels
// in float32. A kernel expansion whose coefficients are large and cancel
// (KMP with pre-fitting, MP-KFDA, the hard ε-tube) multiplies that error:
// on the moons data a pre-fitted KMP model with Σ|c| = 412 gave decisions
// 1.1e-5 from pursuit predict's. The float64 graph computes as pursuit
// predict does, with the default operator set's Cast, Sub, Mul, MatMul,
// ReduceSumSquare, Exp (Pow; tanh as sign(t)·(1 − e)/(1 + e) with
// e = exp(−2|t|), onnxruntime's double Tanh being less accurate) and Add
// in double, γ (and 2γ) multiplied into the support vectors at export:
//
//	x' = float32((x − offset)·scale)          the model's scaling, as Pursuit rounds it
//	P  = x'·Vᵀ                                 [N, S], V the support vectors
//	K  = exp(min(2γP − γ‖x'‖² − γ‖v‖², 0))     RBF; P, (γP + c0)^d, tanh(γP + c0)
//	D  = K·C − ρ                               [N, pairs]
//
// with C's column p holding pair p's coefficients (zeros at the other
// classes' vectors). The distances are taken from the norms, whose
// cancellation in double costs about 1e-16·(‖x‖² + ‖v‖²) of a distance, far
// below the 1e-5 agreement asked (1e-10 on Boston's unscaled features).
// Labels: a regressor's Value is D; a binary classifier's Scores are −D and
// D and its Label Labels[0] where D > 0, else Labels[1]; a multi-class
// classifier's Scores are D and its Label the class with the most
// one-vs-one votes (ties to the class listed first: ArgMax's first index).

// Double-graph tensor names.
const (
	x64Name = "X_double"
)

// graph64 builds the float64 graph of m, with s in front.
func graph64(m *svm.Model, s *data.Scaler) (*onnxpb.GraphProto, error) {
	features := m.SV.Cols
	nsv := m.SV.Rows
	g := &onnxpb.GraphProto{
		Name:  proto.String("pursuit_" + m.Type.String() + "_float64"),
		Input: []*onnxpb.ValueInfoProto{tensorInfo(Input, onnxpb.TensorProto_FLOAT, dimParam("N"), dimValue(features))},
	}
	b := &builder{g: g}
	x := b.node("Cast", []string{Input}, integer("to", int64(onnxpb.TensorProto_DOUBLE)))
	if s != nil && s.Mode != data.ScaleNone {
		x = b.node("Sub", []string{x, b.doubles("offset", s.Offset, 1, int64(features))})
		x = b.node("Mul", []string{x, b.doubles("scale", s.Scale, 1, int64(features))})
		// Pursuit rounds the scaled features to float32.
		x = b.node("Cast", []string{x}, integer("to", int64(onnxpb.TensorProto_FLOAT)))
		x = b.node("Cast", []string{x}, integer("to", int64(onnxpb.TensorProto_DOUBLE)))
	}
	// The kernel: a product x'·W with W = c·Vᵀ [F, S] (c = 1, γ or 2γ,
	// multiplied in double here: onnxruntime fuses a MatMul followed by a
	// Mul by a constant into one operation whose scale is a float32
	// attribute, which would round γ), and for RBF the norms.
	k := m.Kernel
	scale := 1.0
	switch k.Kind {
	case pursuit.Polynomial, pursuit.Sigmoid:
		scale = k.Gamma
	case pursuit.RBF:
		scale = 2 * k.Gamma
	case pursuit.Linear:
	default:
		return nil, fmt.Errorf("onnxexport: the %s kernel: %w", k, ErrNotExpressible)
	}
	w := make([]float64, features*nsv)
	vv := make([]float64, nsv) // −γ‖v‖²
	row := make([]float32, features)
	for j := range nsv {
		m.SV.RowTo(row, j)
		var n2 float64
		for f, v := range row {
			w[f*nsv+j] = scale * float64(v)
			n2 += float64(v) * float64(v)
		}
		vv[j] = -k.Gamma * n2
	}
	p := b.node("MatMul", []string{x, b.doubles("support_vectors_t", w, int64(features), int64(nsv))})
	var kv string
	switch k.Kind {
	case pursuit.Linear:
		kv = p
	case pursuit.RBF:
		// −γ‖x − v‖² = 2γ x·v − γ‖x‖² − γ‖v‖², at most 0.
		xx := b.node("ReduceSumSquare", []string{x}, ints("axes", []int64{1}), integer("keepdims", 1))
		arg := b.node("Add", []string{p, b.node("Mul", []string{xx, b.scalar("minus_gamma", -k.Gamma)})})
		arg = b.node("Add", []string{arg, b.doubles("minus_gamma_sq_norms", vv, 1, int64(nsv))})
		kv = b.node("Exp", []string{b.node("Min", []string{arg, b.scalar("zero", 0)})})
	case pursuit.Polynomial:
		t := b.node("Add", []string{p, b.scalar("coef0", k.Coef0)})
		kv = b.node("Pow", []string{t, b.scalar("degree", float64(k.Degree))})
	case pursuit.Sigmoid:
		t := b.node("Add", []string{p, b.scalar("coef0", k.Coef0)})
		// tanh(t) = sign(t)·(1 − e)/(1 + e), e = exp(−2|t|).
		e := b.node("Exp", []string{b.node("Mul", []string{b.node("Abs", []string{t}), b.scalar("minus_two", -2)})})
		r := b.node("Div", []string{b.node("Sub", []string{b.scalar("one", 1), e}), b.node("Add", []string{b.scalar("one", 1), e})})
		kv = b.node("Mul", []string{b.node("Sign", []string{t}), r})
	}
	coef, pairs := pairCoefficients(m)
	dec := b.node("MatMul", []string{kv, b.doubles("pair_coefficients", coef, int64(nsv), int64(pairs))})
	dec = b.node("Add", []string{dec, b.doubles("minus_rho", negate(m.Rho), 1, int64(pairs))})
	switch m.Type {
	case svm.EpsilonSVR:
		b.rename(dec, Value)
		g.Output = []*onnxpb.ValueInfoProto{tensorInfo(Value, onnxpb.TensorProto_DOUBLE, dimParam("N"), dimValue(1))}
		return g, nil
	case svm.CSVC:
	default:
		return nil, fmt.Errorf("onnxexport: an SVM of type %s: %w (C-SVC and ε-SVR are)", m.Type, ErrNotExpressible)
	}
	labelsAttr, labelType := classLabels(m.Labels)
	labels := b.labels("class_labels", labelsAttr, labelType)
	wins := b.node("Greater", []string{dec, b.scalar("zero", 0)})
	var label string
	if len(m.Labels) == 2 {
		b.node("Concat", []string{b.node("Neg", []string{dec}), dec}, integer("axis", 1))
		b.rename(b.last(), Scores)
		first := b.node("Gather", []string{labels, b.int64s("first", []int64{0})}, integer("axis", 0))
		second := b.node("Gather", []string{labels, b.int64s("second", []int64{1})}, integer("axis", 0))
		label = b.node("Where", []string{wins, first, second})
		label = b.node("Squeeze", []string{label, b.int64s("axis_one", []int64{1})})
	} else {
		b.rename(dec, Scores)
		dec = Scores
		nc := len(m.Labels)
		winFirst, winSecond := make([]float64, pairs*nc), make([]float64, pairs*nc)
		q := 0
		for i := range nc {
			for j := i + 1; j < nc; j++ {
				winFirst[q*nc+i], winSecond[q*nc+j] = 1, 1
				q++
			}
		}
		w := b.node("Cast", []string{wins}, integer("to", int64(onnxpb.TensorProto_DOUBLE)))
		lose := b.node("Sub", []string{b.scalar("one", 1), w})
		votes := b.node("Add", []string{
			b.node("MatMul", []string{w, b.doubles("votes_first", winFirst, int64(pairs), int64(nc))}),
			b.node("MatMul", []string{lose, b.doubles("votes_second", winSecond, int64(pairs), int64(nc))}),
		})
		idx := b.node("ArgMax", []string{votes}, integer("axis", 1), integer("keepdims", 0), integer("select_last_index", 0))
		label = b.node("Gather", []string{labels, idx}, integer("axis", 0))
	}
	b.rename(label, Label)
	k2 := len(m.Labels)
	g.Output = []*onnxpb.ValueInfoProto{
		tensorInfo(Label, labelType, dimParam("N")),
		tensorInfo(Scores, onnxpb.TensorProto_DOUBLE, dimParam("N"), dimValue(max(2, k2*(k2-1)/2))),
	}
	return g, nil
}

// pairCoefficients returns C [S, pairs] row-major: column p holds pair p's
// coefficients at its two classes' support vectors (LIBSVM's layout: the
// vectors of class i carry their coefficient for the pair (i, j) in
// Coef[j−1], those of class j in Coef[i]); one column for a binary model or
// a regressor.
func pairCoefficients(m *svm.Model) ([]float64, int) {
	nsv := m.SV.Rows
	if m.Type != svm.CSVC || len(m.Labels) <= 2 {
		c := make([]float64, nsv)
		copy(c, m.Coef[0])
		return c, 1
	}
	nc := len(m.Labels)
	pairs := nc * (nc - 1) / 2
	start := make([]int, nc+1)
	for c := range nc {
		start[c+1] = start[c] + m.NumSV[c]
	}
	out := make([]float64, nsv*pairs)
	p := 0
	for i := range nc {
		for j := i + 1; j < nc; j++ {
			for t := start[i]; t < start[i+1]; t++ {
				out[t*pairs+p] = m.Coef[j-1][t]
			}
			for t := start[j]; t < start[j+1]; t++ {
				out[t*pairs+p] = m.Coef[i][t]
			}
			p++
		}
	}
	return out, pairs
}

// builder appends nodes and initializers to a graph, naming each node's
// output after the node.
type builder struct {
	g     *onnxpb.GraphProto
	n     int
	names map[string]bool
}

// node appends an op of the default domain and returns its output's name.
func (b *builder) node(op string, in []string, attrs ...*onnxpb.AttributeProto) string {
	b.n++
	out := fmt.Sprintf("%s_%d", op, b.n)
	b.g.Node = append(b.g.Node, &onnxpb.NodeProto{
		Name: proto.String(out), OpType: proto.String(op), Input: in, Output: []string{out}, Attribute: attrs,
	})
	return out
}

// last returns the output of the last node.
func (b *builder) last() string { return b.g.Node[len(b.g.Node)-1].Output[0] }

// rename gives the node whose output is from the output name to, and
// rewrites the inputs that read it.
func (b *builder) rename(from, to string) {
	for _, n := range b.g.Node {
		for i, o := range n.Output {
			if o == from {
				n.Output[i] = to
			}
		}
		for i, in := range n.Input {
			if in == from {
				n.Input[i] = to
			}
		}
	}
}

// init adds an initializer once (a second call with the same name reuses
// it) and returns its name.
func (b *builder) init(t *onnxpb.TensorProto) string {
	if b.names == nil {
		b.names = map[string]bool{}
	}
	if !b.names[t.GetName()] {
		b.names[t.GetName()] = true
		b.g.Initializer = append(b.g.Initializer, t)
	}
	return t.GetName()
}

// doubles adds a double initializer of the given shape.
func (b *builder) doubles(name string, v []float64, dims ...int64) string {
	return b.init(&onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_DOUBLE)), Dims: dims, DoubleData: v})
}

// scalar adds a double scalar initializer.
func (b *builder) scalar(name string, v float64) string {
	return b.init(&onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_DOUBLE)), DoubleData: []float64{v}})
}

// int64s adds a one-dimensional int64 initializer.
func (b *builder) int64s(name string, v []int64) string {
	return b.init(&onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Dims: []int64{int64(len(v))}, Int64Data: v})
}

// labels adds the class labels (classLabels' attribute) as a
// one-dimensional initializer of their element type.
func (b *builder) labels(name string, a *onnxpb.AttributeProto, elem onnxpb.TensorProto_DataType) string {
	t := &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(elem))}
	if elem == onnxpb.TensorProto_STRING {
		t.StringData, t.Dims = a.Strings, []int64{int64(len(a.Strings))}
	} else {
		t.Int64Data, t.Dims = a.Ints, []int64{int64(len(a.Ints))}
	}
	return b.init(t)
}
