package slmc

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/fuzzlimit"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// FuzzLoad: Load never panics. A file that starts with the SLMC magic and
// version but is not an intact frame (a mutated or cut valid file) gives an
// error wrapping ErrCorrupt. The input is also tried as the payload of an
// intact frame, so the fuzzer reaches the JSON decoding and the model
// checks. A model that loads passes Validate, saves to the same bytes
// after a second load, and gives the same decisions before and after.
func FuzzLoad(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzLoad (written by TestWriteFuzzSeeds from
	// tiny trained models), and payloads that need no checksum luck.
	for _, s := range []string{
		`{"method":"slmc","kernel":{"kind":"rbf","gamma":0.5},"rows":2,"cols":1,"xv":[1,-1],"beta":[0.5,-0.5],"bias":0.1}`,
		`{"method":"svm","kernel":{"kind":"linear"},"rows":0,"cols":3,"xv":[],"beta":[],"bias":2}`,
		`{"method":"x","kernel":{"kind":"poly","gamma":1,"coef0":1,"degree":2},"rows":1,"cols":2,"xv":[1,2],"beta":[1],"bias":0}{}`,
		`{"method":"svm","kernel":{"kind":"linear"},"rows":0,"cols":1000000000000,"xv":[],"beta":[],"bias":2}`,
		// 12·cols wraps to a negative byte count (found by the CI fuzz smoke).
		`{"method":"svm","kernel":{"kind":"linear"},"rows":0,"cols":1537228672809129302,"xv":[],"beta":[],"bias":2}`,
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
			intact := intactFrame(in)
			if err != nil {
				if m != nil {
					t.Fatalf("error %v with a non-nil model", err)
				}
				if !strings.HasPrefix(err.Error(), "slmc: load: ") {
					t.Fatalf("error %q does not say where it comes from", err)
				}
				if !intact && len(in) >= len(fileMagic)+4 && string(in[:len(fileMagic)]) == fileMagic &&
					string(in[len(fileMagic):len(fileMagic)+4]) == "\x01\x00\x00\x00" && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("a damaged frame gives %q, not wrapping ErrCorrupt", err)
				}
			} else {
				if !intact {
					t.Fatal("a damaged frame loaded")
				}
				checkLoaded(t, e, m)
			}
			var framed bytes.Buffer
			if err := modelfile.Write(&framed, fileMagic, fileVersion, in); err != nil {
				t.Fatal(err)
			}
			if m, err := Load(&framed); err == nil {
				checkLoaded(t, e, m)
			} else if errors.Is(err, ErrCorrupt) {
				t.Fatalf("an intact frame is called corrupt: %v", err)
			}
		})
	})
}

// intactFrame reports whether in is a complete version-1 SLMC frame whose
// checksum matches (it rewrites the frame around the payload it declares).
func intactFrame(in []byte) bool {
	h := len(fileMagic) + 12
	if len(in) < h+32 || string(in[:len(fileMagic)]) != fileMagic {
		return false
	}
	var b bytes.Buffer
	if err := modelfile.Write(&b, fileMagic, fileVersion, in[h:len(in)-32]); err != nil {
		return false
	}
	return bytes.Equal(b.Bytes(), in)
}

// checkLoaded checks the properties of a model that Load accepted.
func checkLoaded(t *testing.T, e *engine.Engine, m *Model) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatalf("loaded a model that fails Validate: %v", err)
	}
	// What the file declares is what was read.
	if !modelfile.FitsShape(m.XV.Rows, m.XV.Cols, len(m.XV.Data)) && !(m.XV.Rows == 0 && len(m.XV.Data) == 0) || len(m.Beta) != m.XV.Rows {
		t.Fatalf("loaded %d×%d expansion vectors from %d values and %d coefficients", m.XV.Rows, m.XV.Cols, len(m.XV.Data), len(m.Beta))
	}
	var b1, b2 bytes.Buffer
	if err := m.Save(&b1); err != nil {
		t.Fatalf("saving a loaded model: %v", err)
	}
	m2, err := Load(bytes.NewReader(b1.Bytes()))
	if err != nil {
		t.Fatalf("loading a saved model: %v", err)
	}
	if err := m2.Save(&b2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatalf("save → load → save changed the file")
	}
	if !fuzzlimit.FitsRows(3, m.XV.Cols) {
		// A model without expansion vectors may declare any width;
		// scoring it would only allocate.
		return
	}
	x := pursuit.NewMatrix(3, m.XV.Cols)
	for i := range x.Rows {
		for j := range x.Cols {
			x.Set(i, j, float32(math.Sin(float64(i-2*j))))
		}
	}
	d1, err := m.Decision(e, x)
	if err != nil {
		t.Fatalf("decision of a loaded model: %v", err)
	}
	d2, err := m2.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d1 {
		if !(d1[i] == d2[i] || math.IsNaN(d1[i]) && math.IsNaN(d2[i])) {
			t.Fatalf("row %d: decision %v, after save and load %v", i, d1[i], d2[i])
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
	x, y := blobs(30, 2, 0.8, 21)
	res, err := Train(e, x, y, Config{Kernel: pursuit.NewRBF(0.5), C: 5, NumXV: 3, Init: InitKMeans, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	xv, err := RandomXV(x, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	rsvm, err := ReducedSVM(e, x, y, pursuit.NewPoly(0.5, 1, 2), xv, 1, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *Model
	}{
		{"slmc-rbf", res.Model},
		{"rsvm-poly", rsvm},
		{"empty-sigmoid", &Model{Method: "svm", Kernel: pursuit.Kernel{Kind: pursuit.Sigmoid, Gamma: 0.1, Coef0: -1}, XV: pursuit.NewMatrix(0, 2), Bias: -0.5}},
	} {
		var buf bytes.Buffer
		if err := c.m.Save(&buf); err != nil {
			t.Fatal(err)
		}
		s := "go test fuzz v1\n[]byte(" + strconv.Quote(buf.String()) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, c.name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
