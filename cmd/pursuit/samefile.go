package main

import (
	"fmt"
	"os"
)

// fileArg is a file named on the command line, with the flag that named it.
type fileArg struct{ flag, path string }

// checkOutputs refuses to write an output that is one of the inputs: the
// same file by name, through a symlink or as a hard link (os.SameFile), so
// that a slip such as --out keep.model does not destroy the model being
// read. An output that does not exist yet, "" and "-" (standard output)
// are fine.
func checkOutputs(inputs []fileArg, outputs ...fileArg) error {
	for _, out := range outputs {
		if out.path == "" || out.path == "-" {
			continue
		}
		so, err := os.Stat(out.path)
		if err != nil {
			continue // nothing there to destroy (or the write will say why)
		}
		for _, in := range inputs {
			if in.path == "" || in.path == "-" {
				continue
			}
			if si, err := os.Stat(in.path); err == nil && os.SameFile(so, si) {
				return fmt.Errorf("%s %s is the same file as %s %s: refusing to overwrite an input (give %s another file)",
					out.flag, out.path, in.flag, in.path, out.flag)
			}
		}
	}
	return nil
}

// inputFiles are the data files the flags name.
func (d *dataFlags) inputFiles() []fileArg {
	return []fileArg{{"--data", d.data}, {"--test", d.test}}
}

// safeWriteHelp tells in --help how the files named by --model and --out
// are written (by safefile).
const safeWriteHelp = "an existing file is replaced whole or not at all and keeps its mode, a symlink's target is replaced, " +
	"a device or open pipe such as /dev/null or /dev/stdout is written to, a directory or named pipe is refused"
