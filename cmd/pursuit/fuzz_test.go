package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
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
	"github.com/pursuit-ml/pursuit/learn"
)

// FuzzParseModel: parseModel (the reader behind `pursuit predict --model`)
// never panics and refuses bad input with a one-line error. A CLI model file it
// accepts has a valid label plan and at least one model; written again and
// read back it gives the same file (a fixed point) and the same decisions
// and predicted labels on a few points. A LIBSVM text model it accepts
// gives decisions without error.
func FuzzParseModel(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzParseModel (model files written by
	// `pursuit train` in TestWriteFuzzSeeds), the version 1 files of
	// testdata/modelv1, and a few edge cases.
	v1, err := filepath.Glob(filepath.Join("testdata", "modelv1", "*.model"))
	if err != nil || len(v1) == 0 {
		f.Fatalf("no version 1 model files (%v)", err)
	}
	for _, p := range v1 {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "PURSUIT-MODEL\n", "PURSUIT-MODEL 1 0 00000000\n\n", "PURSUIT-MODEL 1 -5 0\n", "PURSUIT-MODEL 1 99999999999999999999 0\n",
		"svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.1\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:0.5 3:1\n-1 2:0.25\n",
		"svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:1\n",
	} {
		f.Add([]byte(s))
	}
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// Wide LIBSVM models are read under the small budget, not
		// skipped: a declared size over it is refused before it costs
		// memory, and every input must be decided within a second.
		fuzzlimit.Timed(t, func() { checkParse(t, e, in) })
		// The checksums guard the header and payloads against the
		// mutations; with them recomputed the fuzzer reaches the header's
		// checks and the algorithms' readers.
		if fixed := fixChecksums(in); fixed != nil {
			fuzzlimit.Timed(t, func() { checkParse(t, e, fixed) })
		}
	})
}

// fuzzModelBudget is the memory budget the fuzz targets read models under.
const fuzzModelBudget = fuzzlimit.Budget

func testEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// fixChecksums returns in with its checksums recomputed so that the
// fuzzer's mutations reach the header's checks and the algorithms' readers:
// for a version 2 file, the modelfile frame around whatever lies between
// its header and the last 32 bytes (the SHA-256); for a version 1 file, the
// header's length and CRC-32 and the payloads' CRC-32s (the header
// re-encoded). It returns nil when in has no frame to fix.
func fixChecksums(in []byte) []byte {
	if bytes.HasPrefix(in, []byte(learn.ModelMagicV1)) {
		return fixChecksumsV1(in)
	}
	const frameHeader = len(learn.ModelMagic) + 12 // magic, version, length
	if !bytes.HasPrefix(in, []byte(learn.ModelMagic)) || len(in) < frameHeader+sha256.Size {
		return nil
	}
	var b bytes.Buffer
	version := binary.LittleEndian.Uint32(in[len(learn.ModelMagic):])
	if modelfile.Write(&b, learn.ModelMagic, version, in[frameHeader:len(in)-sha256.Size]) != nil {
		return nil
	}
	return b.Bytes()
}

// fixChecksumsV1 is fixChecksums for a version 1 file.
func fixChecksumsV1(in []byte) []byte {
	nl := bytes.IndexByte(in, '\n')
	var ver, hlen int
	var hcrc uint32
	if nl < 0 {
		return nil
	}
	if _, err := fmt.Sscanf(string(in[:nl]), "PURSUIT-MODEL %d %d %x", &ver, &hlen, &hcrc); err != nil {
		return nil
	}
	// The header ends at the next newline (JSON escapes its own); its
	// length is recomputed too, so edits may change it.
	rest := in[nl+1:]
	hlen = bytes.IndexByte(rest, '\n')
	if hlen < 0 {
		return nil
	}
	var h learn.Header
	if json.Unmarshal(rest[:hlen], &h) != nil {
		return nil
	}
	body := rest[hlen+1:]
	for k, p := range h.Payloads {
		if p.Bytes < 0 || p.Bytes > int64(len(body)) {
			break
		}
		h.Payloads[k].CRC32 = crc32.ChecksumIEEE(body[:p.Bytes])
		body = body[p.Bytes:]
	}
	hdr, err := json.Marshal(&h)
	if err != nil {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "PURSUIT-MODEL %d %d %08x\n", ver, len(hdr), crc32.ChecksumIEEE(hdr))
	b.Write(hdr)
	b.WriteByte('\n')
	b.Write(rest[hlen+1:])
	return b.Bytes()
}

