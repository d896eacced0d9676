package slmc

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"gonum.org/v1/gonum/mat"
)

// eigenFloor is the relative threshold below which eigenvalues of Kz are
// treated as zero: directions with λ ≤ eigenFloor·λmax are dropped from the
// whitening (a pseudo-inverse), which is what happens when two expansion
// vectors (nearly) coincide.
const eigenFloor = 1e-9

// basis is the whitened empirical kernel map for fixed expansion vectors Z:
// Kz = K(Z, Z) = VΛVᵀ, T = Λ^{-1/2}Vᵀ, Ψ = K(Z, X) and φ_z(x_i) = Tψ_z(x_i).
type basis struct {
	z       *mat.Dense    // Nz×d
	kz      *mat.SymDense // Nz×Nz, float64
	psi     *mat.Dense    // Nz×N
	t       *mat.Dense    // r×Nz, r ≤ Nz kept eigen-directions
	lambda  []float64     // the r kept eigenvalues
	dropped int           // Nz − r
}

// kernelZZ returns K(Z, Z) in float64.
func kernelZZ(k pursuit.Kernel, z *mat.Dense) *mat.SymDense {
	nz, _ := z.Dims()
	full := mat.NewDense(nz, nz, nil)
	kernelRef(full, k, z, z, nil)
	s := mat.NewSymDense(nz, nil)
	for i := range nz {
		for j := i; j < nz; j++ {
			s.SetSym(i, j, 0.5*(full.At(i, j)+full.At(j, i)))
		}
	}
	return s
}

// whitener computes T = Λ^{-1/2}Vᵀ of a symmetric positive semi-definite
// matrix, keeping the eigen-directions with λ > eigenFloor·λmax.
func whitener(kz *mat.SymDense) (t *mat.Dense, lambda []float64, dropped int, err error) {
	nz := kz.SymmetricDim()
	var es mat.EigenSym
	if !es.Factorize(kz, true) {
		return nil, nil, 0, fmt.Errorf("eigendecomposition of the %d×%d matrix K(Z, Z) failed", nz, nz)
	}
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	lmax := vals[nz-1]
	if !(lmax > 0) || math.IsInf(lmax, 0) {
		return nil, nil, 0, fmt.Errorf("K(Z, Z) has no positive eigenvalue (largest %v)", lmax)
	}
	var keep []int
	for j, l := range vals {
		if l > eigenFloor*lmax {
			keep = append(keep, j)
		}
	}
	t = mat.NewDense(len(keep), nz, nil)
	lambda = make([]float64, len(keep))
	for r, j := range keep {
		lambda[r] = vals[j]
		s := 1 / math.Sqrt(vals[j])
		row := t.RawRowView(r)
		for i := range nz {
			row[i] = s * v.At(i, j)
		}
	}
	return t, lambda, nz - len(keep), nil
}

// newBasis builds the whitened map for the expansion vectors z.
func (p *problem) newBasis(z *mat.Dense) (*basis, error) {
	_, d := z.Dims()
	if d != p.d() {
		return nil, fmt.Errorf("expansion vectors have %d features, the data %d", d, p.d())
	}
	kz := kernelZZ(p.k, z)
	t, lambda, dropped, err := whitener(kz)
	if err != nil {
		return nil, err
	}
	psi, err := p.psi(z)
	if err != nil {
		return nil, err
	}
	return &basis{z: z, kz: kz, psi: psi, t: t, lambda: lambda, dropped: dropped}, nil
}

// features returns the N×r matrix whose row i is φ_z(x_i) = Tψ_z(x_i).
func (b *basis) features() *mat.Dense {
	r, _ := b.t.Dims()
	_, n := b.psi.Dims()
	out := mat.NewDense(n, r, nil)
	out.Mul(b.psi.T(), b.t.T())
	return out
}

// linearWeights returns w = TΨa = Σ_i a_i φ_z(x_i), the weight vector of the
// linear machine in the whitened coordinates.
func (b *basis) linearWeights(a []float64) []float64 {
	nz, _ := b.psi.Dims()
	r, _ := b.t.Dims()
	g := mat.NewVecDense(nz, nil)
	g.MulVec(b.psi, mat.NewVecDense(len(a), a))
	w := mat.NewVecDense(r, nil)
	w.MulVec(b.t, g)
	return w.RawVector().Data
}

