package modelfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pursuit-ml/pursuit"
)

// WriteJSON encodes v as JSON and writes it as one frame. Encoding errors
// (a non-finite number, say) are returned before anything is written.
func WriteJSON(w io.Writer, magic string, version uint32, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding: %w", err)
	}
	return Write(w, magic, version, payload)
}

// DecodeJSON decodes a frame's payload into v strictly: a field v does not
// have, a malformed value or a second JSON value after the first is an
// error.
func DecodeJSON(payload []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decoding the model: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value in the payload")
	}
	return nil
}

// Kernel is a kernel function as the model files store it: the kind by
// name ("linear", "poly", "rbf", "sigmoid") and its parameters.
type Kernel struct {
	Kind   string  `json:"kind"`
	Gamma  float64 `json:"gamma,omitempty"`
	Coef0  float64 `json:"coef0,omitempty"`
	Degree int     `json:"degree,omitempty"`
}

// KernelOf is k as stored.
func KernelOf(k pursuit.Kernel) Kernel {
	return Kernel{Kind: k.Kind.String(), Gamma: k.Gamma, Coef0: k.Coef0, Degree: k.Degree}
}

// Kernel returns the stored kernel, or an error for a kind it does not know.
// The parameters are not validated here (pursuit.Kernel.Validate does).
func (k Kernel) Kernel() (pursuit.Kernel, error) {
	for _, c := range []pursuit.KernelKind{pursuit.Linear, pursuit.Polynomial, pursuit.RBF, pursuit.Sigmoid} {
		if c.String() == k.Kind {
			return pursuit.Kernel{Kind: c, Gamma: k.Gamma, Coef0: k.Coef0, Degree: k.Degree}, nil
		}
	}
	return pursuit.Kernel{}, fmt.Errorf("unknown kernel kind %q", k.Kind)
}

// FitsShape reports whether n stored values are exactly a rows×cols
// matrix, with no overflow however large the declared sizes: a file's
// declared shape is trusted only when its values are there.
func FitsShape(rows, cols, n int) bool {
	switch {
	case rows < 0 || cols < 0 || n < 0:
		return false
	case rows == 0 || cols == 0:
		return n == 0
	}
	return n%rows == 0 && n/rows == cols
}
