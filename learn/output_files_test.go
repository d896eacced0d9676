package learn

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckOutputs checks that an output which is an input by name,
// through a symlink or as a hard link is refused, naming both, and that a
// new file, "" and "-" are not.
func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.svm")
	if err := os.WriteFile(in, []byte("1 1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sym, hard := filepath.Join(dir, "sym"), filepath.Join(dir, "hard")
	if err := os.Symlink(in, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	inputs := []NamedFile{{Name: "--data", Path: in}, {Name: "--test", Path: ""}}
	for _, out := range []string{in, sym, hard} {
		err := CheckOutputs(inputs, NamedFile{Name: "--model", Path: "new"}, NamedFile{Name: "--out", Path: out})
		want := "--out " + out + " is the same file as --data " + in + ": refusing to overwrite an input (give --out another file)"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", out, err, want)
		}
	}
	for _, out := range []string{"", "-", filepath.Join(dir, "new.model")} {
		if err := CheckOutputs(inputs, NamedFile{Name: "--out", Path: out}); err != nil {
			t.Errorf("%q: %v", out, err)
		}
	}
}
