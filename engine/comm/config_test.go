package comm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runConfig runs CheckConfig on n in-process ranks, rank r using
// entries(r), and returns every rank's error.
func runConfig(t *testing.T, n int, entries func(r int) []Entry) []error {
	t.Helper()
	errs := make([]error, n)
	var mu sync.Mutex
	Run(n, func(c Comm) error {
		err := CheckConfig(c, entries(c.Rank()))
		mu.Lock()
		errs[c.Rank()] = err
		mu.Unlock()
		return nil // every rank returns on its own: no abort needed
	})
	return errs
}

func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	same := writeFile(t, dir, "train.libsvm", "1 1:0.5\n-1 2:0.25\n")
	other := writeFile(t, dir, "other.libsvm", "1 1:0.5\n-1 2:0.26\n")
	base := func(train string, gamma string) []Entry {
		return []Entry{Setting("-algo", "kmp"), Setting("-gamma", gamma), File("train file", train)}
	}
	t.Run("alike", func(t *testing.T) {
		for n := 1; n <= 4; n++ {
			for r, err := range runConfig(t, n, func(int) []Entry { return base(same, "0.5") }) {
				if err != nil {
					t.Fatalf("N=%d rank %d: %v", n, r, err)
				}
			}
		}
	})
	cases := []struct {
		name    string
		entries func(r int) []Entry
		want    []string // in every rank's error
	}{
		{"rank 2 reads a different file", func(r int) []Entry {
			if r == 2 {
				return base(other, "0.5")
			}
			return base(same, "0.5")
		}, []string{"rank 2's train file differs"}},
		{"ranks 1 and 3 have another flag value", func(r int) []Entry { return base(same, map[bool]string{true: "0.7", false: "0.5"}[r%2 == 1]) },
			[]string{"rank 1's -gamma differs", "rank 3's -gamma differs", `"0.5"`}},
		{"rank 1's file is missing", func(r int) []Entry {
			if r == 1 {
				return base(filepath.Join(dir, "absent"), "0.5")
			}
			return base(same, "0.5")
		}, []string{"rank 1's train file differs"}},
		{"rank 3 sets one flag more", func(r int) []Entry {
			e := base(same, "0.5")
			if r == 3 {
				e = append(e, Setting("-seed", "7"))
			}
			return e
		}, []string{"rank 3 has more configuration entries than rank 0's 3"}},
		{"rank 0 sets one flag more", func(r int) []Entry {
			e := base(same, "0.5")
			if r == 0 {
				e = append(e, Setting("-seed", "7"))
			}
			return e
		}, []string{"rank 1's -seed differs", "rank 2's -seed differs", "rank 3's -seed differs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for r, err := range runConfig(t, 4, tc.entries) {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("rank %d: err = %v, want ErrConfig", r, err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("rank %d's error %q does not say %q", r, err, w)
					}
				}
			}
		})
	}
	// The rank whose file is missing says so.
	errs := runConfig(t, 2, func(r int) []Entry {
		if r == 1 {
			return base(filepath.Join(dir, "absent"), "0.5")
		}
		return base(same, "0.5")
	})
	if !strings.Contains(errs[1].Error(), "unreadable") {
		t.Errorf("the rank with the missing file says %q, want it to say the file is unreadable", errs[1])
	}
}

// File's digest is the SHA-256 of the contents: equal files agree
// wherever they lie, one changed byte disagrees.
func TestFileEntry(t *testing.T) {
	dir := t.TempDir()
	a := File("x", writeFile(t, dir, "a", "same bytes"))
	b := File("x", writeFile(t, dir, "b", "same bytes"))
	c := File("x", writeFile(t, dir, "c", "same bytez"))
	if a.Digest != b.Digest || a.Digest == c.Digest {
		t.Fatalf("digests: a=%x b=%x c=%x", a.Digest[:4], b.Digest[:4], c.Digest[:4])
	}
	if !strings.Contains(a.Note, "10 bytes") {
		t.Errorf("note %q does not give the size", a.Note)
	}
}

// TestCheckConfigWorld runs CheckConfig on World (MPI under mpirun): alike
// configurations pass, a last rank with another flag value stops every rank.
func TestCheckConfigWorld(t *testing.T) {
	c, err := World()
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckConfig(c, []Entry{Setting("-algo", "kmp"), Setting("-n", "40")}); err != nil {
		t.Fatalf("alike: %v", err)
	}
	n := "40"
	if c.Size() > 1 && c.Rank() == c.Size()-1 {
		n = "41"
	}
	err = CheckConfig(c, []Entry{Setting("-algo", "kmp"), Setting("-n", n)})
	switch {
	case c.Size() == 1 && err != nil:
		t.Fatalf("one rank: %v", err)
	case c.Size() > 1 && !errors.Is(err, ErrConfig):
		t.Fatalf("rank %d: err = %v, want ErrConfig", c.Rank(), err)
	}
}

// TestCommandLine checks the quoting: plain arguments as they are, the
// others quoted so that command lines that differ give strings that differ.
func TestCommandLine(t *testing.T) {
	got := CommandLine([]string{"train", "--data", "a b.svm", "", "--grid", "nz=1,2", "it's", "--out=/x/y%"})
	want := `train --data 'a b.svm' '' --grid nz=1,2 'it'\''s' --out=/x/y%`
	if got != want {
		t.Errorf("CommandLine = %s, want %s", got, want)
	}
	if CommandLine([]string{"a b"}) == CommandLine([]string{"a", "b"}) {
		t.Error("one argument with a space reads as two")
	}
}
