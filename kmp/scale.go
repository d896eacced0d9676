package kmp

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit/backend"
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
	Block     int   // atoms computed per kernel block (Streamed, StochasticSearch)
	DictBytes int64 // bytes of the full float32 dictionary, M·l·4
	WorkBytes int64 // bytes of the dictionary storage actually used
}

func (p Plan) String() string {
	switch p.Mode {
	case InMemory:
		return fmt.Sprintf("in-memory dictionary: %d functions × %d points (%s)", p.Atoms, p.Points, engine.FormatBytes(p.DictBytes))
	case Streamed:
		return fmt.Sprintf("streamed dictionary: %d functions × %d points (%s, over the memory budget) recomputed every step in blocks of %d (%s)",
			p.Atoms, p.Points, engine.FormatBytes(p.DictBytes), p.Block, engine.FormatBytes(p.WorkBytes))
	}
	return fmt.Sprintf("stochastic search: %d of %d functions sampled per step over %d points, kernel block of %d (%s)",
		p.ActiveSet, p.Atoms, p.Points, p.Block, engine.FormatBytes(p.WorkBytes))
}

// maxStreamBlock bounds the rows of one streamed kernel block: large enough
// for the kernel block to run at GEMM speed, small enough to stay a modest
// fraction of memory.
const (
	maxStreamBlock      = 1024
	maxStreamBlockBytes = 256 << 20
)

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
	if err := c.resolve(l); err != nil {
		return Plan{}, err
	}
	cands := l
	if c.Candidates > 0 && c.Candidates < l {
		cands = c.Candidates
	}
	m := len(c.Kernels) * cands
	if c.Custom != nil {
		m += cands
	}
	if c.Bias {
		m++
	}
	return planFor(e, &c, m, l)
}

// planFor chooses the mode for m atoms at l points.
func planFor(e *engine.Engine, cfg *Config, m, l int) (Plan, error) {
	p := Plan{Atoms: m, Points: l, ActiveSet: m, DictBytes: int64(m) * int64(l) * 4}
	budget := e.MemoryBudget()
	rowBytes := int64(l) * 4
	fit := budget / rowBytes // atoms whose rows fit the budget
	if cfg.Stochastic != nil {
		s, err := cfg.Stochastic.Size()
		if err != nil {
			return p, err
		}
		p.Mode = StochasticSearch
		p.ActiveSet = min(s, m)
		p.Block = int(min(int64(p.ActiveSet), fit))
	} else {
		if p.DictBytes <= budget && m > 0 {
			p.Mode = InMemory
			p.Block = m
			p.WorkBytes = p.DictBytes
			return p, nil
		}
		p.Mode = Streamed
		p.Block = int(min(int64(m), fit, maxStreamBlockBytes/rowBytes, maxStreamBlock))
		if cfg.Deflation == Explicit {
			return p, fmt.Errorf("kmp: the dictionary of %d functions × %d points needs %s, over the memory budget of %s, and explicit deflation needs its deflated copy in memory: use implicit deflation (streamed) or raise the budget: %w",
				m, l, engine.FormatBytes(p.DictBytes), engine.FormatBytes(budget), engine.ErrBudget)
		}
	}
	if p.Block < 1 {
		return p, fmt.Errorf("kmp: one dictionary function at %d training points needs %s, over the memory budget of %s, so not even a streamed or stochastic dictionary fits: raise the budget or train on fewer points: %w",
			l, engine.FormatBytes(rowBytes), engine.FormatBytes(budget), engine.ErrBudget)
	}
	p.WorkBytes = int64(p.Block) * rowBytes
	return p, nil
}

