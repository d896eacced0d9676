package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
)

func TestSubspace(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	feat := filepath.Join(dir, "feat.csv")
	r := mustRun(t, dir, "subspace", "--data", train, "--test", test, "--k", "12", "--gamma", "2", "--out", feat, "--plot", dir, "--log", "--json")
	var out learn.KPCAReport
	decodeJSON(t, r.stdout, &out)
	if len(out.Curve) != 12 || len(out.Chosen) != 12 || out.M != 200 || out.NTest != 100 {
		t.Fatalf("curve of %d, %d chosen, m = %d, %d test points; want 12, 12, 200, 100", len(out.Curve), len(out.Chosen), out.M, out.NTest)
	}
	var train1 []float64
	for i, p := range out.Curve {
		train1 = append(train1, p.TrainResidual)
		if i > 0 && !(p.TrainResidual < out.Curve[i-1].TrainResidual*(1+1e-12)) {
			t.Errorf("training residual rises at k = %d", p.K)
		}
		if p.TestResidual == nil || p.Theorem7 == nil || p.Theorem8 == nil {
			t.Fatalf("k = %d: missing test residual or PCA bounds", p.K)
		}
		if !(p.Corollary1 < *p.Theorem7) {
			t.Errorf("k = %d: Corollary 1 %.4f not below Theorem 7 %.4f", p.K, p.Corollary1, *p.Theorem7)
		}
	}
	want, err := bound.SubspaceCurve(out.M, train1, 1, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(want[i]-out.Curve[i].Corollary1) > 1e-12 {
			t.Errorf("k = %d: Corollary 1 %v, formula %v", i+1, out.Curve[i].Corollary1, want[i])
		}
	}
	b, err := os.ReadFile(feat)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 300 || len(strings.Split(lines[0], ",")) != 13 || !strings.HasPrefix(lines[299], "test,") {
		t.Errorf("features file: %d lines, first %q", len(lines), lines[0])
	}
	checkPNG(t, out.Plot)
}

func TestSubspaceBadInput(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	for _, c := range []struct {
		want []string
		args []string
	}{
		{[]string{"--kernel", "rbf"}, []string{"--kernel", "linear"}},
		{[]string{"--k", "200"}, []string{"--k", "200"}},
		{[]string{"--k", "at least 1"}, []string{"--k", "0"}},
		{[]string{"--method", "skpca"}, []string{"--method", "pca"}},
		{[]string{"--delta"}, []string{"--delta", "2"}},
		{[]string{"--log", "--plot"}, []string{"--log"}},
	} {
		wantFail(t, dir, c.want, append([]string{"subspace", "--data", train}, c.args...)...)
	}
}

// skccaViews writes two views of the same moons points: x the points, y a
// noisy non-linear image of them.
func skccaViews(t *testing.T, dir string, n int, seed uint64, name string) (string, string) {
	t.Helper()
	x := twoMoons(n, 0.1, seed)
	y := &data.Dataset{X: pursuit.NewMatrix(n, 1), Y: x.Y, Name: "y"}
	for i := range n {
		a, b := float64(x.X.At(i, 0)), float64(x.X.At(i, 1))
		y.X.Set(i, 0, float32(a*a+b+0.05*math.Sin(float64(i)*7.3)))
	}
	px, py := filepath.Join(dir, name+".x"), filepath.Join(dir, name+".y")
	writeData(t, px, x)
	writeData(t, py, y)
	return px, py
}

func TestSubspaceSKCCA(t *testing.T) {
	dir := t.TempDir()
	x, y := skccaViews(t, dir, 200, 1, "train")
	tx, ty := skccaViews(t, dir, 100, 2, "test")
	feat := filepath.Join(dir, "cca.csv")
	r := mustRun(t, dir, "subspace", "--method", "skcca", "--data", x, "--data-y", y, "--test", tx, "--test-y", ty,
		"--k", "20", "--gamma", "1", "--alpha", "0.5", "--out", feat, "--json")
	var out learn.KCCAReport
	decodeJSON(t, r.stdout, &out)
	if out.K != 20 || out.M != 200 || out.NTest != 100 || out.TestCorr == nil || out.Bound == nil {
		t.Fatalf("skcca output %+v", out)
	}
	if !(out.TrainCorr[0] > 0.9) || !(*out.TestCorr > 0.9) {
		t.Errorf("first canonical correlation %.3f (training), %.3f (test): want > 0.9 on these views", out.TrainCorr[0], *out.TestCorr)
	}
	if want, _ := bound.SKCCA(200, 20, out.Bound.T, 0.05); out.Bound.Value != want || out.Bound.Theorem != "Theorem 9" {
		t.Errorf("bound %+v, Theorem 9 formula %v", *out.Bound, want)
	}
	b, err := os.ReadFile(feat)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 300 || len(strings.Split(lines[0], ",")) != 41 {
		t.Errorf("features file: %d lines, first %q", len(lines), lines[0])
	}
	short, _ := skccaViews(t, dir, 150, 3, "short")
	wantFail(t, dir, []string{"--data-y", "same pairs"}, "subspace", "--method", "skcca", "--data", short, "--data-y", y)
	wantFail(t, dir, []string{"--data-y"}, "subspace", "--method", "skcca", "--data", x)
	wantFail(t, dir, []string{"--alpha", "skcca"}, "subspace", "--data", x, "--alpha", "0.5")
	wantFail(t, dir, []string{"--test-y"}, "subspace", "--method", "skcca", "--data", x, "--data-y", y, "--test", tx)
}
