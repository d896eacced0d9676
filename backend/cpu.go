package backend

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/hugemem"
	"github.com/pursuit-ml/pursuit/internal/par"
)

// CPU is the one blocked CPU driver: kernel blocks and gathers (a BLIS-style
// blocked GEMM with the kernel transform applied to each tile while it is in
// cache), dictionary products, rank updates, squared norms and prepared
// (packed-once) operands, run on one worker pool (internal/par) and fed by a
// table of inner loops, CPUKernels. NewGo is this driver with the pure-Go
// kernels (GoKernels); package asm is the same driver with assembly ones.
//
// A CPU holds no mutable state besides its buffer pools, so it is safe for
// concurrent use by several goroutines. The small per-call buffers are kept
// in free lists (a long run's steps reuse them, see freeList); the sparse
// kernels' dense scatter blocks, which can take tens of megabytes on wide
// data, in a sync.Pool that the garbage collector may empty.
type CPU struct {
	name       string
	threads    int
	k          CPUKernels
	gemmWS     freeList[*gemmWorkspace]  // one per worker goroutine
	prodPool   freeList[*fewRowsScratch] // kernelFewRows' scratch
	sparsePool sync.Pool                 // *sparseWS
	accPool    freeList[*[]float64]      // dictProducts' accumulators, one per worker
	normPool   freeList[*[]float32]      // kernelBlock's gathered norms
}

// keep is how many buffers of a kind the free lists keep: those of every
// worker of two operations running at once.
func (b *CPU) keep() int { return 2*b.threads + 2 }

// NewCPU returns the driver named name running the kernels k on up to
// threads goroutines per call (threads ≤ 0: 1).
func NewCPU(name string, threads int, k CPUKernels) *CPU {
	return &CPU{name: name, threads: max(threads, 1), k: k}
}

var _ Backend = (*CPU)(nil)
var _ Preparer = (*CPU)(nil)
var _ RowTiler = (*CPU)(nil)
var _ RowTiler = (*cpuPrepared)(nil)
var _ PreparedSizer = (*CPU)(nil)

// Name returns the name given to NewCPU.
func (b *CPU) Name() string { return b.name }

// Threads returns the number of goroutines one operation uses at most.
func (b *CPU) Threads() int { return b.threads }

// Kernels returns the kernel table the driver runs.
func (b *CPU) Kernels() CPUKernels { return b.k }

// TileRows returns the GEMM micro-kernel's height (CPUKernels.MR): kernel
// blocks are computed in tiles of that many rows.
func (b *CPU) TileRows() int { return b.k.MR }

// Work thresholds below which an operation runs on the calling goroutine
// only: starting goroutines costs about a microsecond each.
const (
	minParallelFlops = 1 << 17 // multiply-adds for kernel blocks
	minParallelElems = 1 << 15 // matrix elements for streaming operations
)

// workers returns how many goroutines an operation of the given size
// deserves: 1 below threshold, else b.threads.
func (b *CPU) workers(size, threshold int) int {
	if size < threshold {
		return 1
	}
	return b.threads
}

// rows runs body over [0, n) cut into about eight pieces per worker (a
// multiple of grain long), with per-goroutine scratch from setup.
func rows[S any](b *CPU, n, grain, size, threshold int, setup func() S, body func(s S, lo, hi int)) {
	w := b.workers(size, threshold)
	par.Chunks(n, par.ChunkLen(n, w, 8, grain), w, setup, nil, body)
}

// SqNorms writes ‖x_i‖² of each row of x into dst[:x.Rows], summed with
// float64 partial sums and rounded to float32.
func (b *CPU) SqNorms(dst []float32, x pursuit.Matrix) error {
	if err := CheckSqNorms(dst, x); err != nil {
		return err
	}
	rows(b, x.Rows, 16, int(min(x.NNZ(), 1<<40)), minParallelElems, nil, func(_ struct{}, lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = float32(b.sqNormRow(x, i))
		}
	})
	return nil
}

// dotGroup is one call's worth of vectors for the dot kernels: rows
// [off, off+size) of a set, whose products go to dst (product of row i with
// vector off+j at dst[(off+j)·l+i]).
type dotGroup struct {
	vecs      pursuit.Matrix
	dst       []float64
	off, size int
}

// appendDictGroups appends the groups DictProducts cuts k = vecs.Rows
// vectors into: at most maxGroup (a power of two) each, 8, 4, 2, 1.
func appendDictGroups(g []dotGroup, dst []float64, vecs pursuit.Matrix, maxGroup int) []dotGroup {
	k := vecs.Rows
	for start := 0; start < k; {
		size := maxGroup
		for size > k-start {
			size /= 2
		}
		g = append(g, dotGroup{vecs: vecs, dst: dst, off: start, size: size})
		start += size
	}
	return g
}

