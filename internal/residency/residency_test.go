package residency

import (
	"bufio"
	_ "embed"
	"hash/crc32"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// status returns the field (RssFile, RssAnon) of /proc/self/status in bytes.
func status(t *testing.T, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

func TestReleaseProgram(t *testing.T) {
	if runtime.GOOS != "linux" {
		if ReleaseProgram() != 0 {
			t.Fatal("ReleaseProgram released pages on a system without the call")
		}
		t.Skip("Linux only")
	}
	before := status(t, "RssFile")
	n := ReleaseProgram()
	after := status(t, "RssFile")
	t.Logf("advised %d bytes; resident file pages %d → %d bytes", n, before, after)
	if n <= 0 {
		t.Fatalf("ReleaseProgram advised %d bytes", n)
	}
	if after >= before {
		t.Errorf("resident file pages went from %d to %d bytes", before, after)
	}
}

// embedded stands for data embedded in the program, as the plotting
// library's fonts are: a //go:embed []byte variable's bytes lie in the
// program's writable data, a private mapping of the program file.
//
//go:embed testdata/embedded.txt
var embedded []byte

func TestReleaseFileData(t *testing.T) {
	if runtime.GOOS != "linux" {
		if ReleaseFileData(embedded) != 0 {
			t.Fatal("ReleaseFileData released pages on a system without the call")
		}
		t.Skip("Linux only")
	}
	want := crc32.ChecksumIEEE(embedded)
	// A heap slice is anonymous memory: MADV_DONTNEED would zero it, so it
	// must be left alone.
	heap := []byte(strings.Repeat("x", 1<<16))
	if n := ReleaseFileData(heap); n != 0 {
		t.Fatalf("ReleaseFileData advised %d bytes of an anonymous (heap) slice", n)
	}
	if strings.Count(string(heap), "x") != len(heap) {
		t.Fatal("the heap slice changed")
	}
	n := ReleaseFileData(embedded)
	page := os.Getpagesize()
	t.Logf("advised %d of %d bytes", n, len(embedded))
	if n < int64(len(embedded)-2*page) || n > int64(len(embedded)) {
		t.Errorf("advised %d bytes of a %d-byte slice (pages of %d)", n, len(embedded), page)
	}
	if got := crc32.ChecksumIEEE(embedded); got != want {
		t.Fatalf("the data read %08x after the release, %08x before", got, want)
	}
}