// checkParse checks FuzzParseModel's properties on one input.
func checkParse(t *testing.T, e *engine.Engine, in []byte) {
	t.Helper()
	m, err := learn.ParseModel(in, fuzzModelBudget)
	if err != nil {
		if m != nil || err.Error() == "" {
			t.Fatalf("error %q with model %v", err, m)
		}
		// pursuit prints an error as one line on stderr.
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q is not one line", err)
		}
		return
	}
	if err := m.Header.Labels.Check(); err != nil {
		t.Fatalf("accepted a model with a bad label plan: %v", err)
	}
	if len(m.Models) == 0 {
		t.Fatal("accepted a model file without models")
	}
	// What the file declares is what was read: the basis count, the
	// payloads' feature counts, and the vectors within the budget.
	if m.Header.NBasis != m.NBasis() {
		t.Fatalf("accepted n_basis %d for models with %d basis functions", m.Header.NBasis, m.NBasis())
	}
	if m.VectorBytes() > fuzzModelBudget {
		t.Fatalf("accepted models whose vectors take %d bytes, over the %d-byte budget", m.VectorBytes(), fuzzModelBudget)
	}
	v3 := bytes.HasPrefix(in, []byte(learn.ModelMagic)) && len(in) >= len(learn.ModelMagic)+4 &&
		binary.LittleEndian.Uint32(in[len(learn.ModelMagic):]) == learn.ModelVersion
	for k, f := range m.Models {
		if w := f.Basis().Cols; v3 && w != 0 && w != m.Header.Dim {
			t.Fatalf("version 3 file: dim %d accepted for model %d with %d features", m.Header.Dim, k+1, w)
		}
	}
	libsvm := bytes.HasPrefix(in, []byte("svm_type"))
	dim := m.Header.Dim
	if libsvm {
		dim = 3 // a LIBSVM model pads or ignores features
	}
	var back *learn.File
	if !libsvm {
		var b1, b2 bytes.Buffer
		if _, err := m.Write(&b1); err != nil {
			t.Fatalf("writing an accepted model: %v", err)
		}
		if back, err = learn.ParseModel(b1.Bytes(), fuzzModelBudget); err != nil {
			t.Fatalf("reading back a written model: %v", err)
		}
		if _, err := back.Write(&b2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Fatal("write → read → write changed the file")
		}
	}
	if 3*int64(dim)*4 > fuzzModelBudget {
		return // three rows would not fit the budget; the structure was checked
	}
	x := pursuit.NewMatrix(3, dim)
	for i := range x.Rows {
		for j := range x.Cols {
			x.Set(i, j, float32(math.Sin(float64(5*i+j))))
		}
	}
	d1, err1 := m.Decisions(e, x)
	if back == nil {
		return // LIBSVM: no panic was the property
	}
	d2, err2 := back.Decisions(e, x)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("decision errors differ after a write and read: %v vs %v", err1, err2)
	}
	if err1 != nil {
		return
	}
	for o := range d1 {
		for i := range d1[o] {
			if !(d1[o][i] == d2[o][i] || math.IsNaN(d1[o][i]) && math.IsNaN(d2[o][i])) {
				t.Fatalf("output %d row %d: %v, after a write and read %v", o, i, d1[o][i], d2[o][i])
			}
		}
	}
	p1, p2 := m.Header.Labels.Decide(d1), back.Header.Labels.Decide(d2)
	for i := range p1 {
		if !(p1[i] == p2[i] || math.IsNaN(p1[i]) && math.IsNaN(p2[i])) {
			t.Fatalf("row %d: label %v, after a write and read %v", i, p1[i], p2[i])
		}
	}
}

