package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	in := "# comment\n" +
		"1, 0.5, 0, -2\n" +
		"\n" +
		"-1,\" 1e-3 \",3 , 4\r\n" +
		"+2.5,0,0,0"
	d, err := ReadCSV(strings.NewReader(in), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, d, []float64{1, -1, 2.5}, [][]float64{{0.5, 0, -2}, {1e-3, 3, 4}, {0, 0, 0}})

	// Header and label in the last column (negative index) or a middle one.
	in = "a,b,class\n0.5,1,1\n2,3,-1\n"
	d, err = ReadCSV(strings.NewReader(in), "h.csv", WithHeader(true), WithLabelColumn(-1))
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, d, []float64{1, -1}, [][]float64{{0.5, 1}, {2, 3}})
	d, err = ReadCSV(strings.NewReader(in), "h.csv", WithHeader(true), WithLabelColumn(1))
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, d, []float64{1, 3}, [][]float64{{0.5, 1}, {2, -1}})

	// WithDim equal to the feature count is accepted.
	if _, err := ReadCSV(strings.NewReader("1,2,3\n"), "d.csv", WithDim(2)); err != nil {
		t.Fatal(err)
	}
	// A label-only file has zero features.
	d, err = ReadCSV(strings.NewReader("1\n-1\n"), "y.csv")
	if err != nil || d.Dim() != 0 || d.Len() != 2 {
		t.Fatalf("label-only: %v", err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opts     []Option
		want     error
		frags    []string
	}{
		{"ragged", "1,2,3\n1,2\n", nil, ErrSyntax, []string{"f.csv:2:", "2 fields, but line 1 has 3", "ragged"}},
		{"ragged later", "#c\n1,2,3\n\n1,2,3,4\n", nil, ErrSyntax, []string{"f.csv:4:", "4 fields, but line 2 has 3"}},
		{"empty value", "1,2,3\n1,,3\n", nil, ErrSyntax, []string{"f.csv:2:", "column 3", "empty value"}},
		{"empty label", "1,2\n ,2\n", nil, ErrSyntax, []string{"f.csv:2:", "empty label"}},
		{"NaN", "1,2\n1,NaN\n", nil, ErrNotFinite, []string{`f.csv:2: token "NaN"`, "value is NaN"}},
		{"Inf label", "inf,2\n", nil, ErrNotFinite, []string{`f.csv:1: token "inf"`, "label is +Inf"}},
		{"overflow", "1,1e40\n", nil, ErrNotFinite, []string{`f.csv:1: token "1e40"`, "overflows float32"}},
		{"header not skipped", "y,x1\n1,2\n", nil, ErrSyntax, []string{`f.csv:1: token "y"`, "WithHeader(true)"}},
		{"header hint named", "y,x1\n1,2\n", []Option{WithHintNames("--header", "--format libsvm")}, ErrSyntax, []string{"a header line? use --header)"}},
		{"LIBSVM hint named", "1 1:0.5 2:1\n", []Option{WithHintNames("--header", "--format libsvm")}, ErrSyntax, []string{"read the file with --format libsvm)"}},
		{"text value", "1,2\n1,abc\n", nil, ErrSyntax, []string{`f.csv:2: token "abc"`, "not a number"}},
		{"LIBSVM as CSV", "1 1:0.5 2:1\n-1 1:2\n", []Option{WithHeader(true)}, ErrSyntax, []string{"f.csv:2:", "a LIBSVM line?", "WithFormat(FormatLibSVM)"}},
		{"missing ?", "1,?\n", nil, ErrSyntax, []string{`f.csv:1: token "?"`}},
		{"label column", "1,2\n", []Option{WithLabelColumn(5)}, ErrSyntax, []string{"f.csv:1:", "label column 5 is out of range for 2 columns"}},
		{"label column negative", "1,2\n", []Option{WithLabelColumn(-3)}, ErrSyntax, []string{"label column -3"}},
		{"dim mismatch", "1,2,3\n", []Option{WithDim(3)}, ErrFeatureMismatch, []string{"f.csv:1:", "2 feature columns but the model has 3", "feature-count mismatch at prediction"}},
		{"empty", "", nil, ErrNoExamples, []string{"f.csv: ", "no data records"}},
		{"header only", "a,b\n", []Option{WithHeader(true)}, ErrNoExamples, []string{"no data records"}},
		{"bare quote", "1,2\n1,2\"x\n", nil, ErrSyntax, []string{"f.csv:2:", "bare \""}},
		{"memory", "1,2,3\n1,2,3\n", []Option{WithMemoryLimit(10)}, ErrTooLarge, []string{"f.csv:2:", "over the 10 B budget"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(c.in), "f.csv", c.opts...)
			if err == nil {
				t.Fatalf("no error; read %d×%d", d.Len(), d.Dim())
			}
			checkErr(t, err, c.want, c.frags...)
		})
	}
	// Issue 16: with the header declared, a non-numeric field is not
	// blamed on a missing header option.
	for _, in := range []string{"y,x\n1 1:0.5\n", "y,x\n1,abc\n"} {
		_, err := ReadCSV(strings.NewReader(in), "f.csv", WithHeader(true))
		if err == nil || strings.Contains(err.Error(), "WithHeader") {
			t.Errorf("%q with a header: %v, want an error that does not suggest WithHeader", in, err)
		}
	}
}

func TestLoadCSV(t *testing.T) {
	dir := t.TempDir()
	const content = "label,x\n1,0.5\n-1,2\n"
	plain := filepath.Join(dir, "a.CSV")
	os.WriteFile(plain, []byte(content), 0o644)
	gz := filepath.Join(dir, "a.csv.gz")
	writeGzip(t, gz, content)
	for _, p := range []string{plain, gz} {
		d, err := Load(p, WithHeader(true))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		wantRows(t, d, []float64{1, -1}, [][]float64{{0.5}, {2}})
	}
	// WithFormat overrides the name both ways.
	other := filepath.Join(dir, "a.txt")
	os.WriteFile(other, []byte("1,0.5\n"), 0o644)
	if _, err := Load(other, WithFormat(FormatCSV)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(other); err == nil {
		t.Fatal("CSV content read as LIBSVM without error")
	}
	svm := filepath.Join(dir, "b.csv")
	os.WriteFile(svm, []byte("1 1:0.5\n"), 0o644)
	if _, err := Load(svm, WithFormat(FormatLibSVM)); err != nil {
		t.Fatal(err)
	}
}
