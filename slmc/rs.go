package slmc

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// RSOptions tunes the reduced-set method.
type RSOptions struct {
	// Starts is the number of fixed-point runs per new vector, started at
	// the expansion vectors where the residual |ψ(s)| is largest; the run
	// with the largest |⟨ψ, φ(z)⟩| is kept. Default 3.
	Starts int
	// MaxIter bounds the fixed-point iterations of one run. Default 200.
	MaxIter int
	// Tol stops a run when ‖z_new − z‖² ≤ Tol·(1 + ‖z‖²). Default 1e-12.
	Tol float64
}

func (o RSOptions) withDefaults() RSOptions {
	if o.Starts <= 0 {
		o.Starts = 3
	}
	if o.MaxIter <= 0 {
		o.MaxIter = 200
	}
	if !(o.Tol > 0) {
		o.Tol = 1e-12
	}
	return o
}

// RSResult is the outcome of ReducedSet.
type RSResult struct {
	Model *Model
	// Residual is ‖w − Σ_u β_u φ(z_u)‖² / ‖w‖², the relative squared
	// feature-space distance between the expansion and its reduced set
	// (objective (4) of the paper).
	Residual float64
}

// ReducedSet approximates the expansion w = Σ_i c_i φ(s_i) by nz vectors
// with Burges' reduced-set method for Gaussian kernels (Burges 1996;
// Schölkopf & Smola 2002, §18.2): vectors are added greedily, each one the
// fixed point z = Σ_m γ_m K(u_m, z) u_m / Σ_m γ_m K(u_m, z) of the current
// residual expansion Σ_m γ_m φ(u_m) = w − Σ_{v<u} β_v φ(z_v), and after each
// addition all coefficients are refitted by least squares,
// β = Kz⁻¹ K(Z, S) c (eq. 47). The bias is the expansion's. Only the RBF
// kernel is supported.
func ReducedSet(x *Expansion, nz int, opt RSOptions) (*RSResult, error) {
	if err := x.Validate(); err != nil {
		return nil, err
	}
	if err := checkRBF("reduced set", x.Kernel); err != nil {
		return nil, err
	}
	if nz < 1 {
		return nil, fmt.Errorf("slmc: reduced set: the number of vectors must be ≥ 1, got %d", nz)
	}
	opt = opt.withDefaults()
	k := x.Kernel
	s := toDense(x.Vectors)
	ns, d := s.Dims()
	c := x.Coef
	kss := mat.NewDense(ns, ns, nil)
	kernelRef(kss, k, s, s, nil)
	fs := mat.NewVecDense(ns, nil)
	fs.MulVec(kss, mat.NewVecDense(ns, c))
	wNorm := mat.Dot(fs, mat.NewVecDense(ns, c)) // ‖w‖²
	if !(wNorm > 0) {
		return nil, fmt.Errorf("slmc: reduced set: the expansion has zero norm in feature space")
	}

	z := mat.NewDense(nz, d, nil)
	ksz := make([][]float64, 0, nz) // columns K(S, z_u)
	var beta []float64
	zbuf := make([]float64, d)
	residual := make([]float64, ns)
	for u := range nz {
		// Residual at the expansion vectors: ψ(s_i) = (K_SS c)_i − Σ_v β_v K(s_i, z_v).
		copy(residual, fs.RawVector().Data)
		for v, col := range ksz {
			for i := range ns {
				residual[i] -= beta[v] * col[i]
			}
		}
		order := make([]int, ns)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			return -cmpFloat(math.Abs(residual[a]), math.Abs(residual[b]))
		})
		bestVal := -1.0
		bestZ := make([]float64, d)
		for _, start := range order[:min(opt.Starts, ns)] {
			copy(zbuf, s.RawRowView(start))
			val := rsFixedPoint(zbuf, s, c, z.Slice(0, u, 0, d), beta, k.Gamma, opt)
			if val > bestVal {
				bestVal = val
				copy(bestZ, zbuf)
			}
		}
		copy(z.RawRowView(u), bestZ)
		col := make([]float64, ns)
		for i := range ns {
			col[i] = math.Exp(-k.Gamma * sqDist(s.RawRowView(i), bestZ))
		}
		ksz = append(ksz, col)
		// Least-squares refit of all coefficients: β = Kz⁻¹ K(Z, S) c.
		zu := mat.DenseCopyOf(z.Slice(0, u+1, 0, d))
		g := make([]float64, u+1)
		for v, cv := range ksz {
			for i := range ns {
				g[v] += cv[i] * c[i]
			}
		}
		var err error
		beta, err = solveKz(kernelZZ(k, zu), g)
		if err != nil {
			return nil, fmt.Errorf("slmc: reduced set, vector %d: %w", u+1, err)
		}
	}
	// ‖w − Σβφ(z)‖² = ‖w‖² − 2βᵀg + βᵀKzβ.
	kz := kernelZZ(k, z)
	g := make([]float64, nz)
	for v, cv := range ksz {
		for i := range ns {
			g[v] += cv[i] * c[i]
		}
	}
	bv := mat.NewVecDense(nz, beta)
	var kb mat.VecDense
	kb.MulVec(kz, bv)
	res := wNorm - 2*mat.Dot(bv, mat.NewVecDense(nz, g)) + mat.Dot(bv, &kb)
	return &RSResult{
		Model:    newModel("rs", k, z, beta, x.Bias),
		Residual: math.Max(res, 0) / wNorm,
	}, nil
}

