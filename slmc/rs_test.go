package slmc

import (
	"math"
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
// search over a fine grid for the z maximising ⟨w, φ(z)⟩².
func TestReducedSetFirstVector(t *testing.T) {
	x := oneDExpansion()
	res, err := ReducedSet(x, 1, RSOptions{Starts: 6})
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
}

// TestReducedSetResidual checks that the residual ‖w − Σβφ(z)‖² shrinks as
// vectors are added and matches a direct evaluation.
func TestReducedSetResidual(t *testing.T) {
	xm, _ := blobs(30, 3, 0.5, 12)
	rng := newRand(13)
	coef := make([]float64, 30)
	for i := range coef {
		coef[i] = rng.NormFloat64()
	}
	x := &Expansion{Kernel: pursuit.NewRBF(0.5), Vectors: xm, Coef: coef}
	prev := math.Inf(1)
	for _, nz := range []int{1, 3, 6, 12} {
		res, err := ReducedSet(x, nz, RSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Direct ‖w − Σβφ(z)‖² with all the kernel values in float64.
		s := toDense(x.Vectors)
		z := toDense(res.Model.XV)
		all := mat.NewDense(30+nz, 3, nil)
		all.Slice(0, 30, 0, 3).(*mat.Dense).Copy(s)
		all.Slice(30, 30+nz, 0, 3).(*mat.Dense).Copy(z)
		g := append(append([]float64(nil), coef...), make([]float64, nz)...)
		for u := range nz {
			g[30+u] = -res.Model.Beta[u]
		}
		kk := mat.NewDense(30+nz, 30+nz, nil)
		kernelRef(kk, x.Kernel, all, all, nil)
		gv := mat.NewVecDense(len(g), g)
		r2 := mat.Inner(gv, kk, gv)
		w2 := mat.Inner(mat.NewVecDense(30, coef), kk.Slice(0, 30, 0, 30), mat.NewVecDense(30, coef))
		// XV are rounded to float32 in the Model, hence the tolerance.
		if math.Abs(r2/w2-res.Residual) > 1e-5 {
			t.Fatalf("nz=%d: residual %v, direct %v", nz, res.Residual, r2/w2)
		}
		if res.Residual > prev+1e-12 {
			t.Fatalf("nz=%d: residual %v grew from %v", nz, res.Residual, prev)
		}
		prev = res.Residual
	}
	if prev > 0.5 {
		t.Fatalf("12 RS vectors leave %.0f%% of ‖w‖²", 100*prev)
	}
	if _, err := ReducedSet(x, 0, RSOptions{}); err == nil {
		t.Error("nz = 0 accepted")
	}
	bad := *x
	bad.Kernel = pursuit.NewPoly(1, 1, 2)
	if _, err := ReducedSet(&bad, 2, RSOptions{}); err == nil {
		t.Error("polynomial kernel accepted by RS")
	}
}
