package bench

// The SVM on sparse data against LIBSVM's svm-train and svm-predict (issue
// 28): one core each, RBF kernel, the same γ, C, tolerance (1e-3) and data
// (no scaling on either side), on the rcv1-shaped generated text set
// (`pursuit demo --sparse rcv1`: 20,242 × 47,236 training rows, 5,060 test
// rows, 0.16% non-zeros) and on mushrooms (../shared/datasets, every fourth
// row held out), held sparse and, as --storage auto holds them, dense. It
// prints, per set:
//
//   - training time: pursuit's train_seconds against svm-train's whole
//     process (which includes its loading, a few percent of it);
//   - whole process: `pursuit train --test` (load, train, predict the test
//     file, one process) against svm-train + svm-predict;
//   - support vectors and test accuracy;
//   - peak RSS of each process (getrusage of the child).
//
// Mushrooms runs five times each side, alternated, and the medians are
// compared (each run prints its ratio too). The support vectors must agree
// to ±0.5% and the accuracy to ±0.1 point
// (errors otherwise); the time and memory ratios are printed against the
// issue's targets (≤ 0.3× training, ≤ 0.5× whole process, ≤ 1.5× RSS).
// With PURSUIT_SVM_SPARSE_NEWS20=1 it also trains on the news20-shaped set
// (19,996 × 1,355,191, 9.1 M non-zeros) within the default memory budget,
// svm-train beside it.
//
//	PURSUIT_SVM_SPARSE=1 go test ./bench -run TestSVMSparseVsLIBSVM -v -timeout 1h
//
// PURSUIT_SVM_SPARSE_ROWS=N keeps the first N rows of the rcv1-shaped
// training set (svm-train takes over 220 s CPU on all 20,242); the test
// set stays whole.
//
// The machine may be shared: the CPU times (user + system, from getrusage)
// are printed beside the wall times.
//
// It skips when svm-train is not installed (apt-get install libsvm-tools).

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/data"
)

// procStat is one process's wall time, CPU time (user + system), peak RSS
// and output.
type procStat struct {
	wall   time.Duration
	cpu    time.Duration
	rssKB  int64
	stdout []byte
}

// runProc runs name with args in dir and measures it.
func runProc(t *testing.T, dir, name string, args ...string) procStat {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	hwm := watchHWM(cmd.Process.Pid)
	err := cmd.Wait()
	polled := hwm()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, errb.Bytes())
	}
	st := procStat{wall: time.Since(t0), stdout: out.Bytes()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		st.rssKB = ru.Maxrss // kilobytes on Linux
		st.cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	}
	if polled > 0 {
		// The child's rusage Maxrss on Linux counts the memory of this
		// test process too (the child is started sharing its address
		// space until exec, and exec records that space's peak): a 100 MB
		// parent gave svm-train a Maxrss of 105 MB against its own 23 MB
		// (/usr/bin/time). The child's own VmHWM, polled while it runs,
		// is its peak but for any rise in its last 2 ms.
		st.rssKB = polled
	}
	return st
}

// watchHWM polls /proc/pid/status's VmHWM (the process's peak resident
// set, in kB) every 2 ms until the returned function is called, which
// stops the polling and returns the largest value read (0 where there is
// no /proc).
func watchHWM(pid int) func() int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	done, res := make(chan struct{}), make(chan int64, 1)
	go func() {
		var peak int64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if b, err := os.ReadFile(path); err == nil {
				for _, line := range strings.Split(string(b), "\n") {
					if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64); err == nil {
							peak = max(peak, kb)
						}
					}
				}
			}
			select {
			case <-done:
				res <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { close(done); return <-res }
}

// libsvmTotalSV reads total_sv from a LIBSVM model file.
func libsvmTotalSV(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "total_sv "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("%s: no total_sv", path)
	return 0
}

var accuracyRE = regexp.MustCompile(`Accuracy = ([0-9.]+)%`)

// sparseRun is one data set's comparison.
type sparseRun struct {
	name, train, test string
	gamma, c          float64
	storage           string // the storage pursuit must hold the data in
	ask               string // --storage (auto when empty)
	repeat            int    // alternated runs of each side (medians compared)
}