// DictProducts works on blocks of dictRowBlock rows × dictColChunk columns:
// the block's piece of each vector (4 KiB) stays in L1 while all the rows
// of the block use it, so the kernels read the vectors from L1 and only the
// dictionary from memory, once.
const (
	dictRowBlock = 16
	dictColChunk = 1024
)

// DictProducts sets dst[j·dict.Rows+i] = <d_i, v_j> in one pass over dict.
// Each row d_i is multiplied with all vectors while it is in cache (groups of
// up to CPUKernels.MaxGroup vectors). Partial sums are float32 runs of at
// most 32 products per lane, added into float64.
func (b *CPU) DictProducts(dst []float64, dict, vecs pursuit.Matrix) error {
	if err := CheckDictProducts(dst, dict, vecs); err != nil {
		return err
	}
	b.dictProducts(dict, appendDictGroups(nil, dst, vecs, b.k.MaxGroup))
	return nil
}

var _ SetProducts = (*CPU)(nil)

// DictProductsSets computes every set's products in one DictProducts pass:
// the groups of vectors are those each set gets alone, one after the other,
// so every kernel call of a set is the call its own DictProducts makes and
// its products are the same bit for bit (see SetProducts), while each block
// of the dictionary is read from memory once for all the sets and its rows
// are applied to every set's vectors while they are in cache.
func (b *CPU) DictProductsSets(dst [][]float64, dict pursuit.Matrix, sets []pursuit.Matrix) error {
	if err := CheckDictProductsSets(dst, dict, sets); err != nil {
		return err
	}
	var groups []dotGroup
	for s, v := range sets {
		groups = appendDictGroups(groups, dst[s], v, b.k.MaxGroup)
	}
	b.dictProducts(dict, groups)
	return nil
}

// dictProducts runs the dot kernels over dict for the groups of vectors,
// the arguments checked.
func (b *CPU) dictProducts(dict pursuit.Matrix, groups []dotGroup) {
	l, n, k := dict.Rows, dict.Cols, 0
	for _, g := range groups {
		k += g.size
	}
	if l == 0 || k == 0 {
		return
	}
	if n == 0 {
		for _, g := range groups {
			clear(g.dst[g.off*l : (g.off+g.size)*l])
		}
		return
	}
	n8 := n &^ 7
	// The rows of a block are taken sub sub-block rows at a time (the most
	// rows any group's kernel takes per call, a power of two dividing
	// dictRowBlock), and a sub-block is applied to every group while its
	// rows are in L1, the groups' vectors coming from L2 (in a
	// micro-benchmark of 4×4 calls, 102–120 GFLOP/s per core with the
	// vectors from L2 against 151 with both in L1; with both from L2 the
	// whole pass ran about 15% slower). Every product gets the same kernel
	// calls in the same order of columns, whatever the groups beside it.
	rowsPerCall := b.k.RowsPerCall
	if len(groups) > 1 && b.k.RowsPerCallMany != nil {
		rowsPerCall = b.k.RowsPerCallMany
	}
	sub := 1
	for _, g := range groups {
		sub = max(sub, rowsPerCall(g.size))
	}
	// Runs of consecutive groups of one size go to DotSets together.
	type run struct{ first, count, size, base int }
	var runs []run
	base := 0
	for gi, g := range groups {
		if n := len(runs); n > 0 && b.k.DotSets != nil && runs[n-1].size == g.size {
			runs[n-1].count++
		} else {
			runs = append(runs, run{gi, 1, g.size, base})
		}
		base += g.size
	}
	// scratch.acc[dictRowBlock·4·base(g) + 4(r·size+j) + lane] for group
	// g, block row r and vector j of the group, where base(g) counts the
	// vectors of the groups before it.
	// sets[ri] are run ri's groups for DotSets, at offset 0.
	type scratch struct {
		acc  []float64
		buf  *[]float64 // acc's pooled buffer
		sets [][]DotSet
	}
	// The accumulators come from accPool and go back to it when a worker
	// is done (every block clears them before use): a search calling this
	// step after step leaves no garbage.
	w := b.workers(l*n*k, minParallelElems)
	par.Chunks(l, par.ChunkLen(l, w, 8, dictRowBlock), w,
		func() scratch {
			buf := b.accPool.get()
			if buf == nil {
				buf = new([]float64)
			}
			if cap(*buf) < dictRowBlock*4*k {
				*buf = make([]float64, dictRowBlock*4*k)
			}
			w := scratch{acc: (*buf)[:dictRowBlock*4*k], buf: buf}
			for ri, u := range runs {
				if u.count == 1 {
					continue
				}
				if w.sets == nil {
					w.sets = make([][]DotSet, len(runs))
				}
				for i, g := range groups[u.first : u.first+u.count] {
					w.sets[ri] = append(w.sets[ri], DotSet{Acc: w.acc[dictRowBlock*4*(u.base+i*u.size):],
						V: g.vecs.Data[g.off*g.vecs.Stride:], VS: g.vecs.Stride})
				}
			}
			return w
		},
		func(w scratch) { b.accPool.put(w.buf, b.keep()) },
		func(w scratch, lo, hi int) {
			acc := w.acc
			for i0 := lo; i0 < hi; i0 += dictRowBlock {
				rb := min(dictRowBlock, hi-i0)
				clear(acc)
				for c0 := 0; c0 < n8; c0 += dictColChunk {
					cn := min(dictColChunk, n8-c0)
					for s0 := 0; s0 < rb; s0 += sub {
						for ri, u := range runs {
							rpc := rowsPerCall(u.size)
							for r0 := s0; r0 < min(s0+sub, rb); r0 += rpc {
								nr := min(rpc, rb-r0)
								x := dict.Data[(i0+r0)*dict.Stride+c0:]
								if u.count == 1 {
									g := groups[u.first]
									b.k.DotRows(acc[dictRowBlock*4*u.base+4*r0*u.size:], x, dict.Stride, nr, cn,
										g.vecs.Data[g.off*g.vecs.Stride+c0:], g.vecs.Stride, u.size)
									continue
								}
								b.k.DotSets(w.sets[ri], 4*r0*u.size, c0, x, dict.Stride, nr, cn, u.size)
							}
						}
					}
				}
				base := 0
				for _, g := range groups {
					for r := 0; r < rb; r++ {
						x := dict.Row(i0 + r)
						for j := 0; j < g.size; j++ {
							a := acc[dictRowBlock*4*base+4*(r*g.size+j):]
							// the last n mod 8 products: one more float32 run
							vj := g.vecs.Row(g.off + j)
							var t float32
							for c := n8; c < n; c++ {
								t += x[c] * vj[c]
							}
							g.dst[(g.off+j)*l+i0+r] = (a[0] + a[1]) + (a[2] + a[3]) + float64(t)
						}
					}
					base += g.size
				}
			}
		})
}

