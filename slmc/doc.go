// Package slmc builds sparse kernel classifiers with an explicitly chosen
// number Nz of expansion vectors (XVs): the sparse large margin classifier
// (SLMC) of Wu, Schölkopf & Bakır (JMLR 2006), their sparse kernel Fisher
// discriminant (SKFD, Appendix A), and the baselines the paper compares
// against — Burges' reduced set (RS), the modified reduced set (MRS), the
// reduced SVM (RSVM) and the modified RSVM (MRSVM).
//
// All of them produce a Model f(x) = Σ_u β_u K(z_u, x) + b. For fixed XVs Z,
// the package builds Ψ = K(Z, X) in float64 and Kz = K(Z, Z) =
// VΛVᵀ in float64 (gonum's EigenSym; eigenvalues below 1e-9·λmax are
// dropped, i.e. a pseudo-inverse), whitens with T = Λ^{-1/2}Vᵀ, trains the
// exact C-SVC with bias on φ_z(x_i) = Tψ_z(x_i) with package svm's solver
// (linear kernel on explicit float64 features) and gets β = Kz⁻¹ΨYα (eq. 45).
// SLMC minimises the SVM optimum W(Z) = Σα − ½αᵀYΨᵀKz⁻¹ΨYα over Z with
// gonum's L-BFGS, each evaluation warm-started from the previous α; for the
// Gaussian kernel K(x, z) = exp(−γ‖x−z‖²) the gradient is
//
//	∂W/∂z_u = −2γ β_u Σ_i a_i K(z_u, x_i)(x_i − z_u) + 2γ β_u Σ_v β_v Kz_uv (z_v − z_u),
//
// with a = Yα, computed as if α did not depend on Z (Corollary 2).
//
// Kernels: SLMC, SKFD and RS need the derivative of the kernel in its
// argument and support the RBF kernel only; every other kernel is rejected
// with an error wrapping ErrKernel.
//
// Duplicate training rows: SLMC and SKFD merge each group of identical rows
// with the same label into one point whose count multiplies its C in the
// inner SVM (svm's per-example weights) and its weight in SKFD's class means
// and scatter, which leaves W(Z), its gradient and the classifier unchanged
// and makes the problem smaller; rows with equal
// features and different labels stay separate points. The inner SVM is
// solved by SMO, warm-started; on stiff problems (large C on few, low-rank
// features, where SMO crawls) an interior-point method takes over after
// max(2000, 50·N) SMO iterations, for up to 1000 points. Its dual
// residual is held to 10⁻¹⁰ relative or to its rounding floor
// √N·ε·maxᵢ Σⱼ|Q_ij α_j| (at C = 10⁵ Qα cancels from terms of order 10⁶),
// whichever is larger; a solve that reaches its 200-iteration cap is still
// accepted when gap and residuals meet SolverOptions.Tol, the tolerance SMO
// was asked for (ipmReport.Loose), and fails otherwise.
//
// Past the SMO cache (n > 2,896 points at the default 64 MiB, where each
// missed kernel row costs a pass over the n×r features: about 30 minutes
// per L-BFGS iteration at n = 50,000, r = 1,050) the inner SVM is solved on
// the weight vector w = Σ α_i y_i φ_i instead (SolverOptions.Inner, rule
// in InnerAuto): working sets of 512 variables chosen from the exact
// gradient Y(Φw) − 1 by maximal violation, each solved by SMO on its
// 512×512 block, with LIBSVM's stopping rule checked on the full gradient
// after each, so it returns the same optimum and bias (checked against
// SMO on small problems: objective to 1e-9 relative, α to 1e-5·C, b to
// 1e-6). Without a warm start it starts from dual coordinate descent with
// the bias held fixed (Hsieh et al. 2008), made feasible.
//
// Why the minimisation of W(Z) stopped is Result.Stop (OptimStats), and
// what to do about it:
//
//   - StopConverged ("converged"): W changed by less than FuncTol over
//     FuncIters iterations. Nothing to do; a smaller FuncTol rarely helps.
//   - StopGradient ("gradient small"): a stationary point. Nothing to do;
//     another Seed or Init (InitKMeans) may find a better one.
//   - StopIterationCap ("iteration cap"): MaxIter iterations were used up
//     while W was still falling. Raise OptimOptions.MaxIter if the training
//     error (Progress.TrainError) was still improving.
//   - StopLineSearch ("line search failed"): L-BFGS found no lower W along
//     its direction, even after OptimOptions.Restarts restarts from the
//     best point. W(Z) has kinks where the inner SVM's set of support
//     vectors changes, and is only as exact as SolverOptions.Tol, so this
//     is common near a minimum and the best point is returned. If W fell
//     little from W0, tighten SolverOptions.Tol (say 1e-6), or try another
//     Seed or InitKMeans.
//
// RS (ReducedSet) adds one vector at a time by L-BFGS on ⟨ψ, φ(z)⟩² from
// several starts and refits all coefficients by least squares, so its
// residual RSResult.Residuals falls with every vector; then it refines all
// vectors jointly. Where those feature-space coefficients reproduce the
// SVM's decision values at its support vectors poorly (RSResult.DecisionRMS
// above 1/2), the coefficients and bias are refitted to those values by
// least squares (RSResult.Refit; RSOptions.FeatureSpaceCoef turns this
// off): with few vectors the feature-space residual can stay large, and
// where it falls decided the test error (on banana-like data it swung from
// 16% to 34% over 10 splits). MRS uses RS's vectors, which the refit does
// not move.
// Compress runs RS on machines of 2,048 vectors or more through the
// engine: the searches' kernel values against the SVs come from its
// float32 kernel blocks, and the residual at the start points and the
// least-squares right-hand sides from float64 kernel columns kept per
// added vector, O(ns·Nz) per vector where the float64 loops take O(ns²).
//
// Compress shrinks an existing C-SVC (an svm.Model, binary or one-vs-one as
// svm-train builds it) to a few expansion vectors per binary machine with
// SLMC (started from a random subset of the machine's support vectors,
// with the SVM's C, by default its largest |coefficient|), MRS or RS, given
// the training rows. One-vs-one pairs are compressed separately and share
// no vectors; Compressed.SVM writes the result back in LIBSVM's layout.
//
// Train and TrainSKFD checkpoint (Config.Checkpoint, package checkpoint):
// since gonum's L-BFGS keeps its memory to itself, a checkpoint records
// every evaluation's W and ∇W, and a resumed run replays them through
// L-BFGS without evaluating W again, then goes on with SLMC's warm start
// restored, bit for bit on the same backend and thread count. The file
// grows by Nz·d numbers per evaluation (USPS 3 vs 8 with Nz = 12: about
// 5.4 MB after 200 iterations, against a 37 KB model).
//
// Dense and sparse storage of the same training rows give the same models,
// bit for bit, on every backend: Ψ's dot products z_u·x_i are sums over
// the row's non-zeros in feature order (package internal/dot64: an AVX2
// kernel and its pure-Go reference round alike; a dense row's zeros add
// nothing), the squared norms and the gradient's Σ_i c_i x_i likewise, and
// nothing else the optimisation reads depends on the storage. (Ψ came from
// the engine's float32 kernel blocks before, which round differently for
// dense and sparse operands and from backend to backend; L-BFGS over Z,
// which is not convex, grew that last bit into decisions a few percent
// apart after 200 iterations.) Predictions (Model.Decision) still go
// through the engine's float32 kernels, as every model's do.
//
// Model.Save and Load store a model in a versioned, checksummed file;
// Load refuses truncated, damaged and over-long files with an error.
package slmc
