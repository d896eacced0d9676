package kmp

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/fuzzlimit"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// fuzzFrame wraps payload in Save's frame with a correct length and
// checksum.
func fuzzFrame(payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString(fileMagic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(fileVersion))
	_ = binary.Write(&b, binary.LittleEndian, uint64(len(payload)))
	b.Write(payload)
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// wellFramed reports whether in is a complete frame of a version Load
// reads whose checksum matches — over header and payload for the current
// version, over the payload alone for the legacy one — and returns its
// payload.
func wellFramed(in []byte) ([]byte, bool) {
	h := len(fileMagic) + 12
	if len(in) < h+sha256.Size || string(in[:len(fileMagic)]) != fileMagic {
		return nil, false
	}
	v := binary.LittleEndian.Uint32(in[len(fileMagic):])
	if v != fileVersion && v != legacyVersion {
		return nil, false
	}
	n := binary.LittleEndian.Uint64(in[len(fileMagic)+4:])
	if n != uint64(len(in)-h-sha256.Size) {
		return nil, false
	}
	p := in[h : h+int(n)]
	covered := in[:h+int(n)]
	if v == legacyVersion {
		covered = p
	}
	sum := sha256.Sum256(covered)
	return p, bytes.Equal(sum[:], in[h+int(n):])
}

// FuzzLoad: Load never panics. A file with the right magic and version
// that is not an intact frame (a mutated or cut valid file) gives an error
// wrapping ErrCorrupt. The input is also tried as a payload in a correct
// frame, so the fuzzer reaches the JSON decoding and the model checks. A
// model that loads passes Check, saves to the same bytes after a second
// load, and gives the same decisions and predictions before and after.
func FuzzLoad(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzLoad (written by TestWriteFuzzSeeds from
	// tiny trained models), and a few payloads that need no checksum luck.
	for _, s := range []string{
		`{"task":"regression","loss":"squared","variant":"backfit","kernels":[{"kind":"linear"}],"support_rows":1,"support_cols":1,"support":[1],"support_index":[0],"support_kernel":[0],"outputs":[{"coef":[2],"bias":0.5,"steps":1,"curve":[]}]}`,
		`{"task":"classification","loss":"squared","variant":"backfit","classes":[1,2],"kernels":[{"kind":"rbf","gamma":1}],"support_rows":0,"support_cols":2,"support":[],"support_index":[],"support_kernel":[],"outputs":[{"coef":[],"bias":1,"steps":0,"curve":null}]}`,
		`{"task":"regression","loss":"squared","variant":"backfit","kernels":[],"support_rows":0,"support_cols":1000000000000,"support":[],"support_index":[],"support_kernel":[],"outputs":[{"coef":[],"bias":0.5,"steps":0,"curve":[]}]}`,
		fileMagic + "\x01\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff",
	} {
		f.Add([]byte(s))
	}
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzlimit.Timed(t, func() {
			m, err := Load(bytes.NewReader(in))
			_, intact := wellFramed(in)
			if err != nil {
				if m != nil {
					t.Fatalf("error %v with a non-nil model", err)
				}
				if !strings.HasPrefix(err.Error(), "kmp: load: ") {
					t.Fatalf("error %q does not say where it comes from", err)
				}
				if !intact && len(in) >= len(fileMagic)+4 && string(in[:len(fileMagic)]) == fileMagic &&
					(binary.LittleEndian.Uint32(in[len(fileMagic):]) == fileVersion || binary.LittleEndian.Uint32(in[len(fileMagic):]) == legacyVersion) &&
					!errors.Is(err, ErrCorrupt) {
					t.Fatalf("a damaged frame gives %q, not wrapping ErrCorrupt", err)
				}
			} else {
				if !intact {
					t.Fatalf("a damaged frame loaded")
				}
				checkLoaded(t, e, m)
			}
			// The input as the payload of an intact frame.
			if m, err := Load(bytes.NewReader(fuzzFrame(in))); err == nil {
				checkLoaded(t, e, m)
			} else if errors.Is(err, ErrCorrupt) {
				t.Fatalf("an intact frame is called corrupt: %v", err)
			}
		})
	})
}

