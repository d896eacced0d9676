package bound

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The reference values (computed independently from the paper's
// formulas), δ = 0.05, to 1e-4.
func TestReferenceValues(t *testing.T) {
	const delta, tol = 0.05, 1e-4
	for _, c := range []struct {
		name    string
		f       func(m, k, t int, d float64) (float64, error)
		m, k, t int
		want    float64
	}{
		{"Theorem 4", KMP, 7291, 100, 0, 0.4904},
		{"Theorem 4", KMP, 1000, 20, 0, 0.7259},
		{"Theorem 4", KMP, 506, 10, 5, 0.9485},
		{"Theorem 2", Compression, 7291, 300, 0, 0.1801},
		{"Theorem 2", Compression, 506, 60, 0, 0.4272},
		{"Theorem 2", Compression, 7291, 274, 60, 0.2196},
	} {
		got, err := c.f(c.m, c.k, c.t, delta)
		if err != nil || math.Abs(got-c.want) > tol {
			t.Errorf("%s(m=%d, k=%d, t=%d) = %.6f, %v; want %.4f", c.name, c.m, c.k, c.t, got, err, c.want)
		}
	}
	for _, c := range []struct {
		m, t int
		want float64
	}{{506, 43, 0.4143}, {1000, 46, 0.3223}} {
		got, err := SubspacePenalty(c.m, c.t, 1, delta)
		if err != nil || math.Abs(got-c.want) > tol {
			t.Errorf("Corollary 1 penalty(m=%d, t=%d) = %.6f, %v; want %.4f", c.m, c.t, got, err, c.want)
		}
	}
}

// logChooseRef sums logarithms: ln C(n,k) = Σ_{i=1..k} ln((n−k+i)/i).
func logChooseRef(n, k int) float64 {
	var s float64
	for i := 1; i <= k; i++ {
		s += math.Log(float64(n-k+i) / float64(i))
	}
	return s
}

func TestLogChoose(t *testing.T) {
	// Small: exact integers.
	c := 1.0
	for k := 0; k <= 30; k++ {
		if got := LogChoose(30, k); math.Abs(got-math.Log(c)) > 1e-12*max(1, math.Log(c)) {
			t.Errorf("LogChoose(30, %d) = %v, want ln %v", k, got, c)
		}
		c = c * float64(30-k) / float64(k+1)
	}
	// Large m: against the sum of logarithms, relative 1e-12.
	for _, nk := range [][2]int{{7291, 300}, {7291, 3645}, {1 << 20, 1000}, {100000, 99990}} {
		got, want := LogChoose(nk[0], nk[1]), logChooseRef(nk[0], nk[1])
		if math.Abs(got-want) > 1e-11*want {
			t.Errorf("LogChoose(%d, %d) = %.15g, want %.15g", nk[0], nk[1], got, want)
		}
	}
	if !math.IsInf(LogChoose(5, 6), -1) || !math.IsInf(LogChoose(5, -1), -1) {
		t.Error("LogChoose outside 0 ≤ k ≤ n is not −Inf")
	}
}

// Theorem 2 against a direct transcription with a product for the
// binomials (small m, where the product is exact).
func TestCompressionFormula(t *testing.T) {
	for _, c := range [][3]int{{50, 3, 0}, {50, 3, 4}, {200, 20, 0}, {200, 20, 7}} {
		m, k, e := c[0], c[1], c[2]
		var want float64
		if e == 0 {
			want = (logChooseRef(m, k) + math.Log(float64(m)/0.1)) / float64(m-k)
		} else {
			want = (logChooseRef(m-k, e) + logChooseRef(m, k) + math.Log(float64(m*m)/0.1)) / float64(m-k-e)
		}
		got, err := Compression(m, k, e, 0.1)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("Compression(%d, %d, %d) = %v, %v; want %v", m, k, e, got, err, want)
		}
	}
}

