package data

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

func matrix(t *testing.T, rows [][]float32) pursuit.Matrix {
	t.Helper()
	m := pursuit.NewMatrix(len(rows), len(rows[0]))
	for i, r := range rows {
		copy(m.Row(i), r)
	}
	return m
}

func TestParseScaleMode(t *testing.T) {
	for in, want := range map[string]ScaleMode{"minmax": ScaleMinMax, "Min-Max": ScaleMinMax, "standard": ScaleStandard,
		"zscore": ScaleStandard, " none ": ScaleNone} {
		if got, err := ParseScaleMode(in); err != nil || got != want {
			t.Errorf("ParseScaleMode(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "max", "l2"} {
		if _, err := ParseScaleMode(in); err == nil || !strings.Contains(err.Error(), "want minmax, standard or none") {
			t.Errorf("ParseScaleMode(%q): %v", in, err)
		}
	}
}

func TestScalerMinMax(t *testing.T) {
	// Column 2 constant, column 3 constant zero.
	x := matrix(t, [][]float32{{0, 5, 0, -3}, {10, 5, 0, 1}, {4, 5, 0, -1}})
	s, err := FitScaler(ScaleMinMax, x)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(x); err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{-1, 0, 0, -1}, {1, 0, 0, 1}, {-0.2, 0, 0, 0}}
	for i := range want {
		for j, w := range want[i] {
			if got := x.At(i, j); math.Abs(float64(got-w)) > 1e-6 {
				t.Errorf("(%d,%d) = %v, want %v", i, j, got, w)
			}
		}
	}
	// Re-applied on new data: the training parameters, constants to 0,
	// values outside the training range outside [-1, 1].
	y := matrix(t, [][]float32{{20, 7, -4, 3}})
	if err := s.Apply(y); err != nil {
		t.Fatal(err)
	}
	for j, w := range []float32{3, 0, 0, 2} {
		if got := y.At(0, j); math.Abs(float64(got-w)) > 1e-6 || math.IsNaN(float64(got)) {
			t.Errorf("new row feature %d = %v, want %v", j+1, got, w)
		}
	}
}

// TestScalerReference checks both modes against a float64 reference on
// random data with a constant column, through a JSON round trip of the
// scaler, on data other than the training data.
func TestScalerReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 50, 7
	train, test := pursuit.NewMatrix(n, d), pursuit.NewMatrix(9, d)
	for _, m := range []pursuit.Matrix{train, test} {
		for i := range m.Rows {
			for j := range d {
				m.Set(i, j, float32(rng.NormFloat64()*float64(j+1)*10+float64(j)))
			}
			m.Set(i, 3, 2.5) // constant
		}
	}
	test.Set(0, 3, 7) // differs from the training constant
	for _, mode := range []ScaleMode{ScaleMinMax, ScaleStandard, ScaleNone} {
		s, err := FitScaler(mode, train)
		if err != nil {
			t.Fatal(err)
		}
		blob, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var s2 Scaler
		if err := json.Unmarshal(blob, &s2); err != nil {
			t.Fatal(err)
		}
		// Reference parameters in float64.
		off, sc := make([]float64, d), make([]float64, d)
		for j := range d {
			lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
			for i := range n {
				v := float64(train.At(i, j))
				lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
			}
			mean := sum / n
			ss := 0.0
			for i := range n {
				dv := float64(train.At(i, j)) - mean
				ss += dv * dv
			}
			switch mode {
			case ScaleMinMax:
				off[j], sc[j] = (lo+hi)/2, 2/(hi-lo)
			case ScaleStandard:
				off[j], sc[j] = mean, 1/math.Sqrt(ss/n)
			case ScaleNone:
				sc[j] = 1
			}
			if j == 3 && mode != ScaleNone {
				sc[j] = 0
			}
		}
		for _, m := range []pursuit.Matrix{train, test} {
			c := pursuit.NewMatrix(m.Rows, d)
			copy(c.Data, m.Data)
			if err := s2.Apply(c); err != nil {
				t.Fatal(err)
			}
			for i := range m.Rows {
				for j := range d {
					want := (float64(m.At(i, j)) - off[j]) * sc[j]
					if got := float64(c.At(i, j)); math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
						t.Fatalf("%s (%d,%d): %v, want %v", mode, i, j, got, want)
					}
				}
			}
		}
		if mode == ScaleStandard {
			// Training data: mean 0, σ 1 on non-constant columns.
			c := pursuit.NewMatrix(n, d)
			copy(c.Data, train.Data)
			s.Apply(c)
			for j := range d {
				var sum, sq float64
				for i := range n {
					v := float64(c.At(i, j))
					sum, sq = sum+v, sq+v*v
				}
				wantSq := float64(n)
				if j == 3 {
					wantSq = 0
				}
				if math.Abs(sum/n) > 1e-5 || math.Abs(sq-wantSq) > 1e-3 {
					t.Errorf("standardised column %d: mean %v, Σx² %v", j+1, sum/n, sq)
				}
			}
		}
	}
}

