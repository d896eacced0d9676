//go:build linux

package hugemem

import (
	"testing"
	"unsafe"
)

// TestArena checks that the arena hands out disjoint, writable slices
// from a huge-page boundary on, refuses what it cannot hold, and frees.
func TestArena(t *testing.T) {
	const size = 5<<20 + 8
	a := New(size)
	if a == nil {
		t.Fatal("New failed")
	}
	f32 := Slice[float32](a, 1<<20) // 4 MiB
	if f32 == nil || uintptr(unsafe.Pointer(&f32[0]))%hugePage != 0 {
		t.Fatalf("first slice %p is not on a %d-byte boundary", unsafe.SliceData(f32), hugePage)
	}
	if s := Slice[float64](a, (size-4<<20)/8+1); s != nil {
		t.Fatalf("a %d-byte arena handed out %d bytes after 4 MiB", size, len(s)*8)
	}
	f64 := Slice[float64](a, (size-4<<20)/8)
	if f64 == nil || Slice[float32](a, 1) != nil {
		t.Fatal("the arena did not hand out exactly its size")
	}
	if !a.Holds(unsafe.Pointer(&f32[0]), len(f32)*4) || !a.Holds(unsafe.Pointer(&f64[0]), len(f64)*8) {
		t.Fatal("slices outside the mapping")
	}
	var outside [4]float32
	if a.Holds(unsafe.Pointer(&outside[0]), 16) {
		t.Fatal("Holds claims a Go variable")
	}
	for i := range f32 {
		if f32[i] != 0 {
			t.Fatalf("fresh f32[%d] = %v, want 0", i, f32[i])
		}
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
	a.Free()
	a.Free() // a second free is a no-op
	if Slice[float32](a, 1) != nil || a.Holds(unsafe.Pointer(&f32[0]), 4) {
		t.Fatal("a freed arena handed out or holds memory")
	}
	if New(0) != nil {
		t.Fatal("an empty arena was mapped")
	}
}