// The bounds grow with k and with t, and shrink with m.
func TestMonotone(t *testing.T) {
	for name, f := range map[string]func(m, k, t int, d float64) (float64, error){"Compression": Compression, "KMP": KMP} {
		prev := 0.0
		for k := 0; k < 100; k += 10 {
			v, _ := f(1000, k, 5, 0.05)
			if v <= prev {
				t.Errorf("%s not increasing in k at k = %d: %v after %v", name, k, v, prev)
			}
			prev = v
		}
		prev = 0
		for e := 0; e < 100; e += 10 {
			v, _ := f(1000, 20, e, 0.05)
			if v <= prev {
				t.Errorf("%s not increasing in t at t = %d: %v after %v", name, e, v, prev)
			}
			prev = v
		}
		a, _ := f(1000, 20, 5, 0.05)
		b, _ := f(10000, 20, 5, 0.05)
		if b >= a {
			t.Errorf("%s not decreasing in m: %v at m = 10000, %v at m = 1000", name, b, a)
		}
	}
}

func TestBadInput(t *testing.T) {
	bad := []struct {
		name string
		err  error
	}{}
	add := func(name string, _ float64, err error) {
		bad = append(bad, struct {
			name string
			err  error
		}{name, err})
	}
	v, err := KMP(100, 10, 0, 0)
	add("δ = 0", v, err)
	v, err = KMP(100, 10, 0, 1)
	add("δ = 1", v, err)
	v, err = Compression(100, 10, 0, -0.1)
	add("δ < 0", v, err)
	v, err = Compression(100, 10, 0, math.NaN())
	add("δ NaN", v, err)
	v, err = KMP(100, 101, 0, 0.05)
	add("k > m", v, err)
	v, err = Compression(100, 10, 91, 0.05)
	add("t > m − k", v, err)
	v, err = Compression(100, 10, 90, 0.05)
	add("m − k − t = 0", v, err)
	v, err = SKCCA(100, -1, 0, 0.05)
	add("k < 0", v, err)
	v, err = SubspacePenalty(100, 100, 1, 0.05)
	add("t = m", v, err)
	v, err = SubspacePenalty(100, 10, 0, 0.05)
	add("R = 0", v, err)
	r, err := Subspace(100, nil, 1, 0.05)
	add("no residuals", r.Value, err)
	r, err = Subspace(100, []float64{0.5, math.NaN()}, 1, 0.05)
	add("NaN residual", r.Value, err)
	v, err = GlobalPCA(3, []float64{3, 2, -1}, []float64{1, 1, 1}, 1, 0.05)
	add("negative eigenvalue", v, err)
	v, err = GlobalPCA(4, []float64{3, 2, 1}, []float64{1, 1, 1}, 1, 0.05)
	add("k > m (PCA)", v, err)
	v, err = LocalPCA(1, []float64{3, 2}, []float64{1}, 1, 80, 0.05)
	add("eigenvalue counts differ", v, err)
	for _, b := range bad {
		if !errors.Is(b.err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", b.name, b.err)
		}
	}
}

