// Package bpdn solves Girosi's modified basis-pursuit de-noising problem
// (F. Girosi, "An equivalence between sparse approximation and support
// vector machines", Neural Computation 10:6, 1998) directly, without SMO:
//
//	min_a  E[a] = ½‖f − Σ_i a_i K(·, x_i)‖²_H + ε‖a‖₁                  (17)
//	       subject to Σ_i a_i = 0                                        (19, 20)
//	       and, for finite C, |a_i| ≤ C                      (Appendix B.2, C)
//
// By the reproducing property (21, 22), for noiseless data y_i = f(x_i),
//
//	E[a] = ½‖f‖²_H − aᵀy + ½aᵀKa + ε‖a‖₁                                 (23)
//
// so, up to the constant ½‖f‖²_H, the problem is the quadratic programme
// (25)–(26), which with a⁺ → α*, a⁻ → α is the ε-SVR dual (8)–(9) with
// C = ∞, and with the box |a_i| ≤ C the finite-C ε-SVR (Problem B.2; the
// noisy case of Appendix C). Objective returns the value of (25),
// −aᵀy + ½aᵀKa + ε‖a‖₁, which equals the SVR dual objective R of (8).
//
// # Parameter correspondence
//
//   - ε: the ℓ1 weight of (17) = the SVR tube half-width of (6) = LIBSVM's -p.
//     ε = 0 gives the interpolant a = K⁻¹(y − b1) (every point a support
//     vector); ε ≥ (max y − min y)/2 gives a = 0.
//   - C: +Inf (math.Inf(1)) is Girosi's noiseless problem, the hard ε-tube
//     that LIBSVM cannot solve; a finite C is the box |a_i| ≤ C of Problem
//     B.2 = LIBSVM's -c.
//     The factors agree: Girosi's (2) is C·Σ|y_i − f(x_i)|_ε + ½Φ[f], which
//     is LIBSVM's primal ½‖w‖² + C·Σ(ξ_i + ξ*_i), and both duals carry the
//     ½ on the quadratic term only, so Objective equals LIBSVM's "obj".
//   - a: a_i = α*_i − α_i in Girosi's notation (7, 24). LIBSVM names the two
//     multipliers the other way round (its α_i has linear term ε − y_i, i.e.
//     Girosi's α*_i) and writes the coefficient as α_i − α*_i: the values
//     are the same, a is exactly LIBSVM's sv_coef and svm.SVRCoef.
//   - b: the bias of f(x) = Σ a_i K(x, x_i) + b is the multiplier ν of the
//     constraint Σa = 0 with the Lagrangian written L(a, ν) = E[a] + ν·Σa_i
//     (stationarity: y_i − (Ka)_i − ν = ε·sign(a_i) on the support). LIBSVM
//     stores ρ = −b. Where no coefficient is strictly inside (0, C) the bias
//     is any value of an interval; the midpoint is returned, as LIBSVM does.
//   - Girosi's paper drops b (his RKHS contains the constants); this package
//     keeps it, as the SVR (7) and LIBSVM do, so the two solvers' outputs are
//     comparable one to one.
//
// # Method
//
// Solve works on a float64 Gram matrix. A first phase runs coordinate
// descent with soft thresholding, a_i ← clip(S(y_i − ν − Σ_{j≠i} K_ij a_j, ε)
// / K_ii, ±C), for a fixed ν, and searches ν by bracketing and regula falsi
// (Σa(ν) is continuous, piecewise linear and non-increasing in ν); it gives
// the support and signs. The second phase is an exact primal active-set
// method for the sign-fixed problem: on the free set F it solves
//
//	K_FF a_F + ν1 = y_F − ε s_F − K_FU a_U,   1ᵀa_F = −1ᵀa_U
//
// in float64 (incremental Cholesky of K_FF + ρ11ᵀ, ρ = max K_ii, which is
// positive definite exactly when K_FF is on the hyperplane Σa_F = const —
// all the step needs — and the Schur complement for ν, with one step of
// iterative refinement), takes the longest sign- and box-feasible step
// towards that solution, and frees the most violating variable when the KKT
// conditions fail. It stops when every KKT condition holds to Params.Tol (or
// to the rounding floor of computing Ka, which only large coefficients
// reach), so the answer does not depend on the first phase (which only
// saves iterations) and is exact up to rounding.
//
// Only the free set's Gram matrix is factored, never the whole K: with
// C = ∞ the Gram matrix may be singular, as it numerically is for RBF
// kernels on more than a few hundred points, because the problem is well
// posed on its support. A violating variable whose column is numerically
// dependent on the free set's is moved along the zero-curvature direction
// (the one that keeps Σa = 0) to the first free variable that reaches zero,
// and the two swap. With C = ∞ a direction that nothing blocks, with
// Kd = 0 to rounding, proves the hard tube infeasible (duplicated points
// whose targets differ by more than 2ε): Solve returns an *InfeasibleError
// (wrapping ErrInfeasible and ErrSingular) with a lower bound on the
// largest violation that every f and b leave. When the tube would need
// coefficients beyond float64's resolution (the violators' columns are
// dependent on the support's, yet no proof of infeasibility is found),
// Solve refuses with an error wrapping ErrSingular. With finite C the same
// steps apply; a variable that cannot move is not freed (see
// Solution.Converged).
//
// Kernel values are computed in float64 (Gram: pursuit.Kernel.EvalRows of
// every pair, the same bits on every backend): float32 values would make a
// numerically singular RBF matrix indefinite at the eigenvalues a hard tube
// lives on. bpdn and svm.SolveSVR on svm.NewGram64 of the same matrix
// solve the same problem, and Compare certifies that they agree. A bpdn
// model predicts with float64 kernel values too (package learn). Train
// returns an svm.Model of type EpsilonSVR, written by Model.WriteLIBSVM as a
// LIBSVM epsilon_svr model that svm-predict reads.
package bpdn
