package data

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeDenseLibSVM writes n dense rows of d features (short decimals, some
// zeros, a comment and a blank line) to path, gzip-compressed when the name
// ends in .gz, and returns the values written.
func writeDenseLibSVM(t *testing.T, path string, n, d int) ([]float64, [][]float32) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw = gzip.NewWriter(f)
		w = zw
	}
	bw := bufio.NewWriter(w)
	r := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, n)
	x := make([][]float32, n)
	fmt.Fprintln(bw, "# dense test data")
	for i := range n {
		y[i] = float64(2*(i%2) - 1)
		x[i] = make([]float32, d)
		fmt.Fprintf(bw, "%g", y[i])
		for j := range d {
			v := r.IntN(2000) - 1000
			if v%7 == 0 {
				continue // an absent feature is 0
			}
			x[i][j] = float32(v) / 100
			fmt.Fprintf(bw, " %d:%g", j+1, float64(v)/100)
		}
		fmt.Fprintln(bw)
		if i == n/2 {
			fmt.Fprintln(bw)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return y, x
}

// allocated returns the bytes f allocates on the heap (it must not run
// beside other allocating tests, so callers are not parallel).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadAllocatesTheDenseMatrixOnce checks that loading a LIBSVM file
// costs its dense float32 size (and the labels), not sparse triples plus a
// dense copy: the bytes allocated, beyond those of loading a one-row file
// (the readers' buffers), are at most the matrix and labels plus 64 KiB.
func TestLoadAllocatesTheDenseMatrixOnce(t *testing.T) {
	dir := t.TempDir()
	const n, d = 2000, 300
	for _, name := range []string{"dense.svm", "dense.svm.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			y, x := writeDenseLibSVM(t, path, n, d)
			small := filepath.Join(dir, "one-"+name)
			writeDenseLibSVM(t, small, 1, d)
			var base, got uint64
			var ds *Dataset
			var err error
			base = allocated(func() { _, err = Load(small) })
			if err != nil {
				t.Fatal(err)
			}
			got = allocated(func() { ds, err = Load(path) })
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if ds.Y[i] != y[i] {
					t.Fatalf("row %d: label %v, want %v", i+1, ds.Y[i], y[i])
				}
				for j := range d {
					if ds.X.At(i, j) != x[i][j] {
						t.Fatalf("row %d feature %d: %v, want %v", i+1, j+1, ds.X.At(i, j), x[i][j])
					}
				}
			}
			dense := uint64(n*d*4 + n*8)
			t.Logf("%d×%d: allocated %d B beyond a one-row load (%d B), dense matrix and labels %d B (%.2f×)",
				n, d, got-base, base, dense, float64(got-base)/float64(dense))
			if got > base+dense+64<<10 {
				t.Errorf("loading a %d×%d file allocated %d B beyond a one-row file's %d B; the dense matrix and labels are %d B (%.2f×)",
					n, d, got-base, base, dense, float64(got-base)/float64(dense))
			}
			if cap(ds.X.Data) != n*d {
				t.Errorf("matrix capacity %d, want exactly %d", cap(ds.X.Data), n*d)
			}
		})
	}
}

