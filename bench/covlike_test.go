package bench

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/data"
)

// covtypeLike is svm's test generator of the same name (svm/covlike_test.go,
// kept in step by hand): n points shaped like LIBSVM's scaled
// covtype.binary (54 features: 10 continuous in [0, 1], a one-hot
// wilderness area of 4 and a one-hot soil type of 40) with labels from a
// smooth rule plus Gaussian noise. The same seed gives the same points; the
// soil offsets come from the seed, so a train/test split must come from one
// call.
func covtypeLike(n int, seed uint64) (backend.Matrix, []float64) {
	const cont, wild, soil = 10, 4, 40
	rng := rand.New(rand.NewPCG(seed, 0xc0f7))
	x := backend.NewMatrix(n, cont+wild+soil)
	y := make([]float64, n)
	wildP := []float64{0.45, 0.05, 0.44, 0.06}
	soilOff := make([]float64, soil)
	for s := range soilOff {
		soilOff[s] = 0.8 * rng.NormFloat64()
	}
	sq := func(v float64) float64 { return v * v }
	for i := range n {
		row := x.Row(i)
		lat := rng.NormFloat64()
		for j := range cont {
			v := 0.5 + 0.18*rng.NormFloat64() + 0.08*lat*float64(j%3-1)
			row[j] = float32(min(max(v, 0), 1))
		}
		u, w := rng.Float64(), 0
		for w < wild-1 && u > wildP[w] {
			u -= wildP[w]
			w++
		}
		row[cont+w] = 1
		s := (w*10 + rng.IntN(16)) % soil
		row[cont+wild+s] = 1
		f := math.Sin(6*float64(row[0])) + 3*float64(row[1])*float64(row[2]) -
			4*sq(float64(row[3])-0.5) + float64(row[4]) - float64(row[5]) +
			0.5*float64(w%2) + soilOff[s] - 0.6
		if f+0.6*rng.NormFloat64() > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return x, y
}

// TestWriteCovtypeLike writes the covtype-like set of the stochastic KMP
// comparisons (issue 34) as LIBSVM files for the command line: 80,000
// points of covtypeLike(80000, 1), the first 50,000 to covlike.train and
// the other 30,000 to covlike.test in the folder $PURSUIT_COVLIKE_DIR. It
// runs only when that variable is set:
//
//	PURSUIT_COVLIKE_DIR=/tmp/covlike go test ./bench -run TestWriteCovtypeLike
//	pursuit train --data /tmp/covlike/covlike.train --test /tmp/covlike/covlike.test \
//	    --algo skmp --fit basic --gamma 0.125 --active-set 228 --basis 2400 --seed 1
func TestWriteCovtypeLike(t *testing.T) {
	dir := os.Getenv("PURSUIT_COVLIKE_DIR")
	if dir == "" {
		t.Skip("writes data files; set PURSUIT_COVLIKE_DIR to the folder to write them to")
	}
	const n, nTrain = 80000, 50000
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
