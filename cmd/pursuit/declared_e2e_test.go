package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/internal/modelfile"
	"github.com/pursuit-ml/pursuit/learn"
)

// The model files a user is handed are untrusted input (issue 36). Each
// file below declares a size far beyond what it holds, with every checksum
// valid. `pursuit predict` must refuse each with exit status 2 and one line
// naming the field, the value and the file, in well under a second of CPU
// time and under 50 MB of peak RSS.
func TestDeclaredSizesRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from Linux's rusage")
	}
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	model := func(name string, args ...string) []byte {
		t.Helper()
		path := filepath.Join(dir, name+".model")
		mustRun(t, dir, append([]string{"train", "--data", train, "--model", path, "--quiet"}, args...)...)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	svmModel := model("svm", "--algo", "svm", "--scale", "none", "--gamma", "2")
	kmpModel := model("kmp", "--algo", "kmp", "--basis", "5", "--gamma", "2")
	slmcModel := model("slmc", "--algo", "slmc", "--nz", "3", "--gamma", "2")
	kfdaModel := model("mpkfda", "--algo", "mpkfda", "--basis", "3", "--gamma", "2")

	var wide strings.Builder
	wide.WriteString("svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 128\nrho 0\nSV\n")
	for range 128 {
		wide.WriteString("1 16777216:1\n")
	}
	labels := make([]string, 300_000)
	for i := range labels {
		labels[i] = fmt.Sprint(i)
	}
	cases := []struct {
		name string
		file []byte
		want []string // the field and its value
	}{
		{"header dim", editHeader(t, svmModel, func(h map[string]any) {
			h["dim"] = 200_000_000
			h["scaler"] = nil
		}), []string{"dim is 200000000", "2 features"}},
		{"LIBSVM labels", []byte("svm_type c_svc\nlabel " + strings.Join(labels, " ") + "\n"), []string{"label", "300000 labels"}},
		{"LIBSVM total_sv", []byte("svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1000000000000\nrho 0\nSV\n1 1:1\n"),
			[]string{"total_sv 1000000000000"}},
		{"header n_basis", editHeader(t, kmpModel, func(h map[string]any) {
			h["n_basis"] = 1_000_000_000
		}), []string{"n_basis", "1000000000"}},
		{"header payload bytes", editHeader(t, kmpModel, func(h map[string]any) {
			h["payloads"].([]any)[0].(map[string]any)["bytes"] = 1 << 40
		}), []string{"payloads[0].bytes", "1099511627776"}},
		{"frame payload length", inflateFrameLength(kmpModel), []string{"1099511627776 bytes"}},
		{"kmp support_rows", editPayload(t, kmpModel, "PURSUIT-KMP\n", "support_rows", 1_000_000), []string{"support_rows 1000000"}},
		{"slmc rows", editPayload(t, slmcModel, "PURSUIT-SLMC\n", "rows", 1_000_000), []string{"rows 1000000"}},
		{"mpkfda rows", editPayload(t, kfdaModel, "PURSUIT-MPKFDA\n", "rows", 1_000_000), []string{"rows 1000000"}},
	}
	// 128 support vectors at feature 16777216 were refused as a 8 GiB
	// dense matrix; they are 128 non-zeros, read sparse (issue 28), and
	// predict within the same CPU and memory bounds.
	widePath := filepath.Join(dir, "wide.model")
	if err := os.WriteFile(widePath, []byte(wide.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, u := runUsage(t, dir, "predict", "--model", widePath, "--data", test, "--quiet"); r.code != 0 || u.cpu > time.Second || u.maxRSS > 100e6 {
		t.Errorf("the model of 128 support vectors at feature 16777216: exit %d, %v CPU, peak RSS %.1f MB\nstderr: %s", r.code, u.cpu, float64(u.maxRSS)/1e6, r.stderr)
	}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("crafted-%d.model", i))
		if err := os.WriteFile(path, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		r, u := runUsage(t, dir, "predict", "--model", path, "--data", test)
		t.Logf("%s: %d-byte file refused in %.3f s CPU, %.3f s wall, peak RSS %.1f MB: %s",
			c.name, len(c.file), u.cpu.Seconds(), u.wall.Seconds(), float64(u.maxRSS)/1e6, strings.TrimSpace(r.stderr))
		msg := strings.TrimRight(r.stderr, "\n")
		switch {
		case r.code != exitError:
			t.Errorf("%s: exit %d, want %d\nstderr: %s", c.name, r.code, exitError, r.stderr)
		case msg == "" || strings.Contains(msg, "\n"):
			t.Errorf("%s: stderr is not one line:\n%s", c.name, r.stderr)
		case !strings.Contains(msg, path):
			t.Errorf("%s: %q does not name the file", c.name, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not contain %q", c.name, msg, w)
			}
		}
		// Refused at once: the CPU time of the whole process (start-up
		// included), not wall time, so that a busy machine does not fail
		// it; under 0.1 s where reading such a file took 14 s to minutes.
		if u.cpu > 100*time.Millisecond {
			t.Errorf("%s: refusing the file took %v of CPU time", c.name, u.cpu)
		}
		if u.maxRSS > 50e6 {
			t.Errorf("%s: peak RSS %.1f MB, over 50 MB", c.name, float64(u.maxRSS)/1e6)
		}
	}
}

// A legitimate model that needs more than --mem-budget is refused in one
// line naming the file and the size, for predict, plot and bound alike.
func TestMemBudgetOnRead(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	// An ε-SVR on sparse data: 2,000 support vectors of 10,000 features,
	// each with one non-zero, take 32 kB as sparse rows (80 MB dense) from
	// a 36 kB file: refused where the budget leaves less than that beside
	// the file's bytes (held twice while read).
	var b strings.Builder
	b.WriteString("svm_type epsilon_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2000\nrho 0\nSV\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "%g %d:1\n", float64(i%7)-3, 10000-i)
	}
	sparse := filepath.Join(dir, "sparse.model")
	if err := os.WriteFile(sparse, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	wantFail(t, dir, []string{sparse, "sparse support vectors", "--mem-budget"},
		"predict", "--model", sparse, "--data", test, "--mem-budget", "64KiB")
	// Within a budget that holds it, the same model predicts.
	mustRun(t, dir, "predict", "--model", sparse, "--data", test, "--mem-budget", "256MiB", "--quiet")

	// A model file larger than the budget is refused before it is read.
	kmpPath := filepath.Join(dir, "kmp.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--basis", "20", "--gamma", "2", "--model", kmpPath, "--quiet")
	for _, cmd := range [][]string{
		{"predict", "--model", kmpPath, "--data", test, "--mem-budget", "4KiB"},
		{"plot", "--model", kmpPath, "--data", test, "--out", dir, "--mem-budget", "4KiB"},
		{"bound", "--model", kmpPath, "--data", train, "--mem-budget", "4KiB"},
	} {
		wantFail(t, dir, []string{kmpPath, "--mem-budget", "the file is"}, cmd...)
	}
	// The data count against the same budget: a model that fits leaves
	// too little for 4,000 rows (32 kB).
	st, err := os.Stat(kmpPath)
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.test")
	writeData(t, big, twoMoons(4000, 0.15, 9))
	wantFail(t, dir, []string{big, "--mem-budget"},
		"predict", "--model", kmpPath, "--data", big, "--mem-budget", fmt.Sprint(2*st.Size()+1024))
}

type usage struct {
	cpu, wall time.Duration
	maxRSS    int64
}

// runUsage runs pursuit like runPursuit() and returns its CPU time, wall time
// and peak RSS.
func runUsage(t *testing.T, dir string, args ...string) (runResult, usage) {
	t.Helper()
	t0 := time.Now()
	r, ps := runBinary(t, dir, args...)
	wall := time.Since(t0)
	return r, usage{cpu: ps.UserTime() + ps.SystemTime(), wall: wall, maxRSS: int64(ps.SysUsage().(*syscall.Rusage).Maxrss) << 10}
}

// splitModel returns a CLI model file's version, JSON header and payloads.
func splitModel(t *testing.T, file []byte) (uint32, map[string]any, [][]byte) {
	t.Helper()
	version, body, err := modelfile.Read(bytes.NewReader(file), learn.ModelMagic, nil)
	if err != nil {
		t.Fatal(err)
	}
	nl := bytes.IndexByte(body, '\n')
	var h map[string]any
	d := json.NewDecoder(bytes.NewReader(body[:nl]))
	d.UseNumber()
	if err := d.Decode(&h); err != nil {
		t.Fatal(err)
	}
	rest := body[nl+1:]
	var pays [][]byte
	for _, p := range h["payloads"].([]any) {
		n, err := p.(map[string]any)["bytes"].(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		pays = append(pays, rest[:n])
		rest = rest[n:]
	}
	return version, h, pays
}

// joinModel frames a header and payloads as a CLI model file with valid
// checksums; the payload sizes are the header's own (an edit may have
// changed them).
func joinModel(t *testing.T, version uint32, h map[string]any, pays [][]byte) []byte {
	t.Helper()
	hdr, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	body := append(append(hdr, '\n'), bytes.Join(pays, nil)...)
	var b bytes.Buffer
	if err := modelfile.Write(&b, learn.ModelMagic, version, body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// editHeader changes a CLI model file's header and frames it again.
func editHeader(t *testing.T, file []byte, edit func(map[string]any)) []byte {
	t.Helper()
	v, h, pays := splitModel(t, file)
	edit(h)
	return joinModel(t, v, h, pays)
}

// editPayload sets a number in the JSON of the first payload (a frame with
// magic) and frames the payload and the file again.
func editPayload(t *testing.T, file []byte, magic, field string, value int) []byte {
	t.Helper()
	v, h, pays := splitModel(t, file)
	pv, js, err := modelfile.Read(bytes.NewReader(pays[0]), magic, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if _, ok := p[field]; !ok {
		t.Fatalf("the %q payload has no field %q", magic, field)
	}
	p[field] = value
	js, err = json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := modelfile.Write(&b, magic, pv, js); err != nil {
		t.Fatal(err)
	}
	pays[0] = b.Bytes()
	h["payloads"].([]any)[0].(map[string]any)["bytes"] = b.Len()
	return joinModel(t, v, h, pays)
}

// inflateFrameLength sets the frame's payload length to 1 TiB (the most
// modelfile.Read considers), leaving the rest of the file as it is.
func inflateFrameLength(file []byte) []byte {
	out := bytes.Clone(file)
	off := len(learn.ModelMagic) + 4
	for i := range 8 {
		out[off+i] = byte(uint64(modelfile.MaxPayload) >> (8 * i))
	}
	return out
}