// rsFixedPoint iterates z ← Σ_m γ_m K(u_m, z) u_m / Σ_m γ_m K(u_m, z) over
// the residual expansion (s_i with c_i, z_v with −β_v) starting at z (updated
// in place), and returns ⟨ψ, φ(z)⟩², the decrease of the squared residual
// norm that z brings with its optimal coefficient (K(z, z) = 1).
func rsFixedPoint(z []float64, s *mat.Dense, c []float64, zs mat.Matrix, beta []float64, gamma float64, opt RSOptions) float64 {
	ns, d := s.Dims()
	nzPrev, _ := zs.Dims()
	var zd *mat.Dense
	if nzPrev > 0 {
		zd = zs.(*mat.Dense)
	}
	num := make([]float64, d)
	proj := func(z []float64, accumulate bool) float64 {
		var den float64
		if accumulate {
			clear(num)
		}
		add := func(u []float64, coef float64) {
			w := coef * math.Exp(-gamma*sqDist(u, z))
			den += w
			if accumulate {
				for j, v := range u {
					num[j] += w * v
				}
			}
		}
		for i := range ns {
			add(s.RawRowView(i), c[i])
		}
		for v := range nzPrev {
			add(zd.RawRowView(v), -beta[v])
		}
		return den
	}
	for range opt.MaxIter {
		den := proj(z, true)
		if math.Abs(den) < 1e-300 {
			break
		}
		var step, zz float64
		for j := range d {
			nv := num[j] / den
			dz := nv - z[j]
			step += dz * dz
			zz += nv * nv
			z[j] = nv
		}
		if step <= opt.Tol*(1+zz) {
			break
		}
	}
	p := proj(z, false)
	if math.IsNaN(p) {
		return -1
	}
	return p * p
}

// solveKz returns Kz⁺g through the guarded whitening T (Kz⁺ = TᵀT).
func solveKz(kz *mat.SymDense, g []float64) ([]float64, error) {
	t, _, _, err := whitener(kz)
	if err != nil {
		return nil, err
	}
	r, nz := t.Dims()
	tg := mat.NewVecDense(r, nil)
	tg.MulVec(t, mat.NewVecDense(nz, g))
	out := mat.NewVecDense(nz, nil)
	out.MulVec(t.T(), tg)
	return out.RawVector().Data, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
