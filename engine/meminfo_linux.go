package engine

import "syscall"

// MachineMemory returns the machine's total memory in bytes, say to size
// WithMemoryBudget or to warn that a budget exceeds it; ok is false where
// it cannot be told.
func MachineMemory() (bytes int64, ok bool) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0, false
	}
	return int64(si.Totalram) * int64(si.Unit), true
}
