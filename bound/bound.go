package bound

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
)

// ErrInput is wrapped by every error for arguments a bound is not defined
// for (δ outside (0, 1), k > m, t > m − k, no points left outside the
// compression and error sets, negative eigenvalues).
var ErrInput = pursuit.Tag(errors.New("bound: invalid input"), pursuit.ErrBadInput)

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// Trivial reports whether a bound on a probability (a 0/1 loss) says
// nothing, that is, whether it is at least 1.
func Trivial(value float64) bool { return !(value < 1) }

// LogChoose returns ln C(n, k) through log-gamma; it is exact to rounding
// for every n that fits an int. It returns −Inf when k < 0 or k > n.
func LogChoose(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	if k == 0 || k == n {
		return 0
	}
	return lgamma(float64(n)+1) - lgamma(float64(k)+1) - lgamma(float64(n-k)+1)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// checkDelta rejects δ outside (0, 1).
func checkDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return inputErr("δ = %v, want 0 < δ < 1", delta)
	}
	return nil
}

// checkKT rejects a compression set and error set that do not leave at
// least one point of the m: 0 ≤ k ≤ m, 0 ≤ t ≤ m − k, m − k − t ≥ 1.
func checkKT(m, k, t int) error {
	switch {
	case m < 1:
		return inputErr("m = %d training points, want at least 1", m)
	case k < 0 || k > m:
		return inputErr("k = %d basis vectors with m = %d points, want 0 ≤ k ≤ m", k, m)
	case t < 0 || t > m-k:
		return inputErr("t = %d errors with m − k = %d points outside the compression set, want 0 ≤ t ≤ m − k", t, m-k)
	case m-k-t < 1:
		return inputErr("m − k − t = 0 (m = %d, k = %d, t = %d): no points are left to bound the error on", m, k, t)
	}
	return nil
}

// Compression returns Theorem 2, the sample compression bound on the true
// error of a classifier reconstructed from k of its m training points that
// errs on t training points outside them:
//
//	t = 0: (ln C(m,k) + ln(m/δ)) / (m − k)
//	t > 0: (ln C(m−k,t) + ln C(m,k) + ln(m²/δ)) / (m − k − t)
func Compression(m, k, t int, delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkKT(m, k, t); err != nil {
		return 0, err
	}
	fm := float64(m)
	if t == 0 {
		return (LogChoose(m, k) + math.Log(fm/delta)) / float64(m-k), nil
	}
	return (LogChoose(m-k, t) + LogChoose(m, k) + math.Log(fm*fm/delta)) / float64(m-k-t), nil
}

// xlog2 returns a·log2(b/a·c) for a > 0 and its limit 0 for a = 0: the
// terms k·log2(em/k) and t·log2(e(m−k)/t) of Theorem 4.
func xlog2(a, num float64) float64 {
	if a == 0 {
		return 0
	}
	return a * math.Log2(num/a)
}

// KMP returns Theorem 4, the bound on the probability that kernel matching
// pursuit with k basis vectors, trained on m points and off by more than α
// on t of them, is off by more than α on a new point:
//
//	2/(m−k−t) · [ (k+1)·log2(4e(m−k−t)/(k+1)) + k·log2(em/k)
//	              + t·log2(e(m−k)/t) + log2(2m²/δ) ]
//
// Logarithms are to base 2 (the VC tail is 2^(−Em/2)); the union over the
// m² choices of (k, t) is inside the last term. k·log2(em/k) and
// t·log2(e(m−k)/t) are 0 for k = 0 and t = 0.
func KMP(m, k, t int, delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkKT(m, k, t); err != nil {
		return 0, err
	}
	fm, fk, ft := float64(m), float64(k), float64(t)
	n := fm - fk - ft
	s := xlog2(fk+1, 4*math.E*n) + xlog2(fk, math.E*fm) + xlog2(ft, math.E*(fm-fk)) + math.Log2(2*fm*fm/delta)
	return 2 / n * s, nil
}

// SKCCA returns Theorem 9, the bound for one canonical direction of sparse
// kernel CCA with k basis pairs and t training pairs whose projections
// differ by more than α. It is Theorem 4's formula.
func SKCCA(m, k, t int, delta float64) (float64, error) {
	return KMP(m, k, t, delta)
}

