package data

import (
	"bufio"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTextLike(t *testing.T) {
	c := TextLikeConfig{Rows: 2000, Dim: 5000, NNZPerRow: 40, Seed: 3}
	ds, err := TextLike(c)
	if err != nil {
		t.Fatal(err)
	}
	if !ds.X.IsSparse() || ds.Len() != 2000 || ds.Dim() != 5000 {
		t.Fatalf("sparse=%v %d×%d", ds.X.IsSparse(), ds.Len(), ds.Dim())
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	mean := float64(ds.X.NNZ()) / 2000
	if math.Abs(mean-40)/40 > 0.05 {
		t.Errorf("%.1f non-zeros a row, want about 40", mean)
	}
	df := make([]int, 5000)
	pos := 0
	for i := range ds.Len() {
		idx, val := ds.X.SparseRow(i)
		ss := 0.0
		for k, v := range val {
			if !(v > 0) {
				t.Fatalf("row %d: weight %v, want positive", i, v)
			}
			ss += float64(v) * float64(v)
			df[idx[k]]++
		}
		if math.Abs(ss-1) > 1e-5 {
			t.Fatalf("row %d: squared norm %v, want 1", i, ss)
		}
		if ds.Y[i] == 1 {
			pos++
		}
	}
	if pos < 600 || pos > 1400 {
		t.Errorf("%d of 2000 positive", pos)
	}
	// Zipf: a few words are in most documents, most words in few.
	slices.Sort(df)
	if top, med := df[len(df)-1], df[len(df)/2]; top < 500 || med > 20 {
		t.Errorf("document frequencies: most common %d, median %d: not Zipf-like", top, med)
	}
	// Topics: the words' document frequencies differ between the classes
	// (a topic's own words), measured as the mean |share(+) − share(−)|
	// over the 200 commonest words, against a shuffle of the labels.
	sep := func(y []float64) float64 {
		cnt := map[int32][2]int{}
		for i := range ds.Len() {
			idx, _ := ds.X.SparseRow(i)
			for _, j := range idx {
				e := cnt[j]
				if y[i] > 0 {
					e[0]++
				} else {
					e[1]++
				}
				cnt[j] = e
			}
		}
		var s float64
		for _, e := range cnt {
			s += math.Abs(float64(e[0]-e[1])) / float64(e[0]+e[1]+10)
		}
		return s / float64(len(cnt))
	}
	shuf := slices.Clone(ds.Y)
	for i := range shuf {
		shuf[i] = ds.Y[(i*7919)%len(shuf)]
	}
	if a, b := sep(ds.Y), sep(shuf); a < 1.5*b {
		t.Errorf("class separation of word use %.3f, shuffled labels %.3f: the topics do not show", a, b)
	}
	again, _ := TextLike(c)
	sameData(t, again, ds)
	c.Seed = 4
	other, _ := TextLike(c)
	if slices.Equal(other.X.Sparse.Indices[:50], ds.X.Sparse.Indices[:50]) {
		t.Error("another seed gives the same words")
	}
	for _, bad := range []TextLikeConfig{{Rows: 0, Dim: 10, NNZPerRow: 1}, {Rows: 5, Dim: 10, NNZPerRow: 5}, {Rows: 5, Dim: 100, NNZPerRow: 2, Topics: 1}} {
		if _, err := TextLike(bad); err == nil {
			t.Errorf("TextLike(%+v): no error", bad)
		}
	}
	if s, err := TextLikeShape("news20"); err != nil || s.Dim != 1355191 {
		t.Errorf("news20 shape: %+v %v", s, err)
	}
	if _, err := TextLikeShape("rcv2"); err == nil {
		t.Error("unknown shape: no error")
	}
}

// TestTextLikeFileLoads writes a small text-like set and loads it back,
// sparse (auto) and dense, equal to the generated rows.
func TestTextLikeFileLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "text.svm.gz")
	ds, err := WriteTextLike(path, TextLikeConfig{Rows: 300, Dim: 3000, NNZPerRow: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	auto, err := Load(path, WithStorage(StorageAuto), WithDim(3000))
	if err != nil || !auto.X.IsSparse() {
		t.Fatalf("auto: %v", err)
	}
	sameData(t, auto, ds)
	dense, err := Load(path, WithStorage(StorageDense), WithDim(3000))
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, dense, ds)
}

// TestLoadTextLikeRSS writes a text-like file and loads it (StorageAuto) in
// a child process, reading the child's peak RSS (VmHWM). By default the
// file is rcv1-shaped; PURSUIT_NEWS20=1 makes it news20-shaped (9.1 M
// non-zeros, a 170 MB file), whose load must peak below 250 MB.
// PURSUIT_RSS_DENSE=1 loads the rcv1-shaped file dense too (3.8 GB).
func TestLoadTextLikeRSS(t *testing.T) {
	if p := os.Getenv("PURSUIT_RSS_LOAD"); p != "" {
		return // the child: TestRSSChild does the work
	}
	if testing.Short() {
		t.Skip("writes a large file; skipped under -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	c, limit := RCV1Shape, int64(0)
	if os.Getenv("PURSUIT_NEWS20") != "" {
		c, limit = News20Shape, 250<<20
	}
	path := filepath.Join(t.TempDir(), "text.svm")
	t0 := time.Now()
	ds, err := WriteTextLike(path, c)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	t.Logf("generated and wrote %s (%d non-zeros, %.1f MB file) in %v", ds.Name, ds.X.NNZ(), float64(st.Size())/1e6, time.Since(t0).Round(time.Millisecond))
	csr := ds.X.Bytes()
	ds = nil
	for _, storage := range []Storage{StorageAuto, StorageDense} {
		if storage == StorageDense && (limit > 0 || os.Getenv("PURSUIT_RSS_DENSE") == "") {
			continue // news20: 108 GB; rcv1: 3.8 GB, only when asked for
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestRSSChild$", "-test.v")
		cmd.Env = append(os.Environ(), "PURSUIT_RSS_LOAD="+path, "PURSUIT_RSS_STORAGE="+string(storage))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		var hwm int64
		var secs float64
		var sparse string
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "RSS" {
				hwm, _ = strconv.ParseInt(f[1], 10, 64)
				secs, _ = strconv.ParseFloat(f[2], 64)
				sparse = f[3]
			}
		}
		if hwm == 0 {
			t.Fatalf("child printed no RSS line:\n%s", out)
		}
		t.Logf("%s storage (sparse=%s): load %.2f s, peak RSS %.1f MB (the compressed rows are %.1f MB)", storage, sparse, secs, float64(hwm)/1e6, float64(csr)/1e6)
		if storage == StorageAuto && sparse != "true" {
			t.Errorf("auto storage of a text-like file is not sparse")
		}
		if limit > 0 && hwm > limit {
			t.Errorf("loading the news20-shaped file peaked at %d B RSS, over %d", hwm, limit)
		}
	}
}

// TestRSSChild is TestLoadTextLikeRSS's child process: it loads
// $PURSUIT_RSS_LOAD and prints "RSS <VmHWM bytes> <seconds> <sparse>".
func TestRSSChild(t *testing.T) {
	path := os.Getenv("PURSUIT_RSS_LOAD")
	if path == "" {
		t.Skip("the child process of TestLoadTextLikeRSS")
	}
	t0 := time.Now()
	ds, err := Load(path, WithStorage(Storage(os.Getenv("PURSUIT_RSS_STORAGE"))))
	if err != nil {
		t.Fatal(err)
	}
	secs := time.Since(t0).Seconds()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			t.Logf("loaded %d×%d", ds.Len(), ds.Dim())
			os.Stdout.WriteString("RSS " + strconv.FormatInt(kb*1024, 10) + " " + strconv.FormatFloat(secs, 'f', 3, 64) + " " + strconv.FormatBool(ds.X.IsSparse()) + "\n")
			return
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
}

// BenchmarkLoadStorage loads mushrooms and an rcv1-shaped text-like file
// dense and sparse.
func BenchmarkLoadStorage(b *testing.B) {
	files := map[string]string{}
	if p, err := SharedFile("mushrooms", "mushrooms.gz"); err == nil {
		files["mushrooms"] = p
	}
	if !testing.Short() {
		p := filepath.Join(b.TempDir(), "rcv1-like.svm")
		if _, err := WriteTextLike(p, RCV1Shape); err != nil {
			b.Fatal(err)
		}
		files["rcv1-like"] = p
	}
	for _, name := range []string{"mushrooms", "rcv1-like"} {
		p, ok := files[name]
		if !ok {
			continue
		}
		for _, st := range []Storage{StorageDense, StorageSparse} {
			b.Run(name+"/"+string(st), func(b *testing.B) {
				for range b.N {
					ds, err := Load(p, WithStorage(st))
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(ds.Bytes()), "data-bytes")
				}
			})
		}
	}
}