// RankUpdate applies d ← d + alpha·Σ_t u_t v_tᵀ four rows at a time: row i
// of d gets Σ_t (alpha·u_t[i]) v_t in one load and one store, for any k.
func (b *CPU) RankUpdate(d pursuit.Matrix, alpha float32, u, v pursuit.Matrix) error {
	if err := CheckRankUpdate(d, u, v); err != nil {
		return err
	}
	k := u.Rows
	if k == 0 || d.Rows == 0 || d.Cols == 0 || alpha == 0 {
		return nil
	}
	rows(b, d.Rows, 8, d.Rows*d.Cols*k, minParallelElems,
		func() []float32 { return make([]float32, 4*k) },
		func(c []float32, lo, hi int) {
			i := lo
			for ; i+4 <= hi; i += 4 {
				for t := 0; t < k; t++ {
					for r := 0; r < 4; r++ {
						c[4*t+r] = alpha * u.At(t, i+r)
					}
				}
				b.k.Axpy4(d.Data[i*d.Stride:], d.Stride, d.Cols, c, v.Data, v.Stride)
			}
			for ; i < hi; i++ {
				for t := 0; t < k; t++ {
					c[t] = alpha * u.At(t, i)
				}
				b.k.Axpys(d.Row(i), c[:k], v.Data, v.Stride)
			}
		})
	return nil
}

// ScoredArgMax returns the index k maximising |s_k|/sqrt(n_k) over the
// eligible candidates (see Backend), with the table's ArgMax kernel.
func (b *CPU) ScoredArgMax(s, n []float64, skip []bool) (int, float64) {
	m := min(len(s), len(n))
	s, n = s[:m], n[:m]
	if skip == nil || len(skip) >= m {
		if skip != nil {
			skip = skip[:m]
		}
		return b.k.ArgMax(s, n, skip)
	}
	// skip covers a prefix only: the rest has no skipping.
	ls := len(skip)
	k1, s1 := b.k.ArgMax(s[:ls], n[:ls], skip)
	k2, s2 := b.k.ArgMax(s[ls:], n[ls:], nil)
	if k2 >= 0 && (k1 < 0 || s2 > s1) {
		return ls + k2, s2
	}
	return k1, s1
}

// gemmWorkspace holds one worker's packing buffers.
type gemmWorkspace struct {
	ap, bp []float32 // packed A (mc×kc) and B (kc×nc) blocks
	an, bn []float32 // squared norms of the packed rows, zero padded
	tile   []float32 // mr×nr scratch for edge tiles
}

