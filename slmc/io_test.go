package slmc

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// trainedModel returns an SLMC model with 4 expansion vectors in 3-D and
// held-out points to score.
func trainedModel(t *testing.T, e *engine.Engine) (*Model, pursuit.Matrix) {
	t.Helper()
	x, y := blobs(80, 3, 0.8, 11)
	res, err := Train(e, x, y, Config{Kernel: pursuit.NewRBF(0.5), C: 5, NumXV: 4, Init: InitKMeans, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	test, _ := blobs(200, 3, 0.8, 12)
	return res.Model, test
}

func saved(t *testing.T, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSaveLoadRoundTrip(t *testing.T) {
	e := goEngine(t)
	m, test := trainedModel(t, e)
	poly := &Model{Method: "rsvm", Kernel: pursuit.NewPoly(0.25, 1, 3), XV: m.XV, Beta: []float64{1e-300, -2.5, math.Pi, 7e22}, Bias: -1.0 / 3}
	for _, m := range []*Model{m, poly} {
		file := saved(t, m)
		got, err := Load(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", m.Method, err)
		}
		if got.Method != m.Method || got.Kernel != m.Kernel || got.Bias != m.Bias ||
			!equalF64(got.Beta, m.Beta) || got.XV.Rows != m.XV.Rows || got.XV.Cols != m.XV.Cols {
			t.Fatalf("%s: loaded %+v, saved %+v", m.Method, got, m)
		}
		for i := range m.XV.Rows {
			for j, v := range m.XV.Row(i) {
				if got.XV.At(i, j) != v {
					t.Fatalf("%s: XV[%d,%d] = %v loaded, %v saved", m.Method, i, j, got.XV.At(i, j), v)
				}
			}
		}
		want, err := m.Decision(e, test)
		if err != nil {
			t.Fatal(err)
		}
		have, err := got.Decision(e, test)
		if err != nil {
			t.Fatal(err)
		}
		if !equalF64(have, want) {
			t.Fatalf("%s: decisions differ after the round trip", m.Method)
		}
		if again := saved(t, got); !bytes.Equal(again, file) {
			t.Fatalf("%s: saving the loaded model gives different bytes", m.Method)
		}
	}
}

func TestSaveLoadNoExpansionVectors(t *testing.T) {
	e := goEngine(t)
	m := &Model{Method: "svm", Kernel: pursuit.NewRBF(1), XV: pursuit.NewMatrix(0, 2), Beta: []float64{}, Bias: 0.25}
	got, err := Load(bytes.NewReader(saved(t, m)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := got.Decision(e, pursuit.NewMatrix(3, 2))
	if err != nil {
		t.Fatal(err)
	}
	if !equalF64(d, []float64{0.25, 0.25, 0.25}) {
		t.Fatalf("bias-only model decides %v", d)
	}
}

func equalF64(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestLoadDamaged cuts the file at every offset and changes every byte in
// two ways: each must give an error (no panic, no model).
func TestLoadDamaged(t *testing.T) {
	e := goEngine(t)
	m, _ := trainedModel(t, e)
	file := saved(t, m)
	for cut := range len(file) {
		got, err := Load(bytes.NewReader(file[:cut]))
		if err == nil || got != nil {
			t.Fatalf("truncated at %d of %d bytes: model %v, error %v", cut, len(file), got, err)
		}
		if cut >= len(fileMagic) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d: %v does not wrap ErrCorrupt", cut, err)
		}
	}
	for i := range file {
		for _, flip := range []byte{0x01, 0x80} {
			bad := bytes.Clone(file)
			bad[i] ^= flip
			if got, err := Load(bytes.NewReader(bad)); err == nil || got != nil {
				t.Fatalf("byte %d of %d xor %#x: model %v, error %v", i, len(file), flip, got, err)
			}
		}
	}
	for _, extra := range []string{"\x00", "\n", string(file)} {
		if _, err := Load(bytes.NewReader(append(bytes.Clone(file), extra...))); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%d trailing bytes: got %v, want ErrCorrupt", len(extra), err)
		}
	}
}

// TestLoadBadPayload frames bad payloads with valid checksums: the decoder
// and the checks behind the checksum must refuse them with an error.
func TestLoadBadPayload(t *testing.T) {
	const good = `{"method":"slmc","kernel":{"kind":"rbf","gamma":0.5},"rows":2,"cols":2,"xv":[1,2,3,4],"beta":[0.5,-0.5],"bias":0.1}`
	frame := func(version uint32, payload string) []byte {
		var b bytes.Buffer
		if err := modelfile.Write(&b, fileMagic, version, []byte(payload)); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if _, err := Load(bytes.NewReader(frame(fileVersion, good))); err != nil {
		t.Fatalf("the good payload: %v", err)
	}
	cases := []struct {
		name, payload, want string
		version             uint32
	}{
		{"newer version", good, "version 2", 2},
		{"not JSON", "slmc model", "decoding", 1},
		{"empty", "", "decoding", 1},
		{"two values", good + good, "more than one", 1},
		{"unknown field", strings.Replace(good, `"bias"`, `"bogus":1,"bias"`, 1), "unknown field", 1},
		{"unknown kernel", strings.Replace(good, `"rbf"`, `"laplace"`, 1), "unknown kernel", 1},
		{"bad gamma", strings.Replace(good, `"gamma":0.5`, `"gamma":-1`, 1), "kernel", 1},
		{"no method", strings.Replace(good, `"slmc"`, `""`, 1), "no method", 1},
		{"short xv", strings.Replace(good, `[1,2,3,4]`, `[1,2,3]`, 1), "rows 2 × cols 2 expansion vectors, but the file holds 3 values", 1},
		{"negative rows", strings.Replace(good, `"rows":2`, `"rows":-2`, 1), "rows -2 × cols 2", 1},
		{"zero cols", strings.Replace(strings.Replace(good, `"cols":2`, `"cols":0`, 1), `[1,2,3,4]`, `[]`, 1), "rows 2 × cols 0", 1},
		{"xv without rows", strings.Replace(strings.Replace(good, `"rows":2`, `"rows":0`, 1), `"beta":[0.5,-0.5]`, `"beta":[]`, 1), "rows 0 × cols 2", 1},
		{"beta length", strings.Replace(good, `[0.5,-0.5]`, `[0.5]`, 1), "1 coefficients for 2", 1},
		{"float32 overflow", strings.Replace(good, `[1,2,3,4]`, `[1,2,3,1e300]`, 1), "decoding", 1},
		{"huge rows", strings.Replace(good, `"rows":2`, `"rows":9223372036854775807`, 1), "rows 9223372036854775807 × cols 2", 1},
	}
	for _, c := range cases {
		got, err := Load(bytes.NewReader(frame(c.version, c.payload)))
		if err == nil || got != nil {
			t.Errorf("%s: model %v, error %v", c.name, got, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

func TestLoadOtherFiles(t *testing.T) {
	for _, in := range []string{"", "svm_type c_svc\nkernel_type rbf\n", "PURSUIT-KMP\n\x01\x00\x00\x00"} {
		if _, err := Load(strings.NewReader(in)); err == nil {
			t.Errorf("Load(%q): no error", in)
		}
	}
}

func TestSaveInvalid(t *testing.T) {
	bad := []*Model{
		nil,
		{Method: "slmc", Kernel: pursuit.NewRBF(1), XV: pursuit.NewMatrix(2, 2), Beta: []float64{1}},
		{Method: "slmc", Kernel: pursuit.NewRBF(1), XV: pursuit.NewMatrix(1, 2), Beta: []float64{math.NaN()}},
		{Method: "slmc", Kernel: pursuit.NewRBF(1), XV: pursuit.Matrix{Rows: 1, Cols: 1, Stride: 1, Data: []float32{float32(math.Inf(1))}}, Beta: []float64{1}},
	}
	for i, m := range bad {
		var b bytes.Buffer
		if err := m.Save(&b); err == nil {
			t.Errorf("model %d: Save gave no error", i)
		}
	}
}