// checkLoaded checks the properties of a model that Load accepted.
func checkLoaded(t *testing.T, e *engine.Engine, m *Model) {
	t.Helper()
	if err := m.Check(); err != nil {
		t.Fatalf("loaded a model that fails Check: %v", err)
	}
	// What the file declares is what was read.
	if !modelfile.FitsShape(m.Support.Rows, m.Support.Cols, len(m.Support.Data)) || len(m.SupportIndex) != m.Support.Rows {
		t.Fatalf("loaded %d×%d support vectors from %d values and %d indices", m.Support.Rows, m.Support.Cols, len(m.Support.Data), len(m.SupportIndex))
	}
	var b1 bytes.Buffer
	if err := m.Save(&b1); err != nil {
		t.Fatalf("saving a loaded model: %v", err)
	}
	m2, err := Load(bytes.NewReader(b1.Bytes()))
	if err != nil {
		t.Fatalf("loading a saved model: %v", err)
	}
	var b2 bytes.Buffer
	if err := m2.Save(&b2); err != nil {
		t.Fatalf("saving the model loaded again: %v", err)
	}
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatalf("save → load → save changed the file:\n%s\nvs\n%s", b1.Bytes(), b2.Bytes())
	}
	if m.Custom != nil && m.Custom.Func == nil {
		m.Custom.Func = func(a, b []float32) float64 { return float64(len(a) - len(b)) }
		m2.Custom.Func = m.Custom.Func
	}
	if !fuzzlimit.FitsRows(3, m.Support.Cols) {
		// A model without support vectors may declare any width; scoring
		// it would only allocate.
		return
	}
	x := pursuit.NewMatrix(3, m.Support.Cols)
	for i := range x.Rows {
		for j := range x.Cols {
			x.Set(i, j, float32(math.Cos(float64(2*i+j+1))))
		}
	}
	d1, err1 := m.DecisionAll(e, x)
	d2, err2 := m2.DecisionAll(e, x)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("decision errors differ: %v vs %v", err1, err2)
	}
	if err1 != nil {
		return // e.g. a scaler that cannot apply: an error, not a panic
	}
	for o := range d1 {
		for i := range d1[o] {
			if !(d1[o][i] == d2[o][i] || math.IsNaN(d1[o][i]) && math.IsNaN(d2[o][i])) {
				t.Fatalf("output %d row %d: %v, after save and load %v", o, i, d1[o][i], d2[o][i])
			}
		}
	}
	p1, err1 := m.Predict(e, x)
	p2, err2 := m2.Predict(e, x)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("predict errors differ: %v vs %v", err1, err2)
	}
	for i := range p1 {
		if !(p1[i] == p2[i] || math.IsNaN(p1[i]) && math.IsNaN(p2[i])) {
			t.Fatalf("prediction %d: %v, after save and load %v", i, p1[i], p2[i])
		}
	}
}

// TestWriteFuzzSeeds regenerates the committed seed corpus of FuzzLoad from
// tiny trained models. It runs only with PURSUIT_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PURSUIT_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set PURSUIT_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzLoad")
	}
	e := goEngine(t)
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	x, y := blobs(30, 7)
	vx, vy := blobs(15, 8)
	yb := make([]float64, len(y))
	for i := range y {
		yb[i] = 1
		if y[i] == 5 {
			yb[i] = -1
		}
	}
	for _, c := range []struct {
		name string
		y    []float64
		ovr  bool
		cfg  Config
	}{
		{"binary-backfit-scaled-val", yb, false, Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5), pursuit.NewRBF(2)}, N: 4, Bias: true,
			Scale: data.ScaleStandard, ValX: vx, ValY: func() []float64 {
				v := make([]float64, len(vy))
				for i := range vy {
					v[i] = 1
					if vy[i] == 5 {
						v[i] = -1
					}
				}
				return v
			}()}},
		{"three-class-ovr-poly", y, true, Config{Kernels: []pursuit.Kernel{{Kind: pursuit.Polynomial, Gamma: 0.5, Coef0: 1, Degree: 2}}, N: 3}},
		{"regression-basic-linear", y, false, Config{Task: Regression, Variant: Basic, Kernels: []pursuit.Kernel{pursuit.NewLinear()}, N: 3, Bias: true}},
		{"binary-logistic-custom", yb, false, Config{Loss: Logistic, Kernels: []pursuit.Kernel{{Kind: pursuit.Sigmoid, Gamma: 0.2, Coef0: 0.1}},
			Custom: &CustomKernel{Name: "l1", Func: func(a, b []float32) float64 {
				var d float64
				for j := range a {
					d += math.Abs(float64(a[j] - b[j]))
				}
				return math.Exp(-d)
			}}, N: 3}},
	} {
		var m *Model
		var err error
		if c.ovr {
			m, err = TrainOneVsRest(e, x, c.y, c.cfg)
		} else {
			m, err = Train(e, x, c.y, c.cfg)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatal(err)
		}
		s := "go test fuzz v1\n[]byte(" + strconv.Quote(buf.String()) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, c.name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadVersion1: model files written before kmp adopted the shared frame
// (version 1, checksum over the payload alone; testdata/v1 holds the seed
// corpus as it was) still load, pass Check, and re-save as the current
// version with the same decisions (checkLoaded). A version 1 file with one
// payload byte changed is refused as corrupt.
func TestLoadVersion1(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "v1", "*.kmp"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no version 1 fixtures: %v", err)
	}
	e := goEngine(t)
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(in[len(fileMagic):]); v != legacyVersion {
			t.Fatalf("%s: fixture has version %d", f, v)
		}
		m, err := Load(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkLoaded(t, e, m)
		var out bytes.Buffer
		if err := m.Save(&out); err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(out.Bytes()[len(fileMagic):]); v != fileVersion {
			t.Fatalf("%s: re-saved as version %d, want %d", f, v, fileVersion)
		}
		bad := append([]byte(nil), in...)
		bad[len(fileMagic)+12+5] ^= 1
		if _, err := Load(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: a changed payload byte gives %v", f, err)
		}
	}
}
