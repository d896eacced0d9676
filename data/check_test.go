package data

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// checkAgrees checks that Check on the file path accepts what Load reads,
// refuses what Load refuses with the same error, and gives the shape and
// bytes of Load's Dataset.
func checkAgrees(t *testing.T, path string, opts ...Option) {
	t.Helper()
	sh, cerr := Check(path, opts...)
	ds, lerr := Load(path, opts...)
	switch {
	case (cerr == nil) != (lerr == nil):
		t.Fatalf("Check: %v; Load: %v", cerr, lerr)
	case lerr != nil:
		if cerr.Error() != lerr.Error() {
			t.Fatalf("Check's error %q, Load's %q", cerr, lerr)
		}
		return
	}
	want := Shape{Rows: ds.Len(), Cols: ds.Dim(), Storage: StorageDense, Bytes: ds.Bytes()}
	if ds.X.IsSparse() {
		want.Storage = StorageSparse
	}
	if sh != want {
		t.Fatalf("Check found %+v; Load read %+v", sh, want)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"1 1:0.5 3:-2\n-1 2:1e-3\n", "+1 qid:3 1:1 # c\n\n-1.5e0 4:0\r\n", "1 0:1\n", "1 2:1 1:1\n",
		"nan 1:1\n", "", "# only\n", "3\n", "1 2:1 2:1\n", "-1\n1 3:0 5:2\n", "1 100000:1\n",
		"1,0.5,0,-2\n-1,1e-3,3,4\n", "a,b\n1,2\n", "1,2\n1\n", "1,,2\n", "# c\n1\n",
	} {
		for _, csv := range []bool{false, true} {
			f.Add([]byte(s), csv, uint8(0), uint8(0))
		}
	}
	f.Add([]byte("1 1:1 9:1\n-1 2:1\n"), false, uint8(2), uint8(1))
	f.Add([]byte("1 1:1 9:1\n-1 2:1\n"), false, uint8(1), uint8(0))
	f.Add([]byte("1,2,3\n4,5,6\n"), true, uint8(0), uint8(2))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in []byte, csv bool, storage, dim uint8) {
		name := "f.svm"
		if csv {
			name = "f.csv"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := []Option{WithMemoryLimit(fuzzLimit), WithStorage([]Storage{StorageAuto, StorageDense, StorageSparse}[storage%3])}
		if dim > 0 {
			opts = append(opts, WithDim(int(dim%8)))
		}
		checkAgrees(t, path, opts...)
	})
}

// TestCheckKeepsNoRows: checking a file allocates what loading it does
// less the data at least, and agrees with Load on it, bzip2ed too.
func TestCheckKeepsNoRows(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "%d", i%2*2-1)
		for j := 1; j <= 50; j++ {
			fmt.Fprintf(&b, " %d:%.3f", j, float64((i*j)%97)/97)
		}
		b.WriteString("\n")
	}
	path := filepath.Join(dir, "big.svm")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	for _, st := range []Storage{StorageDense, StorageSparse} {
		checkAgrees(t, path, WithStorage(st))
		allocated := func(read func() error) uint64 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := read(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		var sh Shape
		checking := allocated(func() (err error) { sh, err = Check(path, WithStorage(st)); return err })
		loading := allocated(func() error { _, err := Load(path, WithStorage(st)); return err })
		if checking+uint64(sh.Bytes) > loading {
			t.Errorf("%s: Check allocated %d bytes, Load %d for data of %d", st, checking, loading, sh.Bytes)
		}
	}
	csv := filepath.Join(dir, "small.csv")
	if err := os.WriteFile(csv, []byte("1,2,3\n-1,0,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkAgrees(t, csv)
	checkAgrees(t, filepath.Join("testdata", "small.svm.bz2"))
	checkAgrees(t, filepath.Join(dir, "absent.svm"))
}
