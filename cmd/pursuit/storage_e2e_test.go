package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestStorageFlag: --storage and the sparse default scaling through the
// CLI. An algorithm in sparseAlgos (kmp) trains on sparse rows with maxabs
// scaling; so does slmc, the last to join it: every algorithm takes
// sparse rows now, and none gets its data densified; info --data
// reports the storage auto chooses; dense storage over the budget says to
// use sparse storage; bad indices are one line naming file and line.
func TestStorageFlag(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.svm")
	if _, err := data.WriteTextLike(text, data.TextLikeConfig{Rows: 400, Dim: 4000, NNZPerRow: 15, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, dir, "train", "--data", text, "--algo", "kmp", "--basis", "3", "--storage", "sparse", "--json", "--quiet")
	var sp resultJSON
	if err := json.Unmarshal([]byte(r.stdout), &sp); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if st := sp.Storage; st == nil || st.Kind != "sparse" || sp.Scale != "maxabs" || r.stderr != "" {
		t.Errorf("kmp on sparse rows: storage %+v, scale %q, stderr %q", sp.Storage, sp.Scale, r.stderr)
	}
	r = mustRun(t, dir, "train", "--data", text, "--algo", "slmc", "--nz", "3", "--storage", "sparse", "--json", "--quiet")
	var out resultJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if st := out.Storage; st == nil || st.Kind != "sparse" || out.Scale != "maxabs" || r.stderr != "" {
		t.Errorf("slmc on sparse rows: storage %+v, scale %q, stderr %q", out.Storage, out.Scale, r.stderr)
	}
	for _, a := range learn.Algorithms() {
		if !a.Sparse {
			t.Errorf("--algo %s does not take sparse rows", a.Name)
		}
	}
	// info --data: auto chooses sparse rows and maxabs scaling.
	r = mustRun(t, dir, "info", "--data", text, "--json")
	var info learn.DataInfo
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if info.Storage.Kind != "sparse" || info.Scale != "maxabs" || info.Examples != 400 || !strings.Contains(info.Storage.Reason, "below 0.18") || info.Storage.Bytes >= info.DenseBytes {
		t.Errorf("info --data: %+v %+v", info, info.Storage)
	}
	// The same data held dense keep the default scaling of sparse data:
	// the storage changes speed and memory, not the model.
	r = mustRun(t, dir, "info", "--data", text, "--storage", "dense")
	if !strings.Contains(r.stdout, "storage:   dense (--storage dense)") || !strings.Contains(r.stdout, "--scale auto fits maxabs") {
		t.Errorf("info --data --storage dense:\n%s", r.stdout)
	}
	// Help texts show the sparse default.
	h := mustRun(t, dir, "train", "--help")
	for _, want := range []string{"--storage", "maxabs for sparse data"} {
		if !strings.Contains(h.stdout, want) {
			t.Errorf("train --help lacks %q", want)
		}
	}
	// Dense storage over the budget says to use sparse storage.
	wide := filepath.Join(dir, "wide.svm")
	os.WriteFile(wide, []byte("1 1:1\n-1 3000000:1\n1 2:1\n"), 0o644)
	wantFail(t, dir, []string{"wide.svm", "--mem-budget", "use sparse storage", "--storage sparse"},
		"train", "--data", wide, "--algo", "kmp", "--storage", "dense", "--mem-budget", "16MiB", "--quiet")
	// Bad indices: one line naming the file and line.
	for name, body := range map[string]string{
		"dup.svm":    "1 1:1\n-1 2:1 2:1\n",
		"order.svm":  "1 1:1\n-1 3:1 2:1\n",
		"zero.svm":   "1 1:1\n-1 0:1\n",
		"big.svm":    "1 1:1\n-1 2147483648:1\n",
		"bigdn.svm":  "1 1:1\n-1 16777217:1\n",
		"badst.svm":  "1 1:1\n-1 2:1\n",
		"scale.svm":  "1 1:1\n-1 2:1\n",
		"nolabel.sv": "1:1\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		switch name {
		case "badst.svm":
			wantFail(t, dir, []string{"--storage", "want auto, dense or sparse"}, "train", "--data", p, "--storage", "csr", "--quiet")
		case "scale.svm":
			wantFail(t, dir, []string{"--scale", "maxabs"}, "train", "--data", p, "--scale", "l2", "--quiet")
		case "nolabel.sv":
			wantFail(t, dir, []string{name + ":1"}, "info", "--data", p)
		default:
			wantFail(t, dir, []string{name + ":2"}, "train", "--data", p, "--algo", "kmp", "--basis", "1", "--storage", "dense", "--quiet")
			if name != "bigdn.svm" { // sparse rows take indices up to 2³¹−1
				wantFail(t, dir, []string{name + ":2"}, "info", "--data", p, "--storage", "sparse")
			}
		}
	}
}

// TestDemoSparse writes the rcv1-shaped text-like set with demo --sparse
// and reads it back sparse.
func TestDemoSparse(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 30 MB data set")
	}
	dir := t.TempDir()
	r := mustRun(t, dir, "demo", "--sparse", "rcv1", "--out", dir)
	if !strings.Contains(r.stdout, "rcv1-like.train.svm: 20242 examples, 47236 features") {
		t.Errorf("demo --sparse rcv1:\n%s", r.stdout)
	}
	ds, err := data.Load(filepath.Join(dir, "rcv1-like.test.svm"), data.WithStorage(data.StorageAuto), data.WithDim(47236))
	if err != nil || !ds.X.IsSparse() || ds.Len() != 5060 {
		t.Fatalf("test file: %v", err)
	}
	wantFail(t, dir, []string{"--sparse", "want rcv1 or news20"}, "demo", "--sparse", "rcv2", "--out", dir)
}
