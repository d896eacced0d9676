// Package kmp implements kernel matching pursuit (Vincent & Bengio, "Kernel
// Matching Pursuit", Machine Learning 48, 2002): greedy sparse kernel
// expansions f(x) = b + Σ_n α_n K(x, x_{γ_n}) built one basis function at a
// time from a dictionary of kernel functions centred on training points.
//
// Three variants are provided for the squared loss: basic matching pursuit
// (the paper's Figure 1), back-fitting (orthogonal matching pursuit) and
// pre-fitting (orthogonal least squares, the paper's main algorithm, which
// picks at every step the function that minimises the residual with all
// coefficients refitted). Non-squared losses (tanh with targets ±0.65,
// logistic, exponential) follow the paper's Section 3: the residual is the
// negative gradient, the new coefficient comes from a line search, and all
// coefficients are re-optimised every few steps (the paper by conjugate
// gradients; here by Newton's method, to a gradient 1e-8 of its value at
// zero).
//
// The dictionary is stored as an M×l float32 matrix, one row per candidate
// function evaluated at the l training points, and every step streams it
// once through the engine's batched dictionary product; kernels are
// evaluated through the engine's kernel blocks. A dictionary over the
// engine's memory budget is instead recomputed block by block every step
// (Streamed), and Config.Stochastic searches a random active set of
// functions per step (stochastic KMP, Popovici, Bengio & Thiran 2005);
// PlanTraining says which mode runs. On a device that keeps kernel blocks
// (CUDA) the deterministic search computes the dictionary where the blocks
// are kept rather than send a host copy over the bus every step
// (Plan.Resident): within half the device's free memory it is one block,
// computed once and kept there, and a larger one is recomputed there block
// by block every step. Several outputs (one-vs-rest) on an in-memory or device
// dictionary train in lock-step, one pass per step for all
// of them (lockstep.go), and each chooses exactly what it chooses alone.
// Full-search pre-fitting puts the residual into the pass only every few
// steps and otherwise updates ⟨d_k, R⟩ from the ⟨d_k, q⟩ it needs anyway,
// halving the vectors per pass (fit.go). Only the search differs between
// the modes (search.go): the same fitters (fit.go for the squared loss,
// general.go for the others) update the expansion. The package never
// touches a backend implementation directly, so it runs on every backend
// the engine offers.
//
// Back-fitting and pre-fitting keep the chosen atoms' orthonormal basis
// and refuse an atom numerically dependent on it (Config.Tol); basic
// matching pursuit, with any loss, keeps no basis and no chosen atom's
// values at the training points (its memory does not grow with the steps)
// and refuses an atom that is a copy of one in the expansion (the same
// kernel on a point with the same coordinates), since its step along a
// dependent atom is as good as any (repeat.go, general.go). Either way repeated training points give one basis
// function; when no eligible atom is left, training stops early and
// Output.Stop says why.
//
// Training records the whole learning curve (training and validation error
// and residual norm per step) and supports early stopping on a validation
// set. Models predict through the engine, report their size, and are saved
// in a versioned, checksummed file.
//
// With an engine whose communicator has several ranks (engine.WithComm,
// under mpirun), Train, TrainOneVsRest and TrainStochastic split the
// training rows across the ranks: each rank passes its own rows, every sum
// over rows is all-reduced, and every rank returns the single-process model
// of the concatenated rows (shard.go).
package kmp
