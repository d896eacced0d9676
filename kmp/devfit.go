package kmp

import (
	"errors"
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// deviceFit keeps the l-length float64 state of a squared-loss fit where a
// resident stochastic search keeps its kernel blocks (engine.Vectors: device
// memory on a GPU): the targets y, the residual R, the outputs y − R, the
// chosen atom d, its part v orthogonal to the basis, and the orthonormal
// basis Q. fitSquared uses it instead of host slices when the dictionary
// stream is resident, so that a step moves only the s candidates' indices,
// products and norms, the n values Qᵀv of each projection pass and their
// coefficients, and a few scalars: O(s + n) bytes whatever l. The host
// keeps the triangular factor (orthoBasis.rcols) and solves with it as
// before; the arithmetic is the host fitter's, in float64, with sums in the
// device's order.
type deviceFit struct {
	e  *engine.Engine
	st *streamer
	l  int
	// w holds y, the outputs f = y − R, d and v (rows wY … wV); qr holds R
	// in row 0 and the basis q_1 … q_n in rows 1 … n, so that one
	// BlockVectorProducts over rows 0 … n gives a pre-fitting step's
	// products.
	w, qr *engine.Vectors
	ob    *orthoBasis    // rcols only: the basis vectors live in qr
	rc    []float64      // the last projection's coefficients Qᵀd
	nn    float64        // and ‖v‖²
	dr    float64        // ⟨d, R⟩ of the loaded atom (basic MP)
	buf   []float64      // an atom computed on the host
	row   pursuit.Matrix // and its float32 values (streamer.row64's scratch)
}

const (
	wY = iota
	wF
	wD
	wV
	wRows
)

// newDeviceFit uploads y and starts with R = y and an empty basis with room
// for capN vectors.
func newDeviceFit(e *engine.Engine, st *streamer, y []float64, ob *orthoBasis, capN int) (*deviceFit, error) {
	l := len(y)
	f := &deviceFit{e: e, st: st, l: l, ob: ob}
	var err error
	if f.w, err = e.NewVectors(wRows, l); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	if f.qr, err = e.NewVectors(1+max(capN, 1), l); err != nil {
		_ = f.release()
		return nil, fmt.Errorf("kmp: %w", err)
	}
	if err := errors.Join(e.WriteVectors(f.w, wY, y), e.CombineVectors(f.qr, 0, 0, []float64{1}, f.w, wY)); err != nil {
		_ = f.release()
		return nil, fmt.Errorf("kmp: %w", err)
	}
	return f, nil
}

func (f *deviceFit) release() error {
	if f == nil {
		return nil
	}
	return errors.Join(f.w.Release(), f.qr.Release())
}

// n is the basis size.
func (f *deviceFit) n() int { return len(f.ob.rcols) }

// dot returns ⟨a_ra, b_rb⟩.
func (f *deviceFit) dot(a *engine.Vectors, ra int, b *engine.Vectors, rb int) (float64, error) {
	var d [1]float64
	err := f.e.VectorDots(d[:], a, ra, ra+1, b, rb)
	return d[0], err
}

// residNorm returns ‖R‖.
func (f *deviceFit) residNorm() (float64, error) {
	r2, err := f.dot(f.qr, 0, f.qr, 0)
	return math.Sqrt(r2), err
}

// scan searches the candidates with R (and, with prefitQ, every basis
// vector) as the vectors: the pairs layout of searcher.scan.
func (f *deviceFit) scan(s *searcher, cand []int, prefitQ bool, each func(b0, nb int, prod []float64)) error {
	r1 := 1
	if prefitQ {
		r1 += f.n()
	}
	return s.scanRows(cand, vecRows{v: f.qr, r0: 0, r1: r1}, each)
}

// load sets d to atom k: a row of the last resident block when it is there,
// else gathered into a one-row resident block, else (the constant or a
// custom atom) computed on the host and uploaded.
func (f *deviceFit) load(dc *dictionary, k int) error {
	st := f.st
	for r, a := range st.blkAtoms {
		if a == k {
			return f.e.CopyBlockRow(f.w, wD, st.blk, r)
		}
	}
	if a := dc.atoms.at(k); a.kernel >= 0 {
		blk, err := f.e.GatherBlock(st.one1, st.cfg.Kernels[a.kernel], st.tr.x, st.tr.norms, []int{int(a.center)}, st.tr.prep)
		st.one1 = blk
		if err != nil {
			return fmt.Errorf("kmp: kernel row of atom %d: %w", k, err)
		}
		return f.e.CopyBlockRow(f.w, wD, blk, 0)
	}
	f.buf = grow(f.buf, f.l)
	if err := st.row64(dc, k, f.buf, &f.row); err != nil {
		return err
	}
	return f.e.WriteVectors(f.w, wD, f.buf)
}

// project computes v, the part of d orthogonal to the basis (classical
// Gram–Schmidt twice, as cgs2), keeps Qᵀd for push and returns ‖v‖².
func (f *deviceFit) project() (float64, error) {
	e, n := f.e, f.n()
	if err := e.CombineVectors(f.w, wV, 0, []float64{1}, f.w, wD); err != nil {
		return 0, err
	}
	f.rc = make([]float64, n, n+1)
	if n > 0 {
		r := make([]float64, n)
		for range 2 {
			if err := e.VectorDots(r, f.qr, 1, 1+n, f.w, wV); err != nil {
				return 0, err
			}
			for i, v := range r {
				f.rc[i] += v
				r[i] = -v
			}
			if err := e.CombineVectors(f.w, wV, 1, r, f.qr, 1); err != nil {
				return 0, err
			}
		}
	}
	var err error
	f.nn, err = f.dot(f.w, wV, f.w, wV)
	return f.nn, err
}

// push appends q = v/‖v‖ to the basis (growing the device copy when full)
// and the column (Qᵀd, ‖v‖) to the triangular factor.
func (f *deviceFit) push() error {
	e, n := f.e, f.n()
	if 1+n >= f.qr.Rows() {
		bigger, err := e.NewVectors(1+2*max(n, 1), f.l)
		if err != nil {
			return fmt.Errorf("kmp: growing the basis on the device: %w", err)
		}
		for r := range 1 + n {
			if err := e.CombineVectors(bigger, r, 0, []float64{1}, f.qr, r); err != nil {
				_ = bigger.Release()
				return err
			}
		}
		if err := f.qr.Release(); err != nil {
			_ = bigger.Release()
			return err
		}
		f.qr = bigger
	}
	rnn := math.Sqrt(f.nn)
	if err := e.CombineVectors(f.qr, 1+n, 0, []float64{1 / rnn}, f.w, wV); err != nil {
		return err
	}
	f.ob.rcols = append(f.ob.rcols, append(f.rc, rnn))
	f.rc = nil
	return nil
}

// negligible is negligible(d, R, nrm, tol) on the device; it keeps ⟨d, R⟩
// for stepBasic.
func (f *deviceFit) negligible(nrm, tol float64) (bool, error) {
	var err error
	if f.dr, err = f.dot(f.w, wD, f.qr, 0); err != nil {
		return false, err
	}
	r2, err := f.dot(f.qr, 0, f.qr, 0)
	return f.dr*f.dr <= tol*nrm*r2, err
}

// stepBasic takes the matching pursuit step along d: a = ⟨d, R⟩/nrm,
// R ← R − a d; it returns a.
func (f *deviceFit) stepBasic(nrm float64) (float64, error) {
	a := f.dr / nrm
	return a, f.e.CombineVectors(f.qr, 0, 1, []float64{-a}, f.w, wD)
}

// stepOrtho projects R off the newest basis vector q: c = ⟨q, R⟩,
// R ← R − c q; it returns c.
func (f *deviceFit) stepOrtho() (float64, error) {
	n := f.n()
	c, err := f.dot(f.qr, n, f.qr, 0)
	if err != nil {
		return 0, err
	}
	return c, f.e.CombineVectors(f.qr, 0, 1, []float64{-c}, f.qr, n)
}

// stats returns ‖R‖ and the sums over the points of the training loss and
// error of the outputs f = y − R (the squared loss: ½‖R‖²; the error: the
// number of sign mismatches for classification, ‖R‖² for regression).
func (f *deviceFit) stats(task Task) (resNorm, lossSum, errSum float64, err error) {
	r2, err := f.dot(f.qr, 0, f.qr, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	resNorm, lossSum, errSum = math.Sqrt(r2), 0.5*r2, r2
	if task != Regression && f.l > 0 {
		// f = y − R: rows y and R sit in different vectors; f ← y, f −= R.
		if err := f.e.CombineVectors(f.w, wF, 0, []float64{1}, f.w, wY); err != nil {
			return 0, 0, 0, err
		}
		if err := f.e.CombineVectors(f.w, wF, 1, []float64{-1}, f.qr, 0); err != nil {
			return 0, 0, 0, err
		}
		n, err := f.e.SignMismatches(f.w, wY, f.w, wF)
		if err != nil {
			return 0, 0, 0, err
		}
		errSum = float64(n)
	}
	return resNorm, lossSum, errSum, nil
}
