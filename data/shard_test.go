package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shardFiles writes the same 7 examples as LIBSVM (with comments, blank
// lines, a qid and the largest feature index on one row only), CSV (with a
// header, a comment and a quoted field) and both gzip-compressed.
func shardFiles(t *testing.T) map[string][]Option {
	t.Helper()
	dir := t.TempDir()
	libsvm := "# seven examples\n" +
		"1 1:0.5 3:1\n" +
		"\n" +
		"-1 qid:3 2:-2 # a comment\n" +
		"   # comment only\n" +
		"2 1:1 2:1 3:1\n" +
		"1 9:4\n" + // the largest index, on the fourth example only
		"-1\n" +
		"3 3:-0.25\n" +
		"1 1:7 2:8"
	csvText := "label,a,b,c\n" +
		"1,0.5,0,1\n" +
		"# a comment\n" +
		"-1,0,-2,0\n" +
		"2,1,\"1\",1\n" +
		"1,0,0,0\n" +
		"\n" +
		"-1,0,0,0\n" +
		"3,0,0,-0.25\n" +
		"1,7,8,0\n"
	files := map[string][]Option{}
	write := func(name, text string, opts ...Option) {
		path := filepath.Join(dir, name)
		b := []byte(text)
		if strings.HasSuffix(name, ".gz") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			b = buf.Bytes()
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files[path] = opts
	}
	write("seven.svm", libsvm)
	write("seven.svm.gz", libsvm)
	write("seven.csv", csvText, WithHeader(true))
	write("seven.csv.gz", csvText, WithHeader(true))
	return files
}

// TestLoadShardEverySplit loads every rank's block of every split into 1 to
// 9 ranks (more ranks than examples leaves some blocks empty) and checks
// that each block has the whole file's feature count and that the blocks,
// concatenated in rank order, are exactly the whole load's rows.
func TestLoadShardEverySplit(t *testing.T) {
	for path, opts := range shardFiles(t) {
		whole, err := Load(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if whole.Len() != 7 {
			t.Fatalf("%s: %d examples, want 7", path, whole.Len())
		}
		for size := 1; size <= 9; size++ {
			row := 0
			for rank := range size {
				part, err := Load(path, append(append([]Option{}, opts...), WithShard(rank, size))...)
				if err != nil {
					t.Fatalf("%s rank %d of %d: %v", filepath.Base(path), rank, size, err)
				}
				lo, hi := ShardRange(whole.Len(), rank, size)
				if lo != row || part.Len() != hi-lo || part.Dim() != whole.Dim() || len(part.Y) != part.Len() {
					t.Fatalf("%s rank %d of %d: %d×%d rows from %d, want %d×%d from %d",
						filepath.Base(path), rank, size, part.Len(), part.Dim(), row, hi-lo, whole.Dim(), lo)
				}
				if err := part.Validate(); err != nil {
					t.Fatal(err)
				}
				for i := range part.Len() {
					if part.Y[i] != whole.Y[row] {
						t.Fatalf("%s rank %d of %d row %d: label %v, want %v", filepath.Base(path), rank, size, i, part.Y[i], whole.Y[row])
					}
					for j := range whole.Dim() {
						if part.X.At(i, j) != whole.X.At(row, j) {
							t.Fatalf("%s rank %d of %d row %d feature %d: %v, want %v", filepath.Base(path), rank, size, i, j, part.X.At(i, j), whole.X.At(row, j))
						}
					}
					row++
				}
			}
			if row != whole.Len() {
				t.Fatalf("%s: %d ranks kept %d rows of %d", filepath.Base(path), size, row, whole.Len())
			}
		}
	}
}

// TestLoadShardErrors: a bad line is reported by the rank whose block holds
// it (naming the file's line) and not by the others; bad arguments, streams
// and empty files are refused.
func TestLoadShardErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.svm")
	os.WriteFile(bad, []byte("1 1:1\n-1 2:1\n1 0:3\n-1 1:2\n"), 0o644) // line 3 (example 3) is bad
	for rank := range 2 {
		_, err := Load(bad, WithShard(rank, 2))
		var pe *ParseError
		switch rank {
		case 0:
			if err != nil {
				t.Errorf("rank 0 (examples 1-2): %v", err)
			}
		case 1:
			if !errors.As(err, &pe) || pe.Line != 3 {
				t.Errorf("rank 1 (examples 3-4): err = %v, want a ParseError at line 3", err)
			}
		}
	}
	badCSV := filepath.Join(dir, "bad.csv")
	os.WriteFile(badCSV, []byte("1,2\n1,x\n-1,3\n-1,4\n"), 0o644)
	if _, err := Load(badCSV, WithShard(1, 2)); err != nil {
		t.Errorf("CSV rank 1 (records 3-4): %v", err)
	}
	if _, err := Load(badCSV, WithShard(0, 2)); !errors.Is(err, ErrSyntax) {
		t.Errorf("CSV rank 0 (records 1-2): err = %v, want ErrSyntax", err)
	}
	for _, o := range []Option{WithShard(2, 2), WithShard(-1, 2), WithShard(0, 0)} {
		if _, err := Load(bad, o); err == nil || !strings.Contains(err.Error(), "WithShard") {
			t.Errorf("bad WithShard: err = %v", err)
		}
	}
	if _, err := ReadLibSVM(strings.NewReader("1 1:1\n"), "stream", WithShard(0, 2)); err == nil || !strings.Contains(err.Error(), "stream") {
		t.Errorf("ReadLibSVM with a shard: err = %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("1,1\n"), "stream", WithShard(0, 2)); err == nil || !strings.Contains(err.Error(), "stream") {
		t.Errorf("ReadCSV with a shard: err = %v", err)
	}
	empty := filepath.Join(dir, "empty.svm")
	os.WriteFile(empty, []byte("# nothing\n\n"), 0o644)
	if _, err := Load(empty, WithShard(0, 3)); !errors.Is(err, ErrNoExamples) {
		t.Errorf("empty file: err = %v, want ErrNoExamples", err)
	}
	emptyCSV := filepath.Join(dir, "empty.csv")
	os.WriteFile(emptyCSV, []byte("a,b\n"), 0o644)
	if _, err := Load(emptyCSV, WithHeader(true), WithShard(0, 3)); !errors.Is(err, ErrNoExamples) {
		t.Errorf("empty CSV file: err = %v, want ErrNoExamples", err)
	}
	if _, err := Load(os.DevNull, WithShard(0, 2)); err == nil || !strings.Contains(err.Error(), "regular file") {
		t.Errorf("%s with a shard: err = %v", os.DevNull, err)
	}
}
