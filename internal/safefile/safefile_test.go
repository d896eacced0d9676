//go:build unix

package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// None of these tests is parallel: TestUmask changes the process's umask.

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFiles fails the test unless dir holds exactly the names given.
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.txt")
	big := strings.Repeat("0123456789abcdef", 100000) // past any buffer
	if err := WriteFile(path, 0o666, writeString(big)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != big {
		t.Errorf("read back %d bytes, wrote %d", len(got), len(big))
	}
	onlyFiles(t, dir, "new.txt")
}

func TestUmask(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	for _, c := range []struct {
		umask int
		perm  fs.FileMode
		want  fs.FileMode
	}{
		{0o027, 0o666, 0o640},
		{0o022, 0o666, 0o644},
		{0o002, 0o666, 0o664},
		{0o077, 0o666, 0o600},
		{0o000, 0o640, 0o640},
	} {
		syscall.Umask(c.umask)
		path := filepath.Join(dir, fmt.Sprintf("u%03o-p%03o", c.umask, c.perm))
		if err := WriteFile(path, c.perm, writeString("x")); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, path).Perm(); got != c.want {
			t.Errorf("umask %03o, perm %03o: mode %03o, want %03o", c.umask, c.perm, got, c.want)
		}
	}
}

func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []fs.FileMode{0o640, 0o604, 0o444, 0o755} {
		path := filepath.Join(dir, fmt.Sprintf("f%03o", m))
		if err := os.WriteFile(path, []byte("old contents, longer than the new\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, m); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(path, 0o666, writeString("new\n")); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, path); got != "new\n" {
			t.Errorf("%s: %q after the replace", path, got)
		}
		if got := mode(t, path); got != m {
			t.Errorf("mode %v after the replace, want the old %v", got, m)
		}
	}
}

func TestSymlinks(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"models", "links", "real/sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// alias is a symlink to real/sub, so alias/.. is real, not dir.
	if err := os.Symlink("real/sub", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "models", "abs.model")
	cases := []struct {
		name   string
		chain  []string // what links/name, then each further hop, points to
		target string   // the file that must receive the contents
		exists bool
	}{
		{"relative", []string{"../models/rel.model"}, "models/rel.model", true},
		{"absolute", []string{abs}, "models/abs.model", true},
		{"chain", []string{"hop", "../models/chain.model"}, "models/chain.model", true},
		{"chain-abs", []string{filepath.Join(dir, "links", "hop2"), "../models/chain2.model"}, "models/chain2.model", true},
		{"dangling", []string{"../models/dangling.model"}, "models/dangling.model", false},
		{"dangling-chain", []string{"hop3", "../models/dangling2.model"}, "models/dangling2.model", false},
		{"dotdot-through-link", []string{"../alias/../t.model"}, "real/t.model", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := filepath.Join(dir, c.target)
			if c.exists {
				if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(target, 0o640); err != nil {
					t.Fatal(err)
				}
			}
			names := []string{filepath.Join(dir, "links", c.name)}
			for i := 1; i < len(c.chain); i++ {
				n := c.chain[i-1]
				if !filepath.IsAbs(n) {
					n = filepath.Join(dir, "links", n)
				}
				names = append(names, n)
			}
			for i, n := range names {
				if err := os.Symlink(c.chain[i], n); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(names[0], 0o666, writeString("new "+c.name)); err != nil {
				t.Fatal(err)
			}
			for i, n := range names {
				if dest, err := os.Readlink(n); err != nil || dest != c.chain[i] {
					t.Errorf("link %s now %q (%v), want a link to %q", n, dest, err, c.chain[i])
				}
			}
			if got := readFile(t, target); got != "new "+c.name {
				t.Errorf("target %s holds %q", c.target, got)
			}
			if c.exists {
				if got := mode(t, target).Perm(); got != 0o640 {
					t.Errorf("target mode %v, want the old 0640", got)
				}
			}
		})
	}
	onlyFiles(t, filepath.Join(dir, "models"), "abs.model", "chain.model", "chain2.model", "dangling.model", "dangling2.model", "rel.model")
	onlyFiles(t, filepath.Join(dir, "real"), "sub", "t.model")
	onlyFiles(t, dir, "alias", "links", "models", "real")
}

func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	err := WriteFile(a, 0o666, writeString("x"))
	if !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), a) {
		t.Errorf("a symlink loop gave %v, want ELOOP naming %s", err, a)
	}
	onlyFiles(t, dir, "a", "b")
}

func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	adir := filepath.Join(dir, "adir")
	os.Mkdir(adir, 0o755)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dirLink := filepath.Join(dir, "dirlink")
	os.Symlink("adir", dirLink)
	fifoLink := filepath.Join(dir, "fifolink")
	os.Symlink(fifo, fifoLink)
	for _, c := range []struct{ path, kind string }{
		{adir, "directory"},
		{adir + "/", "directory"},
		{dirLink, "directory"},
		{fifo, "named pipe"},
		{fifoLink, "named pipe"},
		{sock, "socket"},
	} {
		called := false
		err := WriteFile(c.path, 0o666, func(io.Writer) error { called = true; return nil })
		var nr *NotRegularError
		if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: got %v, want a *NotRegularError", c.path, err)
			continue
		}
		if called {
			t.Errorf("%s: the contents were produced for a target that is refused", c.path)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.path) || !strings.Contains(msg, "is a "+c.kind) || strings.Contains(msg, "\n") {
			t.Errorf("%s: message %q does not say what and why on one line", c.path, msg)
		}
	}
	if m := mode(t, fifo); m&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO became %v", m)
	}
	if m := mode(t, dirLink); m&fs.ModeSymlink == 0 {
		t.Errorf("the link to a directory became %v", m)
	}
	onlyFiles(t, dir, "adir", "dirlink", "fifo", "fifolink", "sock")
	onlyFiles(t, adir)
}

