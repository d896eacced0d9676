package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// fuzzLimit keeps the fuzzers' dense matrices small (and exercises the
// memory guard).
const fuzzLimit = 1 << 20

// refParseLibSVM is a deliberately simple LIBSVM reader (strings, maps,
// float64) that the fast parser is checked against. It returns nil on any
// input it rejects.
func refParseLibSVM(s string) (y []float64, rows []map[int]float64, dim int) {
	isSp := func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f' }
	for _, line := range strings.Split(s, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.FieldsFunc(line, isSp)
		if len(f) == 0 {
			continue
		}
		lab, err := strconv.ParseFloat(f[0], 64)
		if err != nil || math.IsNaN(lab) || math.IsInf(lab, 0) {
			return nil, nil, 0
		}
		row := map[int]float64{}
		last := 0
		for k, tok := range f[1:] {
			key, val, ok := strings.Cut(tok, ":")
			if !ok {
				return nil, nil, 0
			}
			if k == 0 && key == "qid" {
				if _, err := strconv.ParseInt(val, 10, 64); err != nil {
					return nil, nil, 0
				}
				continue
			}
			idx, err := strconv.Atoi(key)
			if err != nil || idx <= last || idx > MaxIndex {
				return nil, nil, 0
			}
			v, err := strconv.ParseFloat(val, 32)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, 0
			}
			last = idx
			row[idx] = v
		}
		dim = max(dim, last)
		y = append(y, lab)
		rows = append(rows, row)
	}
	return y, rows, dim
}

func FuzzReadLibSVM(f *testing.F) {
	for _, s := range []string{
		"1 1:0.5 3:-2\n-1 2:1e-3\n",
		"+1 qid:3 1:1 # c\n\n-1.5e0 4:0\r\n",
		"1 0:1\n", "1 2:1 1:1\n", "nan 1:1\n", "1 1:inf\n", "", "# only\n",
		"1 16777216:1\n", "3\n", "1 1:0x1p-3\n", "1 +2:1\n", "1 1:1e-50\n",
		"1 2:1 2:1\n", "1 2147483647:1\n", "1 2147483648:1\n", "-1\n1 3:0 5:2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadLibSVM(bytes.NewReader(in), "fuzz.svm", WithMemoryLimit(fuzzLimit))
		checkSparseAgrees(t, in, d, err)
		ry, rrows, rdim := refParseLibSVM(string(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.svm" || !strings.HasPrefix(err.Error(), "fuzz.svm") {
				t.Fatalf("error %q (%T) does not name the file", err, err)
			}
			if errors.Is(err, ErrSyntax) || errors.Is(err, ErrNotFinite) || errors.Is(err, ErrNoExamples) {
				if ry != nil {
					t.Fatalf("fast parser rejected what the reference accepts: %v", err)
				}
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		if d.Len() == 0 {
			t.Fatal("no error but no examples")
		}
		if ry == nil || len(ry) != d.Len() || rdim != d.Dim() {
			t.Fatalf("reference disagrees: fast %d×%d, reference %d×%d (ok=%v)", d.Len(), d.Dim(), len(ry), rdim, ry != nil)
		}
		for i := range ry {
			if d.Y[i] != ry[i] {
				t.Fatalf("row %d: label %v, reference %v", i+1, d.Y[i], ry[i])
			}
			for j := range d.Dim() {
				if got, want := d.X.At(i, j), float32(rrows[i][j+1]); got != want {
					t.Fatalf("row %d feature %d: %v, reference %v", i+1, j+1, got, want)
				}
			}
		}
		var buf bytes.Buffer
		if err := WriteLibSVM(&buf, d); err != nil {
			t.Fatal(err)
		}
		back, err := ReadLibSVM(&buf, "back.svm", WithDim(d.Dim()), WithMemoryLimit(fuzzLimit))
		if err != nil {
			t.Fatalf("re-reading written data: %v", err)
		}
		sameData(t, back, d)
	})
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"1,0.5,0,-2\n-1,1e-3,3,4\n",
		"a,b\n1,2\n", "1,2\n1\n", "1,,2\n", "\"1\",\" 2\"\n", "1,nan\n", "", "# c\n1\n", "1,2\"\n",
	} {
		f.Add([]byte(s), false, int8(0))
	}
	f.Add([]byte("x,y\n1,2\n3,4\n"), true, int8(-1))
	f.Fuzz(func(t *testing.T, in []byte, header bool, col int8) {
		d, err := ReadCSV(bytes.NewReader(in), "fuzz.csv", WithHeader(header), WithLabelColumn(int(col)), WithMemoryLimit(fuzzLimit))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q (%T) does not name the file", err, err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		if d.Len() == 0 {
			t.Fatal("no error but no examples")
		}
		// Written out as CSV again (label first) it reads back the same.
		var b strings.Builder
		for i := range d.Len() {
			b.WriteString(strconv.FormatFloat(d.Y[i], 'g', -1, 64))
			for _, v := range d.X.Row(i) {
				b.WriteString("," + strconv.FormatFloat(float64(v), 'g', -1, 32))
			}
			b.WriteString("\n")
		}
		back, err := ReadCSV(strings.NewReader(b.String()), "back.csv")
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		sameData(t, back, d)
	})
}

