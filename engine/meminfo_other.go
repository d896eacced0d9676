//go:build !linux

package engine

// MachineMemory cannot tell the machine's memory here: ok is false.
func MachineMemory() (bytes int64, ok bool) { return 0, false }
