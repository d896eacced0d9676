package kmp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/f32"
	"github.com/pursuit-ml/pursuit/internal/par"
)

// atom identifies one dictionary function: a kernel centred on a training
// point, or the constant function (kernel == biasKernel). Its fields are
// int32, 8 bytes an atom: a stochastic search over 50,000 points lists
// 50,000 atoms (0.4 MB; 0.8 MB with int fields), train refuses more than
// 2³¹−1 points.
type atom struct {
	kernel int32 // index into the kernels, CustomKernelIndex, or biasKernel
	center int32 // training row of the centre; -1 for the constant
}

const biasKernel = -1

// dictionary holds the M atoms evaluated at the l training points as an M×l
// float32 matrix (row k = atom k at every training point), so that the
// backend's DictProducts streams it once per step (searcher.scan).
type dictionary struct {
	atoms  atomList
	d      pursuit.Matrix // M×l
	nrm2   []float64      // ‖d_k‖², float64
	stream *streamer      // not nil: atoms computed on the fly, d unused (stream.go)
	held   int64          // bytes charged to the engine's budget (release when training ends)
	tr     trainSet       // the training points (this rank's, when sharded)
	sh     *shard         // the rank's share of the rows (nil: one rank)
	cs     *centres       // sharded: the atoms' centre points (else the rows of tr)
}

// fill writes dst[r][j] = atoms[r] evaluated at point j of pts (fillAtoms):
// the atoms are the dictionary's, centred on training rows, which are the
// rows of tr on one rank and the points cs fetched when sharded.
func (dc *dictionary) fill(e *engine.Engine, cfg *Config, atoms []atom, pts trainSet, dst pursuit.Matrix, idx []int) error {
	if dc.cs == nil {
		return fillAtoms(e, cfg, atoms, dc.tr, pts, dst, idx)
	}
	if pts.x.Rows == 0 || len(atoms) == 0 {
		return nil // a rank without points of this kind
	}
	return fillAtoms(e, cfg, dc.cs.local(atoms), dc.cs.pts, pts, dst, idx)
}

// release gives back what the dictionary holds when training ends: its
// share of the memory budget and, for a stream, the prepared data and the
// resident kernel block (device memory on a GPU).
func (dc *dictionary) release(e *engine.Engine) error {
	e.Release(dc.held)
	if st := dc.stream; st != nil {
		return errors.Join(st.blk.Release(), st.one1.Release(), st.tr.prep.Release())
	}
	return nil
}

// trainSet is the scaled training (or validation) data the dictionary's
// functions are evaluated on.
type trainSet struct {
	x     pursuit.Matrix
	norms []float32
	prep  *engine.Prepared // x prepared by the engine (device-resident on a GPU), or nil
}

// dictAtoms lists the atoms: for each kernel (then the custom kernel) one per
// candidate centre, then the constant.
func dictAtoms(cfg *Config, candidates []int) []atom {
	// exactly: not the copies append's doubling leaves behind (8.5 MB
	// allocated for 800 kB on 50,000 points)
	atoms := make([]atom, 0, dictSize(cfg, len(candidates)))
	for k := range cfg.Kernels {
		for _, c := range candidates {
			atoms = append(atoms, atom{kernel: int32(k), center: int32(c)})
		}
	}
	if cfg.Custom != nil {
		for _, c := range candidates {
			atoms = append(atoms, atom{kernel: CustomKernelIndex, center: int32(c)})
		}
	}
	if cfg.Bias {
		atoms = append(atoms, atom{kernel: biasKernel, center: -1})
	}
	return atoms
}

// dictSize is the number of atoms dictAtoms lists for c candidate centres.
func dictSize(cfg *Config, c int) int {
	n := len(cfg.Kernels) * c
	if cfg.Custom != nil {
		n += c
	}
	if cfg.Bias {
		n++
	}
	return n
}

// atomList is a dictionary's atoms, in dictAtoms' order: listed, or, when
// every training point is a candidate centre (the default, and stochastic
// KMP's), implied by their number, which saves a list of 8 bytes an atom
// (and the candidates', 8 bytes a point): 0.8 MB over 50,000 points.
type atomList struct {
	list []atom // nil: implied
	// implied: c candidates, the centres 0…c−1, for each of kernels
	// kernels (then the custom kernel, if custom), then the constant (if
	// bias)
	c, kernels   int
	custom, bias bool
}

