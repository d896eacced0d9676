package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
)

// covtypeLike is data.CovtypeLike as a matrix and labels.
func covtypeLike(n int, seed uint64) (pursuit.Matrix, []float64) {
	d := data.CovtypeLike(n, seed)
	return d.X, d.Y
}

// TestWriteCovtypeLike writes the covtype-like set of the stochastic KMP
// comparisons (issue 34) as LIBSVM files for the command line: 80,000
// points of covtypeLike(80000, 1), the first 50,000 to covlike.train and
// the other 30,000 to covlike.test in the folder $PURSUIT_COVLIKE_DIR. It
// runs only when that variable is set. PURSUIT_COVLIKE_TRAIN=N writes N
// training points instead of 50,000 (covtypeLike(N+30000, 1); issue 32's
// 200k set is N = 200000), the test file still 30,000:
//
//	PURSUIT_COVLIKE_DIR=/tmp/covlike go test ./bench -run TestWriteCovtypeLike
//	pursuit train --data /tmp/covlike/covlike.train --test /tmp/covlike/covlike.test \
//	    --algo skmp --fit basic --gamma 0.125 --active-set 228 --basis 2400 --seed 1
func TestWriteCovtypeLike(t *testing.T) {
	dir := os.Getenv("PURSUIT_COVLIKE_DIR")
	if dir == "" {
		t.Skip("writes data files; set PURSUIT_COVLIKE_DIR to the folder to write them to")
	}
	nTrain := 50000
	if v := os.Getenv("PURSUIT_COVLIKE_TRAIN"); v != "" {
		var err error
		if nTrain, err = strconv.Atoi(v); err != nil || nTrain < 1 {
			t.Fatalf("PURSUIT_COVLIKE_TRAIN=%q: want a positive number of training points", v)
		}
	}
	n := nTrain + 30000
	x, y := covtypeLike(n, 1)
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	if pos == 0 || pos == n {
		t.Fatalf("covtypeLike gave one class only (%d of %d positive)", pos, n)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, part := range []struct {
		name   string
		r0, r1 int
	}{{"covlike.train", 0, nTrain}, {"covlike.test", nTrain, n}} {
		ds := &data.Dataset{Name: part.name, X: x.Slice(part.r0, part.r1, 0, x.Cols), Y: y[part.r0:part.r1]}
		f, err := os.Create(filepath.Join(dir, part.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := data.WriteLibSVM(f, ds); err != nil {
			f.Close()
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		back, err := data.Load(filepath.Join(dir, part.name), data.WithDim(x.Cols))
		if err != nil {
			t.Fatal(err)
		}
		if back.Len() != part.r1-part.r0 {
			t.Fatalf("%s: read back %d rows, wrote %d", part.name, back.Len(), part.r1-part.r0)
		}
	}
	t.Logf("%d points (%d positive) written to %s", n, pos, dir)
}