// workspace returns a worker's packing buffers, with room for blocks of
// at most mc rows of A, kc features and nc columns of B (each capped at the
// kernel's MC, KC and NC, and rounded up to whole panels); packB is false
// when B comes packed (a Prepared operand), which then needs no room. The
// buffers are sized to the block rather than to the kernel's largest: a
// block of 54 features packs into a fifth of the room of KC = 256 (on a
// covtype-like run, 2.4 MB of packing buffers fell to 0.6 MB).
func (b *CPU) workspace(mc, kc, nc int, packB bool) *gemmWorkspace {
	k := &b.k
	ws := b.gemmWS.get()
	if ws == nil {
		ws = &gemmWorkspace{tile: make([]float32, k.MR*k.NR)}
	}
	mc = (min(mc, k.MC) + k.MR - 1) / k.MR * k.MR
	nc = (min(nc, k.NC) + k.NR - 1) / k.NR * k.NR
	kc = min(kc, k.KC)
	ws.ap, ws.an = atLeast(ws.ap, mc*kc), atLeast(ws.an, mc)
	if packB {
		ws.bp = atLeast(ws.bp, kc*nc)
	}
	ws.bn = atLeast(ws.bn, nc)
	return ws
}

// atLeast returns s at its capacity when that is n or more, else a new
// slice of n elements.
func atLeast(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:cap(s)]
}

// kernelOp is one kernel-block computation: dst[r][j] = k(a_row(r), b_j),
// where row(r) is idx[r] (gather) or r.
type kernelOp struct {
	k      pursuit.Kernel
	dst    pursuit.Matrix
	a      pursuit.Matrix
	idx    []int     // nil: identity
	an     []float32 // pursuit.RBF only: ‖a_row(r)‖², indexed by r (dst row)
	b      pursuit.Matrix
	bn     []float32    // pursuit.RBF only: ‖b_j‖²
	bp     *cpuPrepared // b packed once, nil to pack it per block
	negGam float32
}

func (op *kernelOp) row(r int) int {
	if op.idx != nil {
		return op.idx[r]
	}
	return r
}

// KernelBlock writes dst[i][j] = k(a_i, b_j).
func (b *CPU) KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, bm pursuit.Matrix, bNorms []float32) error {
	if err := CheckKernelBlock(dst, k, a, aNorms, bm, bNorms); err != nil {
		return err
	}
	return b.kernelBlock(&kernelOp{k: k, dst: dst, a: a, b: bm}, aNorms, bNorms)
}

// KernelGather writes dst[r][j] = k(a_{idx[r]}, b_j).
func (b *CPU) KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, bm pursuit.Matrix, bNorms []float32) error {
	if err := CheckKernelGather(dst, k, a, aNorms, idx, bm, bNorms); err != nil {
		return err
	}
	return b.kernelBlock(&kernelOp{k: k, dst: dst, a: a, idx: idx, b: bm}, aNorms, bNorms)
}

// KernelBlockPrepared is KernelBlock with b packed once; see Preparer.
func (b *CPU) KernelBlockPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, bp Prepared) error {
	p, err := b.prepared("KernelBlock", bp)
	if err != nil {
		return err
	}
	// p.M was validated by Prepare
	if err := checkKernel("KernelBlock", dst, k, a, aNorms, nil, p.M, nil, true); err != nil {
		return err
	}
	return b.kernelBlock(&kernelOp{k: k, dst: dst, a: a, b: p.M, bp: p}, aNorms, p.SqNorms)
}

// KernelGatherPrepared is KernelGather with b packed once; see Preparer.
func (b *CPU) KernelGatherPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, bp Prepared) error {
	p, err := b.prepared("KernelGather", bp)
	if err != nil {
		return err
	}
	if idx == nil {
		idx = []int{} // a gather of no rows, not KernelBlock's identity
	}
	// p.M was validated by Prepare
	if err := checkKernel("KernelGather", dst, k, a, aNorms, idx, p.M, nil, true); err != nil {
		return err
	}
	return b.kernelBlock(&kernelOp{k: k, dst: dst, a: a, idx: idx, b: p.M, bp: p}, aNorms, p.SqNorms)
}

