package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// cpuEngines returns an engine per CPU backend that opens here.
func cpuEngines(t *testing.T) []*Engine {
	t.Helper()
	var out []*Engine
	for _, name := range []string{BackendGo, BackendAVX2} {
		e, err := New(WithBackend(name), WithThreads(2), env(nil))
		if err != nil {
			t.Logf("backend %s: %v", name, err)
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		t.Fatal("no CPU backend opens")
	}
	return out
}

func randMatrix(rng *rand.Rand, rows, cols int) pursuit.Matrix {
	m := pursuit.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	return m
}

// TestDictProductsSets checks every product against a float64 reference
// (DictProducts' tolerance: float32 runs of at most 32 products), each set
// against the same set alone and against one DictProducts call over the
// whole dictionary, bit for bit, on sizes that leave partial row blocks:
// on the CPU backends (backend.SetProducts) and on the engine's blocked
// fallback for backends without it.
func TestDictProductsSets(t *testing.T) {
	refs := map[int]*setsRef{}
	for _, e := range cpuEngines(t) {
		if _, ok := e.be.(backend.SetProducts); !ok {
			t.Errorf("backend %s does not implement backend.SetProducts", e.BackendName())
		}
		checkDictProductsSets(t, e, e.BackendName(), refs)
		checkDictProductsSets(t, hidden(e), e.BackendName()+" blocked", refs)
	}
}

// setsRef is a case's float64 reference products and their tolerances,
// per set, computed once: every call of checkDictProductsSets draws the
// same data (the float64 loops took 13 s of the test alone, over 3 minutes
// under the race detector).
type setsRef struct{ want, tol [][]float64 }

// withoutSets hides a backend's optional capabilities.
type withoutSets struct{ backend.Backend }

// hidden returns e with its backend's optional capabilities hidden
// (withoutSets), as the engine makes it for such a backend.
func hidden(e *Engine) *Engine {
	be := withoutSets{e.be}
	return &Engine{be: be, scan: hostScans(be), threads: e.threads, budget: e.budget, comm: e.comm}
}

func checkDictProductsSets(t *testing.T, e *Engine, label string, refs map[int]*setsRef) {
	rng := rand.New(rand.NewPCG(7, 14))
	{
		// 100×40000: the fallback's blocks of 48 rows (dictSetRows) leave
		// a partial third block.
		for ci, c := range []struct{ m, cols int }{{37, 45}, {517, 1001}, {100, 40000}, {1, 8}, {7, 2053}, {203, 7291}} {
			if raceEnabled && c.cols > 10000 {
				continue // two thirds of the work; 517×1001 leaves a partial third block too (blocks of 256 rows)
			}
			name := fmt.Sprintf("%s/%dx%d", label, c.m, c.cols)
			dict := randMatrix(rng, c.m, c.cols)
			sizes := []int{4, 2, 4, 0, 4, 2, 3, 8, 1, 4, 4, 5}
			sets := make([]pursuit.Matrix, len(sizes))
			dst := make([][]float64, len(sizes))
			for s, k := range sizes {
				sets[s] = randMatrix(rng, k, c.cols)
				dst[s] = make([]float64, k*c.m)
			}
			if err := e.DictProductsSets(dst, dict, sets); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ref := refs[ci]
			if ref == nil {
				ref = &setsRef{}
				for _, v := range sets {
					want, tol := make([]float64, v.Rows*c.m), make([]float64, v.Rows*c.m)
					for j := range v.Rows {
						for i := range c.m {
							var sum, abs float64
							for q, x := range dict.Row(i) {
								p := float64(x) * float64(v.Row(j)[q])
								sum += p
								abs += math.Abs(p)
							}
							want[j*c.m+i], tol[j*c.m+i] = sum, (32*0x1p-24+float64(c.cols)*0x1p-52)*abs
						}
					}
					ref.want, ref.tol = append(ref.want, want), append(ref.tol, tol)
				}
				refs[ci] = ref
			}
			for s, v := range sets {
				for p, got := range dst[s] {
					if want, tol := ref.want[s][p], ref.tol[s][p]; math.Abs(got-want) > tol {
						t.Fatalf("%s set %d: <d_%d, v_%d> = %v, want %v ± %.2g", name, s, p%c.m, p/c.m, got, want, tol)
					}
				}
				alone := [][]float64{make([]float64, v.Rows*c.m)}
				if err := e.DictProductsSets(alone, dict, []pursuit.Matrix{v}); err != nil {
					t.Fatal(err)
				}
				whole := make([]float64, v.Rows*c.m)
				if err := e.DictProducts(whole, dict, v); err != nil {
					t.Fatal(err)
				}
				for i := range whole {
					if dst[s][i] != alone[0][i] {
						t.Fatalf("%s set %d: product %d is %v among the sets, %v alone", name, s, i, dst[s][i], alone[0][i])
					}
					if dst[s][i] != whole[i] {
						t.Fatalf("%s set %d: product %d is %v from row blocks, %v from one DictProducts call", name, s, i, dst[s][i], whole[i])
					}
				}
			}
		}
	}
}

func TestDictProductsSetsErrors(t *testing.T) {
	e, err := New(WithBackend(BackendGo), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	dict := pursuit.NewMatrix(5, 3)
	for _, c := range []struct {
		name string
		dst  [][]float64
		sets []pursuit.Matrix
	}{
		{"fewer destinations", [][]float64{make([]float64, 10)}, []pursuit.Matrix{pursuit.NewMatrix(2, 3), pursuit.NewMatrix(2, 3)}},
		{"short destination", [][]float64{make([]float64, 9)}, []pursuit.Matrix{pursuit.NewMatrix(2, 3)}},
		{"vector length", [][]float64{make([]float64, 10)}, []pursuit.Matrix{pursuit.NewMatrix(2, 4)}},
	} {
		err := e.DictProductsSets(c.dst, dict, c.sets)
		if !errors.Is(err, pursuit.ErrShape) {
			t.Errorf("%s: got %v, want an error wrapping pursuit.ErrShape", c.name, err)
		}
	}
	// No sets, or empty ones, are no work and no error.
	if err := e.DictProductsSets(nil, dict, nil); err != nil {
		t.Errorf("no sets: %v", err)
	}
}

// TestSMOScansOnTheHost: a backend without SMO scans (backend.SMOScanner;
// withoutSets hides every optional capability, as CUDA has no SMO scans)
// gets the fastest CPU driver's, and its ScoredArgMax, since the solver's
// state and the search's scores are in host memory; every engine's scans
// return the references' results bit for bit.
func TestSMOScansOnTheHost(t *testing.T) {
	want := BackendGo
	if _, _, err := newAVX2(1, true); err == nil {
		want = BackendAVX2
	}
	if sc, ok := hostScans(withoutSets{backend.NewGo(1)}).(backend.Backend); !ok || sc.Name() != want {
		t.Fatalf("a backend without SMO scans gets %v's, want the %s driver's", sc, want)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 1003 // not a multiple of the vector kernels' 8
	y, up, low, qd := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	qi, qj := make([]float32, n), make([]float32, n)
	g0 := make([]float64, n)
	for a := range n {
		y[a] = float64(1 - 2*rng.IntN(2))
		up[a], low[a] = -y[a], y[a]
		if rng.IntN(5) == 0 {
			up[a] = math.NaN()
		}
		qd[a] = 1 + rng.Float64()
		qi[a], qj[a] = float32(rng.Float64()), float32(rng.Float64())
		g0[a] = rng.NormFloat64()
	}
	gRef := append([]float64(nil), g0...)
	kRef, vRef := backend.SMOGradientRef(gRef, y, up, qi, qj, 0.3, -0.7)
	jRef, oRef, lRef := backend.SMOSelectRef(low, gRef, qd, qi, 0.5, 1.1, nil)
	addRef := append([]float64(nil), g0...)
	backend.SMOAddScaledRef(addRef, y, qi, 0.25)
	engines := cpuEngines(t)
	engines = append(engines, hidden(engines[0]))
	for _, e := range engines {
		g := append([]float64(nil), g0...)
		k, v := e.SMOGradient(g, y, up, qi, qj, 0.3, -0.7)
		j, o, l := e.SMOSelect(low, g, qd, qi, 0.5, 1.1, nil)
		add := append([]float64(nil), g0...)
		e.SMOAddScaled(add, y, qi, 0.25)
		if k != kRef || v != vRef || j != jRef || o != oRef || l != lRef {
			t.Errorf("%T %s: gradient scan (%d, %v), selection (%d, %v, %v); references (%d, %v), (%d, %v, %v)",
				e.be, e.BackendName(), k, v, j, o, l, kRef, vRef, jRef, oRef, lRef)
		}
		for a := range n {
			if g[a] != gRef[a] || add[a] != addRef[a] {
				t.Fatalf("%T %s: variable %d: gradient %v, added %v; references %v, %v", e.be, e.BackendName(), a, g[a], add[a], gRef[a], addRef[a])
			}
		}
		skip := make([]bool, n)
		for a := range skip {
			skip[a] = rng.IntN(3) == 0
		}
		for _, sk := range [][]bool{nil, skip, skip[:n/2]} {
			k, s := e.ScoredArgMax(g0, qd, sk)
			kRef, sRef := backend.ScoredArgMaxRef(g0, qd, sk) // a prefix skip: the rest eligible
			if k != kRef || s != sRef {
				t.Errorf("%T %s: ScoredArgMax (%d, %v), reference (%d, %v)", e.be, e.BackendName(), k, s, kRef, sRef)
			}
		}
	}
}

// TestDeviceFreeOnTheCPU: a CPU backend has no memory of its own to report
// (backend.DeviceMemory), so plans use their defaults.
func TestDeviceFreeOnTheCPU(t *testing.T) {
	for _, e := range cpuEngines(t) {
		if free, ok := e.DeviceFree(); ok {
			t.Errorf("%s: DeviceFree reports %d bytes", e.BackendName(), free)
		}
	}
}