// listed wraps a list of atoms.
func listed(atoms []atom) atomList { return atomList{list: atoms} }

// everyPoint is the atoms of cfg centred on each of c training points:
// dictAtoms(cfg, 0…c−1), implied.
func everyPoint(cfg *Config, c int) atomList {
	return atomList{c: c, kernels: len(cfg.Kernels), custom: cfg.Custom != nil, bias: cfg.Bias}
}

// len is the number of atoms.
func (al atomList) len() int {
	if al.list != nil {
		return len(al.list)
	}
	n := al.kernels * al.c
	if al.custom {
		n += al.c
	}
	if al.bias {
		n++
	}
	return n
}

// at is atom k.
func (al atomList) at(k int) atom {
	if al.list != nil {
		return al.list[k]
	}
	if k < 0 || k >= al.len() {
		panic(fmt.Sprintf("kmp: atom %d of %d", k, al.len()))
	}
	switch n := al.kernels * al.c; {
	case k < n:
		return atom{kernel: int32(k / al.c), center: int32(k % al.c)}
	case al.custom && k < n+al.c:
		return atom{kernel: CustomKernelIndex, center: int32(k - n)}
	}
	return atom{kernel: biasKernel, center: -1}
}

// all lists the atoms (a copy when implied).
func (al atomList) all() []atom {
	if al.list != nil {
		return al.list
	}
	out := make([]atom, al.len())
	for k := range out {
		out[k] = al.at(k)
	}
	return out
}

// numCandidates is len(chooseCandidates(l, m, seed)).
func numCandidates(l, m int) int {
	if m <= 0 || m >= l {
		return l
	}
	return m
}

// chooseCandidates returns the training rows the kernels are centred on:
// all of them, or m drawn at random without replacement (in increasing
// order).
func chooseCandidates(l, m int, seed uint64) []int {
	if m <= 0 || m >= l {
		idx := make([]int, l)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b6d7020636e6473)) // "kmp cnds"
	perm := rng.Perm(l)[:m]
	slices.Sort(perm)
	return perm
}

// buildDictionary evaluates the atoms at the training points through the
// engine (KernelGather per kernel; the custom function in Go). The
// dictionary is held against the engine's memory budget, so that what the
// fitters reserve next must fit beside it: e.Release(dict.held) after
// training.
// When sharded, each rank holds the atoms at its own rows (M×l_r) and the
// norms are summed over the ranks.
func buildDictionary(e *engine.Engine, cfg *Config, dc *dictionary) (*dictionary, error) {
	m, l := dc.atoms.len(), dc.tr.x.Rows
	held := int64(m) * int64(pursuit.AlignedStride(l)) * 4
	if err := holdAll(e, dc.sh, fmt.Sprintf("the KMP dictionary (%d functions × %d training points, float32)", m, l), held); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	dc.d = pursuit.NewAlignedMatrix(m, l) // whole cache lines per row: the passes' loads are not split
	if err := dc.fill(e, cfg, dc.atoms.all(), dc.tr, dc.d, nil); err != nil {
		e.Release(held)
		return nil, err
	}
	dc.nrm2, dc.held = rowSqNorms64(e, dc.d), held
	dc.sh.sum(dc.nrm2)
	if err := dc.sh.failed(); err != nil {
		_ = dc.release(e) // the caller gets no dictionary to release
		return nil, err
	}
	return dc, nil
}

