package slmc

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
)

// TestReducedSetEnginePath checks the large-expansion path of the reduced
// set against the float64 loops: the residual's value and gradient through
// the engine's float32 blocks, the start values from the kept kernel
// columns, and the whole method's residual and decision values.
func TestReducedSetEnginePath(t *testing.T) {
	e := goEngine(t)
	x, y := blobs(500, 4, 0.5, 3)
	k := pursuit.NewRBF(0.25)
	exp := svmExpansion(t, e, x, y, k, 1)
	s := toDense(exp.Vectors)
	ns, d := s.Dims()
	if ns < 100 {
		t.Fatalf("only %d support vectors", ns)
	}
	const nz = 6
	blk, err := newRSBlocked(e, k, s, nz)
	if err != nil {
		t.Fatal(err)
	}
	ref := &residualExpansion{gamma: k.Gamma}
	fast := &residualExpansion{gamma: k.Gamma, blk: blk}
	for i := range ns {
		ref.u = append(ref.u, s.RawRowView(i))
		ref.coef = append(ref.coef, exp.Coef[i])
	}
	fast.u, fast.coef = ref.u, ref.coef
	// Three vectors z with coefficients −β, as after three greedy steps.
	z := randDense(nz, d, 1, 9)
	beta := []float64{0.7, -0.4, 0.2}
	for v := range 3 {
		ref.u = append(ref.u, z.RawRowView(v))
		ref.coef = append(ref.coef, -beta[v])
		blk.addColumn(z.RawRowView(v))
	}
	fast.u, fast.coef = ref.u, ref.coef
	gr, gf := make([]float64, d), make([]float64, d)
	var scale float64
	for _, c := range exp.Coef {
		scale += math.Abs(c)
	}
	for trial := range 5 {
		p := randDense(1, d, 0.8, uint64(40+trial)).RawRowView(0)
		hr := ref.value(p, gr)
		hf := fast.value(p, gf)
		if math.Abs(hr-hf) > 1e-5*scale {
			t.Errorf("h = %.9g through the engine, %.9g in float64", hf, hr)
		}
		for j := range d {
			if math.Abs(gr[j]-gf[j]) > 1e-5*scale {
				t.Errorf("∂h/∂z_%d = %.9g through the engine, %.9g in float64", j, gf[j], gr[j])
			}
		}
	}
	kc := expansionValues(k, s, exp.Coef)
	hs := blk.startValues(kc, exp.Coef, beta, z, 3)
	for m, u := range ref.u {
		if want := ref.value(u, nil); math.Abs(hs[m]-want) > 1e-10*scale {
			t.Fatalf("start value %d: %.12g from the columns, %.12g in float64", m, hs[m], want)
		}
	}
	st := &rsState{k: k, s: s, c: exp.Coef, blk: blk}
	zs := z.Slice(0, 3, 0, d).(*mat.Dense)
	g1 := st.gVector(zs)
	st.blk = nil
	g0 := st.gVector(zs)
	for u := range g0 {
		if math.Abs(g0[u]-g1[u]) > 1e-10*scale {
			t.Errorf("K(Z, S)c_%d = %.12g from the columns, %.12g in float64", u, g1[u], g0[u])
		}
	}

	// The whole method: both paths reach about the same residual, and
	// their models agree in sign on the SVM's training rows.
	r0, err := ReducedSet(exp, 8, RSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var calls []float64
	r1, err := reducedSet(e, exp, 8, RSOptions{Progress: func(v int, res float64) {
		if v != len(calls)+1 {
			t.Errorf("progress call %d reports %d vectors", len(calls)+1, v)
		}
		calls = append(calls, res)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 8 || calls[7] != r1.Residuals[7] {
		t.Errorf("progress residuals %v, result's %v", calls, r1.Residuals)
	}
	t.Logf("%d SVs → 8 vectors: residual %.6g (float64) and %.6g (engine)", ns, r0.Residual, r1.Residual)
	if r1.Residual > 1.05*r0.Residual+1e-4 {
		t.Errorf("residual %.6g through the engine, %.6g in float64", r1.Residual, r0.Residual)
	}
	d0, err := r0.Model.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	d1, err := r1.Model.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i := range d0 {
		if (d0[i] > 0) != (d1[i] > 0) {
			differ++
		}
	}
	if differ > len(d0)/50 {
		t.Errorf("the two paths' models disagree on %d of %d rows", differ, len(d0))
	}
}