func (r sparseRun) compare(t *testing.T, dir, pursuit string) {
	g, c := strconv.FormatFloat(r.gamma, 'g', -1, 64), strconv.FormatFloat(r.c, 'g', -1, 64)
	ask := r.ask
	if ask == "" {
		ask = "auto"
	}
	var res struct {
		NBasis       int     `json:"n_basis"`
		TestError    float64 `json:"test_error"`
		TrainSeconds float64 `json:"train_seconds"`
		Storage      struct {
			Kind string `json:"kind"`
		} `json:"storage"`
	}
	// Each side runs r.repeat times (at least once), alternated; the
	// medians are compared.
	var lTrain, lWhole, lCPU, lTrainCPU, lRSS, pTrain, pWhole, pCPU, pRSS []float64
	var lAcc float64
	var lSV int
	for range max(r.repeat, 1) {
		// LIBSVM: train, then predict, one process each.
		lt := runProc(t, dir, "svm-train", "-q", "-t", "2", "-g", g, "-c", c, r.train, r.name+".libsvm.model")
		lp := runProc(t, dir, "svm-predict", r.test, r.name+".libsvm.model", r.name+".libsvm.pred")
		m := accuracyRE.FindSubmatch(lp.stdout)
		if m == nil {
			t.Fatalf("svm-predict said %q", lp.stdout)
		}
		lAcc, _ = strconv.ParseFloat(string(m[1]), 64)
		lSV = libsvmTotalSV(t, filepath.Join(dir, r.name+".libsvm.model"))
		// pursuit: load, train and predict the test file in one process.
		pt := runProc(t, dir, pursuit, "train", "--data", r.train, "--test", r.test, "--algo", "svm", "--kernel", "rbf",
			"--gamma", g, "--c", c, "--scale", "none", "--threads", "1", "--storage", ask, "--json", "--quiet")
		if err := json.Unmarshal(pt.stdout, &res); err != nil {
			t.Fatalf("pursuit train --json: %v\n%s", err, pt.stdout)
		}
		lTrain, lWhole = append(lTrain, lt.wall.Seconds()), append(lWhole, (lt.wall+lp.wall).Seconds())
		lCPU, lTrainCPU = append(lCPU, (lt.cpu+lp.cpu).Seconds()), append(lTrainCPU, lt.cpu.Seconds())
		lRSS = append(lRSS, float64(max(lt.rssKB, lp.rssKB))/1024)
		pTrain, pWhole = append(pTrain, res.TrainSeconds), append(pWhole, pt.wall.Seconds())
		pCPU, pRSS = append(pCPU, pt.cpu.Seconds()), append(pRSS, float64(pt.rssKB)/1024)
	}
	pAcc := 100 * (1 - res.TestError)
	t.Logf("%s (γ %s, C %s, one core, pursuit storage %s; medians of %d alternated runs):", r.name, g, c, res.Storage.Kind, len(pTrain))
	t.Logf("  training      pursuit %7.2f s   svm-train %7.2f s (whole process)   ratio %.3f (target ≤ 0.3; runs %s)",
		median(pTrain), median(lTrain), median(pTrain)/median(lTrain), ratios(pTrain, lTrain))
	t.Logf("  whole process pursuit %7.2f s   svm-train+svm-predict %7.2f s         ratio %.3f (target ≤ 0.5; runs %s)",
		median(pWhole), median(lWhole), median(pWhole)/median(lWhole), ratios(pWhole, lWhole))
	t.Logf("  CPU time      pursuit %7.2f s   svm-train+svm-predict %7.2f s         ratio %.3f (svm-train alone %.2f s)",
		median(pCPU), median(lCPU), median(pCPU)/median(lCPU), median(lTrainCPU))
	t.Logf("  support vecs  pursuit %7d     svm-train %7d                      diff %+.2f%% (target ±0.5%%)",
		res.NBasis, lSV, 100*float64(res.NBasis-lSV)/float64(lSV))
	t.Logf("  accuracy      pursuit %7.3f%%  svm-predict %7.3f%%                 diff %+.3f points (target ±0.1)",
		pAcc, lAcc, pAcc-lAcc)
	t.Logf("  peak RSS      pursuit %7.1f MB  svm-train/predict %7.1f MB          ratio %.3f (target ≤ 1.5; runs %s)",
		median(pRSS), median(lRSS), median(pRSS)/median(lRSS), ratios(pRSS, lRSS))
	if d := float64(res.NBasis-lSV) / float64(lSV); d > 0.005 || d < -0.005 {
		t.Errorf("%s: %d support vectors, svm-train %d", r.name, res.NBasis, lSV)
	}
	if d := pAcc - lAcc; d > 0.1 || d < -0.1 {
		t.Errorf("%s: accuracy %.3f%%, svm-predict %.3f%%", r.name, pAcc, lAcc)
	}
	if res.Storage.Kind != r.storage {
		t.Errorf("%s: pursuit held the data %s, want %s", r.name, res.Storage.Kind, r.storage)
	}
}