// fillAtoms writes dst[r][j] = atom_r evaluated at point j of pts, where the
// atoms' centres are rows of tr. idx is scratch for the centres' rows (nil,
// or at least len(atoms) long: the streamed search calls this for every
// chunk of every block each step).
func fillAtoms(e *engine.Engine, cfg *Config, atoms []atom, tr, pts trainSet, dst pursuit.Matrix, idx []int) error {
	be := e
	if len(idx) < len(atoms) {
		idx = make([]int, len(atoms))
	}
	// Runs of atoms with the same built-in kernel go to KernelGather at once.
	for r := 0; r < len(atoms); {
		a := atoms[r]
		end := r + 1
		for end < len(atoms) && atoms[end].kernel == a.kernel {
			end++
		}
		block := dst.Slice(r, end, 0, dst.Cols)
		switch {
		case a.kernel == biasKernel:
			for i := r; i < end; i++ {
				row := dst.Row(i)
				for j := range row {
					row[j] = 1
				}
			}
		case a.kernel == CustomKernelIndex:
			if cfg.Custom == nil || cfg.Custom.Func == nil {
				return fmt.Errorf("kmp: the dictionary uses a custom kernel but none was given")
			}
			if err := customBlock(e, cfg.Custom.Func, atoms[r:end], tr.x, pts.x, block); err != nil {
				return err
			}
		default:
			centres := idx[:end-r]
			for i := range centres {
				centres[i] = int(atoms[r+i].center)
			}
			var err error
			if pts.prep != nil {
				err = be.KernelGatherPrepared(block, cfg.Kernels[a.kernel], tr.x, tr.norms, centres, pts.prep)
			} else {
				err = be.KernelGather(block, cfg.Kernels[a.kernel], tr.x, tr.norms, centres, pts.x, pts.norms)
			}
			if err != nil {
				return fmt.Errorf("kmp: kernel %s block of %d functions at %d points: %w", cfg.Kernels[a.kernel], end-r, pts.x.Rows, err)
			}
		}
		r = end
	}
	return nil
}

// customBlock evaluates a user kernel function: dst[r][j] = f(x_j, c_r). It
// rejects non-finite values with the position that produced them. f takes
// dense rows: sparse centres and points are densified one row at a time
// (O(d) a value, as f itself is).
func customBlock(e *engine.Engine, f KernelFunc, atoms []atom, centres, pts pursuit.Matrix, dst pursuit.Matrix) error {
	var (
		mu       sync.Mutex
		firstErr error
	)
	parallelFor(e, len(atoms), e.Threads(), func(lo, hi int) {
		var cb, pb []float32
		if centres.IsSparse() {
			cb = make([]float32, centres.Cols)
		}
		if pts.IsSparse() {
			pb = make([]float32, pts.Cols)
		}
		for r := lo; r < hi; r++ {
			c := centres.DenseRow(int(atoms[r].center), cb)
			row := dst.Row(r)
			for j := range row {
				v := f(pts.DenseRow(j, pb), c)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("kmp: custom kernel returned %v for point %d and centre %d", v, j, atoms[r].center)
					}
					mu.Unlock()
					return
				}
				row[j] = float32(v)
			}
		}
	})
	return firstErr
}

// rowSqNorms64 returns the float64 squared norms of the rows of d.
func rowSqNorms64(e *engine.Engine, d pursuit.Matrix) []float64 {
	out := make([]float64, d.Rows)
	rowSqNorms64To(e, out, d)
	return out
}

// rowSqNorms64To writes the float64 squared norms of the rows of d to out
// (engine.Engine.SqNorms64: summed in order). (addSqNorms, four
// accumulators, rounds differently; the in-memory dictionary keeps this
// order so that its runs stay as they were: the non-squared losses'
// refits amplify last-bit changes into other choices.)
func rowSqNorms64To(e *engine.Engine, out []float64, d pursuit.Matrix) {
	e.SqNorms64(out, d, nil)
}

// addSqNorms adds the float64 squared norms of the rows of d to out
// (f32.SqNorm: four independent accumulators).
func addSqNorms(e *engine.Engine, d pursuit.Matrix, out []float64) {
	parallelFor(e, d.Rows, e.Threads(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] += f32.SqNorm(d.Row(i))
		}
	})
}

// parallelFor splits [0, n) into parts contiguous chunks and runs them on
// the engine's free worker slots (engine.Engine.For; on the calling
// goroutine alone when e is nil).
func parallelFor(e *engine.Engine, n, parts int, body func(lo, hi int)) {
	if e == nil {
		par.Chunks(n, par.ChunkLen(n, parts, 1, 1), 1, nil, nil, func(_ struct{}, lo, hi int) { body(lo, hi) })
		return
	}
	e.For(n, parts, body)
}

// row64 copies dictionary row k into dst as float64.
func (dc *dictionary) row64(k int, dst []float64) {
	for j, v := range dc.d.Row(k) {
		dst[j] = float64(v)
	}
}

// splitHiLo writes v as hi + lo in float32 (internal/par).
func splitHiLo(v []float64, hi, lo []float32) { par.SplitHiLo(v, hi, lo) }

// toFloat32 writes v rounded to float32 into dst.
func toFloat32(dst []float32, v []float64) {
	for i, x := range v {
		dst[i] = float32(x)
	}
}
