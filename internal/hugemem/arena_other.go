//go:build !linux

package hugemem

import "unsafe"

// Arena is address space outside the Go heap; only Linux has one (see
// arena_linux.go), elsewhere New returns nil and callers use the Go heap.
type Arena struct{}

// New returns nil off Linux.
func New(int) *Arena { return nil }

// Slice returns nil off Linux.
func Slice[T ~float32 | ~float64](*Arena, int) []T { return nil }

// Holds reports false off Linux.
func (*Arena) Holds(unsafe.Pointer, int) bool { return false }

// Free does nothing off Linux.
func (*Arena) Free() {}
