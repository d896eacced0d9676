package bpdn

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLIBSVMPrecomputed: with finite C, bpdn equals LIBSVM's ε-SVR
// (svm-train -s 3 -t 4, the kernel precomputed) to 1e-3 — LIBSVM keeps
// float32-rounded kernel values.
func TestLIBSVMPrecomputed(t *testing.T) {
	bin, err := exec.LookPath("svm-train")
	if err != nil {
		t.Skip("svm-train not found: install Debian's libsvm-tools (apt-get install -y libsvm-tools) to run the LIBSVM comparison")
	}
	p := noisy(12, 0.1)
	dir := t.TempDir()
	file := filepath.Join(dir, "k.txt")
	var sb strings.Builder
	for i := range testM {
		fmt.Fprintf(&sb, "%.17g 0:%d", p.y[i], i+1)
		for j := range testM {
			fmt.Fprintf(&sb, " %d:%.17g", j+1, p.k[i*testM+j])
		}
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{0.1, 1} {
		const eps = 0.05
		model := filepath.Join(dir, fmt.Sprintf("m%g", c))
		args := []string{"-s", "3", "-t", "4", "-c", fmt.Sprint(c), "-p", fmt.Sprint(eps), "-e", "1e-8", "-q", file, model}
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("svm-train %v: %v\n%s", args, err, out)
		}
		aL, bL := readPrecomputedModel(t, model, testM)
		sol := mustSolve(t, testM, p.k, p.y, Params{Epsilon: eps, C: c})
		var da float64
		for i := range testM {
			da = math.Max(da, math.Abs(aL[i]-sol.A[i]))
		}
		db := math.Abs(bL - sol.B)
		if da > 1e-3*math.Max(1, maxAbs(sol.A)) || db > 1e-3*math.Max(1, math.Abs(sol.B)) {
			t.Errorf("C=%g: LIBSVM differs: max|Δa| %g, |Δb| %g", c, da, db)
		}
		ct := Compare(testM, p.k, p.y, eps, c, sol.A, sol.B, aL, bL, DefaultTolerances)
		t.Logf("C=%g ε=%g: vs LIBSVM max|Δa| %.2g, |Δb| %.2g, same support %v (%d/%d), objective %.10g / %.10g",
			c, eps, da, db, ct.SameSupport, ct.NSV[0], ct.NSV[1], ct.Obj[0], ct.Obj[1])
	}
}

// readPrecomputedModel reads the coefficients (by training index, from the
// "0:index" of each SV line) and the bias −ρ of an ε-SVR model file
// trained on a precomputed kernel.
func readPrecomputedModel(t *testing.T, path string, n int) ([]float64, float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := make([]float64, n)
	var rho float64
	inSV := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0:
		case inSV:
			coef, err1 := strconv.ParseFloat(fs[0], 64)
			idx, err2 := strconv.Atoi(strings.TrimPrefix(fs[1], "0:"))
			if err1 != nil || err2 != nil || idx < 1 || idx > n {
				t.Fatalf("%s: bad SV line %q", path, sc.Text())
			}
			a[idx-1] = coef
		case fs[0] == "rho":
			rho, _ = strconv.ParseFloat(fs[1], 64)
		case fs[0] == "SV":
			inSV = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return a, -rho
}
