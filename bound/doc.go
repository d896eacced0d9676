// Package bound evaluates the generalisation bounds of Hussain, Shawe-Taylor,
// Hardoon and Dhanjal, "Design and Generalization Analysis of Orthogonal
// Matching Pursuit Algorithms" (IEEE Trans. Inf. Theory 57(8), 2011), as pure
// functions of the quantities a trained model reports: the sample size m, the
// size k of the compression set (basis vectors), the number t of training
// errors, and the confidence δ.
//
//   - Compression (Theorem 2): any compression scheme, t = 0 and t > 0.
//   - KMP (Theorem 4) and sparse KCCA (Theorem 9, the same formula): VC
//     bound with logarithms to base 2 (the VC tail is 2^(−Em/2)), the union
//     over the m² pairs (k, t) already inside the formula.
//   - Subspace methods (Theorem 6, Corollary 1 for a kernel with κ(x,x) ≤ R):
//     the minimum over t ≤ k of the residual after t steps plus the
//     Hoeffding penalty.
//   - PCA, for comparison: the global Rademacher bound (Theorem 7) and the
//     local Rademacher bound of Blanchard et al. (Theorem 8, c = 80).
//
// Binomial coefficients are evaluated through log-gamma (math.Lgamma), so the
// bounds are exact, not Stirling approximations, for any m that fits an int.
// A bound of 1 or more says nothing about a 0/1 loss; Trivial reports that.
//
// Readings where the paper leaves a choice:
//
//   - Theorem 6 states the penalty with R/(2(m−t)); its proof (Hoeffding with
//     losses in [0, R]) gives R²/(2(m−t)). Subspace uses R², which is the same
//     for R = 1 (Corollary 1, the Gaussian kernel).
//   - Theorem 8's eigenvalues are those of the normalised kernel matrices K/m
//     and K̄/m (Blanchard et al.'s empirical covariance operator), with K̄ the
//     centred kernel matrix (I − 11ᵀ/m) K (I − 11ᵀ/m); the paper writes
//     K̄ = (I − 11ᵀ)KᵀK(I − 11ᵀ), which we read as a misprint. ρ(k, m) in
//     its statement is ρ(R, k, m).
//   - Theorem 7's λ^{>t}(S) are the eigenvalues of the unnormalised K (the
//     bound divides by m).
//
// Extensions beyond the paper, used by the command line: a classifier's
// compression set is its basis (or support vectors), its training sign
// errors outside the compression set are t, and Theorem 2 is applied as
// stated; a dictionary that adds a constant atom counts it as one more
// basis function. These are the paper's arguments applied to other
// compression schemes, not theorems the paper states.
package bound