// splitMushrooms writes mushrooms as LIBSVM text in dir: every fourth row
// to the test file, the rest to the training file.
func splitMushrooms(t *testing.T, dir string) (train, test string, ok bool) {
	t.Helper()
	path, err := data.SharedFile("mushrooms", "mushrooms.gz")
	if err != nil {
		t.Logf("mushrooms not available (%v): skipped", err)
		return "", "", false
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
	var tr, te bytes.Buffer
	sc := bufio.NewScanner(zr)
	for i := 0; sc.Scan(); i++ {
		w := &tr
		if i%4 == 3 {
			w = &te
		}
		w.Write(sc.Bytes())
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	train, test = filepath.Join(dir, "mushrooms.train.svm"), filepath.Join(dir, "mushrooms.test.svm")
	if err := os.WriteFile(train, tr.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(test, te.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return train, test, true
}

// keepRows cuts the LIBSVM file at path to its first n rows.
func keepRows(t *testing.T, path string, n int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := 0
	for i := 0; i < n && end < len(b); i++ {
		j := bytes.IndexByte(b[end:], '\n')
		if j < 0 {
			end = len(b)
			break
		}
		end += j + 1
	}
	if err := os.WriteFile(path, b[:end], 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSVMSparseVsLIBSVM(t *testing.T) {
	if os.Getenv("PURSUIT_SVM_SPARSE") != "1" {
		t.Skip("set PURSUIT_SVM_SPARSE=1 to compare the sparse SVM with svm-train (minutes)")
	}
	for _, tool := range []string{"svm-train", "svm-predict"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install libsvm-tools): %v", tool, err)
		}
	}
	dir := t.TempDir()
	pursuit := filepath.Join(dir, "pursuit")
	if out, err := exec.Command("go", "build", "-o", pursuit, "github.com/pursuit-ml/pursuit/cmd/pursuit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	runProc(t, dir, pursuit, "demo", "--sparse", "rcv1", "--out", dir)
	rcv1 := "rcv1-like"
	if v := os.Getenv("PURSUIT_SVM_SPARSE_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PURSUIT_SVM_SPARSE_ROWS=%q: want a positive row count", v)
		}
		keepRows(t, filepath.Join(dir, "rcv1-like.train.svm"), n)
		rcv1 = "rcv1-like-" + v
	}
	runs := []sparseRun{{name: rcv1, train: "rcv1-like.train.svm", test: "rcv1-like.test.svm", gamma: 1, c: 10, storage: "sparse"}}
	if tr, te, ok := splitMushrooms(t, dir); ok {
		// 112 one-hot features at density 0.19, which the issue counts as
		// sparse data: held sparse (kernel rows one at a time, by
		// columns: the rows the solver asks for only, as svm-train), and
		// as --storage auto holds them, dense (data.SparseCrossover: dense
		// kernel blocks are faster below 120 features; a tile of rows a
		// miss, twice the rows cached).
		// Each run takes about a second: five of each, alternated.
		runs = append(runs, sparseRun{name: "mushrooms", train: tr, test: te, gamma: 0.05, c: 1, storage: "sparse", ask: "sparse", repeat: 5},
			sparseRun{name: "mushrooms-auto", train: tr, test: te, gamma: 0.05, c: 1, storage: "dense", repeat: 5})
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) { r.compare(t, dir, pursuit) })
	}
	if os.Getenv("PURSUIT_SVM_SPARSE_NEWS20") != "1" {
		return
	}
	// news20 shape: train within the default memory budget.
	runProc(t, dir, pursuit, "demo", "--sparse", "news20", "--out", dir)
	pt := runProc(t, dir, pursuit, "train", "--data", "news20-like.train.svm", "--algo", "svm", "--kernel", "rbf",
		"--gamma", "1", "--c", "10", "--scale", "none", "--threads", "1", "--json", "--quiet")
	lt := runProc(t, dir, "svm-train", "-q", "-t", "2", "-g", "1", "-c", "10", "news20-like.train.svm", "news20.libsvm.model")
	t.Logf("news20-like: pursuit train %.1f s, %.1f MB peak RSS; svm-train %.1f s, %.1f MB\n%s",
		pt.wall.Seconds(), float64(pt.rssKB)/1024, lt.wall.Seconds(), float64(lt.rssKB)/1024, pt.stdout)
}

// median returns the median of v (the mean of the middle two for an even
// count).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ratios lists a[k]/b[k], run by run.
func ratios(a, b []float64) string {
	parts := make([]string, len(a))
	for k := range a {
		parts[k] = strconv.FormatFloat(a[k]/b[k], 'f', 3, 64)
	}
	return strings.Join(parts, " ")
}
