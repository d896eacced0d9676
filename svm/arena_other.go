//go:build !linux

package svm

// rowArena is address space for the row cache outside the Go heap; only
// Linux has one (see arena_linux.go), elsewhere the cache allocates its
// chunks from the Go heap.
type rowArena struct{}

func newRowArena(int) *rowArena { return nil }

func arenaSlice[T real](*rowArena, int) []T { return nil }

func (*rowArena) free() {}
