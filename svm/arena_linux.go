//go:build linux

package svm

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// supports on Linux (2 MiB on amd64 and arm64 with 4 KiB base pages).
const hugePage = 2 << 20

// rowArena is address space for the row cache's slots outside the Go heap:
// one anonymous private mapping of the whole budget, aligned to a huge-page
// boundary and advised for transparent huge pages (MADV_HUGEPAGE). Nothing
// is committed until a slot is first written, so an unused budget costs
// nothing; and a row cache of tens of megabytes is then faulted in a few
// dozen 2 MiB faults instead of thousands of 4 KiB ones (on a virtual
// machine a 4 KiB fault can cost 15 µs: 100 MiB of rows, 0.4 s). Chunks are
// handed out in the order they are asked for and stay until free.
type rowArena struct {
	mem  []byte // the whole mapping; nil once freed
	next int    // offset of the first byte not yet handed out
	end  int
}

// newRowArena maps size bytes; it returns nil when the mapping fails (the
// cache then allocates from the Go heap).
func newRowArena(size int) *rowArena {
	if size <= 0 {
		return nil
	}
	// Whole huge pages from an aligned base: the mapping spans the size
	// rounded up to a huge page, plus one for the alignment.
	span := (size + hugePage - 1) &^ (hugePage - 1)
	mem, err := syscall.Mmap(-1, 0, span+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	base := int(-uintptr(unsafe.Pointer(&mem[0])) & (hugePage - 1))
	// Best effort: without transparent huge pages the mapping still works,
	// in base pages.
	_ = syscall.Madvise(mem[base:], syscall.MADV_HUGEPAGE)
	return &rowArena{mem: mem, next: base, end: base + size}
}

// arenaSlice hands out the next n elements of a, or returns nil when a is
// nil or exhausted.
func arenaSlice[T real](a *rowArena, n int) []T {
	var zero T
	bytes := n * int(unsafe.Sizeof(zero))
	if a == nil || a.mem == nil || n <= 0 || a.next+bytes > a.end {
		return nil
	}
	p := unsafe.Pointer(&a.mem[a.next])
	a.next += bytes
	return unsafe.Slice((*T)(p), n)
}

// free unmaps the arena; every slice handed out becomes invalid.
func (a *rowArena) free() {
	if a == nil || a.mem == nil {
		return
	}
	_ = syscall.Munmap(a.mem)
	a.mem = nil
}