// SubspacePenalty returns the penalty term of Theorem 6 for a compression
// set of t points:
//
//	sqrt( R²/(2(m−t)) · [ t·ln(em/t) + ln(2m/δ) ] )
//
// with R the bound on the loss (R = sup κ(x,x) for the squared residual in
// feature space; 1 for the Gaussian kernel, Corollary 1).
func SubspacePenalty(m, t int, r, delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkKT(m, t, 0); err != nil {
		return 0, err
	}
	if !(r > 0) || math.IsInf(r, 0) {
		return 0, inputErr("R = %v, want a finite R > 0 (R = sup κ(x,x))", r)
	}
	fm, ft := float64(m), float64(t)
	c := math.Log(2 * fm / delta)
	if t > 0 {
		c += ft * math.Log(math.E*fm/ft)
	}
	return math.Sqrt(r * r / (2 * (fm - ft)) * c), nil
}

// SubspaceResult is the value of Theorem 6 at one k with the t that
// attains the minimum.
type SubspaceResult struct {
	Value float64 // the bound
	T     int     // the argmin t (1 ≤ T ≤ k)
}

// Subspace returns Theorem 6 (Corollary 1 for R = 1) at k = len(resid):
//
//	min_{1≤t≤k} [ resid[t−1] + SubspacePenalty(m, t, R, δ) ]
//
// where resid[t−1] is the empirical residual loss after t steps, the mean
// of ‖x_i − P_t(x_i)‖² over the m − t training points outside the
// compression set.
func Subspace(m int, resid []float64, r, delta float64) (SubspaceResult, error) {
	k := len(resid)
	if k == 0 {
		return SubspaceResult{}, inputErr("no residuals: want the residual after each of k ≥ 1 steps")
	}
	if k >= m {
		return SubspaceResult{}, inputErr("k = %d steps with m = %d points, want k < m", k, m)
	}
	best := SubspaceResult{Value: math.Inf(1)}
	for t := 1; t <= k; t++ {
		if v := resid[t-1]; !(v >= 0) || math.IsInf(v, 0) {
			return SubspaceResult{}, inputErr("residual after %d steps is %v, want a finite value ≥ 0", t, v)
		}
		p, err := SubspacePenalty(m, t, r, delta)
		if err != nil {
			return SubspaceResult{}, err
		}
		if v := resid[t-1] + p; v < best.Value {
			best = SubspaceResult{Value: v, T: t}
		}
	}
	return best, nil
}

// SubspaceCurve returns Theorem 6 at every k = 1..len(resid) (the running
// minimum of the bracket).
func SubspaceCurve(m int, resid []float64, r, delta float64) ([]float64, error) {
	out := make([]float64, len(resid))
	for k := 1; k <= len(resid); k++ {
		res, err := Subspace(m, resid[:k], r, delta)
		if err != nil {
			return nil, err
		}
		out[k-1] = res.Value
	}
	return out, nil
}

// checkEigen rejects eigenvalues that are not finite or are below −1e-6 of
// the sum of their magnitudes (the rounding of a float32 kernel matrix
// makes small negative ones; they are clamped to 0).
func checkEigen(what string, lambda []float64) ([]float64, error) {
	var sum float64
	for _, v := range lambda {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, inputErr("%s eigenvalue %v, want finite values", what, v)
		}
		sum += math.Abs(v)
	}
	out := make([]float64, len(lambda))
	for i, v := range lambda {
		if v < -1e-6*sum-1e-12 {
			return nil, inputErr("%s eigenvalue %d is %v < 0: the kernel matrix is not positive semi-definite", what, i, v)
		}
		out[i] = max(v, 0)
	}
	return out, nil
}

// tails returns tail[t] = Σ_{j ≥ t} lambda_j (0-based), sorted descending
// first; tail[len] = 0.
func tails(lambda []float64) []float64 {
	s := append([]float64(nil), lambda...)
	sortDesc(s)
	tail := make([]float64, len(s)+1)
	for i := len(s) - 1; i >= 0; i-- {
		tail[i] = tail[i+1] + s[i]
	}
	return tail
}

