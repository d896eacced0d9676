package kmp

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Mode says how training holds the dictionary.
type Mode uint8

// The dictionary modes.
const (
	// InMemory builds the M×l dictionary once and streams it every step.
	InMemory Mode = iota
	// Streamed is deterministic KMP for dictionaries over the memory
	// budget: every step recomputes all M atoms in blocks of Block rows
	// through the engine's gathered kernel block, so memory is O(l·Block)
	// and a step costs O(l·M·d). It chooses what InMemory chooses.
	Streamed
	// StochasticSearch recomputes a random active set of s atoms every step
	// (Config.Stochastic): memory O(l·s), a step O(l·s·d).
	StochasticSearch
)

func (m Mode) String() string {
	switch m {
	case InMemory:
		return "in-memory"
	case Streamed:
		return "streamed"
	case StochasticSearch:
		return "stochastic"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Plan describes how training will hold the dictionary.
type Plan struct {
	Mode      Mode
	Atoms     int   // M, dictionary functions (kernels × candidates, + the constant)
	Points    int   // l, training points the atoms are evaluated at
	ActiveSet int   // s, atoms searched per step (M unless stochastic)
	Block     int   // atoms per kernel block (Streamed, StochasticSearch)
	Chunk     int   // training points per kernel block (Streamed, StochasticSearch)
	DictBytes int64 // bytes of the full float32 dictionary, M·l·4
	WorkBytes int64 // bytes of the dictionary storage actually used (a kernel block and one atom)
	// Resident: the kernel blocks are computed and kept where the engine
	// keeps them (device memory on a GPU), against X prepared there once;
	// only products and norms come back (Streamed, StochasticSearch).
	Resident bool
}

func (p Plan) String() string {
	switch p.Mode {
	case InMemory:
		return fmt.Sprintf("in-memory dictionary: %d functions × %d points (%s)", p.Atoms, p.Points, engine.FormatBytes(p.DictBytes))
	case Streamed:
		if p.Resident && p.Block >= p.Atoms {
			return fmt.Sprintf("device dictionary: %d functions × %d points (%s) computed once and kept on the device",
				p.Atoms, p.Points, engine.FormatBytes(p.DictBytes))
		}
		if p.Resident {
			return fmt.Sprintf("streamed dictionary: %d functions × %d points (%s) recomputed every step on the device in kernel blocks of %d × %d",
				p.Atoms, p.Points, engine.FormatBytes(p.DictBytes), p.Block, p.Points)
		}
		return fmt.Sprintf("streamed dictionary: %d functions × %d points (%s, over the memory budget) recomputed every step in kernel blocks of %d × %d (%s)",
			p.Atoms, p.Points, engine.FormatBytes(p.DictBytes), p.Block, p.Chunk, engine.FormatBytes(p.WorkBytes))
	}
	return fmt.Sprintf("stochastic search: %d of %d functions sampled per step over %d points, kernel blocks of %d × %d (%s)",
		p.ActiveSet, p.Atoms, p.Points, p.Block, p.Chunk, engine.FormatBytes(p.WorkBytes))
}

// maxStreamBlock bounds the atoms of one streamed kernel block.
const maxStreamBlock = 1024

// residentBlockBytes bounds a resident streamed kernel block (Block atoms
// at all l points) in device memory.
const residentBlockBytes = 256 << 20

// keptDictBytes bounds a whole dictionary kept on the device as one block:
// half the device's free memory (the rest is for X, the fitters' vectors
// and other processes), or 1 GiB when the backend cannot tell.
func keptDictBytes(e *engine.Engine) int64 {
	if free, ok := e.DeviceFree(); ok {
		return free / 2
	}
	return 1 << 30
}

// PlanTraining tells which dictionary mode Train will use for l training
// points (after any ValFrac split) under the engine's memory budget, or why
// training cannot run within it.
func PlanTraining(e *engine.Engine, l int, cfg Config) (Plan, error) {
	if e == nil {
		return Plan{}, errors.New("kmp: nil engine")
	}
	if l <= 0 {
		return Plan{}, fmt.Errorf("kmp: plan: %d training points", l)
	}
	c := cfg
	if err := c.resolve(); err != nil {
		return Plan{}, err
	}
	// The same dictionary as train builds.
	m := dictSize(&c, numCandidates(l, c.Candidates))
	return planFor(e, &c, m, l)
}

// planFor chooses the mode for m atoms at l points.
func planFor(e *engine.Engine, cfg *Config, m, l int) (Plan, error) {
	return planMode(e, cfg, m, l, false)
}

// planMode is planFor; with noMemory a deterministic search streams even
// when the dictionary would fit in memory (a sharded run where another
// rank's does not).
func planMode(e *engine.Engine, cfg *Config, m, l int, noMemory bool) (Plan, error) {
	p := Plan{Atoms: m, Points: l, ActiveSet: m, DictBytes: int64(m) * int64(l) * 4}
	budget := e.Available()
	// A device that keeps kernel blocks (a GPU) computes them where they
	// are kept, against X prepared there once. The blocks hold the rank's
	// own points only, and a sharded run's centres are other ranks' rows,
	// so a sharded run streams on the host.
	resident := e.ResidentBlocks() && e.Comm().Size() == 1
	var want int
	if cfg.Stochastic != nil {
		s, err := cfg.Stochastic.Size()
		if err != nil {
			return p, err
		}
		p.Mode = StochasticSearch
		p.ActiveSet = min(s, m)
		p.Resident = resident
		want = p.ActiveSet
	} else {
		// On such a device the deterministic search streams too, even when
		// the dictionary fits in memory: held in host memory, its every
		// pass would cross the bus (pre-fitting KMP on USPS 8 vs rest, 274
		// functions, took 9.5 s that way on an H100 machine, against 0.9 s
		// on its 16 CPU cores). Explicit deflation keeps its deflated copy
		// in memory.
		onDevice := resident && cfg.Deflation != Explicit
		if p.DictBytes <= budget && m > 0 && !noMemory && !onDevice {
			p.Mode = InMemory
			p.Block = m
			p.WorkBytes = p.DictBytes
			return p, nil
		}
		p.Mode = Streamed
		p.Resident = onDevice
		want = min(m, maxStreamBlock)
		if cfg.Deflation == Explicit {
			return p, fmt.Errorf("kmp: the dictionary of %d functions × %d points needs %s, over the memory budget of %s, and explicit deflation needs its deflated copy in memory: use implicit deflation (streamed) or raise the budget: %w",
				m, l, engine.FormatBytes(p.DictBytes), engine.FormatBytes(budget), engine.ErrBudget)
		}
	}
	// The kernel block (Block atoms × a chunk of points) and one whole
	// atom (for the chosen one) must fit the budget.
	work := func(b int) int64 { return int64(b)*int64(chunkCols(b, l))*4 + int64(l)*4 }
	p.Block = max(want, 1)
	if p.Mode == Streamed && p.Resident {
		// A resident block spans all l points: bound its device memory. A
		// dictionary within half the device's free memory is one block,
		// gathered once and kept (scanResidentSets): each later pass only
		// takes its products.
		p.Block = max(1, min(p.Block, residentBlockBytes/(4*max(l, 1))))
		if p.DictBytes <= keptDictBytes(e) {
			p.Block = m
		}
	}
	for p.Block > 1 && work(p.Block) > budget {
		p.Block /= 2
	}
	p.WorkBytes = work(p.Block)
	p.Chunk = chunkCols(p.Block, l)
	if p.WorkBytes > budget {
		return p, fmt.Errorf("kmp: a kernel block of one function at %d training points needs %s, over the memory budget of %s, so not even a streamed or stochastic dictionary fits: raise the budget or train on fewer points: %w",
			l, engine.FormatBytes(p.WorkBytes), engine.FormatBytes(budget), engine.ErrBudget)
	}
	return p, nil
}

// newDictionary builds the dictionary dc (its atoms, training points and,
// when sharded, shard and centres set) in the mode planFor chooses: in
// memory (buildDictionary), or as a streamer that computes atoms on the fly.
// The ranks of a sharded run agree on the mode: every rank streams when one
// rank's dictionary does not fit its budget.
func newDictionary(e *engine.Engine, cfg *Config, dc *dictionary) (*dictionary, error) {
	atoms, tr := dc.atoms, dc.tr
	plan, err := planFor(e, cfg, atoms.len(), tr.x.Rows)
	if err = dc.sh.agree(err); errors.Is(err, engine.ErrRankFailed) {
		return nil, fmt.Errorf("kmp: %w", err)
	} else if err != nil {
		return nil, err
	}
	if dc.sh.sharded() && cfg.Stochastic == nil {
		modes, err := gatherInts(dc.sh.c, int(plan.Mode))
		if err != nil {
			return nil, fmt.Errorf("kmp: sharded training: %w", err)
		}
		if plan.Mode == InMemory && slices.Contains(modes, int(Streamed)) {
			plan, err = planMode(e, cfg, atoms.len(), tr.x.Rows, true)
		}
		if err = dc.sh.agree(err); errors.Is(err, engine.ErrRankFailed) { // every rank agrees
			return nil, fmt.Errorf("kmp: %w", err)
		} else if err != nil {
			return nil, err
		}
	}
	if plan.Mode == InMemory {
		return buildDictionary(e, cfg, dc)
	}
	if err := dc.sh.agree(e.Reserve("the KMP kernel block ("+plan.String()+")", plan.WorkBytes)); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	st := &streamer{e: e, cfg: cfg, plan: plan, tr: tr, chunk: plan.Chunk}
	if plan.Resident {
		// A device keeps X (prepared once) and each step's kernel block:
		// only the sampled indices, the step's vectors and the products
		// cross the bus (scanResident).
		if st.tr.prep == nil {
			if st.tr.prep, err = e.Prepare(tr.x); err != nil {
				return nil, fmt.Errorf("kmp: %w", err)
			}
		}
		st.resident = st.tr.prep.Backed()
	}
	if !st.resident {
		// The host's chunk of a block (a resident block lives on the
		// device: for a kept dictionary of 90,000 atoms this would be 92 MB).
		st.buf = make([]float32, plan.Block*st.chunk)
	}
	st.idx = make([]int, plan.Block)
	dc.stream = st
	if plan.Mode == Streamed {
		// The norms of all atoms, in one blocked pass.
		dc.nrm2 = make([]float64, atoms.len())
		all := make([]int, atoms.len())
		for i := range all {
			all[i] = i
		}
		if err := st.scan(dc, all, pursuit.Matrix{}, true, func(b0, _ int, _, nrm []float64) {
			copy(dc.nrm2[b0:], nrm)
		}); err != nil {
			return nil, err
		}
		dc.sh.sum(dc.nrm2)
	}
	return dc, dc.sh.failed()
}

// chunkBytes is the size of the kernel block the search computes at once:
// small enough to stay in cache while the dictionary products and norms
// read it, so that a step costs the same per kernel value whatever l.
const chunkBytes = 2 << 20

// chunkCols returns the number of training points per kernel block for
// blocks of rows atoms: a multiple of 64 (the dictionary products fold
// float32 runs of 32), at least 256, at most l.
func chunkCols(rows, l int) int {
	c := chunkBytes / 4 / max(rows, 1) / 64 * 64
	return min(max(c, 256), l)
}

// streamer computes dictionary atoms on the fly (Streamed and
// StochasticSearch modes): candidates in blocks of plan.Block atoms, each
// block in chunks of training points.
type streamer struct {
	e     *engine.Engine
	cfg   *Config
	plan  Plan
	tr    trainSet
	chunk int       // training points per kernel block
	buf   []float32 // Block×chunk kernel block, reused
	ab    []atom
	idx   []int          // centres of a block (fillAtoms scratch)
	prod  []float64      // products of a block, summed over the chunks
	part  []float64      // products of one chunk
	pair  pursuit.Matrix // scanSplit's hi/lo pair of one chunk
	nrm   []float64      // squared norms of a block
	// resident: the block of each run of atoms is gathered over all points
	// at once into blk, kept by the backend (scanResident).
	resident bool
	blk      *engine.Block
	blkAtoms []int // the atoms whose rows blk holds, in order
	gathered int   // kernel blocks gathered (a full search over one kept block: 1)
	nrm32    []float32
	host     pursuit.Matrix // constant and custom atoms of a resident scan
	vprod    []float64      // products with resident vectors (scanRows)
	prods    [][]float64    // a block's products per set of vectors (scanResidentSets)
	parts    [][]float64    // a run's products per set of vectors (scanResidentSets)
	vhost    []float64      // resident vectors brought down for host atoms
	one1     *engine.Block  // a single gathered atom (deviceFit.load)
}

// scan evaluates the candidate atoms cand, plan.Block at a time, each block
// in chunks of training points; for each block it calls each with the
// block's offset b0 in cand, its size nb, prod[j*nb+i] = <d_{cand[b0+i]},
// v_j> for the rows v_j of vecs (length l), and, when norms is set,
// nrm[i] = ‖d_{cand[b0+i]}‖².
func (st *streamer) scan(dc *dictionary, cand []int, vecs pursuit.Matrix, norms bool, each func(b0, nb int, prod, nrm []float64)) error {
	if st.resident {
		return st.scanResident(dc, cand, vecs, norms, each)
	}
	return st.scanChunks(dc, cand, vecs.Rows, func(j0, j1 int) pursuit.Matrix { return vecs.Slice(0, vecs.Rows, j0, j1) }, norms, each)
}

// scanSplit is scan on a host stream with the float32 hi/lo pair of r as
// the vectors, made a chunk of points at a time (the pair of the whole of
// r is never held): the same products as scan with the whole pair, which
// is split element by element alike, starts its chunks on the same cache
// lines and is sliced at the same points.
func (st *streamer) scanSplit(dc *dictionary, cand []int, r []float64, norms bool, each func(b0, nb int, prod, nrm []float64)) error {
	if st.resident {
		return errors.New("kmp: a split scan needs a host stream")
	}
	if st.pair.Cols != st.chunk {
		st.pair = pursuit.NewAlignedMatrix(2, st.chunk)
	}
	return st.scanChunks(dc, cand, 2, func(j0, j1 int) pursuit.Matrix {
		v := st.pair.Slice(0, 2, 0, j1-j0)
		splitHiLo(r[j0:j1], v.Row(0), v.Row(1))
		return v
	}, norms, each)
}

// scanChunks is scan's host pass: each block of candidates is computed a
// chunk of points at a time and multiplied with the k vectors vecsAt gives
// at those points.
func (st *streamer) scanChunks(dc *dictionary, cand []int, k int, vecsAt func(j0, j1 int) pursuit.Matrix, norms bool, each func(b0, nb int, prod, nrm []float64)) error {
	be := st.e
	n, l := len(cand), st.tr.x.Rows
	for b0 := 0; b0 < n; b0 += st.plan.Block {
		b1 := min(b0+st.plan.Block, n)
		nb := b1 - b0
		st.ab = st.ab[:0]
		for _, c := range cand[b0:b1] {
			st.ab = append(st.ab, dc.atoms.at(c))
		}
		st.prod = grow(st.prod, k*nb)
		st.part = grow(st.part, k*nb)
		st.nrm = grow(st.nrm, nb)
		prod, part, nrm := st.prod[:k*nb], st.part[:k*nb], st.nrm[:nb]
		clear(prod)
		clear(nrm)
		for j0 := 0; j0 < l; j0 += st.chunk {
			j1 := min(j0+st.chunk, l)
			blk := pursuit.Matrix{Rows: nb, Cols: j1 - j0, Stride: j1 - j0, Data: st.buf[:nb*(j1-j0)]}
			pts := trainSet{x: st.tr.x.Slice(j0, j1, 0, st.tr.x.Cols), norms: st.tr.norms[j0:j1]}
			if err := dc.fill(st.e, st.cfg, st.ab, pts, blk, st.idx); err != nil {
				return err
			}
			if k > 0 {
				if err := be.DictProducts(part, blk, vecsAt(j0, j1)); err != nil {
					return fmt.Errorf("kmp: dictionary products on a kernel block: %w", err)
				}
				for i, v := range part {
					prod[i] += v
				}
			}
			if norms {
				addSqNorms(st.e, blk, nrm)
			}
		}
		each(b0, nb, prod, nrm)
	}
	return nil
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// growEach returns (*buf)[:n], slice s grown to size(s) elements.
func growEach(buf *[][]float64, n int, size func(s int) int) [][]float64 {
	for len(*buf) < n {
		*buf = append(*buf, nil)
	}
	out := (*buf)[:n]
	for s := range out {
		out[s] = grow(out[s], size(s))
	}
	return out
}

// rowSlice is how many training points row64 computes an atom at at once
// when it computes the atom on the host: its float32 scratch is that long
// (32 kB), not l (200 kB over 50,000 points).
const rowSlice = 8192

// row64 writes atom k of dc at the training points into dst as float64,
// through *scratch, the caller's float32 scratch (made on first use). The
// fitters of a lock-step resident search call it at once (between passes,
// while the blocks do not change), so the scratch is each caller's own.
func (st *streamer) row64(dc *dictionary, k int, dst []float64, scratch *pursuit.Matrix) error {
	l := st.tr.x.Rows
	a := dc.atoms.at(k)
	if !st.resident {
		// A slice of the points at a time, as scan computes the blocks:
		// each value depends on its own point alone.
		if scratch.Cols != min(l, rowSlice) {
			*scratch = pursuit.NewMatrix(1, min(l, rowSlice))
		}
		ab, idx := []atom{a}, []int{0}
		for j0 := 0; j0 < l; j0 += rowSlice {
			j1 := min(j0+rowSlice, l)
			one := scratch.Slice(0, 1, 0, j1-j0)
			pts := trainSet{x: st.tr.x.Slice(j0, j1, 0, st.tr.x.Cols), norms: st.tr.norms[j0:j1]}
			if err := dc.fill(st.e, st.cfg, ab, pts, one, idx); err != nil {
				return err
			}
			for j, v := range one.Row(0) {
				dst[j0+j] = float64(v)
			}
		}
		return nil
	}
	if scratch.Cols != l {
		*scratch = pursuit.NewMatrix(1, l)
	}
	one := *scratch
	switch r := slices.Index(st.blkAtoms, k); {
	case r >= 0:
		// The atom was in the last resident block: read its row rather
		// than compute it again.
		if err := st.e.BlockRows(one, st.blk, r); err != nil {
			return fmt.Errorf("kmp: reading a kernel row: %w", err)
		}
	case a.kernel >= 0:
		// Gathered against X where it is kept, as the blocks are (the same
		// values: prepared blocks do not depend on the rows beside them),
		// rather than sending X over the bus for one row.
		blk, err := st.e.GatherBlock(nil, st.cfg.Kernels[a.kernel], st.tr.x, st.tr.norms, []int{int(a.center)}, st.tr.prep)
		if err == nil {
			err = errors.Join(st.e.BlockRows(one, blk, 0), blk.Release())
		}
		if err != nil {
			return fmt.Errorf("kmp: kernel row of atom %d: %w", k, err)
		}
	default:
		if err := dc.fill(st.e, st.cfg, []atom{a}, st.tr, one, []int{0}); err != nil {
			return err
		}
	}
	for j, v := range one.Row(0) {
		dst[j] = float64(v)
	}
	return nil
}

// scanResident is scan for a backend that keeps kernel blocks resident (a
// GPU): each run of atoms of one built-in kernel is gathered over all l
// points at once against X prepared on the device, and only its products
// with vecs and its squared norms come back (float32-rounded norms, as
// SqNorms); constant and custom atoms are computed on the host.
func (st *streamer) scanResident(dc *dictionary, cand []int, vecs pursuit.Matrix, norms bool, each func(b0, nb int, prod, nrm []float64)) error {
	return st.scanResidentWith(dc, cand, vecs, nil, norms, each)
}

// vecRows names rows r0 … r1−1 of resident vectors (engine.Vectors): what a
// resident scan multiplies the atoms with when the fitter keeps its vectors
// on the device (deviceFit).
type vecRows struct {
	v      *engine.Vectors
	r0, r1 int
}

// scanRows is scan on a resident stream with the rows of vr as the vectors.
// Each float64 vector takes the place of a hi/lo pair of vecs: its products
// come in the first row of the pair, zeros in the second, so that the
// callers add the pairs as before. The block's products are taken on the
// device; a constant or custom atom among the candidates is computed on the
// host, and then the vectors come down to it (l·8 bytes each).
func (st *streamer) scanRows(dc *dictionary, cand []int, vr vecRows, norms bool, each func(b0, nb int, prod, nrm []float64)) error {
	if !st.resident {
		return errors.New("kmp: resident vectors need a resident stochastic search")
	}
	return st.scanResidentWith(dc, cand, pursuit.Matrix{}, &vr, norms, each)
}

func (st *streamer) scanResidentWith(dc *dictionary, cand []int, vecs pursuit.Matrix, vr *vecRows, norms bool, each func(b0, nb int, prod, nrm []float64)) error {
	var sets []pursuit.Matrix
	if vr != nil || vecs.Rows > 0 {
		sets = []pursuit.Matrix{vecs}
	}
	return st.scanResidentSets(dc, cand, sets, vr, norms, func(b0, nb int, prods [][]float64, nrm []float64) {
		var prod []float64
		if len(prods) > 0 {
			prod = prods[0]
		}
		each(b0, nb, prod, nrm)
	})
}

// scanSets is a resident full search's scan for several sets of vectors at
// once (lockstep: one-vs-rest's outputs): each block of atoms is gathered
// once and multiplied with each set by its own products call, so every set
// gets the products a scan with its vectors alone gets. dst[s][j·n+i] is
// the product of atom cand[i] with row j of sets[s] (n = len(cand)).
func (st *streamer) scanSets(dc *dictionary, cand []int, sets []pursuit.Matrix, dst [][]float64) error {
	n := len(cand)
	return st.scanResidentSets(dc, cand, sets, nil, false, func(b0, nb int, prods [][]float64, _ []float64) {
		for s, v := range sets {
			for j := range v.Rows {
				copy(dst[s][j*n+b0:j*n+b0+nb], prods[s][j*nb:(j+1)*nb])
			}
		}
	})
}

// scanResidentSets is scanResident for the sets of vectors sets (or, with
// vr, the resident vectors vr as the one set): each gets prods[s] of a
// block in scan's layout.
func (st *streamer) scanResidentSets(dc *dictionary, cand []int, sets []pursuit.Matrix, vr *vecRows, norms bool, each func(b0, nb int, prods [][]float64, nrm []float64)) error {
	e, n, l := st.e, len(cand), st.tr.x.Rows
	rows := func(s int) int {
		if vr != nil {
			return 2 * (vr.r1 - vr.r0)
		}
		return sets[s].Rows
	}
	for b0 := 0; b0 < n; b0 += st.plan.Block {
		b1 := min(b0+st.plan.Block, n)
		nb := b1 - b0
		st.ab = st.ab[:0]
		for _, c := range cand[b0:b1] {
			st.ab = append(st.ab, dc.atoms.at(c))
		}
		prods := growEach(&st.prods, len(sets), func(s int) int { return rows(s) * nb })
		st.nrm = grow(st.nrm, nb)
		nrm := st.nrm[:nb]
		clear(nrm)
		for r := 0; r < nb; {
			a := st.ab[r]
			end := r + 1
			for end < nb && st.ab[end].kernel == a.kernel {
				end++
			}
			nr := end - r
			var blk *engine.Block
			var hm pursuit.Matrix
			if a.kernel >= 0 {
				if run := cand[b0+r : b0+end]; st.blk == nil || !slices.Equal(st.blkAtoms, run) {
					// Gathered, unless the last block holds these very atoms
					// (a full search over a dictionary that is one block:
					// X and the atoms do not change, so it is kept).
					centres := st.idx[:nr]
					for i := range centres {
						centres[i] = int(st.ab[r+i].center)
					}
					st.blkAtoms = st.blkAtoms[:0]
					var err error
					st.blk, err = e.GatherBlock(st.blk, st.cfg.Kernels[a.kernel], st.tr.x, st.tr.norms, centres, st.tr.prep)
					if err != nil && b0 == 0 && st.plan.Mode == Streamed && st.plan.Block > 1 &&
						(errors.Is(err, engine.ErrDeviceMemory) || errors.Is(err, engine.ErrBudget)) {
						// The blocks do not fit after all (the device's memory
						// went to others since the plan): halve them, and
						// recompute them every pass as a larger dictionary's.
						st.plan.Block /= 2
						return st.scanResidentSets(dc, cand, sets, vr, norms, each)
					}
					if err != nil {
						return fmt.Errorf("kmp: kernel %s block of %d functions at %d points: %w", st.cfg.Kernels[a.kernel], nr, l, err)
					}
					st.gathered++
					st.blkAtoms = append(st.blkAtoms, run...)
				}
				blk = st.blk
			} else {
				if len(st.host.Data) < nr*l {
					st.host = pursuit.NewMatrix(nr, l)
				}
				hm = pursuit.Matrix{Rows: nr, Cols: l, Stride: l, Data: st.host.Data[:nr*l]}
				if err := dc.fill(e, st.cfg, st.ab[r:end], st.tr, hm, st.idx); err != nil {
					return err
				}
			}
			// Every set's products of the run in one call (each set's are
			// those of a call of its own: engine.Engine.DictProductsSets).
			parts := growEach(&st.parts, len(sets), func(s int) int { return rows(s) * nr })
			var err error
			switch {
			case len(sets) == 0 || vr != nil && vr.r1 == vr.r0:
			case vr != nil && blk != nil:
				err = st.vecProducts(parts[0], nr, func(dst []float64) error {
					return e.BlockVectorProducts(dst, blk, vr.v, vr.r0, vr.r1)
				})
			case vr != nil:
				err = st.vecProducts(parts[0], nr, func(dst []float64) error { return st.hostVecProducts(dst, hm, vr) })
			case blk != nil:
				err = e.BlockProductsSets(parts, blk, sets)
			default:
				err = e.DictProductsSets(parts, hm, sets)
			}
			if err != nil {
				return fmt.Errorf("kmp: dictionary products on a kernel block: %w", err)
			}
			for s, part := range parts {
				for j := range rows(s) {
					copy(prods[s][j*nb+r:j*nb+end], part[j*nr:(j+1)*nr])
				}
			}
			if norms {
				if err := st.blockNorms(nrm[r:end], blk, hm, vr != nil); err != nil {
					return err
				}
			}
			r = end
		}
		each(b0, nb, prods, nrm)
	}
	return nil
}

// blockNorms writes the squared norms of a run's atoms: of the resident
// block blk (float64 sums like the products with the fitter's resident
// vectors when sums64 is set, else float32-rounded as SqNorms), or of the
// host rows hm.
func (st *streamer) blockNorms(nrm []float64, blk *engine.Block, hm pursuit.Matrix, sums64 bool) error {
	switch {
	case blk == nil:
		addSqNorms(st.e, hm, nrm)
	case sums64:
		if err := st.e.BlockSqNorms64(nrm, blk); err != nil {
			return fmt.Errorf("kmp: norms of a kernel block: %w", err)
		}
	default:
		nr := len(nrm)
		if cap(st.nrm32) < nr {
			st.nrm32 = make([]float32, nr)
		}
		if err := st.e.BlockSqNorms(st.nrm32[:nr], blk); err != nil {
			return fmt.Errorf("kmp: norms of a kernel block: %w", err)
		}
		for i, v := range st.nrm32[:nr] {
			nrm[i] = float64(v)
		}
	}
	return nil
}

// vecProducts runs products (which writes the nv = len(part)/(2·nr) float64
// products of nr atoms, vector-major) and spreads them into part in the
// hi/lo pair layout of scan: part[2j·nr+i] the product, part[(2j+1)·nr+i]
// zero.
func (st *streamer) vecProducts(part []float64, nr int, products func(dst []float64) error) error {
	nv := len(part) / (2 * nr)
	st.vprod = grow(st.vprod, nv*nr)
	if err := products(st.vprod); err != nil {
		return err
	}
	for j := range nv {
		copy(part[2*j*nr:(2*j+1)*nr], st.vprod[j*nr:(j+1)*nr])
		clear(part[(2*j+1)*nr : (2*j+2)*nr])
	}
	return nil
}

// hostVecProducts writes dst[j*hm.Rows+i] = ⟨hm_i, v_j⟩ in float64 for atoms
// computed on the host, bringing the resident vectors down.
func (st *streamer) hostVecProducts(dst []float64, hm pursuit.Matrix, vr *vecRows) error {
	l := hm.Cols
	st.vhost = grow(st.vhost, (vr.r1-vr.r0)*l)
	if err := st.e.ReadVectors(st.vhost, vr.v, vr.r0); err != nil {
		return err
	}
	for j := range vr.r1 - vr.r0 {
		v := st.vhost[j*l : (j+1)*l]
		for i := range hm.Rows {
			var s float64
			for c, x := range hm.Row(i) {
				s += float64(x) * v[c]
			}
			dst[j*hm.Rows+i] = s
		}
	}
	return nil
}
