package slmc

import (
	"math"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"gonum.org/v1/gonum/mat"
)

func TestKMeansRecoversBlobs(t *testing.T) {
	centers := [][]float64{{0, 0}, {10, 0}, {0, 10}}
	rng := newRand(11)
	x := mat.NewDense(300, 2, nil)
	for i := range 300 {
		c := centers[i%3]
		x.Set(i, 0, c[0]+0.3*rng.NormFloat64())
		x.Set(i, 1, c[1]+0.3*rng.NormFloat64())
	}
	res, err := KMeans(x, 3, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range centers {
		best := math.Inf(1)
		for j := range 3 {
			best = math.Min(best, sqDist(c, res.Centers.RawRowView(j)))
		}
		if best > 0.1 {
			t.Fatalf("no k-means center near %v (closest squared distance %v)", c, best)
		}
	}
	// Every point is assigned to its nearest center and the inertia adds up.
	var inertia float64
	for i := range 300 {
		d := sqDist(x.RawRowView(i), res.Centers.RawRowView(res.Assign[i]))
		for j := range 3 {
			if sqDist(x.RawRowView(i), res.Centers.RawRowView(j)) < d-1e-12 {
				t.Fatalf("point %d not assigned to its nearest center", i)
			}
		}
		inertia += d
	}
	if math.Abs(inertia-res.Inertia) > 1e-6*inertia {
		t.Fatalf("inertia %v, recomputed %v", res.Inertia, inertia)
	}
	if _, err := KMeans(x, 0, 10, 1); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := KMeans(x, 301, 10, 1); err == nil {
		t.Error("k > n accepted")
	}
	dup := mat.NewDense(4, 2, []float64{1, 1, 1, 1, 1, 1, 2, 2})
	if _, err := KMeans(dup, 3, 10, 1); err == nil {
		t.Error("3 clusters of 2 distinct points accepted")
	}
}

// oneDExpansion is an expansion on the line: two positive bumps and a
// negative one.
func oneDExpansion() *Expansion {
	s := pursuit.NewMatrix(6, 1)
	for i, v := range []float32{-2, -1.8, 0.1, 0.2, 2, 2.3} {
		s.Set(i, 0, v)
	}
	return &Expansion{Kernel: pursuit.NewRBF(1), Vectors: s, Coef: []float64{1, 0.8, -0.5, -0.4, 1.2, 0.6}, Bias: 0.1}
}

// TestReducedSetFirstVector compares the first RS vector with a brute-force
// search over a fine grid for the z maximising ⟨w, φ(z)⟩², and its
// feature-space coefficient with ⟨w, φ(z)⟩.
func TestReducedSetFirstVector(t *testing.T) {
	x := oneDExpansion()
	res, err := ReducedSet(x, 1, RSOptions{Starts: 6, FeatureSpaceCoef: true})
	if err != nil {
		t.Fatal(err)
	}
	proj := func(z float64) float64 {
		var s float64
		for i, c := range x.Coef {
			d := z - float64(x.Vectors.At(i, 0))
			s += c * math.Exp(-d*d)
		}
		return s
	}
	bestZ, best := 0.0, -1.0
	for z := -4.0; z <= 4; z += 1e-4 {
		if v := proj(z) * proj(z); v > best {
			best, bestZ = v, z
		}
	}
	got := float64(res.Model.XV.At(0, 0))
	if math.Abs(got-bestZ) > 1e-3 {
		t.Fatalf("first RS vector at %v, brute force %v", got, bestZ)
	}
	// Its coefficient is the least-squares one, ⟨w, φ(z)⟩ / K(z, z).
	if math.Abs(res.Model.Beta[0]-proj(got)) > 1e-5 {
		t.Fatalf("β = %v, want %v", res.Model.Beta[0], proj(got))
	}
	if res.Model.Bias != x.Bias {
		t.Fatalf("RS bias %v, want the expansion's %v", res.Model.Bias, x.Bias)
	}
	// The default run finds the same vector (only the coefficients differ).
	def, err := ReducedSet(x, 1, RSOptions{Starts: 6})
	if err != nil {
		t.Fatal(err)
	}
	if d := def.Model.XV.At(0, 0); d != res.Model.XV.At(0, 0) {
		t.Fatalf("default RS vector at %v, with FeatureSpaceCoef %v", d, res.Model.XV.At(0, 0))
	}
	if def.Model.Beta[0] == res.Model.Beta[0] {
		t.Fatalf("default RS coefficient %v is the feature-space one", def.Model.Beta[0])
	}
	// With as many vectors as the expansion, or one fewer, the decision
	// values at its 6 vectors do not determine a fit: the feature-space
	// coefficients and the expansion's bias are kept.
	for _, nz := range []int{5, 6} {
		a, err := ReducedSet(x, nz, RSOptions{Starts: 6})
		if err != nil {
			t.Fatal(err)
		}
		b, err := ReducedSet(x, nz, RSOptions{Starts: 6, FeatureSpaceCoef: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Model.Beta, b.Model.Beta) || a.Model.Bias != x.Bias || a.Residual != b.Residual {
			t.Errorf("nz = %d: coefficients %v, bias %v, residual %v; with FeatureSpaceCoef %v, %v, %v",
				nz, a.Model.Beta, a.Model.Bias, a.Residual, b.Model.Beta, b.Model.Bias, b.Residual)
		}
	}
}

// TestReducedSetDecisionFit checks the refit of the coefficients and bias
// to the expansion's decision values at its vectors against a float64
// reference: the normal equations of
// min Σ_i (f(s_i) − Σ_u β_u K(z_u, s_i) − b)², solved by Cholesky, with f
// computed term by term. It also checks DecisionRMS and FeatureResidual,
// and that the refit happens exactly when the feature-space coefficients'
// DecisionRMS is above 1/2: on smooth blobs with Gaussian coefficients they
// are kept; on 60 scattered narrow bumps (γ = 4) with coefficients ±5,
// refitted.
func TestReducedSetDecisionFit(t *testing.T) {
	blobX, _ := blobs(40, 3, 0.6, 21)
	rng := newRand(22)
	blobC := make([]float64, 40)
	for i := range blobC {
		blobC[i] = 3 * rng.NormFloat64()
	}
	scatX := pursuit.NewMatrix(60, 2)
	scatC := make([]float64, 60)
	for i := range 60 {
		scatX.Set(i, 0, float32(4*rng.Float64()-2))
		scatX.Set(i, 1, float32(4*rng.Float64()-2))
		scatC[i] = 5
		if rng.Float64() < 0.5 {
			scatC[i] = -5
		}
	}
	for _, tc := range []struct {
		name  string
		x     *Expansion
		nz    int
		refit bool
	}{
		{"blobs", &Expansion{Kernel: pursuit.NewRBF(0.4), Vectors: blobX, Coef: blobC, Bias: -0.3}, 5, false},
		{"scattered", &Expansion{Kernel: pursuit.NewRBF(4), Vectors: scatX, Coef: scatC, Bias: 0.2}, 3, true},
	} {
		x, nz := tc.x, tc.nz
		ns, d := x.Vectors.Rows, x.Vectors.Cols
		gamma := x.Kernel.Gamma
		res, err := ReducedSet(x, nz, RSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fsc, err := ReducedSet(x, nz, RSOptions{FeatureSpaceCoef: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Refit != tc.refit || fsc.Refit || res.Refit != (fsc.DecisionRMS > 0.5) {
			t.Fatalf("%s: Refit %v (with FeatureSpaceCoef %v), want %v; feature-space coefficients' DecisionRMS %v",
				tc.name, res.Refit, fsc.Refit, tc.refit, fsc.DecisionRMS)
		}
		kf := func(a, b []float64) float64 {
			var q float64
			for j := range a {
				q += (a[j] - b[j]) * (a[j] - b[j])
			}
			return math.Exp(-gamma * q)
		}
		row := func(m pursuit.Matrix, i int) []float64 {
			out := make([]float64, d)
			for j := range out {
				out[j] = float64(m.At(i, j))
			}
			return out
		}
		f := make([]float64, ns)
		for i := range f {
			f[i] = x.Bias
			for j := range ns {
				f[i] += x.Coef[j] * kf(row(x.Vectors, i), row(x.Vectors, j))
			}
		}
		rms := func(m *Model) float64 {
			var diff, ref float64
			for i := range ns {
				g := m.Bias
				for u := range nz {
					g += m.Beta[u] * kf(row(x.Vectors, i), row(m.XV, u))
				}
				diff += (f[i] - g) * (f[i] - g)
				ref += f[i] * f[i]
			}
			return math.Sqrt(diff / ref)
		}
		for _, r := range []*RSResult{res, fsc} {
			if got, ref := r.DecisionRMS, rms(r.Model); math.Abs(got-ref) > 1e-6*ref {
				t.Errorf("%s: DecisionRMS %v, direct %v", tc.name, got, ref)
			}
		}
		// Same vectors either way; their feature-space residual is the
		// FeatureSpaceCoef run's.
		if res.FeatureResidual != fsc.Residual || fsc.FeatureResidual != fsc.Residual {
			t.Errorf("%s: FeatureResidual %v and %v, FeatureSpaceCoef's Residual %v", tc.name, res.FeatureResidual, fsc.FeatureResidual, fsc.Residual)
		}
		if !tc.refit {
			if !slices.Equal(res.Model.Beta, fsc.Model.Beta) || res.Model.Bias != x.Bias || res.Residual != fsc.Residual {
				t.Errorf("%s: not refitted, but coefficients %v, bias %v differ from the feature-space %v, %v", tc.name, res.Model.Beta, res.Model.Bias, fsc.Model.Beta, x.Bias)
			}
			continue
		}
		z := make([][]float64, nz)
		for u := range z {
			z[u] = row(res.Model.XV, u)
		}
		// Normal equations AᵀA p = Aᵀf with A = [K(S, Z) 1].
		ata := mat.NewSymDense(nz+1, nil)
		atf := mat.NewVecDense(nz+1, nil)
		for i := range ns {
			a := make([]float64, nz+1)
			for u := range nz {
				a[u] = kf(row(x.Vectors, i), z[u])
			}
			a[nz] = 1
			for p := range nz + 1 {
				atf.SetVec(p, atf.AtVec(p)+a[p]*f[i])
				for q := p; q <= nz; q++ {
					ata.SetSym(p, q, ata.At(p, q)+a[p]*a[q])
				}
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(ata) {
			t.Fatalf("%s: normal matrix not positive definite", tc.name)
		}
		var want mat.VecDense
		if err := ch.SolveVecTo(&want, atf); err != nil {
			t.Fatal(err)
		}
		scale := mat.Norm(&want, math.Inf(1))
		for u := range nz {
			if d := math.Abs(res.Model.Beta[u] - want.AtVec(u)); d > 1e-6*scale {
				t.Errorf("%s: β_%d = %v, reference %v", tc.name, u, res.Model.Beta[u], want.AtVec(u))
			}
		}
		if d := math.Abs(res.Model.Bias - want.AtVec(nz)); d > 1e-6*scale {
			t.Errorf("%s: b = %v, reference %v", tc.name, res.Model.Bias, want.AtVec(nz))
		}
		if !(res.DecisionRMS < fsc.DecisionRMS) {
			t.Errorf("%s: refitted DecisionRMS %v not below the feature-space coefficients' %v", tc.name, res.DecisionRMS, fsc.DecisionRMS)
		}
		if res.Residual < res.FeatureResidual-1e-12 {
			t.Errorf("%s: Residual %v below the least-squares FeatureResidual %v", tc.name, res.Residual, res.FeatureResidual)
		}
	}
}
