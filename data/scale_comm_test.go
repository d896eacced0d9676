package data

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestFitScalerComm: fitted over the rows of 1..4 in-process ranks (uneven
// shares, one empty), every rank gets FitScaler's scaler of the
// concatenated rows: minmax exactly, standard to 1e-12 relative. A rank
// with a non-finite value makes every rank fail.
func TestFitScalerComm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const l, d = 50, 3
	x := backend.NewMatrix(l, d)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64()*3 + float64(i%d))
	}
	for _, mode := range []ScaleMode{ScaleMinMax, ScaleStandard, ScaleNone} {
		want, err := FitScaler(mode, x)
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 4; n++ {
			bounds := []int{0, 10, 10, 31, l}[:n+1]
			bounds[n] = l
			got := make([]*Scaler, n)
			err := comm.Run(n, func(c comm.Comm) error {
				r := c.Rank()
				s, err := FitScalerComm(mode, x.Slice(bounds[r], bounds[r+1], 0, d), c)
				got[r] = s
				return err
			})
			if err != nil {
				t.Fatalf("%s, %d ranks: %v", mode, n, err)
			}
			for r, s := range got {
				for j := range d {
					o, sc := s.Offset[j], s.Scale[j]
					wo, ws := want.Offset[j], want.Scale[j]
					tol := 0.0
					if mode == ScaleStandard {
						tol = 1e-12
					}
					if math.Abs(o-wo) > tol*math.Abs(wo) || math.Abs(sc-ws) > tol*math.Abs(ws) {
						t.Fatalf("%s, %d ranks, rank %d, feature %d: offset %v scale %v, FitScaler %v %v", mode, n, r, j, o, sc, wo, ws)
					}
				}
			}
		}
	}
	bad := backend.NewMatrix(l, d)
	copy(bad.Data, x.Data)
	bad.Row(40)[2] = float32(math.Inf(1))
	errs := make([]error, 3)
	comm.Run(3, func(c comm.Comm) error {
		r := c.Rank()
		_, errs[r] = FitScalerComm(ScaleStandard, bad.Slice(20*r, min(20*r+20, l), 0, d), c)
		return nil
	})
	for r, err := range errs {
		if err == nil || (r != 2 && !strings.Contains(err.Error(), "other rank")) {
			t.Errorf("rank %d: %v; want an error (naming the other rank's invalid rows)", r, err)
		}
	}
}