// norms returns the squared norms of the rows of x selected by idx (all
// rows when idx is nil), taken from given when it is not nil. The norms it
// computes or gathers go to a buffer of b's normPool, returned in *put
// (nil when given serves as it is), which the caller puts back once it is
// done with them: kernel blocks called step after step then leave no
// garbage.
func (b *CPU) norms(given []float32, x pursuit.Matrix, idx []int, put **[]float32) []float32 {
	*put = nil
	if idx == nil && given != nil {
		return given[:x.Rows]
	}
	n := x.Rows
	if idx != nil {
		n = len(idx)
	}
	buf := b.normPool.get()
	if buf == nil {
		buf = new([]float32)
	}
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	*put = buf
	out := (*buf)[:n:n]
	if idx == nil {
		_ = b.SqNorms(out, x) // x was validated by the caller
		return out
	}
	for r, i := range idx {
		if given != nil {
			out[r] = given[i]
		} else {
			out[r] = float32(b.sqNormRow(x, i))
		}
	}
	return out
}

// cpuPrepared is a matrix packed once into the panels packB makes of a
// block: for each KC-long slice pc of the features, the panels of NR rows
// of all of its rows (the rows padded with zeros to npan·NR), each kc×NR
// with kc = min(KC, cols−pc). Slice pc thus starts at npan·NR·pc, and the
// panel of rows [j, j+NR) (j a multiple of NR) at (j/NR)·kc·NR within it.
// bn holds the squared norms padded with zeros to npan·NR.
// packed lives in a hugemem.Arena when it is at least preparedArenaMin
// bytes (a cold run then faults it in a few 2 MiB pages instead of
// hundreds of 4 KiB ones: 2.4 MB, 600 faults, 8 ms on a virtual machine).
type cpuPrepared struct {
	PreparedBase
	owner  *CPU
	packed []float32
	bn     []float32
	arena  *hugemem.Arena // holds packed; nil: the Go heap
	cols   *sparseColumns // a sparse M's non-zeros by column (kernelColumns); nil: none
}

// preparedArenaMin is the smallest packed copy Prepare maps an arena for.
const preparedArenaMin = 1 << 20

// Prepare packs m once into the micro-kernel's panel layout; see Preparer.
// A sparse m is not packed: the handle keeps its CSR and norms.
func (b *CPU) Prepare(m pursuit.Matrix) (Prepared, error) {
	if err := m.Validate(); err != nil {
		return nil, shapeErr("Prepare", "b: %v", err)
	}
	if m.IsSparse() {
		// The sparse path reads the CSR itself (sparse.go): the handle
		// keeps it and its norms, no packed copy.
		p := &cpuPrepared{owner: b, bn: make([]float32, m.Rows)}
		_ = b.SqNorms(p.bn, m) // validated above
		if b.k.SparseScatter != nil {
			p.cols = newSparseColumns(m, b.k.SparseChains)
		}
		p.M, p.SqNorms = m, p.bn
		return p, nil
	}
	nr, kcb := b.k.NR, b.k.KC
	npan := (m.Rows + nr - 1) / nr
	p := &cpuPrepared{owner: b, bn: make([]float32, npan*nr)}
	if size := npan * nr * m.Cols; size*4 >= preparedArenaMin {
		p.arena = hugemem.New(size * 4)
		p.packed = hugemem.Slice[float32](p.arena, size)
		if p.packed != nil {
			// In case Release is never called.
			runtime.AddCleanup(p, func(a *hugemem.Arena) { a.Free() }, p.arena)
		}
	}
	if p.packed == nil {
		p.packed = make([]float32, npan*nr*m.Cols)
	}
	_ = b.SqNorms(p.bn, m) // validated above
	p.M, p.SqNorms = m, p.bn[:m.Rows:m.Rows]
	for pc := 0; pc < m.Cols; pc += kcb {
		kc := min(kcb, m.Cols-pc)
		slice := p.packed[npan*nr*pc:]
		rows(b, npan, 1, m.Rows*kc, minParallelElems, nil, func(_ struct{}, lo, hi int) {
			j0 := lo * nr
			b.packB(slice[lo*kc*nr:], m, j0, min(hi*nr, m.Rows)-j0, pc, kc)
		})
	}
	return p, nil
}

// TileRows is the RowTiler of the handle: how many rows of a gather
// against it cost about one. A sparse matrix with its column index costs
// each row its own columns (kernelColumns), so 1; a dense one the GEMM's
// tile.
func (p *cpuPrepared) TileRows() int {
	if p.cols != nil {
		return 1
	}
	return p.owner.k.MR
}

// PreparedBytes is what Prepare(m) takes: the packed copy of a dense m
// (its values); the norms of a sparse m, and its column index where the
// kernels have a column path.
func (b *CPU) PreparedBytes(m pursuit.Matrix) int64 {
	if m.IsSparse() {
		n := 4 * int64(m.Rows)
		if b.k.SparseScatter != nil {
			n += sparseColumnsBytes(m)
		}
		return n
	}
	return 4 * int64(m.Rows) * int64(m.Cols)
}

// Release drops the packed copy.
func (p *cpuPrepared) Release() error {
	if p.MarkReleased() {
		p.packed, p.bn, p.cols = nil, nil, nil
		p.arena.Free()
	}
	return nil
}

