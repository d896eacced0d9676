package data

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestFitScalerComm splits 23 rows over 1 to 5 in-process ranks (blocks as
// WithShard cuts them; with 5 ranks some hold 4 rows, and a 30-rank split of
// 3 rows leaves most ranks empty): every rank gets FitScaler's scaling of
// all the rows, exactly for min-max and to 1e-12 for standard scaling.
func TestFitScalerComm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{23, 3} {
		x := backend.NewMatrix(n, 6)
		for i := range x.Data {
			x.Data[i] = float32(rng.NormFloat64()*10 + 3)
		}
		for i := range n {
			x.Data[i*6+5] = 2 // a constant feature
		}
		for _, mode := range []ScaleMode{ScaleMinMax, ScaleStandard, ScaleNone} {
			want, err := FitScaler(mode, x)
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 2, 3, 5, 30} {
				got := make([]*Scaler, size)
				err := comm.Run(size, func(c comm.Comm) error {
					lo, hi := ShardRange(n, c.Rank(), size)
					s, err := FitScalerComm(mode, x.Slice(lo, hi, 0, x.Cols), c)
					got[c.Rank()] = s
					return err
				})
				if err != nil {
					t.Fatalf("%s, %d rows, %d ranks: %v", mode, n, size, err)
				}
				for r, s := range got {
					for j := range want.Scale {
						tol := 0.0
						if mode == ScaleStandard {
							tol = 1e-12
						}
						if !closeTo(s.Offset[j], want.Offset[j], tol) || !closeTo(s.Scale[j], want.Scale[j], tol) {
							t.Fatalf("%s, %d rows, rank %d of %d, feature %d: offset %v scale %v, want %v %v",
								mode, n, r, size, j, s.Offset[j], s.Scale[j], want.Offset[j], want.Scale[j])
						}
						if s.Offset[j] != got[0].Offset[j] || s.Scale[j] != got[0].Scale[j] {
							t.Fatalf("%s: rank %d differs from rank 0 in feature %d", mode, r, j)
						}
					}
				}
			}
		}
	}
}

func closeTo(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// TestFitScalerCommErrors: a non-finite value on one rank, or no rows on
// any, fails every rank.
func TestFitScalerCommErrors(t *testing.T) {
	errs := make([]error, 3)
	comm.Run(3, func(c comm.Comm) error {
		x := backend.NewMatrix(2, 2)
		if c.Rank() == 1 {
			x.Data[3] = float32(math.Inf(1))
		}
		_, errs[c.Rank()] = FitScalerComm(ScaleMinMax, x, c)
		return nil
	})
	for r, err := range errs {
		if err == nil {
			t.Errorf("rank %d: no error for another rank's Inf", r)
		}
	}
	comm.Run(2, func(c comm.Comm) error {
		_, errs[c.Rank()] = FitScalerComm(ScaleStandard, backend.NewMatrix(0, 2), c)
		return nil
	})
	for r, err := range errs[:2] {
		if err == nil {
			t.Errorf("rank %d: no error without rows", r)
		}
	}
}
