package slmc

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit/svm"
)

// ipmMaxPoints bounds the number of training points for which the inner SVM
// falls back to the interior-point solver (it factors an n×n matrix per
// iteration).
const ipmMaxPoints = 1000

// errIPM is wrapped when the interior-point method does not converge.
var errIPM = errors.New("interior-point method did not converge")

// solveDualIPM solves the C-SVC dual on the explicit features phi (n×r),
//
//	min ½αᵀQα − Σα,  yᵀα = 0,  0 ≤ α_i ≤ u_i,  Q = (Yφ)(Yφ)ᵀ,
//
// with a primal-dual interior-point method (Mehrotra's predictor-corrector;
// each step solves (Q + D)Δα + Δν·y = h, yᵀΔα = −r_e with a Cholesky
// factorisation of Q + D). Unlike SMO its iteration count does not grow with
// C: it is the fallback for the stiff problems (large C on few, low-rank
// features) where SMO crawls. The bias is the multiplier ν of yᵀα = 0.
//
// It stops when the relative duality gap, the relative residual of yᵀα = 0
// and the dual residual r_d = Qα − 1 + νy − s + t are all below tol, where
// the dual residual is measured against the larger of tol·(1 + ‖Qα‖∞) and
// its rounding floor √n·ε·maxᵢ(Σⱼ|Q_ij α_j| + s_i + t_i + |ν| + 1): at
// C = 10⁵ on duplicate-heavy data Qα is a sum of terms of order 10⁶ that
// cancel to order 1, and no float64 iterate gets r_d below about 10⁻⁹
// (issue 30, item 3: the gap was at 10⁻¹¹ while r_d stalled at 2–14·10⁻¹⁰
// relative, within 5× of ε·Σ|Q||α|).
//
// If the iteration cap is reached first, the last iterate is still returned
// when its relative gap, |yᵀα| relative residual and absolute dual residual
// (in the units of SMO's KKT violation, the gradient Qα − 1) are below
// accept, the tolerance the outer problem asked SMO for; the report says so
// (ipmReport.Loose). Otherwise the error wraps errIPM.
func solveDualIPM(phi *mat.Dense, y, u []float64, tol, accept float64) (*svm.Solution, ipmReport, error) {
	n, r := phi.Dims()
	a := mat.NewDense(n, r, nil) // Yφ
	for i := range n {
		src, dst := phi.RawRowView(i), a.RawRowView(i)
		for j, v := range src {
			dst[j] = y[i] * v
		}
	}
	q := mat.NewSymDense(n, nil)
	q.SymOuterK(1, a)
	var umax, qscale float64
	for i, v := range u {
		umax = math.Max(umax, v)
		qscale = math.Max(qscale, q.At(i, i))
	}
	qscale = math.Max(qscale, 1e-300)
	// Start strictly inside the box, on yᵀα = 0: α_i = u_i/2 scaled per
	// class so the two classes balance.
	alpha := make([]float64, n)
	var sp, sn float64
	for i := range n {
		if y[i] > 0 {
			sp += u[i] / 2
		} else {
			sn += u[i] / 2
		}
	}
	m := math.Min(sp, sn)
	for i := range n {
		if y[i] > 0 {
			alpha[i] = u[i] / 2 * m / sp
		} else {
			alpha[i] = u[i] / 2 * m / sn
		}
	}
	// v = u − α is kept as its own variable: recomputing it loses all
	// precision when α_i is near a bound of 10⁵.
	v := make([]float64, n)
	for i := range n {
		v[i] = u[i] - alpha[i]
	}
	s := make([]float64, n) // multipliers of α ≥ 0
	t := make([]float64, n) // multipliers of α ≤ u
	for i := range n {
		s[i], t[i] = 1, 1
	}
	var nu, nuStep float64
	var lastGap, lastRd, lastRe, lastAbsRd, lastObj float64
	var rep ipmReport
	qa := make([]float64, n)
	rd := make([]float64, n)
	h := make([]float64, n)
	da, ds, dt := make([]float64, n), make([]float64, n), make([]float64, n)
	mm := mat.NewSymDense(n, nil)
	var chol mat.Cholesky
	const maxIter = 200
	for it := range maxIter {
		qav := mat.NewVecDense(n, qa)
		qav.MulVec(q, mat.NewVecDense(n, alpha))
		var re, gap, rdn, obj, qan, asum float64
		for i := range n {
			rd[i] = qa[i] - 1 + nu*y[i] - s[i] + t[i]
			re += y[i] * alpha[i]
			gap += alpha[i]*s[i] + v[i]*t[i]
			rdn = math.Max(rdn, math.Abs(rd[i]))
			qan = math.Max(qan, math.Abs(qa[i]))
			asum += alpha[i]
			obj += 0.5*alpha[i]*qa[i] - alpha[i]
		}
		// Relative criteria: at C = 10⁵ the terms of the residuals are of
		// order 10⁶, so absolute ones could never be met in float64.
		lastGap, lastRd, lastRe = gap/(1+math.Abs(obj)), rdn/(1+qan), math.Abs(re)/(1+asum)
		lastAbsRd, lastObj = rdn, obj
		if lastGap <= tol && lastRe <= tol {
			rdTol := tol * (1 + qan)
			if rdn > rdTol {
				floor := rdFloor(q, alpha, s, t, nu)
				rdTol = math.Max(rdTol, floor)
				rep.RdFloor = floor / (1 + qan)
			}
			if rdn <= rdTol {
				rep.Iter, rep.RelGap, rep.RelRd, rep.RelRe = it, lastGap, lastRd, lastRe
				return ipmSolution(alpha, u, nu, obj, it, gap), rep, nil
			}
		}
		mu := gap / float64(2*n)
		// M = Q + D, D = S/X + T/V.
		// A ridge, raised until the factorisation succeeds, keeps the
		// rank-deficient Q + D positive definite in floating point.
		factored := false
		for ridge := 1e-14 * qscale; ridge <= 1e-4*qscale && !factored; ridge *= 100 {
			mm.CopySym(q)
			for i := range n {
				mm.SetSym(i, i, q.At(i, i)+s[i]/alpha[i]+t[i]/v[i]+ridge)
			}
			factored = chol.Factorize(mm)
		}
		if !factored {
			return nil, rep, fmt.Errorf("%w: Q + D not positive definite at iteration %d", errIPM, it)
		}
		z := mat.NewVecDense(n, nil)
		// Q + D grows ill-conditioned as the iterates approach the
		// boundary (a mat.Condition error); the solve is still made, and
		// the step is what the method needs.
		if err := chol.SolveVecTo(z, mat.NewVecDense(n, y)); err != nil && !isCondition(err) {
			return nil, rep, fmt.Errorf("%w: %v", errIPM, err)
		}
		ytz := mat.Dot(mat.NewVecDense(n, y), z)
		// step solves the Newton system for complementarity targets
		// α_i s_i = sigmaMu − corrS_i, v_i t_i = sigmaMu − corrT_i.
		step := func(sigmaMu float64, corrS, corrT []float64) {
			for i := range n {
				rs := sigmaMu - alpha[i]*s[i]
				rt := sigmaMu - v[i]*t[i]
				if corrS != nil {
					rs -= corrS[i]
					rt -= corrT[i]
				}
				h[i] = -rd[i] + rs/alpha[i] - rt/v[i]
			}
			x := mat.NewVecDense(n, nil)
			_ = chol.SolveVecTo(x, mat.NewVecDense(n, h))
			dnu := (mat.Dot(mat.NewVecDense(n, y), x) + re) / ytz
			for i := range n {
				da[i] = x.AtVec(i) - dnu*z.AtVec(i)
				rs := sigmaMu - alpha[i]*s[i]
				rt := sigmaMu - v[i]*t[i]
				if corrS != nil {
					rs -= corrS[i]
					rt -= corrT[i]
				}
				ds[i] = (rs - s[i]*da[i]) / alpha[i]
				dt[i] = (rt + t[i]*da[i]) / v[i]
			}
			nuStep = dnu
		}
		maxStep := func() (float64, float64) {
			ap, ad := 1.0, 1.0
			for i := range n {
				if da[i] < 0 {
					ap = math.Min(ap, -alpha[i]/da[i])
				} else if da[i] > 0 {
					ap = math.Min(ap, v[i]/da[i])
				}
				if ds[i] < 0 {
					ad = math.Min(ad, -s[i]/ds[i])
				}
				if dt[i] < 0 {
					ad = math.Min(ad, -t[i]/dt[i])
				}
			}
			return ap, ad
		}
		// Predictor (affine scaling).
		step(0, nil, nil)
		ap, ad := maxStep()
		var gapAff float64
		for i := range n {
			gapAff += (alpha[i]+ap*da[i])*(s[i]+ad*ds[i]) + (v[i]-ap*da[i])*(t[i]+ad*dt[i])
		}
		sigma := math.Pow(gapAff/gap, 3)
		corrS, corrT := make([]float64, n), make([]float64, n)
		for i := range n {
			corrS[i] = da[i] * ds[i]
			corrT[i] = -da[i] * dt[i]
		}
		// Corrector.
		step(sigma*mu, corrS, corrT)
		ap, ad = maxStep()
		ap, ad = math.Min(1, 0.995*ap), math.Min(1, 0.995*ad)
		// One step length for the primal and the equality multiplier keeps
		// yᵀα = 0; the dual step may differ.
		for i := range n {
			alpha[i] += ap * da[i]
			v[i] -= ap * da[i]
			s[i] += ad * ds[i]
			t[i] += ad * dt[i]
		}
		nu += ad * nuStep
	}
	rep.Iter, rep.RelGap, rep.RelRd, rep.RelRe = maxIter, lastGap, lastRd, lastRe
	if lastGap <= accept && lastRe <= accept && lastAbsRd <= accept {
		rep.Loose = true
		var gap float64
		for i := range n {
			gap += alpha[i]*s[i] + v[i]*t[i]
		}
		return ipmSolution(alpha, u, nu, lastObj, maxIter, gap), rep, nil
	}
	return nil, rep, fmt.Errorf("%w in %d iterations (relative gap %.2g, dual residual %.2g, yᵀα %.2g)", errIPM, maxIter, lastGap, lastRd, lastRe)
}

