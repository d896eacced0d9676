//go:build !linux

package main

// machineMemory cannot tell the machine's memory here.
func machineMemory() (int64, bool) { return 0, false }
