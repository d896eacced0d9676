package slmc

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/svm"
)

// threeClass returns a small three-class problem on a grid: 7 inside a
// circle, 3 and 5 on either side of it.
func threeClass(side int) (pursuit.Matrix, []float64) {
	x := pursuit.NewMatrix(side*side, 2)
	y := make([]float64, side*side)
	for i := range side {
		for j := range side {
			r := i*side + j
			a, b := -1+2*float64(i)/float64(side-1), -1+2*float64(j)/float64(side-1)
			x.Set(r, 0, float32(a))
			x.Set(r, 1, float32(b))
			switch {
			case a*a+b*b < 0.36:
				y[r] = 7
			case a > 0:
				y[r] = 3
			default:
				y[r] = 5
			}
		}
	}
	return x, y
}

// binaryOf labels class 7 +1 and the others −1.
func binaryOf(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = -1
		if v == 7 {
			out[i] = 1
		}
	}
	return out
}

// TestCompressMethods compresses binary and three-class SVMs with each
// method: the machines are in LIBSVM's pair order, sized per pair, and the
// LIBSVM-layout model predicts what Compressed.Predict predicts.
func TestCompressMethods(t *testing.T) {
	e := goEngine(t)
	x, y := threeClass(14)
	yb := binaryOf(y)
	k := pursuit.NewRBF(4)
	for _, tc := range []struct {
		name string
		y    []float64
	}{{"binary", yb}, {"three-class", y}} {
		sm, err := svm.Train(e, x, tc.y, svm.Params{Kernel: k, C: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, method := range []string{MethodSLMC, MethodMRS, MethodRS} {
			var lines int
			c, err := Compress(e, sm, x, tc.y, CompressConfig{Method: method, Fraction: 0.3, Seed: 1, Optim: OptimOptions{MaxIter: 20},
				Progress: func(string) { lines++ }})
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, method, err)
			}
			kk := len(sm.Labels)
			if len(c.Machines) != kk*(kk-1)/2 || lines < 2*len(c.Machines) {
				t.Errorf("%s %s: %d machines for %d classes, %d progress lines", tc.name, method, len(c.Machines), kk, lines)
			}
			p := 0
			for i := range kk {
				for j := i + 1; j < kk; j++ {
					m := c.Machines[p]
					want := max(1, int(0.3*float64(m.Original)+0.5))
					if m.Pos != i || m.Neg != j || m.Model.NumXV() != want || m.Model.Method != method {
						t.Errorf("%s %s: machine %d is (%d, %d) with %d vectors by %q, want (%d, %d), %d, %q",
							tc.name, method, p, m.Pos, m.Neg, m.Model.NumXV(), m.Model.Method, i, j, want, method)
					}
					p++
				}
			}
			pc, err := c.Predict(e, x)
			if err != nil {
				t.Fatal(err)
			}
			lm, err := c.SVM()
			if err != nil {
				t.Fatal(err)
			}
			pl, err := lm.Predict(e, x)
			if err != nil {
				t.Fatal(err)
			}
			wrong, differ := 0, 0
			for i := range pc {
				if pc[i] != tc.y[i] {
					wrong++
				}
				if pc[i] != pl[i] {
					differ++
				}
			}
			if differ != 0 {
				t.Errorf("%s %s: the LIBSVM layout predicts %d of %d rows differently", tc.name, method, differ, len(pc))
			}
			if rate := float64(wrong) / float64(len(pc)); rate > 0.15 {
				t.Errorf("%s %s: training error %.3f", tc.name, method, rate)
			}
		}
	}
}

// TestCompressRefusals: every input Compress cannot handle is refused with
// an error that says why and wraps the right sentinel.
func TestCompressRefusals(t *testing.T) {
	e := goEngine(t)
	x, y3 := threeClass(10)
	y := binaryOf(y3)
	sm, err := svm.Train(e, x, y, svm.Params{Kernel: pursuit.NewRBF(4), C: 10})
	if err != nil {
		t.Fatal(err)
	}
	lin, err := svm.Train(e, x, y, svm.Params{Kernel: pursuit.NewLinear(), C: 10})
	if err != nil {
		t.Fatal(err)
	}
	svr, err := svm.Train(e, x, y, svm.Params{Type: svm.EpsilonSVR, Kernel: pursuit.NewRBF(4), C: 10, Epsilon: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	narrow := pursuit.NewMatrix(x.Rows, 1)
	other := append([]float64(nil), y...)
	other[3] = 9
	cases := []struct {
		name     string
		m        *svm.Model
		x        pursuit.Matrix
		y        []float64
		cfg      CompressConfig
		sentinel error
		want     string
	}{
		{"regression", svr, x, y, CompressConfig{}, pursuit.ErrBadInput, "only C-SVC"},
		{"linear kernel", lin, x, y, CompressConfig{}, ErrKernel, "supports only the rbf kernel"},
		{"linear kernel rs", lin, x, y, CompressConfig{Method: MethodRS}, pursuit.ErrConfig, "rs supports only the rbf kernel"},
		{"too many vectors", sm, x, y, CompressConfig{NumXV: sm.TotalSV() + 1}, pursuit.ErrConfig, "support vectors"},
		{"narrow data", sm, narrow, y, CompressConfig{}, pursuit.ErrBadInput, "1 features"},
		{"foreign label", sm, x, other, CompressConfig{}, pursuit.ErrBadInput, "label 9"},
		{"method", sm, x, y, CompressConfig{Method: "rsvm"}, pursuit.ErrConfig, "unknown method"},
		{"fraction", sm, x, y, CompressConfig{Fraction: 1.5}, pursuit.ErrConfig, "fraction"},
	}
	for _, tc := range cases {
		_, err := Compress(e, tc.m, tc.x, tc.y, tc.cfg)
		if err == nil || !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q wrapping %v", tc.name, err, tc.want, tc.sentinel)
		}
	}
}

// TestExpansionNorm checks the blockwise ‖w‖² of the reduced set against
// the full Gram matrix.
func TestExpansionNorm(t *testing.T) {
	x, y3 := threeClass(23) // 529 rows: more than one 256-row block
	y := binaryOf(y3)
	s := toDense(x)
	c := make([]float64, len(y))
	for i := range c {
		c[i] = y[i] * (1 + float64(i%5))
	}
	k := pursuit.NewRBF(2)
	n := len(c)
	var want float64
	for i := range n {
		for j := range n {
			want += c[i] * c[j] * math.Exp(-k.Gamma*sqDist(s.RawRowView(i), s.RawRowView(j)))
		}
	}
	if got := expansionNorm(k, s, c); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("expansionNorm %v, want %v", got, want)
	}
}