func TestScalerErrors(t *testing.T) {
	x := matrix(t, [][]float32{{1, 2}, {3, 4}})
	if _, err := FitScaler("l2", x); err == nil || !strings.Contains(err.Error(), `unknown scaling "l2"`) {
		t.Errorf("unknown mode: %v", err)
	}
	if _, err := FitScaler(ScaleMinMax, pursuit.NewMatrix(0, 3)); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("empty: %v", err)
	}
	bad := matrix(t, [][]float32{{1, float32(math.Inf(1))}})
	if _, err := FitScaler(ScaleStandard, bad); err == nil || !strings.Contains(err.Error(), "row 1 feature 2 is +Inf") {
		t.Errorf("Inf: %v", err)
	}
	s, err := FitScaler(ScaleMinMax, x)
	if err != nil {
		t.Fatal(err)
	}
	three := matrix(t, [][]float32{{1, 2, 3}})
	err = s.Apply(three)
	if !errors.Is(err, ErrFeatureMismatch) || !strings.Contains(err.Error(), "data has 3 features, the scaler was fitted on 2") {
		t.Errorf("dimension mismatch: %v", err)
	}
	if three.At(0, 0) != 1 {
		t.Error("Apply changed data on error")
	}
	for _, bad := range []*Scaler{
		{Mode: "what", Offset: []float64{0}, Scale: []float64{1}},
		{Mode: ScaleMinMax, Offset: []float64{0}, Scale: []float64{1, 2}},
		{Mode: ScaleStandard, Offset: []float64{math.NaN()}, Scale: []float64{1}},
	} {
		if err := bad.Apply(pursuit.NewMatrix(1, 1)); err == nil {
			t.Errorf("corrupt scaler %+v accepted", bad)
		}
	}
}

func TestScalerApplyNonFinite(t *testing.T) {
	s := &Scaler{Mode: ScaleStandard, Offset: []float64{0, 0}, Scale: []float64{1, 1e30}}
	x := matrix(t, [][]float32{{1, 1}, {1, 1e20}})
	err := s.Apply(x)
	if err == nil || !strings.Contains(err.Error(), "row 2 feature 2: 1e+20 scales to +Inf") {
		t.Errorf("overflow: %v", err)
	}
	y := matrix(t, [][]float32{{float32(math.NaN()), 0}})
	if err := s.Apply(y); err == nil || !strings.Contains(err.Error(), "row 1 feature 1: NaN") {
		t.Errorf("NaN input: %v", err)
	}
}

// TestFitScalerComm: fitted over the rows of 1..4 in-process ranks (uneven
// shares, one empty), every rank gets FitScaler's scaler of the
// concatenated rows: minmax exactly, standard to 1e-12 relative. A rank
// with a non-finite value makes every rank fail.
func TestFitScalerComm(t *testing.T) {
	const l, d = 50, 3
	x := pursuit.NewMatrix(l, d)
	for i := range l {
		for j := range d {
			x.Set(i, j, float32(3*math.Sin(float64(i*(j+2)))+float64(j)))
		}
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
				s, err := FitScalerComm(mode, x.Slice(bounds[r], bounds[r+1], 0, d), engine.GroupOf(c))
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
	bad := pursuit.NewMatrix(l, d)
	copy(bad.Data, x.Data)
	bad.Row(40)[2] = float32(math.Inf(1))
	errs := make([]error, 3)
	comm.Run(3, func(c comm.Comm) error {
		r := c.Rank()
		_, errs[r] = FitScalerComm(ScaleStandard, bad.Slice(20*r, min(20*r+20, l), 0, d), engine.GroupOf(c))
		return nil
	})
	for r, err := range errs {
		if err == nil || (r != 2 && !strings.Contains(err.Error(), "other rank")) {
			t.Errorf("rank %d: %v; want an error (naming the other rank's invalid rows)", r, err)
		}
	}
}
