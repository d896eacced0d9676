// Package comm is the communicator the engine uses to train across
// processes: a small set of collective operations (sums, arg-max with its
// location, broadcast, gather, barrier) over a group of ranks.
//
// Three implementations satisfy Comm:
//
//   - Single, the default: one rank, every collective is a copy or no-op;
//   - the in-process group (NewGroup, Run): N ranks as goroutines of one
//     process, so plain `go test` exercises multi-rank code deterministically
//     (sums are taken in rank order, whatever the goroutines' scheduling);
//   - MPI, compiled only with `-tags mpi` and cgo (World): a thin cgo layer
//     over MPI_Init_thread, MPI_Allreduce (sum, and MAXLOC on double-int
//     pairs), MPI_Bcast, MPI_Allgatherv, MPI_Barrier, MPI_Abort and
//     MPI_Finalize. MPI is initialised and finalised on one goroutine locked
//     to its OS thread; collectives are called directly when MPI provides
//     MPI_THREAD_SERIALIZED (a Comm is used by one goroutine at a time), and
//     handed to that thread otherwise (funneled).
//
// Nothing outside this package knows MPI exists: the default build has no
// cgo and no MPI dependency, and World returns Single there. A `-tags mpi`
// binary started without a launcher (mpirun, srun, mpiexec) also runs as one
// rank.
//
// Determinism. Every rank receives bit-identical results from every
// collective. AllreduceSum in the in-process group adds the ranks'
// contributions in rank order 0, 1, …, N−1 (left to right); MPI adds them in
// an order of its choosing, identical on every rank, so results equal the
// rank-order sum to rounding. AllreduceMaxLoc breaks ties by the lowest
// index (MPI's MAXLOC rule) and treats NaN as −Inf in every implementation,
// so an arg-max never depends on which rank answered first.
//
// CheckConfig detects ranks that were started with different data files or
// flags: each rank digests its configuration, rank 0's digests are broadcast,
// and every rank returns the same error naming the ranks and entries that
// differ.
package comm
