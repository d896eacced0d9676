package learn

import (
	"fmt"
	"os"
)

// NamedFile is a file a program reads or writes, with the name the
// program gives it (say, the flag that named it).
type NamedFile struct{ Name, Path string }

// CheckOutputs refuses to write an output that is one of the inputs: the
// same file by name, through a symlink or as a hard link (os.SameFile), so
// that a slip such as --out keep.model does not destroy the model being
// read. An output that does not exist yet, "" and "-" (standard output)
// are fine.
func CheckOutputs(inputs []NamedFile, outputs ...NamedFile) error {
	for _, out := range outputs {
		if out.Path == "" || out.Path == "-" {
			continue
		}
		so, err := os.Stat(out.Path)
		if err != nil {
			continue // nothing there to destroy (or the write will say why)
		}
		for _, in := range inputs {
			if in.Path == "" || in.Path == "-" {
				continue
			}
			if si, err := os.Stat(in.Path); err == nil && os.SameFile(so, si) {
				return fmt.Errorf("%s %s is the same file as %s %s: refusing to overwrite an input (give %s another file)",
					out.Name, out.Path, in.Name, in.Path, out.Name)
			}
		}
	}
	return nil
}
