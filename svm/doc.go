// Package svm trains and applies support vector machines: C-SVC (binary,
// one-vs-one and one-vs-rest multi-class, per-class weights, optional
// Platt-scaled probabilities) and ε-SVR, solved in the dual by SMO with
// second-order working-set selection (Fan, Chen & Lin 2005, the method of
// LIBSVM), shrinking with un-shrinking before the final optimality check, and
// an LRU cache of kernel rows with a memory budget.
//
// Kernel rows are computed through the engine (engine.KernelGatherPrepared,
// against the data matrix prepared once: packed into the backend's GEMM
// panels, squared row norms computed once), in batches: when a row is missing, the
// solver also computes the rows of the variables most likely to enter the
// working set next, so the backend's GEMM-shaped block routine does the work.
// The passes over the variables of each iteration (the gradient update that
// also finds the next i, the second-order choice of j, G-bar's update) run
// through the engine too (engine.SMOGradient, SMOSelect, SMOAddScaled:
// vector kernels on the CPU backends), over all variables in order, with the
// inactive ones masked, as long as at least a 32nd are active.
// Params.Solver chooses SMO or the batched working-set solver (batched.go:
// q variables per outer iteration, their kernel rows in one block, the
// q-variable subproblem solved in memory, one block update of the gradient).
// On a backend that keeps such work on its device (the cuda backend:
// engine.NewSVMPool, engine.SMOSubproblem) the batched solver's kernel rows
// stay there, and the subproblem and the gradient update run there, with
// the host's bits; Params.HostRows keeps them on the host.
//
// Layers:
//
//   - Train / TrainOneVsRest / TrainMulticlass: data matrix and labels in,
//     Model out (LIBSVM's model layout, readable and writable in LIBSVM's text
//     format by ReadLIBSVMModel and Model.WriteLIBSVM).
//   - SolveCSVC, SolveSVR and Solve: the dual problem on any source of kernel
//     rows (RowSource): the engine over a data matrix (NewEngineRows),
//     exact float64 rows of a data matrix whose bits depend on neither its
//     storage nor the backend (NewExactRows, Params.Exact), a
//     precomputed Gram matrix (NewGram32, NewGram64) or explicit float64
//     features with a linear kernel (NewLinear64). Sources that supply float64
//     rows are solved in float64 throughout, for tight tolerances; float32
//     sources use float32 rows like LIBSVM.
//
// Across ranks (an engine whose communicator, engine.WithComm, has more than
// one rank), Train, TrainOneVsRest and TrainMulticlass take each rank's own
// rows and return on every rank the model one process trains on all of
// them: each rank holds the solver's variables and the kernel-row cache's
// columns of its rows, the working set is chosen from one record per rank
// exchanged twice per iteration, and the ranks reproduce the one-process
// run step for step (shard.go says how, and how ties are broken).
// The batched working-set solver (Params.Solver, batched.go) runs across
// ranks too, with two collectives per outer iteration (a selection exchange
// of every rank's best candidates, then a gather of the working set's
// variables and missing points), and gives the one-process batched model
// (batched_shard.go).
// Probability estimates are not available across ranks. Checkpoints
// (Params.Checkpoint) cover a binary C-SVC or an ε-SVR in one process or
// across ranks, where rank 0 writes one file that every rank resumes from
// on the same number of ranks (checkpoint.go).
//
// Conventions follow LIBSVM: the dual is min ½αᵀQα + pᵀα subject to
// yᵀα = 0 and 0 ≤ α_i ≤ C_i, Q_ij = y_i y_j K(x_i, x_j); Solution.Obj is that
// minimum (LIBSVM's "obj"), so the maximisation form W(α) = Σα − ½αᵀQα of
// C-SVC is −Obj. The decision function is f(x) = Σ_i coef_i K(x_i, x) − ρ,
// with b = −ρ.
package svm
