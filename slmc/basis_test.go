package slmc

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// blobs returns n points in d dimensions from two Gaussian blobs (labels ±1)
// with centers ±sep along every axis.
func blobs(n, d int, sep float64, seed uint64) (pursuit.Matrix, []float64) {
	rng := newRand(seed)
	x := pursuit.NewMatrix(n, d)
	y := make([]float64, n)
	for i := range n {
		y[i] = 1
		if i%2 == 1 {
			y[i] = -1
		}
		for j := range d {
			x.Set(i, j, float32(y[i]*sep+rng.NormFloat64()))
		}
	}
	return x, y
}

func randDense(r, c int, scale float64, seed uint64) *mat.Dense {
	rng := newRand(seed)
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, scale*rng.NormFloat64())
		}
	}
	return m
}

// wFixedAlpha evaluates W_α(Z) = Σα − ½ aᵀΨᵀKz⁻¹Ψa for fixed α.
func wFixedAlpha(t *testing.T, p *problem, z *mat.Dense, alpha []float64) (float64, *basis) {
	t.Helper()
	b, err := p.newBasis(z)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := b.marginalW(alpha, p.y)
	return w, b
}

// TestGradientFixedAlpha checks the RBF gradient formula against central
// finite differences of W_α(Z) with α held fixed (float64 kernels).
func TestGradientFixedAlpha(t *testing.T) {
	x, y := blobs(40, 3, 0.7, 1)
	k := pursuit.NewRBF(0.4)
	p, err := newProblem(nil, k, x, y)
	if err != nil {
		t.Fatal(err)
	}
	rng := newRand(2)
	alpha := make([]float64, p.n())
	for i := range alpha {
		if rng.Float64() < 0.6 {
			alpha[i] = rng.Float64() * 2
		}
	}
	z := randDense(5, 3, 1, 3)
	_, b := wFixedAlpha(t, p, z, alpha)
	if b.dropped != 0 {
		t.Fatalf("random Z dropped %d eigen-directions", b.dropped)
	}
	a := make([]float64, len(alpha))
	negA := make([]float64, len(alpha))
	for i := range a {
		a[i] = alpha[i] * y[i]
		negA[i] = -a[i]
	}
	beta := b.betaFromWeights(b.linearWeights(a))
	g := mat.NewDense(5, 3, nil)
	p.rbfGrad(g, b, beta, negA, 1)

	const h = 1e-5
	var num, den float64
	for u := range 5 {
		for j := range 3 {
			zp := mat.DenseCopyOf(z)
			zp.Set(u, j, z.At(u, j)+h)
			wp, _ := wFixedAlpha(t, p, zp, alpha)
			zp.Set(u, j, z.At(u, j)-h)
			wm, _ := wFixedAlpha(t, p, zp, alpha)
			fd := (wp - wm) / (2 * h)
			num += (fd - g.At(u, j)) * (fd - g.At(u, j))
			den += fd * fd
		}
	}
	rel := math.Sqrt(num / den)
	t.Logf("fixed-α gradient: relative error %.2e (‖∇W‖ = %.3g)", rel, math.Sqrt(den))
	if !(rel <= 1e-4) {
		t.Fatalf("gradient relative error %.3e > 1e-4", rel)
	}
}

