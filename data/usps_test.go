package data

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// sharedFile returns the path of a shared data set file or skips the test.
func sharedFile(tb testing.TB, elem ...string) string {
	tb.Helper()
	p, err := SharedFile(elem...)
	if err != nil {
		tb.Skipf("shared data set not available, skipping: %v", err)
	}
	return p
}

func TestUSPSShapes(t *testing.T) {
	cases := []struct {
		file   string
		rows   int
		counts [10]int
	}{
		{"usps.train.gz", 7291, [10]int{1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644}},
		{"usps.test.gz", 2007, [10]int{359, 264, 198, 166, 200, 160, 170, 147, 166, 177}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			ds, err := Load(sharedFile(t, "usps", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if ds.Len() != c.rows || ds.Dim() != 256 {
				t.Fatalf("shape %d×%d, want %d×256", ds.Len(), ds.Dim(), c.rows)
			}
			if err := ds.Validate(); err != nil {
				t.Fatal(err)
			}
			var got [10]int
			for i, y := range ds.Y {
				if y != float64(int(y)) || y < 0 || y > 9 {
					t.Fatalf("row %d: label %v is not a digit", i+1, y)
				}
				got[int(y)]++
			}
			if got != c.counts {
				t.Errorf("class counts %v, want %v", got, c.counts)
			}
			// Grey levels lie in [-1, 1] and every digit image has ink.
			for i := range ds.Len() {
				nz := 0
				for _, v := range ds.X.Row(i) {
					if v < -1 || v > 1 {
						t.Fatalf("row %d: value %v outside [-1, 1]", i+1, v)
					}
					if v != -1 {
						nz++
					}
				}
				if nz == 0 {
					t.Fatalf("row %d: blank image", i+1)
				}
			}
			t.Logf("%d duplicate rows, %d with a conflicting label", len(DuplicateRows(ds.X)), len(LabelConflicts(ds)))
			if cl := ds.Classes(); len(cl) != 10 {
				t.Errorf("Classes() = %v, want the 10 digits", cl)
			}
		})
	}
}

// BenchmarkReadLibSVMUSPS measures parsing alone (decompressed bytes in
// memory); BenchmarkGunzipUSPS the decompression alone, for a ratio measured
// in the same run; BenchmarkLoadUSPS the whole Load from the .gz file (bytes =
// compressed file size).
func BenchmarkReadLibSVMUSPS(b *testing.B) {
	raw := gunzipFile(b, sharedFile(b, "usps", "usps.train.gz"))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadLibSVM(bytes.NewReader(raw), "usps.train"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGunzipUSPS(b *testing.B) {
	p := sharedFile(b, "usps", "usps.train.gz")
	gz, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	raw := gunzipFile(b, p)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadUSPS(b *testing.B) {
	p := sharedFile(b, "usps", "usps.train.gz")
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := Load(p); err != nil {
			b.Fatal(err)
		}
	}
}

func gunzipFile(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}