func (b *CPU) prepared(op string, h Prepared) (*cpuPrepared, error) {
	return CheckPrepared(op, h, func(p *cpuPrepared) bool { return p.owner == b })
}

// kernelBlock fills in the norms an RBF block needs and runs the blocked
// GEMM with the kernel transform on every tile, split over threads along
// the larger of the two output dimensions into one region per thread (each
// region packs all of the other operand once, so more regions cost more
// packing).
func (b *CPU) kernelBlock(op *kernelOp, aNorms, bNorms []float32) error {
	if op.k.Kind == pursuit.RBF {
		var putA, putB *[]float32
		op.an = b.norms(aNorms, op.a, op.idx, &putA)
		op.bn = b.norms(bNorms, op.b, nil, &putB)
		defer func() {
			// op is the caller's for this call only; the norms are not
			// used once the block is done.
			op.an, op.bn = nil, nil
			if putA != nil {
				b.normPool.put(putA, b.keep())
			}
			if putB != nil {
				b.normPool.put(putB, b.keep())
			}
		}()
	}
	n, m, d := op.dst.Rows, op.dst.Cols, op.a.Cols
	if n == 0 || m == 0 {
		return nil
	}
	op.negGam = float32(-op.k.Gamma)
	if d == 0 {
		for r := 0; r < n; r++ {
			for j := 0; j < m; j++ {
				var sq float64
				if op.k.Kind == pursuit.RBF {
					sq = float64(op.an[r]) + float64(op.bn[j])
				}
				op.dst.Set(r, j, float32(op.k.FromDot(0, sq)))
			}
		}
		return nil
	}
	if op.a.IsSparse() || op.b.IsSparse() {
		b.kernelSparse(op)
		return nil
	}
	if op.bp == nil && n <= fewRowsMax && m >= 4*fewRowsMax {
		b.kernelFewRows(op)
		return nil
	}
	w := b.workers(n*m*d, minParallelFlops)
	if n >= m {
		c := par.ChunkLen(n, w, 1, b.k.MR)
		par.Chunks(n, c, w, nil, nil, func(_ struct{}, lo, hi int) { b.gemmRegion(op, lo, hi, 0, m) })
	} else {
		c := par.ChunkLen(m, w, 1, b.k.NR)
		par.Chunks(m, c, w, nil, nil, func(_ struct{}, lo, hi int) { b.gemmRegion(op, 0, n, lo, hi) })
	}
	return nil
}

// fewRowsMax is the largest number of rows of a for which kernelFewRows is
// used when b is not prepared: below it the GEMM's packing of b (a full
// extra pass over b) and its tiles waste more than the streaming dot
// kernels lose. A prepared b needs no packing, and its blocks always take
// the GEMM, which computes every value alike whatever the rows beside it
// (see Preparer).
const fewRowsMax = 8

// fewRowsScratch holds kernelFewRows' inner products and copied rows.
type fewRowsScratch struct {
	prod     []float64
	vecs     []float32
	tail, bn [fewRowsMax * 16]float32 // the last m mod 16 columns
}

// kernelFewRows computes a kernel block with few rows of a (an SMO kernel
// row, a stochastic-KMP batch) as streaming passes over b with the
// DictProducts kernels, fewRowsCols points of b at a time, then applies the
// transform row by row. Each product depends on its own row of b only, so
// the slices give the values one pass would; the float64 products of a
// slice take 64 KiB per row, where one pass over b took 8 bytes per row and
// point (0.8 MB for two rows of 50,000 points, kept between calls).
func (b *CPU) kernelFewRows(op *kernelOp) {
	n, m, d := op.dst.Rows, op.dst.Cols, op.a.Cols
	sc := b.prodPool.get()
	if sc == nil {
		sc = new(fewRowsScratch)
	}
	cols := min(m, fewRowsCols)
	if cap(sc.prod) < n*cols {
		sc.prod = make([]float64, n*cols)
	}
	if cap(sc.vecs) < n*d {
		sc.vecs = make([]float32, n*d)
	}
	defer b.prodPool.put(sc, b.keep())
	vecs := pursuit.Matrix{Rows: n, Cols: d, Stride: d, Data: sc.vecs[:n*d]}
	for r := 0; r < n; r++ {
		copy(vecs.Row(r), op.a.Row(op.row(r)))
	}
	for c0 := 0; c0 < m; c0 += cols {
		c1 := min(c0+cols, m)
		w := c1 - c0
		prod := sc.prod[:n*w]
		_ = b.DictProducts(prod, op.b.Slice(c0, c1, 0, op.b.Cols), vecs) // shapes checked by the caller
		for r := 0; r < n; r++ {
			row := op.dst.Row(r)[c0:c1]
			for j, t := range prod[r*w : (r+1)*w] {
				row[j] = float32(t)
			}
		}
	}
	b.transformRows(op, 0, n, sc.tail[:], sc.bn[:])
}