// TestLoadCSVAllocatesTheDenseMatrixOnce is the same check for CSV, which
// Load reads twice (counting lines first) to allocate the matrix once.
func TestLoadCSVAllocatesTheDenseMatrixOnce(t *testing.T) {
	dir := t.TempDir()
	const n, d = 2000, 300
	write := func(name string, rows int) string {
		var b strings.Builder
		b.WriteString("# a comment\n")
		for i := range rows {
			fmt.Fprintf(&b, "%d", 2*(i%2)-1)
			for j := range d {
				fmt.Fprintf(&b, ",%d.5", (i*j)%97)
			}
			b.WriteString("\n")
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	small, big := write("one.csv", 1), write("dense.csv", n)
	var ds *Dataset
	var err error
	base := allocated(func() { _, err = Load(small) })
	if err != nil {
		t.Fatal(err)
	}
	got := allocated(func() { ds, err = Load(big) })
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != n || ds.Dim() != d || ds.X.At(n-1, d-1) != float32(((n-1)*(d-1))%97)+0.5 {
		t.Fatalf("loaded %d×%d, last value %v", ds.Len(), ds.Dim(), ds.X.At(n-1, d-1))
	}
	// encoding/csv makes a string of every record, garbage at once: the
	// file's size in short-lived allocations on top of the matrix.
	st, err := os.Stat(big)
	if err != nil {
		t.Fatal(err)
	}
	dense, text := uint64((n+1)*d*4+(n+1)*8), uint64(st.Size())
	t.Logf("CSV %d×%d: allocated %d B beyond a one-row load; dense matrix and labels %d B, text %d B", n, d, got-base, dense, text)
	if got > base+dense+text+64<<10 {
		t.Errorf("loading a %d×%d CSV file allocated %d B beyond a one-row file's %d B; the dense matrix and labels are %d B and the text %d B",
			n, d, got-base, base, dense, text)
	}
	if c := cap(ds.X.Data); c < n*d || c > (n+1)*d {
		t.Errorf("matrix capacity %d, want %d to %d", c, n*d, (n+1)*d)
	}
}

// wideSparseFile writes rows examples with one feature each, the last at
// index dim, so that the dense matrix has rows×dim float32 values while the
// file stays small.
func wideSparseFile(t *testing.T, path string, rows, dim int) {
	t.Helper()
	var b strings.Builder
	for i := range rows - 1 {
		fmt.Fprintf(&b, "%d %d:1\n", 2*(i%2)-1, i%1000+1)
	}
	fmt.Fprintf(&b, "1 %d:1\n", dim)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadRefusesOverLimitBeforeAllocating loads a small file whose dense
// matrix is 3 GB under a 1 GiB limit: the error is a *LimitError (and
// ErrTooLarge) stating the need and the limit, and almost nothing was
// allocated.
func TestLoadRefusesOverLimitBeforeAllocating(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.svm")
	const rows, dim = 1000, 750_000
	wideSparseFile(t, path, rows, dim)
	var err error
	got := allocated(func() { _, err = Load(path, WithMemoryLimit(1<<30)) })
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want a *LimitError wrapping ErrTooLarge", err)
	}
	if want := int64(rows) * dim * 4; le.Need != want || le.Limit != 1<<30 {
		t.Errorf("need %d limit %d, want %d and %d", le.Need, le.Limit, want, 1<<30)
	}
	if !strings.Contains(err.Error(), "wide.svm") || !strings.Contains(err.Error(), "1000×750000") {
		t.Errorf("error %q does not name the file and the shape", err)
	}
	if got > 8<<20 {
		t.Errorf("refusing allocated %d B", got)
	}
}

// TestLoadShardAllocatesItsBlockOnly loads rank 1's block of 4 of a
// 4000×300 file (LIBSVM, gzip-compressed LIBSVM and CSV): the bytes
// allocated, beyond a one-row load's, are at most the block's dense matrix
// and labels (a quarter of the file's) plus 64 KiB (CSV: plus the text of
// the records encoding/csv reads, which is garbage at once), and the matrix
// holds exactly the block.
func TestLoadShardAllocatesItsBlockOnly(t *testing.T) {
	dir := t.TempDir()
	const n, d, ranks = 4000, 300, 4
	lo, hi := ShardRange(n, 1, ranks)
	block := hi - lo
	for _, name := range []string{"dense.svm", "dense.svm.gz", "dense.csv"} {
		t.Run(name, func(t *testing.T) {
			path, small := filepath.Join(dir, name), filepath.Join(dir, "one-"+name)
			var y []float64
			var x [][]float32
			if strings.HasSuffix(name, ".csv") {
				y, x = writeDenseCSV(t, path, n, d)
				writeDenseCSV(t, small, 1, d)
			} else {
				y, x = writeDenseLibSVM(t, path, n, d)
				writeDenseLibSVM(t, small, 1, d)
			}
			var ds *Dataset
			var err error
			base := allocated(func() { _, err = Load(small, WithShard(0, 1)) })
			if err != nil {
				t.Fatal(err)
			}
			got := allocated(func() { ds, err = Load(path, WithShard(1, ranks)) })
			if err != nil {
				t.Fatal(err)
			}
			if ds.Len() != block || ds.Dim() != d {
				t.Fatalf("block %d×%d, want %d×%d", ds.Len(), ds.Dim(), block, d)
			}
			for i := range block {
				if ds.Y[i] != y[lo+i] || ds.X.At(i, d-1) != x[lo+i][d-1] || ds.X.At(i, 0) != x[lo+i][0] {
					t.Fatalf("row %d of the block is not row %d of the file", i, lo+i)
				}
			}
			dense, whole := uint64(block*d*4+block*8), uint64(n*d*4+n*8)
			slack := uint64(64 << 10)
			if strings.HasSuffix(name, ".csv") {
				// encoding/csv makes a string of every record it reads, garbage
				// at once: the counting pass reads all of them, the second pass
				// those up to the block's end.
				st, _ := os.Stat(path)
				slack += 2 * uint64(st.Size())
			}
			// What stays: the live heap with the block held.
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			held, err := Load(path, WithShard(1, ranks))
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			runtime.KeepAlive(held)
			t.Logf("rank 1 of %d: live heap after the load %d B (%.2f× the block)", ranks, live, float64(live)/float64(dense))
			if live > int64(dense)+64<<10 {
				t.Errorf("rank 1's block of %d keeps %d B live; the block is %d B", ranks, live, dense)
			}
			t.Logf("rank 1 of %d: allocated %d B beyond a one-row load; the block's matrix and labels are %d B, the whole file's %d B (%.2f× the block, %.2f× the whole)",
				ranks, got-base, dense, whole, float64(got-base)/float64(dense), float64(got-base)/float64(whole))
			if got > base+dense+slack {
				t.Errorf("loading rank 1's block of %d allocated %d B beyond a one-row load; the block is %d B (the whole file %d B)", ranks, got-base, dense, whole)
			}
			if cap(ds.X.Data) != block*d {
				t.Errorf("matrix capacity %d, want exactly the block's %d", cap(ds.X.Data), block*d)
			}
		})
	}
}

// writeDenseCSV writes n rows of d features (label first) and returns them.
func writeDenseCSV(t *testing.T, path string, n, d int) ([]float64, [][]float32) {
	t.Helper()
	var b strings.Builder
	y := make([]float64, n)
	x := make([][]float32, n)
	for i := range n {
		y[i] = float64(2*(i%2) - 1)
		x[i] = make([]float32, d)
		fmt.Fprintf(&b, "%g", y[i])
		for j := range d {
			x[i][j] = float32((i*j)%97) + 0.5
			fmt.Fprintf(&b, ",%g", x[i][j])
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return y, x
}
