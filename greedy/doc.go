// Package greedy implements the matching-pursuit family of Hussain,
// Shawe-Taylor, Hardoon and Dhanjal ("Design and Generalization Analysis of
// Orthogonal Matching Pursuit Algorithms", IEEE Trans. Inf. Theory 57(8),
// 2011): generic matching pursuit is "maximise a criterion over the training
// points, then deflate", and the chosen points form a compression set whose
// size the bounds of package bound turn into a guarantee.
//
//   - Sparse kernel PCA (Algorithm 2 ≡ Smola & Schölkopf's Algorithm 6,
//     Theorem 5): FitKPCA. A pivoted incomplete Cholesky factorisation of
//     the kernel matrix whose pivot maximises ‖d_j‖²/K̂_jj, the decrease of
//     the trace of the residual kernel matrix; Transform gives new points'
//     features L⁻¹k_i(x) and residuals κ(x,x) − ‖z‖²; Residuals is the
//     empirical term of Corollary 1.
//   - Sparse kernel CCA (Algorithm 3): FitKCCA. Two views over the same
//     rows; the pair whose deflated columns correlate most (in absolute
//     value: a negative correlation is as good a direction) is chosen and
//     each view deflated one-sidedly by its own column; regularised CCA on
//     the centred k-dimensional Nyström projections gives the canonical
//     directions (see KCCA for the centring and scaling).
//   - MP-KFDA (Section V, after Diethe et al. 2009): TrainKFDA, a binary
//     classifier that chooses the column maximising the Fisher quotient
//     (d_jᵀy)²/(d_jᵀB d_j), deflates one-sidedly, and fits a regularised
//     Fisher direction on the chosen columns.
//
// The m×m kernel matrix is computed once through the engine and kept
// read-only (float32, within the engine's memory budget); every step's pass
// over it is one engine DictProducts (the explicit KPCA oracle uses
// RankUpdate), arg-maxes go through ScoredArgMax, new points through
// KernelBlock. The once-per-fit squared column norms (and SKCCA's row-wise
// ⟨K^x_j, K^y_j⟩) are summed in float64 in Go, as kmp does for its
// dictionary; the O(mk) per-step updates of the factor are plain Go loops
// split over the engine's threads, and the small k×k algebra is gonum's.
// Random candidate subsets use stochastic.Config's size rule and the sampler
// kmp uses (internal/activeset).
//
// Extensions beyond the paper, stated where they apply: SKCCA chooses by
// |correlation|; MP-KFDA's Fisher direction is regularised by a ridge
// relative to the trace of the within-class scatter; when K[i,i] of the
// chosen points is numerically singular the Nyström features add a small
// jitter (nystromFeatures).
package greedy
