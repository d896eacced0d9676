package backendtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// testSetProducts checks backend.SetProducts: every set's products equal,
// bit for bit, those of DictProducts on that set alone, whatever the other
// sets (their number, sizes, layouts, empty ones); nothing is written past
// any destination; shape errors wrap pursuit.ErrShape.
func testSetProducts(t testing.TB, be backend.Backend) {
	sp, ok := be.(backend.SetProducts)
	if !ok {
		t.Errorf("%s does not implement backend.SetProducts", be.Name())
		return
	}
	rng := rand.New(rand.NewPCG(21, 22))
	setLists := [][]int{{4}, {4, 4, 4}, {2, 4, 0, 4, 1}, {3, 8, 9, 4, 2}, {1, 1, 1}, {1, 1, 1, 1, 1, 1, 1}, {2, 1, 1, 1, 1, 2, 2}, {4, 4, 4, 4, 4, 4}, {2, 2, 2, 2, 2}}
	for ci, c := range []dictCase{{1, 1}, {3, 7}, {13, 17}, {37, 1030}, {100, 257}, {257, 64}, {70, 0}, {19, 2061}, {29, 1051}, {53, 1055}} {
		for si, sizes := range setLists {
			name := fmt.Sprintf("DictProductsSets l=%d n=%d sets %v", c.l, c.n, sizes)
			dict := newView(c.l, c.n, layouts[(ci+si)%2], uniform(rng, -1, 1))
			sets := make([]pursuit.Matrix, len(sizes))
			dst := make([]*guarded64, len(sizes))
			ds := make([][]float64, len(sizes))
			for s, k := range sizes {
				sets[s] = newView(k, c.n, layouts[(ci+si+s)%2], uniform(rng, -1, 1)).m
				dst[s] = newGuarded64(k * c.l)
				ds[s] = dst[s].s
			}
			if err := callErr(func() error { return sp.DictProductsSets(ds, dict.m, sets) }); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			for s, v := range sets {
				alone := make([]float64, v.Rows*c.l)
				if err := callErr(func() error { return be.DictProducts(alone, dict.m, v) }); err != nil {
					t.Errorf("%s: DictProducts of set %d: %v", name, s, err)
					continue
				}
				for p, want := range alone {
					if got := ds[s][p]; math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("%s: set %d product %d (row %d · vector %d) is %v among the sets, %v from DictProducts alone", name, s, p, p%max(c.l, 1), p/max(c.l, 1), got, want)
						break
					}
				}
				if err := dst[s].checkGuards(); err != nil {
					t.Errorf("%s: set %d: %v", name, s, err)
				}
			}
		}
	}
	mat := pursuit.NewMatrix
	for _, c := range []struct {
		name string
		dst  [][]float64
		sets []pursuit.Matrix
	}{
		{"fewer destinations", [][]float64{make([]float64, 10)}, []pursuit.Matrix{mat(2, 3), mat(2, 3)}},
		{"short destination", [][]float64{make([]float64, 10), make([]float64, 9)}, []pursuit.Matrix{mat(2, 3), mat(2, 3)}},
		{"vector length", [][]float64{make([]float64, 10)}, []pursuit.Matrix{mat(2, 4)}},
	} {
		err := callErr(func() error { return sp.DictProductsSets(c.dst, mat(5, 3), c.sets) })
		if !errors.Is(err, pursuit.ErrShape) {
			t.Errorf("DictProductsSets %s: got %v, want an error wrapping pursuit.ErrShape", c.name, err)
		}
	}
}
