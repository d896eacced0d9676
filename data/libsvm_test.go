package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// wantRows compares d with dense rows written out in float64.
func wantRows(t *testing.T, d *Dataset, y []float64, x [][]float64) {
	t.Helper()
	if d.Len() != len(y) {
		t.Fatalf("%d rows, want %d", d.Len(), len(y))
	}
	if d.X.Stride != d.X.Cols {
		t.Fatalf("stride %d != cols %d", d.X.Stride, d.X.Cols)
	}
	for i := range y {
		if d.Y[i] != y[i] {
			t.Errorf("row %d: label %v, want %v", i+1, d.Y[i], y[i])
		}
		if d.Dim() != len(x[i]) {
			t.Fatalf("dim %d, want %d", d.Dim(), len(x[i]))
		}
		for j, v := range x[i] {
			if got := d.X.At(i, j); got != float32(v) {
				t.Errorf("row %d feature %d: %v, want %v", i+1, j+1, got, v)
			}
		}
	}
}

func TestReadLibSVM(t *testing.T) {
	in := "# a comment line\n" +
		"+1 1:0.5 3:-2 # trailing comment\n" +
		"\n" +
		"   \t \r\n" +
		"-1 qid:7 2:1e-3\t4:4\r\n" +
		"3\n" +
		"1.5e0 1:1 2:0 4:-0.25" // no final newline; explicit zero kept as 0
	d, err := ReadLibSVM(strings.NewReader(in), "t.svm")
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, d, []float64{1, -1, 3, 1.5}, [][]float64{
		{0.5, 0, -2, 0},
		{0, 1e-3, 0, 4},
		{0, 0, 0, 0},
		{1, 0, 0, -0.25},
	})
	if d.Name != "t.svm" {
		t.Errorf("Name %q", d.Name)
	}
	if got := d.Classes(); !equalF64(got, []float64{-1, 1, 1.5, 3}) {
		t.Errorf("Classes() = %v", got)
	}
}

func equalF64(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadBOM(t *testing.T) {
	d, err := ReadLibSVM(strings.NewReader("\ufeff1 2:3\n"), "bom.svm")
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, d, []float64{1}, [][]float64{{0, 3}})
	d, err = ReadCSV(strings.NewReader("\ufeff1,2\n"), "bom.csv")
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, d, []float64{1}, [][]float64{{2}})
}

func TestReadLibSVMWithDim(t *testing.T) {
	d, err := ReadLibSVM(strings.NewReader("1 2:3\n-1 1:1\n"), "p.svm", WithDim(5))
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, d, []float64{1, -1}, [][]float64{{0, 3, 0, 0, 0}, {1, 0, 0, 0, 0}})
	// Exactly d is fine; d+1 is a mismatch at that line.
	if _, err := ReadLibSVM(strings.NewReader("1 5:1\n"), "p.svm", WithDim(5)); err != nil {
		t.Fatal(err)
	}
	_, err = ReadLibSVM(strings.NewReader("1 2:1\n\n-1 4:1 6:2\n"), "p.svm", WithDim(5))
	checkErr(t, err, ErrFeatureMismatch, `p.svm:3: token "6:2"`, "feature-count mismatch at prediction", "5 features")
}

// checkErr asserts err wraps want (when non-nil), is a *ParseError, and its
// message contains every fragment.
func checkErr(t *testing.T, err error, want error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", fragments)
	}
	if want != nil && !errors.Is(err, want) {
		t.Errorf("error %q does not wrap %q", err, want)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("error %q (%T) is not a *ParseError", err, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err, f)
		}
	}
}

func TestReadLibSVMErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opts     []Option
		want     error
		frags    []string
	}{
		{"no colon", "1 1:1\n-1 2 3:1\n", nil, ErrSyntax, []string{`f.svm:2: token "2"`, "expected index:value"}},
		{"bad index", "1 a:3\n", nil, ErrSyntax, []string{`f.svm:1: token "a:3"`, "not an integer"}},
		{"empty index", "1 :3\n", nil, ErrSyntax, []string{`f.svm:1: token ":3"`, "missing feature index"}},
		{"bad value", "1 1:1\n\n1 3:x\n", nil, ErrSyntax, []string{`f.svm:3: token "3:x"`, "value is not a number"}},
		{"empty value", "1 3:\n", nil, ErrSyntax, []string{`f.svm:1: token "3:"`, "missing value"}},
		{"double colon", "1 3:1:2\n", nil, ErrSyntax, []string{`f.svm:1: token "3:1:2"`, "not a number"}},
		{"index 0", "1 0:1\n", nil, ErrSyntax, []string{`f.svm:1: token "0:1"`, "index 0", "1-based"}},
		{"negative index", "# c\n1 -3:1\n", nil, ErrSyntax, []string{`f.svm:2: token "-3:1"`, "negative"}},
		{"out of order", "1 3:1 2:1\n", nil, ErrSyntax, []string{`f.svm:1: token "2:1"`, "index 2 after 3", "strictly increasing"}},
		{"repeated index", "1 2:1 2:1\n", nil, ErrSyntax, []string{`f.svm:1: token "2:1"`, "strictly increasing"}},
		{"NaN value", "1 1:1\n1 1:NaN\n", nil, ErrNotFinite, []string{`f.svm:2: token "1:NaN"`, "NaN"}},
		{"Inf value", "1 1:-inf\n", nil, ErrNotFinite, []string{`f.svm:1: token "1:-inf"`, "-Inf"}},
		{"float32 overflow", "1 1:1e39\n", nil, ErrNotFinite, []string{`f.svm:1: token "1:1e39"`, "overflows float32"}},
		{"NaN label", "nan 1:1\n", nil, ErrNotFinite, []string{`f.svm:1: token "nan"`, "label is NaN"}},
		{"Inf label", "1\n+Inf 1:1\n", nil, ErrNotFinite, []string{`f.svm:2: token "+Inf"`, "label is +Inf"}},
		{"label overflow", "1e999 1:1\n", nil, ErrNotFinite, []string{`f.svm:1: token "1e999"`, "out of float64 range"}},
		{"bad label", "one 1:1\n", nil, ErrSyntax, []string{`f.svm:1: token "one"`, "label is not a number"}},
		{"missing label", "1:2 3:4\n", nil, ErrSyntax, []string{`f.svm:1: token "1:2"`, "missing label"}},
		{"empty file", "", nil, ErrNoExamples, []string{"f.svm: ", "no example"}},
		{"only comments", "# nothing\n\n  # here\n", nil, ErrNoExamples, []string{"f.svm: ", "no example"}},
		{"huge index", "1 1:1\n1 99999999999999999999999:1\n", nil, ErrTooLarge, []string{`f.svm:2: token "99999999999999999999999:1"`, "above the limit of 16777216"}},
		{"index just above limit", "1 16777217:1\n", nil, ErrTooLarge, []string{"f.svm:1:", "limit"}},
		{"memory budget", "1 1:1\n1 1000:1\n", []Option{WithMemoryLimit(4000)}, ErrTooLarge,
			[]string{"f.svm:2:", "dense 2×1000 float32 matrix needs 7.8 KiB, over the 3.9 KiB budget", "WithMemoryLimit"}},
		{"qid not integer", "1 qid:x 1:1\n", nil, ErrSyntax, []string{`f.svm:1: token "qid:x"`, "qid must be an integer"}},
		{"qid after features", "1 1:1 qid:3\n", nil, ErrSyntax, []string{`f.svm:1: token "qid:3"`, "not an integer"}},
		{"bad option", "1 1:1\n", []Option{WithDim(-2)}, nil, []string{"f.svm: ", "WithDim(-2)"}},
		{"bad memory option", "1 1:1\n", []Option{WithMemoryLimit(0)}, nil, []string{"f.svm: ", "WithMemoryLimit(0)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadLibSVM(strings.NewReader(c.in), "f.svm", c.opts...)
			if err == nil {
				t.Fatalf("no error; read %d×%d", d.Len(), d.Dim())
			}
			checkErr(t, err, c.want, c.frags...)
		})
	}
}

