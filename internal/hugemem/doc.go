// Package hugemem is address space outside the Go heap for large, short-
// lived float buffers (an SVM's kernel-row cache, a prepared copy of its
// data): one anonymous private mapping, aligned to a transparent-huge-page
// boundary and advised for huge pages on Linux, handed out in order and
// unmapped at once. Nothing is committed until first written, and then in
// 2 MiB faults instead of 4 KiB ones: on a virtual machine a 4 KiB fault
// can cost 12–15 µs (100 MiB of rows, 0.4 s). Elsewhere New returns nil and
// callers allocate from the Go heap.
package hugemem
