// Package enginetest holds checks of the engine's operations that every
// backend must pass through the engine: the CPU backends through the
// engine's host fallbacks (engine's own tests) and the CUDA backend through
// its resident capabilities (package cuda's tagged tests, on a GPU or under
// the CPU stand-in for libcuda), and RefusesSeveralRanks, the check that a
// training function which does not split its rows refuses several ranks.
package enginetest