// TestWriteFuzzSeeds regenerates the committed seed corpus of
// FuzzParseModel with `pursuit train` on a tiny problem, one file per
// algorithm family and task. It runs only with PURSUIT_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PURSUIT_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set PURSUIT_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzParseModel")
	}
	dir := t.TempDir()
	tr, _ := head(twoMoons(40, 0.15, 7), 40)
	moons := filepath.Join(dir, "moons.svm")
	writeData(t, moons, tr)
	blobs := filepath.Join(dir, "blobs.svm")
	writeData(t, blobs, threeClass(30))
	out := filepath.Join("testdata", "fuzz", "FuzzParseModel")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"svm-binary":        {"--data", moons, "--algo", "svm", "--gamma", "2", "--c", "10"},
		"kmp-binary-scaled": {"--data", moons, "--algo", "kmp", "--gamma", "4", "--basis", "4", "--scale", "standard"},
		"skmp-three-class":  {"--data", blobs, "--algo", "skmp", "--gamma", "1", "--basis", "3", "--active-set", "10", "--one-vs-rest"},
		"slmc-binary":       {"--data", moons, "--algo", "slmc", "--gamma", "4", "--c", "10", "--nz", "3"},
		"svm-three-class":   {"--data", blobs, "--algo", "svm", "--kernel", "poly", "--gamma", "1", "--coef0", "1", "--degree", "2", "--one-vs-rest"},
		"kmp-regression":    {"--data", blobs, "--algo", "kmp", "--kernel", "linear", "--basis", "2", "--regression"},
		"kmp-basic-backfit": {"--data", moons, "--algo", "kmp-backfit", "--gamma", "4", "--basis", "3"},
	} {
		if _, err := findAlgorithm(args[3]); err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		model := filepath.Join(dir, name+".model")
		var so, se bytes.Buffer
		if code := run(&env{stdout: &so, stderr: &se}, append([]string{"train", "--model", model, "--quiet"}, args...)); code != exitOK {
			t.Fatalf("%s: pursuit train exit %d: %s", name, code, se.String())
		}
		b, err := os.ReadFile(model)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := learn.ParseModel(b, fuzzModelBudget); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(out, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixChecksums: the fuzzer's repair leaves the committed seed model
// files unchanged, and makes a file whose header was edited readable.
func TestFixChecksums(t *testing.T) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParseModel", "*"))
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no seed files (%v)", err)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		lit, ok := bytes.CutPrefix(b, []byte("go test fuzz v1\n[]byte("))
		if !ok {
			t.Fatalf("%s: not a corpus file", s)
		}
		q, err := strconv.Unquote(string(bytes.TrimSuffix(bytes.TrimSpace(lit), []byte(")"))))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		file := []byte(q)
		if !bytes.HasPrefix(file, []byte(learn.ModelMagic)) {
			t.Fatalf("%s: not a version %d model file", s, learn.ModelVersion)
		}
		if got := fixChecksums(file); !bytes.Equal(got, file) {
			t.Fatalf("%s: the repair changed a valid file", s)
		}
		edited := bytes.Replace(file, []byte(`"n_train":`), []byte(`"n_train":1`), 1)
		if _, err := learn.ParseModel(edited, fuzzModelBudget); err == nil {
			t.Fatalf("%s: an edited header went unnoticed", s)
		}
		if _, err := learn.ParseModel(fixChecksums(edited), fuzzModelBudget); err != nil {
			t.Fatalf("%s: the repaired edited file: %v", s, err)
		}
	}
}