// Subspace is the minimum over t of the bracket; checked against the
// curve of brackets computed here, and its argmin.
func TestSubspace(t *testing.T) {
	const m = 300
	resid := make([]float64, 60)
	for i := range resid {
		resid[i] = 0.9*math.Exp(-float64(i)/8) + 0.002*float64(60-i)
	}
	curve, err := SubspaceCurve(m, resid, 1, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	best, bestT := math.Inf(1), 0
	for k := 1; k <= len(resid); k++ {
		p, _ := SubspacePenalty(m, k, 1, 0.05)
		if v := resid[k-1] + p; v < best {
			best, bestT = v, k
		}
		if math.Abs(curve[k-1]-best) > 1e-15 {
			t.Fatalf("curve[%d] = %v, want running minimum %v", k, curve[k-1], best)
		}
	}
	r, _ := Subspace(m, resid, 1, 0.05)
	if r.T != bestT || r.Value != best {
		t.Errorf("Subspace = %+v, want {%v %d}", r, best, bestT)
	}
	if bestT <= 1 || bestT >= len(resid) {
		t.Errorf("test curve has its minimum at the edge (t = %d); it does not exercise the min", bestT)
	}
	// R scales the penalty by R (R² under the square root).
	p1, _ := SubspacePenalty(m, 10, 1, 0.05)
	p2, _ := SubspacePenalty(m, 10, 2, 0.05)
	if math.Abs(p2-2*p1) > 1e-14 {
		t.Errorf("penalty at R = 2 is %v, want 2 × %v", p2, p1)
	}
}

// Theorems 7 and 8 on a small kernel matrix, against a direct
// transcription with gonum's eigen-decomposition.
func TestPCABounds(t *testing.T) {
	const m = 40
	x := make([]float64, m*3)
	for i := range x {
		x[i] = math.Sin(float64(i*i) * 0.37)
	}
	K := mat.NewSymDense(m, nil)
	for i := range m {
		for j := range m {
			var d2 float64
			for c := range 3 {
				d := x[i*3+c] - x[j*3+c]
				d2 += d * d
			}
			K.SetSym(i, j, math.Exp(-0.5*d2))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(K, false) {
		t.Fatal("eigen")
	}
	lam := es.Values(nil) // ascending
	diag := make([]float64, m)
	for i := range diag {
		diag[i] = 1
	}
	for _, k := range []int{1, 5, 20} {
		got, err := GlobalPCA(k, lam, diag, 1, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		want := math.Inf(1)
		for tt := 1; tt <= k; tt++ {
			var tail float64
			for j := 0; j < m-tt; j++ { // ascending: the m − t smallest
				tail += lam[j]
			}
			want = min(want, tail/m+(1+math.Sqrt(float64(tt)))/math.Sqrt(m)*math.Sqrt(2.0/m*m))
		}
		want += math.Sqrt(18 * math.Log(2*m/0.05) / m)
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("GlobalPCA(k=%d) = %v, want %v", k, got, want)
		}
	}
	// Local: centred matrix eigenvalues; check the formula and that the
	// bound decreases in k here (the tail shrinks faster than ρ grows).
	lamN := make([]float64, m)
	for i := range lam {
		lamN[i] = lam[i] / m
	}
	C := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			v := 0.0
			if i == j {
				v = 1
			}
			C.Set(i, j, v-1.0/m)
		}
	}
	var tmp, kc mat.Dense
	tmp.Mul(C, K)
	kc.Mul(&tmp, C)
	kcs := mat.NewSymDense(m, nil)
	for i := range m {
		for j := range m {
			kcs.SetSym(i, j, (kc.At(i, j)+kc.At(j, i))/2/m)
		}
	}
	if !es.Factorize(kcs, false) {
		t.Fatal("eigen")
	}
	lamC := es.Values(nil)
	for _, k := range []int{1, 5} {
		got, err := LocalPCA(k, lamN, lamC, 1, 80, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		rho := math.Inf(1)
		for tt := 0; tt <= m; tt++ {
			var tail float64
			for j := 0; j < m-tt; j++ {
				tail += max(lamC[j], 0)
			}
			rho = min(rho, float64(tt)/m+math.Sqrt(float64(k)/m*tail))
		}
		var tailK float64
		for j := 0; j < m-k; j++ {
			tailK += max(lamN[j], 0)
		}
		extra := math.Log(1/0.05) / m
		want := 80 * (math.Sqrt(tailK*(rho+extra)) + rho + extra)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("LocalPCA(k=%d) = %v, want %v", k, got, want)
		}
	}
}

func TestTrivial(t *testing.T) {
	if Trivial(0.99) || !Trivial(1) || !Trivial(math.NaN()) {
		t.Error("Trivial: want false below 1, true at 1 and for NaN")
	}
}