// nullCopy makes a character device node in dir with /dev/null's device
// number, or returns /dev/null itself where the test cannot make nodes and
// cannot write /dev either (so a wrong WriteFile could not replace it).
func nullCopy(t *testing.T, dir string) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat("/dev/null", &st); err != nil {
		t.Skipf("no /dev/null: %v", err)
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(st.Rdev)); err != nil {
		if os.Geteuid() == 0 {
			t.Skipf("cannot make a device node (%v); not testing on /dev/null as root", err)
		}
		return "/dev/null"
	}
	return null
}

func TestCharDeviceWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	null := nullCopy(t, dir)
	link := filepath.Join(dir, "link")
	os.Symlink(null, link)
	for _, p := range []string{null, link} {
		n := 0
		err := WriteFile(p, 0o666, func(w io.Writer) error {
			for range 1000 {
				k, err := io.WriteString(w, "a line of output\n")
				n += k
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || n != 17000 {
			t.Errorf("%s: %v after %d bytes", p, err, n)
		}
	}
	if m := mode(t, null); m&fs.ModeCharDevice == 0 {
		t.Errorf("%s became %v", null, m)
	}
	if null != "/dev/null" {
		onlyFiles(t, dir, "link", "null")
	}
}

func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.txt")
	old := "the old predictions\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left (injected)")
	// The writer gets half way through, past the buffer, then fails.
	failing := func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("1\n"), 100000)); err != nil {
			return err
		}
		return full
	}
	if err := WriteFile(path, 0o666, failing); !errors.Is(err, full) {
		t.Errorf("got %v, want the writer's error", err)
	}
	if got := readFile(t, path); got != old {
		t.Errorf("the old file now holds %.40q", got)
	}
	// A new file is not created at all.
	if err := WriteFile(filepath.Join(dir, "new.txt"), 0o666, failing); !errors.Is(err, full) {
		t.Errorf("got %v, want the writer's error", err)
	}
	// A panicking writer leaves no temporary file either.
	func() {
		defer func() { recover() }()
		WriteFile(path, 0o666, func(w io.Writer) error {
			io.WriteString(w, "partial")
			panic("writer bug")
		})
	}()
	if got := readFile(t, path); got != old {
		t.Errorf("the old file now holds %.40q", got)
	}
	onlyFiles(t, dir, "p.txt")
}

// TestFileSizeLimit makes the temporary file's writes fail for real, with
// a file-size limit (EFBIG, as a full disk gives ENOSPC): the error names
// the target, not the temporary file, and the old file is intact.
func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.model")
	os.WriteFile(path, []byte("old model"), 0o644)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = 4096
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	err := WriteFile(path, 0o666, writeString(strings.Repeat("0123456789\n", 100000)))
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if !errors.Is(err, syscall.EFBIG) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("got %v, want EFBIG naming %s", err, path)
	}
	if got := readFile(t, path); got != "old model" {
		t.Errorf("old file now %.40q", got)
	}
	onlyFiles(t, dir, "m.model")
}

func TestMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "no", "such", "m.model")
	err := WriteFile(path, 0o666, writeString("x"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("got %v, want a not-exist error naming %s and its directory", err, path)
	}
	if strings.Contains(err.Error(), ".tmp") {
		t.Errorf("the error names the temporary file: %v", err)
	}
}

func TestReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes any directory")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	path := filepath.Join(ro, "m.model")
	os.WriteFile(path, []byte("old"), 0o644)
	os.Chmod(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	err := WriteFile(path, 0o666, writeString("x"))
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v, want a permission error naming %s", err, path)
	}
}

func TestLongName(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 255) // the longest name most file systems take
	path := filepath.Join(dir, name)
	if err := WriteFile(path, 0o666, writeString("x")); err != nil {
		t.Fatal(err)
	}
	onlyFiles(t, dir, name)
}

// TestConcurrentWriters checks two writers racing on one path leave one
// complete file, never a mixture.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	a, b := strings.Repeat("a", 300000), strings.Repeat("b", 300000)
	for range 10 {
		var wg sync.WaitGroup
		for _, s := range []string{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := WriteFile(path, 0o666, writeString(s)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if got := readFile(t, path); got != a && got != b {
			t.Fatalf("the file is a mixture of %d bytes", len(got))
		}
	}
	onlyFiles(t, dir, "f")
}

// TestOpenPipeWrittenThrough writes to a pipe the process holds open, by
// /dev/fd/N and /proc/self/fd/N (as /dev/stdout is when output is piped).
func TestOpenPipeWrittenThrough(t *testing.T) {
	for _, dir := range []string{"/dev/fd", "/proc/self/fd"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("%s/%d", dir, w.Fd())
		if _, err := os.Stat(path); err != nil {
			t.Logf("no %s: %v", path, err)
			r.Close()
			w.Close()
			continue
		}
		got := make(chan string)
		go func() {
			b, _ := io.ReadAll(r)
			got <- string(b)
		}()
		err = WriteFile(path, 0o666, writeString("through the pipe\n"))
		w.Close()
		if s := <-got; err != nil || s != "through the pipe\n" {
			t.Errorf("%s: %v, the reader got %q", path, err, s)
		}
		r.Close()
	}
}
