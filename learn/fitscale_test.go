package learn

import (
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
)

// TestFitScale checks that the scaling is fitted on the training set alone
// and applied to every set, against minmax onto [-1, 1] computed by hand.
func TestFitScale(t *testing.T) {
	tr, err := data.ReadLibSVM(strings.NewReader("1 1:0 2:10\n-1 1:4 2:20\n"), "tr", data.WithStorage(data.StorageDense))
	if err != nil {
		t.Fatal(err)
	}
	te, err := data.ReadLibSVM(strings.NewReader("1 1:2 2:30\n"), "te", data.WithDim(2), data.WithStorage(data.StorageDense))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FitScale(data.ScaleMinMax, tr, te, nil); err != nil {
		t.Fatal(err)
	}
	ref := func(v, lo, hi float64) float64 { return 2*(v-lo)/(hi-lo) - 1 }
	for _, c := range []struct {
		ds     *data.Dataset
		i, j   int
		lo, hi float64
		raw    float64
	}{{tr, 0, 0, 0, 4, 0}, {tr, 1, 0, 0, 4, 4}, {tr, 1, 1, 10, 20, 20}, {te, 0, 0, 0, 4, 2}, {te, 0, 1, 10, 20, 30}} {
		if got, want := float64(c.ds.X.At(c.i, c.j)), ref(c.raw, c.lo, c.hi); math.Abs(got-want) > 1e-6 {
			t.Errorf("%s[%d,%d] = %v, want %v", c.ds.Name, c.i, c.j, got, want)
		}
	}
}
