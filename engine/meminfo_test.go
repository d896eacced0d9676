package engine

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMachineMemory checks MachineMemory against /proc/meminfo's MemTotal
// on Linux.
func TestMachineMemory(t *testing.T) {
	b, ok := MachineMemory()
	if runtime.GOOS != "linux" {
		if ok {
			t.Errorf("MachineMemory = %d, true off Linux", b)
		}
		return
	}
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if !ok || b/1024 < kb-4 || b/1024 > kb+4 {
				t.Errorf("MachineMemory = %d, %v; MemTotal %d kB", b, ok, kb)
			}
			return
		}
	}
	t.Skip("no MemTotal in /proc/meminfo")
}