// newDictionary builds the dictionary in the mode planFor chooses: in
// memory (buildDictionary), or as a streamer that computes atoms on the fly.
func newDictionary(e *engine.Engine, cfg *Config, atoms []atom, tr trainSet) (*dictionary, error) {
	plan, err := planFor(e, cfg, len(atoms), tr.x.Rows)
	if err != nil {
		return nil, err
	}
	if plan.Mode == InMemory {
		return buildDictionary(e, cfg, atoms, tr)
	}
	if err := e.Reserve("the KMP kernel block ("+plan.String()+")", plan.WorkBytes); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	st := &streamer{e: e, cfg: cfg, plan: plan, tr: tr, buf: backend.NewMatrix(plan.Block, tr.x.Rows), one: backend.NewMatrix(1, tr.x.Rows), nrm: make([]float64, plan.Block)}
	dc := &dictionary{atoms: atoms, stream: st}
	if plan.Mode == Streamed {
		// The norms of all atoms, in one blocked pass.
		dc.nrm2 = make([]float64, len(atoms))
		all := make([]int, len(atoms))
		for i := range all {
			all[i] = i
		}
		if err := st.scan(dc, all, backend.Matrix{}, func(b0 int, blk backend.Matrix, _ []float64) error {
			copy(dc.nrm2[b0:], rowSqNorms64(blk, e.Threads()))
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return dc, nil
}

// streamer computes dictionary atoms on the fly in blocks (Streamed and
// StochasticSearch modes).
type streamer struct {
	e     *engine.Engine
	cfg   *Config
	plan  Plan
	tr    trainSet
	buf   backend.Matrix // Block×l kernel block, reused
	one   backend.Matrix // 1×l, for a single atom
	ab    []atom
	prod  []float64
	pq    []float64 // projections scratch
	nrm   []float64 // block norms scratch
	last  []int     // the candidates whose rows buf holds now
	lastN int
}

// fill evaluates the atoms idx of dc at the training points into dst.
func (st *streamer) fill(dc *dictionary, idx []int, dst backend.Matrix) error {
	st.ab = st.ab[:0]
	for _, k := range idx {
		st.ab = append(st.ab, dc.atoms[k])
	}
	return fillAtoms(st.e, st.cfg, st.ab, st.tr, st.tr, dst)
}

// scan computes the candidate atoms cand block by block; for each block it
// runs DictProducts with the rows of vecs (if any) and calls each with the
// block's offset in cand, the block and prod[j*nb+i] = <d_{cand[b0+i]}, v_j>.
func (st *streamer) scan(dc *dictionary, cand []int, vecs backend.Matrix, each func(b0 int, blk backend.Matrix, prod []float64) error) error {
	be := st.e.Backend()
	n, l := len(cand), st.tr.x.Rows
	st.last = nil
	for b0 := 0; b0 < n; b0 += st.plan.Block {
		b1 := min(b0+st.plan.Block, n)
		blk := st.buf.Slice(0, b1-b0, 0, l)
		if err := st.fill(dc, cand[b0:b1], blk); err != nil {
			return err
		}
		st.last, st.lastN = cand[b0:b1], b0
		var prod []float64
		if vecs.Rows > 0 {
			need := vecs.Rows * (b1 - b0)
			if len(st.prod) < need {
				st.prod = make([]float64, need)
			}
			prod = st.prod[:need]
			if err := be.DictProducts(prod, blk, vecs); err != nil {
				return fmt.Errorf("kmp: dictionary products on a kernel block: %w", err)
			}
		}
		if err := each(b0, blk, prod); err != nil {
			return err
		}
	}
	return nil
}

// row64 writes candidate i of the last scan (atom cand[i]) into dst as
// float64, from the kernel block when it is still there.
func (st *streamer) row64(dc *dictionary, cand []int, i int, dst []float64) error {
	var src []float32
	if r := i - st.lastN; st.last != nil && r >= 0 && r < len(st.last) && st.last[r] == cand[i] {
		src = st.buf.Row(r)
	} else {
		if err := st.fill(dc, cand[i:i+1], st.one); err != nil {
			return err
		}
		src = st.one.Row(0)
	}
	for j, v := range src {
		dst[j] = float64(v)
	}
	return nil
}