// TestWhitening checks TᵀT = Kz⁻¹ and ⟨φ_z(x_i), φ_z(x_j)⟩ = ψᵢᵀKz⁻¹ψⱼ.
func TestWhitening(t *testing.T) {
	x, y := blobs(20, 4, 0.5, 4)
	p, err := newProblem(nil, pursuit.NewRBF(0.3), x, y)
	if err != nil {
		t.Fatal(err)
	}
	z := randDense(6, 4, 1, 5)
	b, err := p.newBasis(z)
	if err != nil {
		t.Fatal(err)
	}
	var tt mat.Dense
	tt.Mul(b.t.T(), b.t)
	var prod mat.Dense
	prod.Mul(&tt, b.kz)
	if !mat.EqualApprox(&prod, eye(6), 1e-8) {
		t.Fatalf("TᵀT·Kz is not the identity:\n%v", mat.Formatted(&prod))
	}
	// Kernel of the whitened map against the explicit inverse.
	var inv mat.Dense
	if err := inv.Inverse(b.kz); err != nil {
		t.Fatal(err)
	}
	phi := b.features()
	for i := range 3 {
		for j := range 3 {
			var got float64
			for r := range phi.RawRowView(0) {
				got += phi.At(i, r) * phi.At(j, r)
			}
			want := mat.Inner(b.psi.ColView(i), &inv, b.psi.ColView(j))
			if math.Abs(got-want) > 1e-8*(1+math.Abs(want)) {
				t.Fatalf("K̂(%d,%d) = %v, want %v", i, j, got, want)
			}
		}
	}
	// Ψ in float64 against the scalar kernel.
	for u := range 6 {
		for i := range 20 {
			// z was float64; compare against an exact float64 evaluation.
			var d2 float64
			for j := range 4 {
				dd := z.At(u, j) - float64(x.At(i, j))
				d2 += dd * dd
			}
			want := math.Exp(-0.3 * d2)
			if got := b.psi.At(u, i); math.Abs(got-want) > 1e-12 {
				t.Fatalf("Ψ[%d,%d] = %v, want %v", u, i, got, want)
			}
		}
	}
}

// TestWhiteningDuplicateXV checks that a repeated expansion vector drops one
// eigen-direction instead of failing.
func TestWhiteningDuplicateXV(t *testing.T) {
	x, y := blobs(10, 2, 0.5, 6)
	p, err := newProblem(nil, pursuit.NewRBF(1), x, y)
	if err != nil {
		t.Fatal(err)
	}
	z := randDense(3, 2, 1, 7)
	copy(z.RawRowView(2), z.RawRowView(0))
	b, err := p.newBasis(z)
	if err != nil {
		t.Fatal(err)
	}
	if b.dropped != 1 {
		t.Fatalf("dropped %d directions for one duplicate XV, want 1", b.dropped)
	}
}

// TestEnginePsi checks the engine (float32) Ψ against the float64 one.
func TestEnginePsi(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	x, y := blobs(30, 5, 0.5, 8)
	k := pursuit.NewRBF(0.2)
	pe, err := newProblem(e, k, x, y)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := newProblem(nil, k, x, y)
	if err != nil {
		t.Fatal(err)
	}
	z := randDense(4, 5, 1, 9)
	a, err := pe.psi(z)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pr.psi(z)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(a, b, 1e-5) {
		t.Fatal("engine Ψ differs from the float64 Ψ by more than 1e-5")
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

func TestBadInputs(t *testing.T) {
	x, y := blobs(10, 2, 0.5, 10)
	if _, err := newProblem(nil, pursuit.NewRBF(1), x, y[:5]); err == nil {
		t.Error("label count mismatch accepted")
	}
	y2 := append([]float64(nil), y...)
	y2[3] = 2
	if _, err := newProblem(nil, pursuit.NewRBF(1), x, y2); err == nil {
		t.Error("label 2 accepted")
	}
	for i := range y2 {
		y2[i] = 1
	}
	if _, err := newProblem(nil, pursuit.NewRBF(1), x, y2); err == nil {
		t.Error("single-class labels accepted")
	}
	x2 := pursuit.NewMatrix(10, 2)
	copy(x2.Data, x.Data)
	x2.Set(1, 1, float32(math.NaN()))
	if _, err := newProblem(nil, pursuit.NewRBF(1), x2, y); err == nil {
		t.Error("NaN feature accepted")
	}
	if err := checkRBF("test", pursuit.NewLinear()); err == nil {
		t.Error("linear kernel accepted")
	}
}
