package svm_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// sharedLines returns up to n lines of a shared data set (gzip), with
// relabel applied to each line's label when not nil, or skips the test.
func sharedLines(t *testing.T, set, file string, n int, relabel func(float64) string) []string {
	t.Helper()
	path, err := data.SharedFile(set, file)
	if err != nil {
		t.Skipf("shared data %s/%s not available: %v", set, file, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() && len(out) < n {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if relabel != nil {
			label, rest, _ := strings.Cut(line, " ")
			y, err := strconv.ParseFloat(label, 64)
			if err != nil {
				t.Fatalf("%s: %q", path, line)
			}
			line = relabel(y) + " " + rest
		}
		out = append(out, line)
	}
	return out
}

// TestDecision64MatchesSVMPredict (issue 29) trains models with LIBSVM's
// svm-train — C-SVC binary and multi-class, ε-SVR, kernels 0 to 3 — on
// Boston (features as they are, in the hundreds), USPS and mushrooms, and
// checks that Predict64 on the model file read by ReadLIBSVMModel gives
// svm-predict's labels and its regression values (%.17g) within 1e-9
// relative. It skips without svm-train (apt-get install libsvm-tools).
func TestDecision64MatchesSVMPredict(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a few dozen svm-train runs")
	}
	trainBin, err1 := exec.LookPath("svm-train")
	predictBin, err2 := exec.LookPath("svm-predict")
	if err1 != nil || err2 != nil {
		t.Skip("svm-train or svm-predict not found (apt-get install -y libsvm-tools)")
	}
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dir := t.TempDir()
	median := func(y float64) string {
		if y > 21.2 {
			return "1"
		}
		return "-1"
	}
	terciles := func(y float64) string {
		switch {
		case y < 18:
			return "1"
		case y < 24:
			return "2"
		}
		return "3"
	}
	eight := func(y float64) string {
		if y == 8 {
			return "1"
		}
		return "-1"
	}
	type set struct {
		name        string
		train, test []string
	}
	boston := sharedLines(t, "boston", "boston.gz", 506, nil)
	sets := []struct {
		set
		svr   bool
		extra map[int]string // svm-train options per kernel type
	}{
		{set{"boston-svr", boston, boston}, true, map[int]string{0: "-c 0.01", 1: "-g 1e-4 -r 1 -d 2 -c 1e-4", 2: "-g 1", 3: "-g 1e-6 -c 0.01"}},
		{set{"boston-binary", sharedLines(t, "boston", "boston.gz", 506, median), sharedLines(t, "boston", "boston.gz", 506, median)}, false, map[int]string{0: "-c 0.01", 1: "-g 1e-4 -r 1 -d 2 -c 1e-4", 2: "-g 1", 3: "-g 1e-6"}},
		{set{"boston-3class", sharedLines(t, "boston", "boston.gz", 506, terciles), sharedLines(t, "boston", "boston.gz", 506, terciles)}, false, map[int]string{0: "-c 0.01", 1: "-g 1e-4 -r 1 -d 2 -c 1e-4", 2: "-g 1", 3: "-g 1e-6"}},
		{set{"usps-10class", sharedLines(t, "usps", "usps.train.gz", 800, nil), sharedLines(t, "usps", "usps.test.gz", 400, nil)}, false, nil},
		{set{"usps-8-vs-rest", sharedLines(t, "usps", "usps.train.gz", 800, eight), sharedLines(t, "usps", "usps.test.gz", 400, eight)}, false, nil},
		{set{"mushrooms", sharedLines(t, "mushrooms", "mushrooms.gz", 1500, nil), sharedLines(t, "mushrooms", "mushrooms.gz", 3000, nil)[1500:]}, false, nil},
	}
	for _, s := range sets {
		trainFile, testFile := filepath.Join(dir, s.name+".train"), filepath.Join(dir, s.name+".test")
		if err := os.WriteFile(trainFile, []byte(strings.Join(s.train, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(testFile, []byte(strings.Join(s.test, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tf, err := os.Open(testFile)
		if err != nil {
			t.Fatal(err)
		}
		rows, _, err := svm.ReadRows64(tf)
		tf.Close()
		if err != nil {
			t.Fatal(err)
		}
		for kt := 0; kt <= 3; kt++ {
			name := fmt.Sprintf("%s/t%d", s.name, kt)
			model, out := filepath.Join(dir, s.name+".model"), filepath.Join(dir, s.name+".out")
			args := []string{"-q", "-t", strconv.Itoa(kt), "-e", "0.01"}
			if s.svr {
				args = append(args, "-s", "3", "-p", "1")
			}
			args = append(args, strings.Fields(s.extra[kt])...)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			cmd := exec.CommandContext(ctx, trainBin, append(args, trainFile, model)...)
			msg, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s: svm-train %v: %v\n%s", name, args, err, msg)
				continue
			}
			if msg, err := exec.Command(predictBin, testFile, model, out).CombinedOutput(); err != nil {
				t.Fatalf("%s: svm-predict: %v\n%s", name, err, msg)
			}
			want := readFloats(t, out)
			mf, err := os.Open(model)
			if err != nil {
				t.Fatal(err)
			}
			m, err := svm.ReadLIBSVMModel(mf)
			mf.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := m.Predict64(e, rows)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d predictions, svm-predict gives %d", name, len(got), len(want))
			}
			var worst float64
			bad := 0
			for i := range got {
				if !s.svr {
					if got[i] != want[i] {
						bad++
					}
					continue
				}
				d := math.Abs(got[i]-want[i]) / math.Max(math.Abs(want[i]), 1e-300)
				if got[i] == want[i] {
					d = 0
				}
				worst = max(worst, d)
				if d > 1e-9 {
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%s: %d of %d predictions differ from svm-predict's (largest relative difference %.3g)", name, bad, len(got), worst)
			}
			t.Logf("%s: %d SV, %d predictions, labels/values equal to svm-predict's; largest relative difference %.3g", name, m.TotalSV(), len(got), worst)
		}
	}
}

// readFloats reads one number per line.
func readFloats(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, f := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("%s: %q", path, f)
		}
		out = append(out, v)
	}
	return out
}