func sortDesc(s []float64) {
	slices.Sort(s)
	slices.Reverse(s)
}

// GlobalPCA returns Theorem 7 (Shawe-Taylor et al.), the global Rademacher
// bound on the expected squared residual of kernel PCA with k components:
//
//	min_{1≤t≤k} [ λ^{>t}/m + (1+√t)/√m · sqrt((2/m) Σ κ(x_i,x_i)²) ]
//	+ R² sqrt(18 ln(2m/δ)/m)
//
// lambda are the eigenvalues of the m×m kernel matrix K (any order), diag
// its diagonal κ(x_i, x_i), R² = sup κ(x, x).
func GlobalPCA(k int, lambda, diag []float64, r2, delta float64) (float64, error) {
	m := len(diag)
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if m < 1 || len(lambda) != m {
		return 0, inputErr("%d eigenvalues and %d diagonal entries, want the same m ≥ 1", len(lambda), m)
	}
	if k < 1 || k > m {
		return 0, inputErr("k = %d components with m = %d points, want 1 ≤ k ≤ m", k, m)
	}
	lam, err := checkEigen("kernel matrix", lambda)
	if err != nil {
		return 0, err
	}
	tail := tails(lam)
	fm := float64(m)
	var s2 float64
	for _, v := range diag {
		s2 += v * v
	}
	spread := math.Sqrt(2 / fm * s2)
	best := math.Inf(1)
	for t := 1; t <= k; t++ {
		best = min(best, tail[t]/fm+(1+math.Sqrt(float64(t)))/math.Sqrt(fm)*spread)
	}
	return best + r2*math.Sqrt(18*math.Log(2*fm/delta)/fm), nil
}

// LocalPCAConstant is the constant c of Theorem 8 the paper plots with.
const LocalPCAConstant = 80

// LocalPCA returns Theorem 8 (Blanchard, Bousquet & Zwald), the local
// Rademacher bound on the expected squared residual of kernel PCA with k
// components:
//
//	c · ( sqrt( Σ_{i>k} λ_i · (ρ + R ln(1/δ)/m) ) + ρ + R ln(1/δ)/m ),
//	ρ = inf_{t≥0} { R t/m + sqrt( (k/m) Σ_{j>t} λ̄_j ) }
//
// lambda are the eigenvalues of the kernel matrix and lambdaC those of the
// centred one, both either divided by m (Blanchard et al.'s empirical
// covariance operator) or not (the theorem as printed, λ_i(K); with these
// the bound decreases in k as in the paper's Figures 4 and 5: bench's
// Figure 2 analogue has its minimum at k = 150 this way, at k = 1 with K/m);
// R = sup κ(x, x), c the constant (the paper plots c = 80,
// LocalPCAConstant).
func LocalPCA(k int, lambda, lambdaC []float64, r, c, delta float64) (float64, error) {
	m := len(lambda)
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if m < 1 || len(lambdaC) != m {
		return 0, inputErr("%d and %d eigenvalues, want the same m ≥ 1 for K and the centred K̄", m, len(lambdaC))
	}
	if k < 1 || k > m {
		return 0, inputErr("k = %d components with m = %d points, want 1 ≤ k ≤ m", k, m)
	}
	if !(r > 0) || math.IsInf(r, 0) || !(c > 0) || math.IsInf(c, 0) {
		return 0, inputErr("R = %v, c = %v, want finite values > 0", r, c)
	}
	lam, err := checkEigen("kernel matrix", lambda)
	if err != nil {
		return 0, err
	}
	lamC, err := checkEigen("centred kernel matrix", lambdaC)
	if err != nil {
		return 0, err
	}
	tail, tailC := tails(lam), tails(lamC)
	fm, fk := float64(m), float64(k)
	rho := math.Inf(1)
	for t := 0; t <= m; t++ {
		rho = min(rho, r*float64(t)/fm+math.Sqrt(fk/fm*tailC[t]))
	}
	extra := r * math.Log(1/delta) / fm
	return c * (math.Sqrt(tail[k]*(rho+extra)) + rho + extra), nil
}