func TestReadLibSVMLimitIndex(t *testing.T) {
	// The largest allowed index parses (with a budget that admits the width).
	d, err := ReadLibSVM(strings.NewReader("1 16777216:2\n"), "w.svm")
	if err != nil {
		t.Fatal(err)
	}
	if d.Dim() != MaxIndex || d.X.At(0, MaxIndex-1) != 2 {
		t.Fatalf("dim %d", d.Dim())
	}
	// WithDim above the default limit raises it.
	if _, err := ReadLibSVM(strings.NewReader("1 16777217:2\n"), "w.svm", WithDim(MaxIndex+1)); err != nil {
		t.Fatal(err)
	}
}

func TestReadLibSVMLongLine(t *testing.T) {
	// A line longer than the 1 MiB read buffer.
	const d = 200000
	var b strings.Builder
	b.WriteString("-1")
	for j := 1; j <= d; j++ {
		b.WriteString(" " + strconv.Itoa(j) + ":" + strconv.Itoa(j%7))
	}
	b.WriteString("\n2 3:1\n")
	if b.Len() <= readBufSize {
		t.Fatalf("test line too short: %d", b.Len())
	}
	ds, err := ReadLibSVM(strings.NewReader(b.String()), "long.svm")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 2 || ds.Dim() != d {
		t.Fatalf("shape %d×%d", ds.Len(), ds.Dim())
	}
	for j := range d {
		if got := ds.X.At(0, j); got != float32((j+1)%7) {
			t.Fatalf("feature %d: %v", j+1, got)
		}
	}
	if ds.Y[1] != 2 || ds.X.At(1, 2) != 1 {
		t.Fatal("second row wrong")
	}
	// And a memory budget smaller than the line stops it with the line number.
	_, err = ReadLibSVM(strings.NewReader("1 1:1\n"+b.String()), "long.svm", WithMemoryLimit(1<<20))
	checkErr(t, err, ErrTooLarge, "long.svm:2:", "line longer than 1048576 bytes")
}

// randomDataset makes an n×d data set with mostly zeros and values spanning
// float32's range, denormals and negative zero included.
func randomDataset(rng *rand.Rand, n, d int) *Dataset {
	ds := &Dataset{X: pursuit.NewMatrix(n, d), Y: make([]float64, n), Name: "random"}
	special := []float32{math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
		float32(math.Copysign(0, -1)), 1e-38, 0.1, 1.0 / 3, 16777217}
	for i := range n {
		ds.Y[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
		for j := range d {
			switch rng.IntN(4) {
			case 0:
				ds.X.Set(i, j, special[rng.IntN(len(special))])
			case 1:
				ds.X.Set(i, j, math.Float32frombits(rng.Uint32()&0x7f7fffff|rng.Uint32()&0x80000000))
			case 2:
				ds.X.Set(i, j, float32(rng.NormFloat64()))
			}
		}
	}
	return ds
}

func TestLibSVMRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range [][2]int{{1, 1}, {3, 0}, {17, 5}, {64, 33}} {
		ds := randomDataset(rng, shape[0], shape[1])
		var buf bytes.Buffer
		if err := WriteLibSVM(&buf, ds); err != nil {
			t.Fatal(err)
		}
		got, err := ReadLibSVM(&buf, "rt.svm", WithDim(ds.Dim()))
		if err != nil {
			t.Fatal(err)
		}
		sameData(t, got, ds)
	}
}

// sameData checks labels and features are equal as values (so -0 == 0).
func sameData(t *testing.T, got, want *Dataset) {
	t.Helper()
	if got.Len() != want.Len() || got.Dim() != want.Dim() {
		t.Fatalf("shape %d×%d, want %d×%d", got.Len(), got.Dim(), want.Len(), want.Dim())
	}
	for i := range want.Len() {
		if got.Y[i] != want.Y[i] {
			t.Fatalf("row %d: label %v, want %v", i+1, got.Y[i], want.Y[i])
		}
		for j := range want.Dim() {
			if a, b := got.X.At(i, j), want.X.At(i, j); a != b {
				t.Fatalf("row %d feature %d: %v (%#x), want %v (%#x)", i+1, j+1, a, math.Float32bits(a), b, math.Float32bits(b))
			}
		}
	}
}