// fewRowsCols is how many points of b kernelFewRows takes per pass: each
// pass is one DictProducts call (split over the workers), long enough that
// starting them is a small part of it.
const fewRowsCols = 8192

// gemmRegion computes dst rows [r0, r1) × columns [c0, c1).
func (b *CPU) gemmRegion(op *kernelOp, r0, r1, c0, c1 int) {
	d := op.a.Cols
	ws := b.workspace(r1-r0, d, c1-c0, op.bp == nil)
	defer b.gemmWS.put(ws, b.keep())
	k := &b.k
	mr, nr := k.MR, k.NR
	rbf := op.k.Kind == pursuit.RBF
	for jc := c0; jc < c1; jc += k.NC {
		ncur := min(k.NC, c1-jc)
		npan := (ncur + nr - 1) / nr
		for pc := 0; pc < d; pc += k.KC {
			kcur := min(k.KC, d-pc)
			first, last := pc == 0, pc+kcur == d
			bp, bn := ws.bp, ws.bn
			if op.bp != nil {
				// packed once (see cpuPrepared); jc is a multiple of nr
				q := op.bp
				bp = q.packed[len(q.bn)*pc+jc*kcur:]
				bn = q.bn[jc:]
			} else {
				b.packB(ws.bp, op.b, jc, ncur, pc, kcur)
				if last && rbf {
					clear(ws.bn[:npan*nr])
					copy(ws.bn, op.bn[jc:jc+ncur])
				}
			}
			for ic := r0; ic < r1; ic += k.MC {
				mcur := min(k.MC, r1-ic)
				mpan := (mcur + mr - 1) / mr
				packA(ws.ap, mr, op, ic, mcur, pc, kcur, b.k.Pack8)
				if last && rbf {
					clear(ws.an[:mpan*mr])
					copy(ws.an, op.an[ic:ic+mcur])
				}
				// The full tiles of a group of column panels are transformed
				// together once their last block of p is in (see
				// transformGroupBytes); partial tiles in their scratch tile.
				group := max(1, transformGroupBytes/(4*nr*mcur))
				fullRows := mcur / mr * mr
				for jg := 0; jg < npan; jg += group {
					je := min(jg+group, npan)
					for jp := jg; jp < je; jp++ {
						bpan := bp[jp*kcur*nr : (jp+1)*kcur*nr]
						j0 := jc + jp*nr
						nj := min(nr, jc+ncur-j0)
						for ip := 0; ip < mpan; ip++ {
							apan := ws.ap[ip*kcur*mr : (ip+1)*kcur*mr]
							i0 := ic + ip*mr
							ni := min(mr, ic+mcur-i0)
							b.tile(op, ws, apan, bpan, kcur, i0, ni, j0, nj, first, last,
								ws.an[ip*mr:ip*mr+mr], bn[jp*nr:jp*nr+nr])
						}
					}
					fullCols := min(je*nr, ncur/nr*nr) - jg*nr
					if last && fullRows > 0 && fullCols > 0 {
						j0 := jc + jg*nr
						b.transform(op, op.dst.Data[ic*op.dst.Stride+j0:], op.dst.Stride, fullRows, fullCols, fullCols,
							ws.an[:fullRows], bn[jg*nr:jg*nr+fullCols])
					}
				}
			}
		}
	}
}

// transformGroupBytes bounds the output a group of full tiles covers
// (gemmRegion): the kernel transform runs once per group, while its tiles
// are still in L1, instead of once per tile. On a 6×16 AVX2 tile the calls
// cost a third of the transform: 1.14 Gexp/s tile by tile against 1.75
// for a 6×1024 strip in one call.
const transformGroupBytes = 16 << 10

// tile runs the micro-kernel for the ni×nj output tile at (i0, j0), through
// the scratch tile when it is not a full mr×nr; a partial tile gets the
// kernel transform after the last block of p, a full one with its group
// (gemmRegion).
func (b *CPU) tile(op *kernelOp, ws *gemmWorkspace, apan, bpan []float32, kc, i0, ni, j0, nj int, first, last bool, an, bn []float32) {
	dst := op.dst
	mr, nr := b.k.MR, b.k.NR
	if ni == mr && nj == nr {
		b.k.Gemm(kc, apan, bpan, dst.Data[i0*dst.Stride+j0:], dst.Stride, !first)
		return
	}
	t := ws.tile
	clear(t)
	if !first {
		for i := 0; i < ni; i++ {
			copy(t[i*nr:i*nr+nj], dst.Data[(i0+i)*dst.Stride+j0:])
		}
	}
	b.k.Gemm(kc, apan, bpan, t, nr, !first)
	if last {
		b.transform(op, t, nr, ni, nj, nr, an, bn)
	}
	for i := 0; i < ni; i++ {
		copy(dst.Data[(i0+i)*dst.Stride+j0:(i0+i)*dst.Stride+j0+nj], t[i*nr:i*nr+nj])
	}
}

