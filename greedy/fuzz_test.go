package greedy

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/fuzzlimit"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// FuzzLoadKFDA: LoadKFDA never panics and decides every input within
// fuzzlimit.PerInput. Its errors say where they come from; a file with the
// right magic and version that is not an intact frame is ErrCorrupt. The
// input is also tried as the payload of an intact frame, so the fuzzer
// reaches the JSON decoding and the shape checks. A model that loads holds
// what it declares (rows × cols centre values, one coefficient, index,
// weight and score per centre), saves to the same bytes after a second
// load, and decides the same before and after.
func FuzzLoadKFDA(f *testing.F) {
	e := newEngine(f)
	x, y := twoClass(30, 3, 4)
	trained, err := TrainKFDA(e, x, y, KFDAConfig{Kernel: pursuit.NewRBF(0.5), Steps: 4})
	if err != nil {
		f.Fatal(err)
	}
	var saved bytes.Buffer
	if err := trained.Save(&saved); err != nil {
		f.Fatal(err)
	}
	f.Add(saved.Bytes())
	for _, s := range []string{
		`{"kernel":{"kind":"rbf","gamma":1},"rows":1,"cols":2,"centres":[1,2],"index":[0],"alpha":[1],"bias":0,"w":[1],"scores":[1]}`,
		`{"kernel":{"kind":"linear"},"rows":4,"cols":4611686018427387905,"centres":[1,1,1,1],"index":[0,1,2,3],"alpha":[1,1,1,1],"bias":0,"w":[1,1,1,1],"scores":[1,1,1,1]}`,
		`{"kernel":{"kind":"poly","gamma":1,"coef0":1,"degree":2},"rows":1000000000,"cols":1000000000,"centres":[],"index":[],"alpha":[],"bias":0,"w":[],"scores":[]}`,
		kfdaMagic + "\x01\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzlimit.Timed(t, func() {
			m, err := LoadKFDA(bytes.NewReader(in))
			if err != nil {
				if m != nil {
					t.Fatalf("error %v with a non-nil model", err)
				}
				if !strings.HasPrefix(err.Error(), "greedy: load: ") {
					t.Fatalf("error %q does not say where it comes from", err)
				}
				if len(in) >= len(kfdaMagic)+4 && string(in[:len(kfdaMagic)+4]) == kfdaMagic+"\x01\x00\x00\x00" &&
					!intactKFDAFrame(in) && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("a damaged frame gives %q, not wrapping ErrCorrupt", err)
				}
			} else {
				checkLoadedKFDA(t, m)
			}
			var framed bytes.Buffer
			if err := modelfile.Write(&framed, kfdaMagic, kfdaVersion, in); err != nil {
				t.Fatal(err)
			}
			if m, err := LoadKFDA(&framed); err == nil {
				checkLoadedKFDA(t, m)
			} else if errors.Is(err, ErrCorrupt) {
				t.Fatalf("an intact frame is called corrupt: %v", err)
			}
		})
	})
}

// intactKFDAFrame reports whether in is a complete frame whose checksum
// matches.
func intactKFDAFrame(in []byte) bool {
	_, _, err := modelfile.Read(bytes.NewReader(in), kfdaMagic, nil)
	return err == nil
}

// checkLoadedKFDA checks the properties of a model LoadKFDA accepted.
func checkLoadedKFDA(t *testing.T, m *KFDA) {
	t.Helper()
	k := len(m.Alpha)
	if !modelfile.FitsShape(m.Centres.Rows, m.Centres.Cols, len(m.Centres.Data)) || m.Centres.Rows != k ||
		len(m.Index) != k || len(m.W) != k || len(m.Scores) != k {
		t.Fatalf("loaded %d×%d centres from %d values with %d coefficients, %d indices, %d weights, %d scores",
			m.Centres.Rows, m.Centres.Cols, len(m.Centres.Data), k, len(m.Index), len(m.W), len(m.Scores))
	}
	var b1, b2 bytes.Buffer
	if err := m.Save(&b1); err != nil {
		t.Fatalf("saving a loaded model: %v", err)
	}
	back, err := LoadKFDA(bytes.NewReader(b1.Bytes()))
	if err != nil {
		t.Fatalf("reading back a saved model: %v", err)
	}
	if err := back.Save(&b2); err != nil || !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatalf("save → load → save is not a fixed point (%v)", err)
	}
	if !fuzzlimit.FitsRows(3, m.Centres.Cols) {
		return // three rows would not fit the budget; the structure was checked
	}
	e := newEngine(t)
	x := pursuit.NewMatrix(3, m.Centres.Cols)
	for i := range x.Rows {
		for j := range x.Cols {
			x.Set(i, j, float32(math.Sin(float64(3*i+j+1))))
		}
	}
	d1, err1 := m.Decision(e, x)
	d2, err2 := back.Decision(e, x)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("decision errors differ after a save and load: %v vs %v", err1, err2)
	}
	if err1 == nil && !slices.EqualFunc(d1, d2, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
		t.Fatalf("decisions %v, after a save and load %v", d1, d2)
	}
}