// betaFromWeights returns β = Tᵀw, the expansion coefficients of the kernel
// machine Σ_u β_u K(z_u, ·) equal to the linear machine w on φ_z (eq. 45
// when w = TΨYα).
func (b *basis) betaFromWeights(w []float64) []float64 {
	_, nz := b.t.Dims()
	beta := mat.NewVecDense(nz, nil)
	beta.MulVec(b.t.T(), mat.NewVecDense(len(w), w))
	return beta.RawVector().Data
}

// decision returns Ψᵀβ + bias on the training points.
func (b *basis) decision(beta []float64, bias float64) []float64 {
	_, n := b.psi.Dims()
	f := mat.NewVecDense(n, nil)
	f.MulVec(b.psi.T(), mat.NewVecDense(len(beta), beta))
	out := f.RawVector().Data
	for i := range out {
		out[i] += bias
	}
	return out
}

// marginalW returns W = Σα − ½‖TΨa‖² for a = Yα, the SVM dual objective on
// φ_z at α, together with the linear weights w = TΨa.
func (b *basis) marginalW(alpha, y []float64) (float64, []float64) {
	a := make([]float64, len(alpha))
	var sum float64
	for i, v := range alpha {
		a[i] = v * y[i]
		sum += v
	}
	w := b.linearWeights(a)
	var ww float64
	for _, v := range w {
		ww += v * v
	}
	return sum - 0.5*ww, w
}

// rbfGrad writes into g (Nz×d) the gradient
//
//	g_u = 2γ β_u [ Σ_i c_i K(z_u, x_i)(x_i − z_u) + s Σ_v β_v Kz_uv (z_v − z_u) ],
//
// the common form of ∂W/∂z_u for the RBF kernel: SLMC uses c = −Yα, s = 1;
// sparse KFD its own weights. Only the i with c_i ≠ 0 are visited.
func (p *problem) rbfGrad(g *mat.Dense, b *basis, beta, c []float64, s float64) {
	nz, d := b.z.Dims()
	gamma := p.k.Gamma
	var idx []int
	for i, v := range c {
		if v != 0 {
			idx = append(idx, i)
		}
	}
	g.Zero()
	// First term: M X_idx − diag(M 1) Z, with M_ui = c_i K(z_u, x_i).
	if len(idx) > 0 {
		// mt holds Mᵀ: row r is M's column for the training row idx[r].
		mt := make([]float64, len(idx)*nz)
		rowSum := make([]float64, nz)
		for u := range nz {
			pr := b.psi.RawRowView(u)
			for r, i := range idx {
				w := c[i] * pr[i]
				mt[r*nz+u] = w
				rowSum[u] += w
			}
		}
		// M X_idx one training row at a time, in the order of idx, from
		// the rows' non-zeros or their dense float64 copy alike (addRow:
		// the same bits for both storages; a blocked product's order
		// would differ from the sparse one's). Each training row is added
		// to every g_u before the next is read, so it is read once.
		for r, i := range idx {
			for u, w := range mt[r*nz : (r+1)*nz] {
				if w != 0 {
					p.addRow(g.RawRowView(u), w, i)
				}
			}
		}
		for u := range nz {
			gr, zr := g.RawRowView(u), b.z.RawRowView(u)
			for j := range d {
				gr[j] -= rowSum[u] * zr[j]
			}
		}
	}
	// Second term: s Σ_v β_v Kz_uv (z_v − z_u).
	for u := range nz {
		gr, zu := g.RawRowView(u), b.z.RawRowView(u)
		for v := range nz {
			if v == u {
				continue
			}
			w := s * beta[v] * b.kz.At(u, v)
			if w == 0 {
				continue
			}
			zv := b.z.RawRowView(v)
			for j := range d {
				gr[j] += w * (zv[j] - zu[j])
			}
		}
		f := 2 * gamma * beta[u]
		for j := range d {
			gr[j] *= f
		}
	}
}
