package data

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Load reads the data set at path. The format comes from the name (".csv"
// before any ".gz"/".bz2" suffix means CSV, anything else LIBSVM) unless
// WithFormat says otherwise. gzip and bzip2 compression is undone
// transparently: by suffix (.gz, .bz2), and also when the content starts
// with the gzip or bzip2 magic bytes whatever the name. Errors name path.
//
// A LIBSVM file (a regular file, not a pipe) is read twice: first to count
// its examples, features and non-zeros, so that the storage is chosen
// (WithStorage) and the memory limit checked before anything data-sized is
// allocated, then into the dense matrix or the compressed sparse rows, which
// are the only data-sized allocation (sparse: O(non-zeros), nothing as long
// as the feature count).
func Load(path string, opts ...Option) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load data: %w", err)
	}
	defer f.Close()
	o := buildOptions(opts)
	format := ResolveFormat(path, o.format)
	if o.sharded() && o.badOption == nil {
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			return nil, &ParseError{File: path, Err: fmt.Errorf("WithShard needs a regular file, read twice (rows are counted first), not a pipe or device")}
		}
	}
	if format == FormatLibSVM && o.badOption == nil {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return loadLibSVM(f, path, &o)
		}
	}
	if format == FormatCSV && o.badOption == nil {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return loadCSV(f, path, &o)
		}
	}
	r, err := decompress(f, path)
	if err != nil {
		return nil, err
	}
	if format == FormatCSV {
		return ReadCSV(r, path, opts...)
	}
	return ReadLibSVM(r, path, opts...)
}

// loadCSV reads the CSV file f in two passes: the first counts its lines
// (an upper bound on the records), so that the second allocates the matrix
// once instead of growing it by copying.
func loadCSV(f *os.File, name string, o *options) (*Dataset, error) {
	r, err := decompress(f, name)
	if err != nil {
		return nil, err
	}
	oo := *o
	if o.sharded() {
		// The exact number of records, so that each rank keeps its block.
		records, err := countCSVRecords(r, o.header)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &ParseError{File: name, Line: pe.Line, Err: fmt.Errorf("%w: %v", ErrSyntax, pe.Err)}
			}
			return nil, &ParseError{File: name, Err: fmt.Errorf("reading: %w", err)}
		}
		if records == 0 {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: the file holds no data records", ErrNoExamples)}
		}
		oo.rowLo, oo.rowHi = o.keepRange(records)
		oo.linesHint = max(oo.rowHi-oo.rowLo, 1)
	} else {
		lines, err := countLines(r)
		if err != nil {
			return nil, &ParseError{File: name, Err: fmt.Errorf("reading: %w", err)}
		}
		oo.linesHint = lines
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	r, err = decompress(f, name)
	if err != nil {
		return nil, err
	}
	return ReadCSV(r, name, func(p *options) { *p = oo })
}

// countLines counts the lines of r (a last line without '\n' counts).
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, readBufSize)
	n, last := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// ResolveFormat returns the format Load reads path in when asked for f:
// f itself, or for FormatAuto CSV when the name ends in .csv (before any .gz
// or .bz2) and LIBSVM otherwise.
func ResolveFormat(path string, f Format) Format {
	if f != FormatAuto {
		return f
	}
	if strings.EqualFold(filepath.Ext(stripCompression(path)), ".csv") {
		return FormatCSV
	}
	return FormatLibSVM
}

func stripCompression(path string) string {
	for _, ext := range []string{".gz", ".bz2"} {
		if len(path) > len(ext) && strings.EqualFold(path[len(path)-len(ext):], ext) {
			return path[:len(path)-len(ext)]
		}
	}
	return path
}

var (
	gzipMagic  = []byte{0x1f, 0x8b}
	bzip2Magic = []byte("BZh")
)

// isBzip2 recognises a bzip2 stream header: "BZh", a block size digit 1-9,
// then the block magic (π's digits) or the end-of-stream magic (√π's).
func isBzip2(head []byte) bool {
	if len(head) < 10 || !bytes.HasPrefix(head, bzip2Magic) || head[3] < '1' || head[3] > '9' {
		return false
	}
	m := head[4:10]
	return bytes.Equal(m, []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
		bytes.Equal(m, []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})
}

// decompress wraps r in a gzip or bzip2 reader when the name or the first
// bytes say it is compressed.
func decompress(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, readBufSize)
	head, err := br.Peek(10)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".gz") || bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: not a valid gzip stream: %v", ErrSyntax, err)}
		}
		return zr, nil
	case strings.HasSuffix(lower, ".bz2") || isBzip2(head):
		if !bytes.HasPrefix(head, bzip2Magic) {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: not a bzip2 stream (no BZh header)", ErrSyntax)}
		}
		return bzip2.NewReader(br), nil
	}
	return br, nil
}

// SharedDir returns the directory holding the shared benchmark data sets:
// $PURSUIT_DATASETS when set, else ../shared/datasets beside the module root
// (the nearest directory at or above the working directory holding go.mod).
// It is an error if the directory does not exist, so callers (tests) can skip
// with the message.
func SharedDir() (string, error) {
	dir := os.Getenv("PURSUIT_DATASETS")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("shared datasets: %w", err)
		}
		root := wd
		for {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(root)
			if parent == root {
				return "", fmt.Errorf("shared datasets: no go.mod at or above %s, and PURSUIT_DATASETS is not set", wd)
			}
			root = parent
		}
		dir = filepath.Join(root, "..", "shared", "datasets")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("shared datasets not found (set PURSUIT_DATASETS): %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("shared datasets: %s is not a directory", dir)
	}
	return dir, nil
}

// SharedFile returns the path of a file under SharedDir, such as
// SharedFile("usps", "usps.train.gz"), or an error if it is absent.
func SharedFile(elem ...string) (string, error) {
	dir, err := SharedDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(append([]string{dir}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("shared dataset file: %w", err)
	}
	return p, nil
}
