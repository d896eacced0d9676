//go:build unix

package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

// The tests in this file check how the CLI writes its files (issue 16,
// defects 1 and 3): models, predictions, demo data and plots replace their
// target atomically, follow symlinks to it, keep an existing file's mode,
// give new files 0666 less the umask, refuse directories and pipes, write
// through character devices, and leave the old file whole when a write
// fails.

// pursuitLimited runs the built binary through sh with umask (when not
// empty) and a file-size limit of fsizeBlocks 512-byte blocks (when
// positive): writing past the limit fails with EFBIG as a full disk fails
// with ENOSPC.
func pursuitLimited(t *testing.T, dir, umask string, fsizeBlocks int, args ...string) runResult {
	t.Helper()
	script := ""
	if umask != "" {
		script += "umask " + umask + "; "
	}
	if fsizeBlocks > 0 {
		script += "ulimit -f " + strconv.Itoa(fsizeBlocks) + "; "
	}
	script += `exec "$0" "$@"`
	cmd := exec.Command("sh", append([]string{"-c", script, pursuitBin}, args...)...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("running pursuit %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return runResult{so.String(), se.String(), code}
}

// noTempFiles fails the test if dir holds anything but the names in keep.
func noTempFiles(t *testing.T, dir string, keep ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		found := false
		for _, k := range keep {
			found = found || e.Name() == k
		}
		if !found {
			t.Errorf("%s: unexpected file %s left behind", dir, e.Name())
		}
	}
}

func isModelFile(t *testing.T, path string) bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.HasPrefix(raw, []byte(learn.ModelMagic)) || bytes.HasPrefix(raw, []byte(learn.ModelMagicV1))
}

// TestModelSaveFollowsSymlinks saves models through relative, absolute,
// chained and dangling symlinks: the link stays a link and its target is
// what gets the model, with its mode kept.
func TestModelSaveFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	models := filepath.Join(dir, "models")
	links := filepath.Join(dir, "links")
	for _, d := range []string{models, links} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		target string   // the regular file the model must land in
		chain  []string // link name -> what it points to, first is --model
		exists bool     // whether target exists before the save
	}{
		{"relative", "v1.model", []string{"../models/v1.model"}, true},
		{"absolute", "v2.model", []string{filepath.Join(models, "v2.model")}, true},
		{"chain", "v3.model", []string{"hop3", filepath.Join(models, "v3.model")}, true},
		{"dangling", "v4.model", []string{"../models/v4.model"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := filepath.Join(models, c.target)
			if c.exists {
				if err := os.WriteFile(target, []byte("old model\n"), 0o640); err != nil {
					t.Fatal(err)
				}
				os.Chmod(target, 0o640) // whatever the test's umask
			}
			link := filepath.Join(links, c.name+".model")
			// The chain: link -> chain[0] (relative to links) -> chain[1] ...
			names := []string{link}
			for i := 0; i < len(c.chain)-1; i++ {
				names = append(names, filepath.Join(links, c.chain[i]))
			}
			for i, n := range names {
				if err := os.Symlink(c.chain[i], n); err != nil {
					t.Fatal(err)
				}
			}
			mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "2", "--model", link, "--quiet")
			for i, n := range names {
				fi, err := os.Lstat(n)
				if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Fatalf("%s is no longer a symlink (%v, %v)", n, fi.Mode(), err)
				}
				if dest, _ := os.Readlink(n); dest != c.chain[i] {
					t.Errorf("%s now points to %q, want %q", n, dest, c.chain[i])
				}
			}
			if !isModelFile(t, target) {
				t.Errorf("the link's target %s did not receive the model", target)
			}
			if c.exists {
				if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
					t.Errorf("%s: mode %v, want the old file's 0640", target, fi.Mode().Perm())
				}
			}
			// The model is read back through the link.
			mustRun(t, dir, "predict", "--model", link, "--data", train)
		})
	}
	keep := []string{"relative.model", "absolute.model", "chain.model", "dangling.model", "hop3"}
	noTempFiles(t, links, keep...)
	noTempFiles(t, models, "v1.model", "v2.model", "v3.model", "v4.model")
}

// TestModelSaveRefusesNonRegular checks a directory, a symlink to one and a
// FIFO named by --model are refused with one line, and left as they were.
func TestModelSaveRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	adir := filepath.Join(dir, "adir")
	if err := os.Mkdir(adir, 0o755); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(dir, "dirlink")
	if err := os.Symlink("adir", dirLink); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"train", "--data", train, "--algo", "svm", "--gamma", "2", "--quiet", "--model"}
	wantFail(t, dir, []string{"adir", "is a directory"}, append(args, adir)...)
	wantFail(t, dir, []string{"dirlink", "is a directory"}, append(args, dirLink)...)
	wantFail(t, dir, []string{"fifo", "named pipe"}, append(args, fifo)...)
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Lstat(dirLink); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link to a directory was replaced: %v %v", fi.Mode(), err)
	}
	noTempFiles(t, adir)
	noTempFiles(t, dir, "moons.train", "moons.test", "adir", "dirlink", "fifo")
}