// FuzzRoundTrip writes arbitrary finite float32 features and float64 labels
// and reads them back bit for bit (up to the sign of zero).
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 240, 63, 1, 0, 0, 0}, uint8(1))
	f.Add(bytes.Repeat([]byte{0xff, 0x7f, 0x7f, 0x01}, 12), uint8(3))
	f.Fuzz(func(t *testing.T, raw []byte, dim uint8) {
		d := int(dim % 16)
		rowBytes := 8 + 4*d
		n := len(raw) / rowBytes
		if n == 0 {
			return
		}
		ds := &Dataset{X: pursuit.NewMatrix(n, d), Y: make([]float64, n), Name: "rt"}
		for i := range n {
			r := raw[i*rowBytes:]
			y := math.Float64frombits(binary.LittleEndian.Uint64(r))
			if math.IsNaN(y) || math.IsInf(y, 0) {
				y = 0
			}
			ds.Y[i] = y
			for j := range d {
				v := math.Float32frombits(binary.LittleEndian.Uint32(r[8+4*j:]))
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					v = 0
				}
				ds.X.Set(i, j, v)
			}
		}
		var buf bytes.Buffer
		if err := WriteLibSVM(&buf, ds); err != nil {
			t.Fatal(err)
		}
		back, err := ReadLibSVM(&buf, "rt.svm", WithDim(d))
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		sameData(t, back, ds)
	})
}

// checkSparseAgrees reads in with sparse storage and checks it against the
// dense reading d (err its error): the same data where dense reads it, and
// where sparse fails, dense failed too. Sparse takes what dense refuses only
// for its size (wider indices, a smaller charge against the limit).
func checkSparseAgrees(t *testing.T, in []byte, d *Dataset, err error) {
	t.Helper()
	s, serr := ReadLibSVM(bytes.NewReader(in), "fuzz.svm", WithMemoryLimit(fuzzLimit), WithStorage(StorageSparse))
	switch {
	case serr != nil:
		var pe *ParseError
		if !errors.As(serr, &pe) || !strings.HasPrefix(serr.Error(), "fuzz.svm") {
			t.Fatalf("sparse: error %q (%T) does not name the file", serr, serr)
		}
		if err == nil {
			t.Fatalf("sparse refused what dense reads: %v", serr)
		}
	case err != nil:
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("sparse read what dense refuses for another reason than size: %v", err)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	default:
		if !s.X.IsSparse() {
			t.Fatal("sparse storage gave dense rows")
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		sameData(t, s, d)
	}
}
