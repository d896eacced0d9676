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
// Every pass over an m×m kernel matrix goes through the engine
// (DictProducts, RankUpdate, KernelBlock, ScoredArgMax); the small k×k
// algebra is gonum's.
package greedy