func TestWriteLibSVMFormat(t *testing.T) {
	x, _ := pursuit.MatrixFrom(2, 4, []float32{0.5, 0, -2, 0, 0, 0, 0, 0.1})
	var buf bytes.Buffer
	if err := WriteLibSVM(&buf, &Dataset{X: x, Y: []float64{1, -1}}); err != nil {
		t.Fatal(err)
	}
	if want := "1 1:0.5 3:-2\n-1 4:0.1\n"; buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
	// A strided view writes its own columns only.
	big, _ := pursuit.MatrixFrom(2, 3, []float32{1, 2, 3, 4, 5, 6})
	buf.Reset()
	if err := WriteLibSVM(&buf, &Dataset{X: big.Slice(0, 2, 1, 3), Y: []float64{0, 3}}); err != nil {
		t.Fatal(err)
	}
	if want := "0 1:2 2:3\n3 1:5 2:6\n"; buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
}

func TestWriteLibSVMErrors(t *testing.T) {
	x, _ := pursuit.MatrixFrom(2, 2, []float32{1, 2, 3, float32(math.NaN())})
	var buf bytes.Buffer
	err := WriteLibSVM(&buf, &Dataset{X: x, Y: []float64{1, 2}, Name: "nan"})
	if err == nil || !strings.Contains(err.Error(), "example 2: feature 2 is NaN") {
		t.Errorf("NaN feature: %v", err)
	}
	x.Set(1, 1, 0)
	err = WriteLibSVM(&buf, &Dataset{X: x, Y: []float64{1, math.Inf(1)}, Name: "inf"})
	if err == nil || !strings.Contains(err.Error(), "example 2: label +Inf") {
		t.Errorf("Inf label: %v", err)
	}
	err = WriteLibSVM(&buf, &Dataset{X: x, Y: []float64{1}, Name: "short"})
	if err == nil || !strings.Contains(err.Error(), "1 labels for 2 rows") {
		t.Errorf("label count: %v", err)
	}
}

const smallSVM = "1 1:0.5 3:2\n-1 2:-1\n1 3:0.25\n"

