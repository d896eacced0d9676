//go:build !(mpi && cgo)

package comm

// mpiBuilt reports whether this binary has the MPI communicator.
const mpiBuilt = false

// World returns the communicator of the processes launched together. This
// binary was built without `-tags mpi` (or without cgo), so it is always a
// single process: World returns a fresh Single and never fails.
func World() (Comm, error) { return &Single{}, nil }