// TestModelSaveToCharDevice writes a model through a character device (a
// copy of /dev/null's node where the test may make one, else /dev/null
// itself when the test cannot write /dev): the node stays a device.
func TestModelSaveToCharDevice(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	null := filepath.Join(dir, "null")
	var st syscall.Stat_t
	if err := syscall.Stat("/dev/null", &st); err != nil {
		t.Skipf("no /dev/null: %v", err)
	}
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(st.Rdev)); err != nil {
		if os.Geteuid() == 0 {
			// Root could replace the real /dev/null if the save were wrong.
			t.Skipf("cannot make a device node (%v); not testing on /dev/null as root", err)
		}
		null = "/dev/null"
	}
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "2", "--quiet", "--model", null)
	fi, err := os.Lstat(null)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", null, fi.Mode(), err)
	}
	if null != "/dev/null" {
		noTempFiles(t, dir, "moons.train", "moons.test", "null")
	}
	// --out through the device too.
	model := filepath.Join(dir, "m.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "2", "--quiet", "--model", model)
	mustRun(t, dir, "predict", "--model", model, "--data", train, "--out", null)
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("--out replaced %s: %v %v", null, fi.Mode(), err)
	}
}

// TestWrittenFileModes checks new models and predictions get 0666 less the
// umask, and an existing file keeps its mode.
func TestWrittenFileModes(t *testing.T) {
	dir := t.TempDir()
	train, _ := moonsFiles(t, dir)
	for _, c := range []struct {
		umask string
		want  fs.FileMode
	}{{"027", 0o640}, {"002", 0o664}, {"077", 0o600}} {
		model := filepath.Join(dir, "new-"+c.umask+".model")
		pred := filepath.Join(dir, "new-"+c.umask+".pred")
		r := pursuitLimited(t, dir, c.umask, 0, "train", "--data", train, "--algo", "svm", "--gamma", "2", "--quiet", "--model", model)
		if r.code != 0 {
			t.Fatalf("train: exit %d: %s", r.code, r.stderr)
		}
		r = pursuitLimited(t, dir, c.umask, 0, "predict", "--model", model, "--data", train, "--out", pred)
		if r.code != 0 {
			t.Fatalf("predict: exit %d: %s", r.code, r.stderr)
		}
		for _, p := range []string{model, pred} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != c.want {
				t.Errorf("umask %s: %s has mode %v, want %v (%v)", c.umask, filepath.Base(p), fi.Mode().Perm(), c.want, err)
			}
		}
	}
	// An existing file keeps a mode no umask would give.
	model := filepath.Join(dir, "old.model")
	pred := filepath.Join(dir, "old.pred")
	for _, p := range []string{model, pred} {
		if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o604); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "2", "--quiet", "--model", model)
	mustRun(t, dir, "predict", "--model", model, "--data", train, "--out", pred)
	for _, p := range []string{model, pred} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o604 {
			t.Errorf("%s: mode %v after the save, want the old 0604 (%v)", filepath.Base(p), fi.Mode().Perm(), err)
		}
	}
}

// TestPredictOutStdout checks `--out -` writes the predictions to standard
// output (one label per line, the summary on stderr) and creates no file,
// and --out /dev/stdout (a pipe here) writes through the pipe.
func TestPredictOutStdout(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	model := filepath.Join(dir, "m.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "2", "--quiet", "--model", model)
	file := filepath.Join(dir, "p.txt")
	mustRun(t, dir, "predict", "--model", model, "--data", test, "--out", file, "--decision")
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, dir, "predict", "--model", model, "--data", test, "--out", "-", "--decision")
	if r.stdout != string(want) {
		t.Errorf("--out - printed\n%.200s\nwant the predictions file\n%.200s", r.stdout, want)
	}
	if strings.Count(r.stdout, "\n") != 100 {
		t.Errorf("--out -: %d lines on stdout, want 100", strings.Count(r.stdout, "\n"))
	}
	if !strings.Contains(r.stderr, "moons.test") {
		t.Errorf("--out -: the summary is not on stderr: %q", r.stderr)
	}
	r = mustRun(t, dir, "predict", "--model", model, "--data", test, "--out", "/dev/stdout", "--decision")
	if !strings.HasPrefix(r.stdout, string(want)) {
		t.Errorf("--out /dev/stdout printed\n%.200s\nwant the predictions file first\n%.200s", r.stdout, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "-")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--out - created a file named -")
	}
	wantFail(t, dir, []string{"--json", "--out -"}, "predict", "--model", model, "--data", test, "--out", "-", "--json")
}

// TestWritesSurviveFullDisk runs the writing commands under a file-size
// limit, so every write past 512 bytes fails as on a full disk: each
// command fails with one line, and the file it was replacing is intact,
// with no temporary file left beside it.
func TestWritesSurviveFullDisk(t *testing.T) {
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	model := filepath.Join(dir, "m.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "kmp", "--gamma", "4", "--curve", "--quiet", "--model", model)
	old := []byte("the old contents\n")
	cases := []struct {
		name, file string
		args       []string
	}{
		{"train", "limited.model", []string{"train", "--data", train, "--algo", "svm", "--gamma", "2", "--quiet", "--model", "out/limited.model"}},
		{"predict", "p.txt", []string{"predict", "--model", model, "--data", test, "--decision", "--out", "out/p.txt"}},
		{"demo", "two-moons.train", []string{"demo", "--small", "--quiet", "--out", "out"}},
		{"plot", "m-curve.png", []string{"plot", "--model", model, "--out", "out"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out")
			os.RemoveAll(out)
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(out, c.file)
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			r := pursuitLimited(t, dir, "", 1, c.args...)
			if r.code != exitError || strings.Count(strings.TrimRight(r.stderr, "\n"), "\n") != 0 {
				t.Errorf("exit %d, want %d with one line; stderr:\n%s", r.code, exitError, r.stderr)
			}
			if !strings.Contains(r.stderr, "file too large") {
				t.Errorf("the error does not say why: %q", r.stderr)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, old) {
				t.Errorf("%s was damaged: %q (%v)", c.file, got, err)
			}
			noTempFiles(t, out, c.file)
		})
	}
}