func writeGzip(t *testing.T, path, content string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(content))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCompressed(t *testing.T) {
	want, err := ReadLibSVM(strings.NewReader(smallSVM), "small")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "small.svm")
	if err := os.WriteFile(plain, []byte(smallSVM), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "small.svm.gz")
	writeGzip(t, gz, smallSVM)
	sniff := filepath.Join(dir, "small.data") // gzip content, no suffix
	writeGzip(t, sniff, smallSVM)
	paths := []string{plain, gz, sniff, filepath.Join("testdata", "small.svm.bz2")}
	if bz, err := exec.LookPath("bzip2"); err == nil {
		// Also a fresh one from the system's bzip2, with an upper-case suffix.
		p := filepath.Join(dir, "fresh.SVM.BZ2")
		cmd := exec.Command(bz, "-c", plain)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bzip2: %v", err)
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	} else {
		t.Log("no bzip2 command; testing the committed .bz2 fixture only")
	}
	for _, p := range paths {
		got, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got.Name != p {
			t.Errorf("Name %q, want %q", got.Name, p)
		}
		sameData(t, got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "missing.svm"))
	if err == nil || !strings.Contains(err.Error(), "missing.svm") {
		t.Errorf("missing file: %v", err)
	}
	// Plain text named .gz.
	p := filepath.Join(dir, "fake.svm.gz")
	os.WriteFile(p, []byte(smallSVM), 0o644)
	_, err = Load(p)
	checkErr(t, err, ErrSyntax, "fake.svm.gz: ", "not a valid gzip stream")
	// Plain text named .bz2.
	p = filepath.Join(dir, "fake.svm.bz2")
	os.WriteFile(p, []byte(smallSVM), 0o644)
	_, err = Load(p)
	checkErr(t, err, ErrSyntax, "fake.svm.bz2: ", "not a bzip2 stream")
	// A truncated gzip stream fails with the file and the line reached.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for range 2000 {
		zw.Write([]byte(smallSVM))
	}
	zw.Close()
	p = filepath.Join(dir, "cut.svm.gz")
	os.WriteFile(p, buf.Bytes()[:buf.Len()/2], 0o644)
	_, err = Load(p)
	checkErr(t, err, nil, "cut.svm.gz:", "reading", "unexpected EOF")
	// A corrupt bzip2 stream (fixture with its middle bytes flipped).
	bz, rerr := os.ReadFile(filepath.Join("testdata", "small.svm.bz2"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	for i := 12; i < len(bz)-12; i++ {
		bz[i] ^= 0x5a
	}
	p = filepath.Join(dir, "bad.svm.bz2")
	os.WriteFile(p, bz, 0o644)
	_, err = Load(p)
	checkErr(t, err, nil, "bad.svm.bz2:", "bzip2")
	// A syntax error inside a compressed file names the file and line.
	p = filepath.Join(dir, "bad.svm.gz")
	writeGzip(t, p, "1 1:1\n1 0:1\n")
	_, err = Load(p)
	checkErr(t, err, ErrSyntax, "bad.svm.gz:2:", "index 0")
	// Unknown format option.
	_, err = Load(filepath.Join("testdata", "small.svm.bz2"), WithFormat("arff"))
	checkErr(t, err, nil, `WithFormat("arff")`)
}

// TestParseShortDecimal checks the fast path against strconv.ParseFloat on
// every form it accepts (random and edge cases) and that it declines the rest.
func TestParseShortDecimal(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, err := strconv.ParseFloat(s, 32)
		got, ok := parseShortDecimal([]byte(s))
		if !ok {
			t.Fatalf("%q declined", s)
		}
		if err != nil || math.Float32bits(got) != math.Float32bits(float32(want)) {
			t.Fatalf("%q: %v (%#x), ParseFloat %v (%#x, %v)", s, got, math.Float32bits(got), float32(want), math.Float32bits(float32(want)), err)
		}
	}
	for _, s := range []string{"0", "-0", "+0", "1", "-1", "0.5", ".5", "5.", "-.25", "9999999", "0.000001", "-.0000001",
		"1.234567", "8388609", "16777215", "16777216", "1677.7216", "0.0000000001", "000000000001", "0.1", "-0.631", "0.3333333"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200000 {
		digits := 1 + rng.IntN(8)
		m := rng.IntN(min(int(math.Pow10(digits)), 1<<24+1))
		s := strconv.Itoa(m)
		for len(s) < digits {
			s = "0" + s
		}
		if p := rng.IntN(digits + 1); p < digits || rng.IntN(2) == 0 {
			s = s[:p] + "." + s[p:]
		}
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		check(s)
	}
	for _, s := range []string{"", "-", ".", "-.", "16777217", "1.6777217", "0.00000000001", "0000000000001", "1234567890123", "1e3", "1..2", "0x1", "inf", "1_0", "--1", " 1", "1.2.3"} {
		if v, ok := parseShortDecimal([]byte(s)); ok {
			t.Errorf("%q accepted as %v", s, v)
		}
	}
}

// BenchmarkParseValue compares the value parser (with its fast path) with
// strconv.ParseFloat alone on the value mix of USPS (mostly "-1" and
// 3-decimal values).
func BenchmarkParseValue(b *testing.B) {
	toks := [][]byte{[]byte("-1"), []byte("-1"), []byte("-1"), []byte("-1"), []byte("-0.631"), []byte("0.862"),
		[]byte("1"), []byte("-0.41"), []byte("0.1"), []byte("-0.999")}
	b.Run("parseValue", func(b *testing.B) {
		var sink float32
		for b.Loop() {
			for _, t := range toks {
				v, _ := parseValue(t)
				sink += v
			}
		}
		_ = sink
	})
	b.Run("strconv", func(b *testing.B) {
		var sink float64
		for b.Loop() {
			for _, t := range toks {
				v, _ := strconv.ParseFloat(string(t), 32)
				sink += v
			}
		}
		_ = sink
	})
}
