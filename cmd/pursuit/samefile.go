package main

import "github.com/pursuit-ml/pursuit/learn"

// fileArg is a file named on the command line, with the flag that named it.
type fileArg = learn.NamedFile

// checkOutputs refuses to write an output that is one of the inputs: the
// same file by name, through a symlink or as a hard link
// (learn.CheckOutputs). An output that does not exist yet, "" and "-"
// (standard output) are fine.
func checkOutputs(inputs []fileArg, outputs ...fileArg) error {
	return learn.CheckOutputs(inputs, outputs...)
}

// inputFiles are the data files the flags name.
func (d *dataFlags) inputFiles() []fileArg {
	return []fileArg{{Name: "--data", Path: d.data}, {Name: "--test", Path: d.test}}
}

// safeWriteHelp tells in --help how the files named by --model and --out
// are written (by safefile).
const safeWriteHelp = "an existing file is replaced whole or not at all and keeps its mode, a symlink's target is replaced, " +
	"a device or open pipe such as /dev/null or /dev/stdout is written to, a directory or named pipe is refused"