// ipmReport describes how solveDualIPM stopped.
type ipmReport struct {
	Iter int
	// RelGap, RelRd and RelRe are the final relative duality gap, dual
	// residual and residual of yᵀα = 0.
	RelGap, RelRd, RelRe float64
	// RdFloor is the rounding floor of the dual residual (relative, as
	// RelRd) when it was needed to accept the solution, else 0.
	RdFloor float64
	// Loose is set when the iteration cap was reached and the solution was
	// accepted at the outer problem's tolerance instead.
	Loose bool
}

// rdFloor returns √n·ε·maxᵢ(Σⱼ|Q_ij α_j| + s_i + t_i + |ν| + 1), the size of
// the rounding error of the dual residual Qα − 1 + νy − s + t.
func rdFloor(q *mat.SymDense, alpha, s, t []float64, nu float64) float64 {
	n := len(alpha)
	var f float64
	for i := range n {
		var sa float64
		for j, a := range alpha {
			sa += math.Abs(q.At(i, j) * a)
		}
		f = math.Max(f, sa+s[i]+t[i]+math.Abs(nu)+1)
	}
	return math.Sqrt(float64(n)) * 0x1p-52 * f
}

func ipmSolution(alpha, u []float64, nu, obj float64, it int, gap float64) *svm.Solution {
	sol := &svm.Solution{Alpha: alpha, Bias: nu, Rho: -nu, Obj: obj, Iter: it, Gap: gap, Converged: true}
	for i, v := range alpha {
		if v > 1e-9*u[i] {
			sol.NumSV++
		}
		if v > u[i]*(1-1e-9) {
			sol.NumBSV++
		}
	}
	return sol
}

func isCondition(err error) bool {
	var c mat.Condition
	return errors.As(err, &c)
}
