package safefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// ErrNotRegular is what a *NotRegularError matches with errors.Is.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError reports a target WriteFile refuses to replace: a
// directory, a named pipe, a socket or a block device.
type NotRegularError struct {
	Path   string // the path as given
	Target string // where Path's symlinks lead; empty when Path is no symlink
	Kind   string // "directory", "named pipe", "socket", "block device" or "special file"
}

func (e *NotRegularError) Error() string {
	if e.Target != "" && e.Target != e.Path {
		return fmt.Sprintf("%s leads to %s, which is a %s, not a regular file", e.Path, e.Target, e.Kind)
	}
	return fmt.Sprintf("%s is a %s, not a regular file", e.Path, e.Kind)
}

// Unwrap makes errors.Is(err, ErrNotRegular) hold.
func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// maxHops bounds the symlinks followed, as the kernel's own limit does.
const maxHops = 40

// bufSize is the buffer between the caller's writes and the file.
const bufSize = 64 << 10

// WriteFile writes the file at path with the contents write produces (see
// the package documentation for what path may name). perm is the
// permission of a new file, less the umask; a replaced file keeps its own.
//
// An error returned by write is returned unchanged, after the old file has
// been left in place; errors of the file system name path (not the
// temporary file) and wrap the system's error, so errors.Is(err,
// fs.ErrNotExist) and the like hold. write must not keep the writer.
func WriteFile(path string, perm fs.FileMode, write func(io.Writer) error) error {
	// Stat follows every link the kernel does (including /proc/self/fd's),
	// so it decides the kind of what would be written.
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeCharDevice != 0:
		return writeThrough(path, write)
	case err == nil && fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket) != 0 && openDescriptor(path):
		return writeThrough(path, write)
	case err == nil && !fi.Mode().IsRegular():
		target := ""
		if lfi, err := os.Lstat(path); err == nil && lfi.Mode()&fs.ModeSymlink != 0 {
			target, _ = filepath.EvalSymlinks(path)
		}
		return notRegular(path, target, fi.Mode())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", path, sysErr(err))
	}
	// A regular file, nothing, or a dangling symlink: find the file to
	// replace or create.
	target, err := resolve(path)
	if err != nil {
		return err
	}
	return replace(path, target, perm, write)
}

// resolve follows the symlinks at path to the name that is no symlink
// (existing or not). Relative links are taken from the link's directory
// without cleaning the path, so "dir/../x" walks through a linked dir as
// the kernel does.
func resolve(path string) (string, error) {
	p := path
	for range maxHops {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, sysErr(err))
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, sysErr(err))
		}
		if filepath.IsAbs(dest) {
			p = dest
		} else {
			p = dirOf(p) + dest
		}
	}
	return "", fmt.Errorf("%s: %w", path, syscall.ELOOP)
}

// openDescriptor reports whether path leads through symlinks to a pipe or
// socket that has no name, such as /dev/stdout or /dev/fd/3 when those are
// pipes: what the process holds open already, and can only be written to.
// A named pipe in the file system is not one.
func openDescriptor(path string) bool {
	p := path
	for range maxHops {
		dest, err := os.Readlink(p)
		if err != nil {
			return false
		}
		if strings.HasPrefix(dest, "pipe:[") || strings.HasPrefix(dest, "socket:[") {
			return true // Linux's /proc/PID/fd links; nothing else names a file so
		}
		if filepath.IsAbs(dest) {
			p = dest
		} else {
			p = dirOf(p) + dest
		}
	}
	return false
}

// dirOf returns p up to and including its last separator, or "" when p
// has none: the directory p is in, uncleaned.
func dirOf(p string) string {
	seps := string(filepath.Separator)
	if filepath.Separator != '/' {
		seps += "/"
	}
	return p[:strings.LastIndexAny(p, seps)+1]
}

// replace writes a temporary file in target's directory and renames it
// over target.
func replace(path, target string, perm fs.FileMode, write func(io.Writer) error) error {
	dir := dirOf(target)
	base := target[len(dir):]
	openDir, shownDir := ".", "." // dir to open, and to name in messages
	if dir != "" {
		openDir, shownDir = dir, filepath.Clean(dir)
	}
	if base == "" || base == "." || base == ".." {
		return fmt.Errorf("%s: names a directory, not a file: %w", path, fs.ErrInvalid)
	}
	createPerm, keep := perm, fs.FileMode(0)
	fi, err := os.Lstat(target)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return notRegular(path, target, fi.Mode())
	case err == nil:
		// Written unreadable to others until it has the old file's mode.
		createPerm = 0o600
		keep = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", path, sysErr(err))
	}
	f, err := createTemp(dir, base, createPerm)
	if err != nil {
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, shownDir, sysErr(err))
	}
	tmp, closed, renamed := f.Name(), false, false
	defer func() { // on every failure, a panic in write included
		if !closed {
			f.Close()
		}
		if !renamed {
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(&namedWriter{f: f, path: path}, bufSize)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if fi != nil {
		if err := f.Chmod(keep); err != nil {
			return fmt.Errorf("%s: keeping the mode %v: %w", path, keep, sysErr(err))
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, sysErr(err))
	}
	closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, sysErr(err))
	}
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("%s: replacing %s: %w", path, target, sysErr(err))
	}
	renamed = true
	return syncDir(path, openDir, shownDir)
}

// createTemp creates a new file in dir named after base, with perm less
// the umask (os.CreateTemp would give 0600 whatever the umask).
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	const keepName = 200 // leaves room for the suffix within NAME_MAX (255)
	if len(base) > keepName {
		base = base[:keepName]
	}
	for {
		name := dir + "." + base + ".tmp" + strconv.FormatUint(rand.Uint64(), 36)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// syncDir makes the rename durable. File systems that cannot sync a
// directory say EINVAL; that is no failure of the write. Windows has no
// directory sync (a rename is made durable by the file system itself).
func syncDir(path, dir, shownDir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("%s: syncing the directory %s: %w", path, shownDir, sysErr(err))
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("%s: syncing the directory %s: %w", path, shownDir, sysErr(err))
	}
	return nil
}

// writeThrough writes to a character device in place.
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, sysErr(err))
	}
	bw := bufio.NewWriterSize(&namedWriter{f: f, path: path}, bufSize)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", path, sysErr(cerr))
	}
	return err
}

// namedWriter reports write errors against the path the caller named
// rather than the temporary file's.
type namedWriter struct {
	f    *os.File
	path string
}

func (w *namedWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = fmt.Errorf("%s: %w", w.path, sysErr(err))
	}
	return n, err
}

// sysErr strips the operation and (temporary) file name from err, leaving
// the system's error.
func sysErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func notRegular(path, target string, m fs.FileMode) error {
	kind := "special file"
	switch {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeDevice != 0:
		kind = "block device"
	}
	return &NotRegularError{Path: path, Target: target, Kind: kind}
}
