package modelfile

import (
	"bytes"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

func TestKernelRoundTrip(t *testing.T) {
	for _, k := range []pursuit.Kernel{
		{Kind: pursuit.Linear},
		{Kind: pursuit.Polynomial, Gamma: 0.5, Coef0: 1, Degree: 3},
		{Kind: pursuit.RBF, Gamma: 1.0 / 128},
		{Kind: pursuit.Sigmoid, Gamma: 2, Coef0: -1},
	} {
		got, err := KernelOf(k).Kernel()
		if err != nil || got != k {
			t.Errorf("%v: stored and read back as %v (%v)", k, got, err)
		}
	}
	if _, err := (Kernel{Kind: "laplace"}).Kernel(); err == nil {
		t.Error("an unknown kernel kind was accepted")
	}
}

func TestJSONFrame(t *testing.T) {
	type payload struct {
		A int       `json:"a"`
		K Kernel    `json:"k"`
		V []float64 `json:"v"`
	}
	in := payload{A: 7, K: KernelOf(pursuit.Kernel{Kind: pursuit.RBF, Gamma: 2}), V: []float64{1, -2.5}}
	var b bytes.Buffer
	if err := WriteJSON(&b, "TEST\n", 3, &in); err != nil {
		t.Fatal(err)
	}
	v, p, err := Read(bytes.NewReader(b.Bytes()), "TEST\n", nil)
	if err != nil || v != 3 {
		t.Fatalf("version %d, %v", v, err)
	}
	var out payload
	if err := DecodeJSON(p, &out); err != nil || out.A != 7 || out.K != in.K || len(out.V) != 2 || out.V[1] != -2.5 {
		t.Fatalf("decoded %+v, %v", out, err)
	}
	for _, bad := range []string{`{"a":1,"extra":2}`, `{"a":1}{"a":2}`, `{"a":"x"}`, `[`} {
		if err := DecodeJSON([]byte(bad), &out); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	b.Reset()
	if err := WriteJSON(&b, "TEST\n", 1, []float64{math.NaN()}); err == nil || b.Len() != 0 {
		t.Errorf("a NaN payload: err %v, %d bytes written", err, b.Len())
	}
}

func TestFitsShape(t *testing.T) {
	for _, c := range []struct {
		rows, cols, n int
		want          bool
	}{
		{2, 3, 6, true}, {0, 0, 0, true}, {0, 5, 0, true}, {3, 0, 0, true},
		{2, 3, 5, false}, {0, 5, 1, false}, {-1, -6, 6, false},
		// Products that wrap around int64 to the number of values held.
		{1 << 32, 1 << 32, 0, false},
		{3, (math.MaxUint64/3 + 1) / 2, 1, false},
		{1 << 62, 4, 0, false},
	} {
		if got := FitsShape(c.rows, c.cols, c.n); got != c.want {
			t.Errorf("FitsShape(%d, %d, %d) = %v, want %v", c.rows, c.cols, c.n, got, c.want)
		}
	}
}
