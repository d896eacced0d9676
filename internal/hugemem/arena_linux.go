//go:build linux

package hugemem

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// supports on Linux (2 MiB on amd64 and arm64 with 4 KiB base pages).
const hugePage = 2 << 20

// Arena is one mapping, handed out in order; see the package documentation.
type Arena struct {
	mem  []byte // the whole mapping; nil once freed
	next int    // offset of the first byte not yet handed out
	end  int
}

// New maps size bytes (rounded up to whole huge pages, from an aligned
// base) and advises them for transparent huge pages. It returns nil when
// size is not positive or the mapping fails; callers then use the Go heap.
func New(size int) *Arena {
	if size <= 0 {
		return nil
	}
	span := (size + hugePage - 1) &^ (hugePage - 1)
	mem, err := syscall.Mmap(-1, 0, span+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	base := int(-uintptr(unsafe.Pointer(&mem[0])) & (hugePage - 1))
	// Best effort: without transparent huge pages the mapping still works,
	// in base pages.
	_ = syscall.Madvise(mem[base:], syscall.MADV_HUGEPAGE)
	return &Arena{mem: mem, next: base, end: base + size}
}

// Slice hands out the next n elements of a (zeroed: fresh pages), or
// returns nil when a is nil, freed or exhausted.
func Slice[T ~float32 | ~float64](a *Arena, n int) []T {
	var zero T
	bytes := n * int(unsafe.Sizeof(zero))
	if a == nil || a.mem == nil || n <= 0 || a.next+bytes > a.end {
		return nil
	}
	p := unsafe.Pointer(&a.mem[a.next])
	a.next += bytes
	return unsafe.Slice((*T)(p), n)
}

// Holds reports whether the n bytes at p lie in a's mapping.
func (a *Arena) Holds(p unsafe.Pointer, n int) bool {
	if a == nil || a.mem == nil {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(a.mem)))
	return uintptr(p) >= lo && uintptr(p)+uintptr(n) <= lo+uintptr(len(a.mem))
}

// Free unmaps the arena; every slice handed out becomes invalid. Freeing
// nil or twice is a no-op.
func (a *Arena) Free() {
	if a == nil || a.mem == nil {
		return
	}
	_ = syscall.Munmap(a.mem)
	a.mem = nil
}
