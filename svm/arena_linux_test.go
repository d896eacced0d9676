//go:build linux

package svm

import (
	"testing"
	"unsafe"
)

// arenaHolds reports whether the n bytes at p lie in a's mapping.
func arenaHolds(a *rowArena, p unsafe.Pointer, n int) bool {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(a.mem)))
	return uintptr(p) >= lo && uintptr(p)+uintptr(n) <= lo+uintptr(len(a.mem))
}

// TestRowArena checks that the arena hands out disjoint, writable slices
// from a huge-page boundary on, refuses what it cannot hold, and frees.
func TestRowArena(t *testing.T) {
	const size = 5<<20 + 8
	a := newRowArena(size)
	if a == nil {
		t.Fatal("newRowArena failed")
	}
	f32 := arenaSlice[float32](a, 1<<20) // 4 MiB
	if f32 == nil || uintptr(unsafe.Pointer(&f32[0]))%hugePage != 0 {
		t.Fatalf("first slice %p is not on a %d-byte boundary", unsafe.SliceData(f32), hugePage)
	}
	if s := arenaSlice[float64](a, (size-4<<20)/8+1); s != nil {
		t.Fatalf("a %d-byte arena handed out %d bytes after 4 MiB", size, len(s)*8)
	}
	f64 := arenaSlice[float64](a, (size-4<<20)/8)
	if f64 == nil || arenaSlice[float32](a, 1) != nil {
		t.Fatal("the arena did not hand out exactly its size")
	}
	if !arenaHolds(a, unsafe.Pointer(&f32[0]), len(f32)*4) || !arenaHolds(a, unsafe.Pointer(&f64[0]), len(f64)*8) {
		t.Fatal("slices outside the mapping")
	}
	for i := range f32 {
		f32[i] = float32(i)
	}
	for i := range f64 {
		f64[i] = -float64(i)
	}
	for i := range f32 {
		if f32[i] != float32(i) {
			t.Fatalf("f32[%d] = %v after writing f64", i, f32[i])
		}
	}
	a.free()
	a.free() // a second free is a no-op
	if arenaSlice[float32](a, 1) != nil {
		t.Fatal("a freed arena handed out memory")
	}
	if newRowArena(0) != nil {
		t.Fatal("an empty arena was mapped")
	}
}