// transform applies the kernel function to the inner products of a tile
// (ni valid rows, nj valid columns; RBF and poly process all cols columns,
// a multiple of 16 or NR).
func (b *CPU) transform(op *kernelOp, c []float32, ldc, ni, nj, cols int, an, bn []float32) {
	switch op.k.Kind {
	case pursuit.Linear:
	case pursuit.RBF:
		b.k.RBF(c, ldc, ni, cols, an, bn, op.negGam)
	case pursuit.Polynomial:
		b.k.Poly(c, ldc, ni, cols, float32(op.k.Gamma), float32(op.k.Coef0), op.k.Degree)
	case pursuit.Sigmoid:
		g, c0 := op.k.Gamma, op.k.Coef0
		for i := 0; i < ni; i++ {
			row := c[i*ldc : i*ldc+nj]
			for j, t := range row {
				row[j] = float32(math.Tanh(g*float64(t) + c0))
			}
		}
	}
}

// packB copies rows [j0, j0+ncur) × columns [pc, pc+kc) of m into panels
// of NR rows, each stored p-major (NR consecutive values per p), zero
// padded. Groups of 8 rows go through the transposing Pack8 kernel.
func (b *CPU) packB(bp []float32, m pursuit.Matrix, j0, ncur, pc, kc int) {
	nr := b.k.NR
	for jp := 0; jp*nr < ncur; jp++ {
		pan := bp[jp*kc*nr : (jp+1)*kc*nr]
		jj := 0
		for ; jj+8 <= nr && jp*nr+jj+8 <= ncur; jj += 8 {
			j := j0 + jp*nr + jj
			b.k.Pack8(pan[jj:], nr, m.Data[j*m.Stride+pc:], m.Stride, kc)
		}
		for ; jj < nr; jj++ {
			j := jp*nr + jj
			if j >= ncur {
				for p := 0; p < kc; p++ {
					pan[p*nr+jj] = 0
				}
				continue
			}
			row := m.Data[(j0+j)*m.Stride+pc : (j0+j)*m.Stride+pc+kc]
			for p, v := range row {
				pan[p*nr+jj] = v
			}
		}
	}
}

// packA copies dst rows [i0, i0+mcur) (rows op.row(r) of a) × columns
// [pc, pc+kc) into panels of mr rows stored p-major, zero padded. Eight
// rows of a panel that are eight consecutive rows of a go through the
// transposing pack8 (when mr ≥ 8 and pack8 is not nil), the rest one by
// one: a prediction of many rows against a few vectors spends as much time
// packing its rows as multiplying them (2,007 USPS digits × 66 vectors: a
// quarter of the block, one value a cycle).
func packA(ap []float32, mr int, op *kernelOp, i0, mcur, pc, kc int, pack8 func(dst []float32, ds int, src []float32, ss, kc int)) {
	a := op.a
	for ip := 0; ip*mr < mcur; ip++ {
		pan := ap[ip*kc*mr : (ip+1)*kc*mr]
		ii := 0
		for ; pack8 != nil && ii+8 <= mr && ip*mr+ii+8 <= mcur; ii += 8 {
			src := op.row(i0 + ip*mr + ii)
			if op.idx != nil && !consecutive(op.idx[i0+ip*mr+ii:i0+ip*mr+ii+8]) {
				break
			}
			pack8(pan[ii:], mr, a.Data[src*a.Stride+pc:], a.Stride, kc)
		}
		for ; ii < mr; ii++ {
			r := ip*mr + ii
			if r >= mcur {
				for p := 0; p < kc; p++ {
					pan[p*mr+ii] = 0
				}
				continue
			}
			src := op.row(i0 + r)
			row := a.Data[src*a.Stride+pc : src*a.Stride+pc+kc]
			for p, v := range row {
				pan[p*mr+ii] = v
			}
		}
	}
}

// consecutive reports whether idx is i, i+1, i+2, … .
func consecutive(idx []int) bool {
	for t := 1; t < len(idx); t++ {
		if idx[t] != idx[0]+t {
			return false
		}
	}
	return true
}

// String describes the driver, e.g. "go (2 threads)".
func (b *CPU) String() string { return fmt.Sprintf("%s (%d threads)", b.name, b.threads) }
