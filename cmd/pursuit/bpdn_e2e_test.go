package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
	"github.com/pursuit-ml/pursuit/learn"
)

// smoothRegression is n noiseless samples of a smooth function of two
// variables in [−1, 1]².
func smoothRegression(n int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := pursuit.NewMatrix(n, 2)
	y := make([]float64, n)
	for i := range n {
		u, v := 2*rng.Float64()-1, 2*rng.Float64()-1
		x.Set(i, 0, float32(u))
		x.Set(i, 1, float32(v))
		y[i] = math.Sin(3*float64(float32(u))) + math.Cos(2*float64(float32(v)))
	}
	return &data.Dataset{X: x, Y: y, Name: "smooth"}
}

func readNumbers(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, f := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("%s: %q is not a number", path, f)
		}
		out = append(out, v)
	}
	return out
}

// TestBPDNTrainPredict: train --algo bpdn (C = ∞, the hard tube) fits every
// training target within ε, and its model predicts the same with pursuit
// predict, with the LIBSVM payload read raw by pursuit predict, and with
// LIBSVM's svm-predict.
func TestBPDNTrainPredict(t *testing.T) {
	dir := t.TempDir()
	ds := smoothRegression(120, 1)
	train := filepath.Join(dir, "s.train")
	writeData(t, train, ds)
	model := filepath.Join(dir, "s.model")
	const eps = 0.05
	mustRun(t, dir, "train", "--data", train, "--algo", "bpdn", "--epsilon", strconv.FormatFloat(eps, 'g', -1, 64), "--gamma", "20", "--scale", "none", "--model", model, "--quiet")
	ours := filepath.Join(dir, "ours.pred")
	mustRun(t, dir, "predict", "--model", model, "--data", train, "--out", ours)
	pred := readNumbers(t, ours)
	if len(pred) != ds.Len() {
		t.Fatalf("%d predictions for %d examples", len(pred), ds.Len())
	}
	for i, p := range pred {
		if math.Abs(p-ds.Y[i]) > eps+1e-4 {
			t.Errorf("example %d: prediction %v, target %v: outside the ε-tube", i, p, ds.Y[i])
		}
	}
	// The payload after the header line inside the frame is a LIBSVM model.
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := modelfile.Read(bytes.NewReader(raw), learn.ModelMagic, nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := bytes.SplitN(body, []byte("\n"), 2)
	if len(parts) != 2 || !bytes.HasPrefix(parts[1], []byte("svm_type epsilon_svr\n")) {
		t.Fatalf("the model's payload is not a LIBSVM epsilon_svr model:\n%.200s", raw)
	}
	libModel := filepath.Join(dir, "s.libsvm")
	if err := os.WriteFile(libModel, parts[1], 0o644); err != nil {
		t.Fatal(err)
	}
	rawPred := filepath.Join(dir, "raw.pred")
	mustRun(t, dir, "predict", "--model", libModel, "--data", train, "--out", rawPred)
	// The raw payload is an imported LIBSVM model: float64 kernels (issue
	// 29), the model's float32 ones, hence 1e-5.
	for i, p := range readNumbers(t, rawPred) {
		if math.Abs(p-pred[i]) > 1e-5*math.Max(1, math.Abs(pred[i])) {
			t.Errorf("example %d: the raw LIBSVM payload predicts %v, the model %v", i, p, pred[i])
		}
	}
	svmPredict, err := exec.LookPath("svm-predict")
	if err != nil {
		t.Skip("svm-predict not found (Debian package libsvm-tools): the LIBSVM check is skipped")
	}
	libPred := filepath.Join(dir, "lib.pred")
	if out, err := exec.Command(svmPredict, train, libModel, libPred).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	lp := readNumbers(t, libPred)
	if len(lp) != len(pred) {
		t.Fatalf("svm-predict gave %d predictions for %d", len(lp), len(pred))
	}
	for i := range lp {
		if math.Abs(lp[i]-pred[i]) > 1e-5*math.Max(1, math.Abs(pred[i])) {
			t.Errorf("example %d: svm-predict %v, pursuit %v", i, lp[i], pred[i])
		}
	}
}

// TestEquivCommand: equiv certifies agreement (exit 0), reports a
// disagreement with a loose SMO as exit 1, and refuses bad input (exit 2,
// one line).
func TestEquivCommand(t *testing.T) {
	dir := t.TempDir()
	ds := smoothRegression(100, 2)
	f := filepath.Join(dir, "s.train")
	writeData(t, f, ds)
	for _, c := range []string{"inf", "0.5"} {
		r := mustRun(t, dir, "equiv", "--data", f, "--epsilon", "0.02", "--gamma", "20", "--c", c, "--json")
		var js bpdn.EquivReport
		decodeJSON(t, r.stdout, &js)
		if !js.Agree || !js.SameSupport || js.MaxDA > 1e-6*math.Max(1, js.NormA) || js.NSV[0] == 0 {
			t.Errorf("--c %s: certificate %+v", c, js)
		}
	}
	r := mustRun(t, dir, "equiv", "--data", f, "--epsilon", "0.02", "--gamma", "20")
	for _, w := range []string{"max |Δa|", "|Δb|", "support      identical", "objective", "KKT residual", "verdict      AGREE"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("equiv output lacks %q:\n%s", w, r.stdout)
		}
	}
	r = runPursuit(t, dir, "equiv", "--data", f, "--epsilon", "0.02", "--gamma", "20", "--smo-tol", "0.5")
	if r.code != 1 || !strings.Contains(r.stdout, "DISAGREE") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("a loose SMO: exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// TestBPDNBadInput: ε < 0, C ≤ 0, a classification data set and a singular
// Gram matrix with C = ∞ each give one line and exit status 2, for train
// and equiv.
func TestBPDNBadInput(t *testing.T) {
	dir := t.TempDir()
	ds := smoothRegression(60, 3)
	f := filepath.Join(dir, "s.train")
	writeData(t, f, ds)
	moons := filepath.Join(dir, "moons.train")
	writeData(t, moons, twoMoons(60, 0.1, 1))
	// A duplicated point with another target: K is singular.
	dup := &data.Dataset{X: pursuit.NewMatrix(ds.Len()+1, 2), Y: append(append([]float64{}, ds.Y...), ds.Y[0]+1), Name: "dup"}
	copy(dup.X.Data, ds.X.Data[:ds.Len()*2])
	copy(dup.X.Row(ds.Len()), ds.X.Row(0))
	dupFile := filepath.Join(dir, "dup.train")
	writeData(t, dupFile, dup)
	for _, cmd := range [][]string{{"train", "--algo", "bpdn"}, {"equiv"}} {
		run := func(want []string, args ...string) {
			t.Helper()
			wantFail(t, dir, want, append(append([]string{}, cmd...), args...)...)
		}
		run([]string{"--epsilon -0.1", "non-negative"}, "--data", f, "--epsilon", "-0.1")
		run([]string{"--c 0", "positive"}, "--data", f, "--epsilon", "0.1", "--c", "0")
		run([]string{"--c -1", "positive"}, "--data", f, "--epsilon", "0.1", "--c", "-1")
		run([]string{"classification data set"}, "--data", moons, "--epsilon", "0.1")
		run([]string{"singular Gram matrix", "finite C"}, "--data", dupFile, "--epsilon", "0.01", "--gamma", "20")
	}
	// With a finite C the duplicated point is fine.
	mustRun(t, dir, "train", "--algo", "bpdn", "--data", dupFile, "--epsilon", "0.01", "--gamma", "20", "--c", "1", "--quiet")
}

// TestEquivBoston: on Boston (506 examples, RBF γ = 1 on features scaled to
// [−1, 1]) equiv certifies bpdn (C = ∞) against SMO for three ε. About
// 5 s; left out by -short.
func TestEquivBoston(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Boston certificate takes about 5 s")
	}
	path, err := data.SharedFile("boston", "boston.gz")
	if err != nil {
		t.Skipf("shared Boston data not available (%v)", err)
	}
	dir := t.TempDir()
	for _, eps := range []string{"1", "2", "4"} {
		r := mustRun(t, dir, "equiv", "--data", path, "--epsilon", eps, "--gamma", "1", "--json")
		var js bpdn.EquivReport
		decodeJSON(t, r.stdout, &js)
		if !js.Agree || !js.SameSupport || js.N != 506 {
			t.Errorf("ε = %s: certificate %+v", eps, js)
		}
		t.Logf("ε = %s: %d SV, max|Δa| %.2g (‖a‖∞ %.3g), |Δb| %.2g, objective %.10g / %.10g, KKT %.2g / %.2g, bpdn %.2f s, SMO %.2f s",
			eps, js.NSV[0], js.MaxDA, js.NormA, js.DB, js.Obj[0], js.Obj[1], js.KKT[0], js.KKT[1], js.Seconds[0], js.Seconds[1])
	}
}

// TestBPDNCVEpsilon: cv searches ε for bpdn and reports each value.
func TestBPDNCVEpsilon(t *testing.T) {
	dir := t.TempDir()
	ds := smoothRegression(90, 4)
	f := filepath.Join(dir, "s.train")
	writeData(t, f, ds)
	r := mustRun(t, dir, "cv", "--data", f, "--algo", "bpdn", "--gamma", "20", "--grid-epsilon", "0.01,0.1,0.5", "--folds", "3", "--quiet", "--json")
	var js cvJSON
	decodeJSON(t, r.stdout, &js)
	if len(js.Grid) != 3 {
		t.Fatalf("cv grid has %d points, want 3: %s", len(js.Grid), r.stdout)
	}
	for i, want := range []float64{0.01, 0.1, 0.5} {
		g := js.Grid[i]
		if g.Epsilon == nil || *g.Epsilon != want {
			t.Errorf("grid point %d: epsilon %v, want %v", i, g.Epsilon, want)
		}
		if i > 0 && g.NBasis >= js.Grid[i-1].NBasis {
			t.Errorf("a wider tube should need fewer support vectors: %v then %v", js.Grid[i-1].NBasis, g.NBasis)
		}
	}
	if js.Best.Epsilon == nil {
		t.Errorf("best setting lacks its ε: %+v", js.Best)
	}
	wantFail(t, dir, []string{"--grid-epsilon", "kmp"}, "cv", "--data", f, "--algo", "kmp", "--grid-epsilon", "0.1", "--regression")
	wantFail(t, dir, []string{"--grid-epsilon"}, "cv", "--data", f, "--algo", "bpdn", "--grid-epsilon", "-1")
	// pursuit help lists equiv and shows its flags.
	r = mustRun(t, dir, "help", "equiv")
	for _, w := range []string{"--epsilon", "--c", "--smo-tol"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("pursuit help equiv lacks %s", w)
		}
	}
}
