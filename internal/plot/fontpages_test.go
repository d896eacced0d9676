package plot

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// rssFile returns the process's resident pages of files, from
// /proc/self/status, in bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseFontPages checks that the font files' pages leave the
// process's resident set, that their bytes read the same afterwards, and
// that a plot drawn after the release is the same file as one drawn before.
func TestReleaseFontPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		if n := ReleaseFontPages(); n != 0 {
			t.Fatalf("ReleaseFontPages = %d on %s, want 0", n, runtime.GOOS)
		}
		t.Skip("the pages are released on Linux only")
	}
	dir := t.TempDir()
	draw := func(name string) []byte {
		var x, y []float64
		for n := 1; n <= 30; n++ {
			x, y = append(x, float64(n)), append(y, 0.4*math.Exp(-float64(n)/8))
		}
		path := filepath.Join(dir, name)
		if err := LearningCurve(path, "Curve — ÿ", "basis functions", "error", []Series{{Name: "train", X: x, Y: y}}, 12, ""); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := draw("before.png")
	var total int
	sums := map[int]uint32{}
	for i, b := range fontFiles() {
		total += len(b)
		sums[i] = crc32.ChecksumIEEE(b) // every page of the files resident
	}
	rss0 := rssFile(t)
	n := ReleaseFontPages()
	rss1 := rssFile(t)
	t.Logf("font files %d bytes, %d released; resident file pages %d → %d bytes", total, n, rss0, rss1)
	// Every file but its two partial end pages.
	if min := int64(total - 2*len(fontFiles())*os.Getpagesize()); n < min {
		t.Fatalf("released %d bytes of the %d of the font files, want at least %d", n, total, min)
	}
	if rss0-rss1 < n/2 {
		t.Errorf("resident file pages went from %d to %d bytes after releasing %d", rss0, rss1, n)
	}
	for i, b := range fontFiles() {
		if got := crc32.ChecksumIEEE(b); got != sums[i] {
			t.Fatalf("font file %d reads %08x after the release, %08x before", i, got, sums[i])
		}
	}
	if after := draw("after.png"); !bytes.Equal(before, after) {
		t.Errorf("the plot drawn after the release differs from the one before (%d and %d bytes)", len(after), len(before))
	}
	// A plot drawn with the pages gone (not read back by the checksums).
	ReleaseFontPages()
	if again := draw("again.png"); !bytes.Equal(before, again) {
		t.Errorf("the plot drawn straight after a release differs from the one before (%d and %d bytes)", len(again), len(before))
	}
}
