package backend

import (
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/par"
)

// Kernel blocks with a sparse operand.
//
// A sparse operand (pursuit.CSR rows) takes the same KernelBlock,
// KernelGather and Preparer methods as a dense one; only the inner products
// are computed differently. One operand is streamed: its rows' non-zeros
// are read once per batch of the other operand's rows, the block side,
// which is scattered column-interleaved into a small dense block (the
// values of the batch's W = CPUKernels.SparseRows rows at column c are W
// consecutive floats), so that each streamed non-zero costs one broadcast
// and one W-wide multiply-add (CPUKernels.SparseDot). The block holds only
// the batch's columns: a per-worker map pos sends a column to its block
// row, 0 (a row of zeros) for a column the batch does not hold, so that a
// batch of sparse rows costs O(its non-zeros) to scatter and to clear
// again, and a worker's memory is 4·d bytes for pos plus W floats per
// column of the batch (news20's 1.35 M features: 5.4 MB for pos, about
// 15 k columns × 8 lanes for a batch; a d-long dense block of W rows would
// be 43 MB). A dense block side is packed whole (pos the identity): W·d
// floats, W rows of the dense operand.
//
// Roles: a sparse b is streamed against batches of rows of a (dense or
// sparse); a dense b is the block side against streamed sparse rows of a.
// The role depends on the storage of the operands only, never on sizes or
// on which rows share a call, and the product of a_i and b_j is the sum of
// the streamed row's products in the order of its non-zeros (products
// with the zero row add +0, which changes no sum), so its bits do not
// depend on the batch: the prepared forms (whose handle of a sparse b
// keeps the CSR and its norms) give the same values as the plain ones, and
// a kernel row the same bits in every gather (see Preparer).
//
// The products go to dst as float32, and the kernel transform is applied
// to dst afterwards in strips, with the transform kernels of the dense
// path (the same float32 product gives the same kernel value).

// sparseChunkNNZ bounds the streamed non-zeros of one task (256 KiB of
// columns and values), so that a chunk read for one batch is still in L2
// or L3 for the next; sparseChunkMin is the least a task streams, so that
// the scatter of its batch costs a small part of it.
const (
	sparseChunkNNZ = 1 << 15
	sparseChunkMin = 1 << 11
)

// sparseWS is one worker's scratch for kernelSparse.
type sparseWS struct {
	pos []int32   // column → block row; all zero between uses
	blk []float32 // block rows of W lanes, row 0 all zeros
	acc []float32 // W products of one streamed row
}

// sparseWorkspace returns a worker's scratch for d columns and width w
// from the pool.
func (b *CPU) sparseWorkspace(d, w int) *sparseWS {
	ws, _ := b.sparsePool.Get().(*sparseWS)
	if ws == nil {
		ws = new(sparseWS)
	}
	if len(ws.pos) < d {
		ws.pos = make([]int32, d)
	}
	if len(ws.acc) < w {
		ws.acc = make([]float32, w)
	}
	if len(ws.blk) < w {
		ws.blk = make([]float32, w)
	}
	return ws
}

// grow makes room for block row q and zeroes it.
func (ws *sparseWS) grow(q, w int) []float32 {
	if n := (q + 1) * w; n > len(ws.blk) {
		nb := make([]float32, max(n, 2*len(ws.blk)))
		copy(nb, ws.blk)
		ws.blk = nb
	}
	r := ws.blk[q*w : (q+1)*w]
	clear(r)
	return r
}

// sparseSide is one operand of kernelSparse: its row t is m's row
// sel[t] (t when sel is nil).
type sparseSide struct {
	m   pursuit.Matrix
	sel []int
	n   int // rows
}

func (s sparseSide) row(t int) int {
	if s.sel != nil {
		return s.sel[t]
	}
	return t
}

func (s sparseSide) nnz(t int) int64 {
	r := s.row(t)
	return s.m.Sparse.Offsets[r+1] - s.m.Sparse.Offsets[r]
}

// kernelSparse computes a kernel op with a sparse a or b (d > 0, dst not
// empty, norms filled in by kernelBlock).
func (b *CPU) kernelSparse(op *kernelOp) {
	if op.bp != nil && op.bp.cols != nil && op.b.IsSparse() {
		if cw, sw := b.columnsWork(op, op.bp.cols); cw < sw {
			b.kernelColumns(op, op.bp.cols)
			return
		}
	}
	n, m, d := op.dst.Rows, op.dst.Cols, op.a.Cols
	w := b.k.SparseRows
	aSide := sparseSide{m: op.a, sel: op.idx, n: n}
	bSide := sparseSide{m: op.b, n: m}
	blk, str := aSide, bSide
	streamB := op.b.IsSparse()
	if !streamB {
		blk, str = bSide, aSide
	}
	// The stream side cut into chunks of about chunk non-zeros.
	var total int64
	for s := 0; s < str.n; s++ {
		total += str.nnz(s)
	}
	batches := (blk.n + w - 1) / w
	union := int64(d) // columns of a batch: all for a dense block side
	if blk.m.IsSparse() {
		var bn int64
		for t := 0; t < blk.n; t++ {
			bn += blk.nnz(t)
		}
		union = min(union, (bn+int64(batches)-1)/int64(batches))
	}
	workers := b.workers(int(min(total*int64(blk.n), 1<<40)), minParallelFlops)
	chunk := min(sparseChunkNNZ, total*int64(batches)/int64(4*workers))
	chunk = max(chunk, sparseChunkMin, 16*union)
	cuts := []int{0}
	var acc int64
	for s := 0; s < str.n; s++ {
		acc += str.nnz(s)
		if acc >= chunk && s+1 < str.n {
			cuts = append(cuts, s+1)
			acc = 0
		}
	}
	cuts = append(cuts, str.n)
	chunks := len(cuts) - 1
	dstD, ldd := op.dst.Data, op.dst.Stride
	par.Tasks(chunks*batches, workers,
		func() *sparseWS { return b.sparseWorkspace(d, w) },
		func(ws *sparseWS) { b.sparsePool.Put(ws) },
		func(ws *sparseWS, task int) {
			c, q := task/batches, task%batches
			t0 := q * w
			nt := min(w, blk.n-t0)
			b.scatter(ws, blk, t0, nt, w)
			out := ws.acc[:w]
			for s := cuts[c]; s < cuts[c+1]; s++ {
				idx, val := str.m.SparseRow(str.row(s))
				b.k.SparseDot(out, ws.blk, ws.pos, idx, val)
				if streamB { // dst[t0+t][s]
					for t, v := range out[:nt] {
						dstD[(t0+t)*ldd+s] = v
					}
				} else { // dst[s][t0+t]
					copy(dstD[s*ldd+t0:s*ldd+t0+nt], out[:nt])
				}
			}
			unscatter(ws, blk, t0, nt)
		})
	b.transformAll(op)
}

// scatter fills the block with rows [t0, t0+nt) of side s (lanes nt…w−1
// zero) and pos with the map of their columns.
func (b *CPU) scatter(ws *sparseWS, s sparseSide, t0, nt, w int) {
	clear(ws.blk[:w])
	if !s.m.IsSparse() {
		d := s.m.Cols
		ws.grow(d, w) // room for rows 0…d
		for c := 0; c < d; c++ {
			ws.pos[c] = int32(c + 1)
		}
		blk := ws.blk[w : (d+1)*w]
		for t := 0; t < w; t++ {
			if t >= nt {
				for c := 0; c < d; c++ {
					blk[c*w+t] = 0
				}
				continue
			}
			for c, v := range s.m.Row(s.row(t0 + t)) {
				blk[c*w+t] = v
			}
		}
		return
	}
	nu := int32(0)
	for t := 0; t < nt; t++ {
		idx, val := s.m.SparseRow(s.row(t0 + t))
		for p, c := range idx {
			q := ws.pos[c]
			if q == 0 {
				nu++
				q = nu
				ws.pos[c] = q
				ws.grow(int(q), w)
			}
			ws.blk[int(q)*w+t] = val[p]
		}
	}
}

// unscatter clears the entries of pos that scatter set: O(non-zeros) for
// a sparse side, the whole map for a dense one.
func unscatter(ws *sparseWS, s sparseSide, t0, nt int) {
	if !s.m.IsSparse() {
		clear(ws.pos[:s.m.Cols])
		return
	}
	for t := 0; t < nt; t++ {
		idx, _ := s.m.SparseRow(s.row(t0 + t))
		for _, c := range idx {
			ws.pos[c] = 0
		}
	}
}

// transformAll applies the kernel transform to the float32 products in
// op.dst, in strips of transformStrip rows over the worker pool.
func (b *CPU) transformAll(op *kernelOp) {
	if op.k.Kind == pursuit.Linear {
		return
	}
	n, m := op.dst.Rows, op.dst.Cols
	type scratch struct{ tail, bn []float32 }
	rows(b, n, transformStrip, n*m, minParallelElems,
		func() scratch {
			return scratch{make([]float32, transformStrip*16), make([]float32, 16)}
		},
		func(s scratch, lo, hi int) {
			for r := lo; r < hi; r += transformStrip {
				b.transformRows(op, r, min(r+transformStrip, hi), s.tail, s.bn)
			}
		})
}

// transformStrip is the most rows transformRows takes at once.
const transformStrip = 8

// transformRows applies the kernel transform to rows [r0, r1) of op.dst
// (r1−r0 ≤ len(tail)/16): the transform kernels take widths that are
// multiples of 16, and the last m mod 16 columns go through the
// zero-padded 16-column scratch tail (bn16 the matching 16 norms), so
// that every path applies the same transform to the same float32
// products.
func (b *CPU) transformRows(op *kernelOp, r0, r1 int, tail, bn16 []float32) {
	n, m := r1-r0, op.dst.Cols
	ld := op.dst.Stride
	var an []float32
	if op.an != nil {
		an = op.an[r0:r1]
	}
	m16 := m &^ 15
	if m16 > 0 {
		b.transform(op, op.dst.Data[r0*ld:], ld, n, m16, m16, an, op.bn)
	}
	if m16 < m {
		t := tail[:n*16]
		clear(t)
		for r := 0; r < n; r++ {
			copy(t[r*16:], op.dst.Row(r0 + r)[m16:])
		}
		var bn []float32
		if op.bn != nil {
			bn = bn16[:16]
			clear(bn)
			copy(bn, op.bn[m16:])
		}
		b.transform(op, t, 16, n, m-m16, 16, an, bn)
		for r := 0; r < n; r++ {
			copy(op.dst.Row(r0 + r)[m16:], t[r*16:r*16+m-m16])
		}
	}
}

// sqNormRow returns ‖x_i‖² of a dense or sparse row (float64 partial
// sums).
func (b *CPU) sqNormRow(x pursuit.Matrix, i int) float64 {
	if x.IsSparse() {
		_, v := x.SparseRow(i)
		return b.k.SqNorm(v)
	}
	return b.k.SqNorm(x.Row(i))
}

// sparseDotGo is the pure-Go CPUKernels.SparseDot for SparseRows = 8:
// eight float32 accumulators, one multiply and add per lane and non-zero,
// in the order of the non-zeros.
func sparseDotGo(acc, blk []float32, pos, idx []int32, val []float32) {
	var a0, a1, a2, a3, a4, a5, a6, a7 float32
	val = val[:len(idx)]
	for p, c := range idx {
		v := val[p]
		q := int(pos[c]) * 8
		r := blk[q : q+8 : q+8]
		a0 += v * r[0]
		a1 += v * r[1]
		a2 += v * r[2]
		a3 += v * r[3]
		a4 += v * r[4]
		a5 += v * r[5]
		a6 += v * r[6]
		a7 += v * r[7]
	}
	acc = acc[:8]
	acc[0], acc[1], acc[2], acc[3] = a0, a1, a2, a3
	acc[4], acc[5], acc[6], acc[7] = a4, a5, a6, a7
}

// sparseScatterGo is the pure-Go CPUKernels.SparseScatter for
// SparseChains = 1: sparseDotGo's multiply and add.
func sparseScatterGo(acc []float32, ent []uint32, val []float32, x float32) {
	val = val[:len(ent)]
	for e, k := range ent {
		acc[k] += val[e] * x
	}
}

// Kernel rows of few rows against a prepared sparse b, column by column.
//
// Streaming all of b's non-zeros costs the same for one row of a as for a
// whole batch of SparseRows rows, so a single kernel row (an SMO solver
// computing only the rows it asks for) would pay for SparseRows. The
// prepared handle of a sparse b therefore also keeps b's non-zeros by
// column (sparseColumns), and a row a_i is multiplied with b by walking
// only the columns a_i has: for each non-zero x of a_i at column c, every
// non-zero of b in column c adds its product with x to its row's partial
// sum (CPUKernels.SparseScatter). That is O(Σ over a_i's columns of their
// non-zeros) instead of O(all of b's non-zeros): on mushrooms (6,093 rows,
// 21 non-zeros a row among 112 columns) about a fifth of them.
//
// The bits are those of the streamed path. For a fixed b_j, its columns
// shared with a_i are met in increasing column order, so its products
// arrive at its partial sums in the order of its non-zeros, each entry
// naming the partial sum (p mod SparseChains) that SparseDot adds
// non-zero p of b_j to; the non-zeros of b_j in columns a_i lacks add
// products with +0 in the streamed path, which change no partial sum (a
// sum started at +0 is never −0), and are skipped here. The partial sums
// are then added in SparseDot's order.

// sparseColumns is a sparse b's non-zeros by column, for the columns that
// have any (so that its memory is O(non-zeros), whatever b's width):
// column cols[q]'s entries are [start[q], start[q+1]), in increasing row
// order, each with its value and its slot (p mod chains)·rows + j (j its
// row, p its position among the row's non-zeros): partial sum q of the
// rows lies at [q·rows, (q+1)·rows).
type sparseColumns struct {
	cols  []int32 // the columns with non-zeros, increasing
	start []int64
	slot  []uint32
	val   []float32
	colNZ int64 // Σ over columns of their non-zeros squared, for the cost estimate
}

// sparseColumnsBytes is the most memory newSparseColumns takes for m (its
// entries, and a column and an offset for each of at most nnz columns).
func sparseColumnsBytes(m pursuit.Matrix) int64 {
	nnz := m.Sparse.Offsets[m.Rows] - m.Sparse.Offsets[0]
	return 8*nnz + 12*min(nnz, int64(m.Cols)) + 8
}

// newSparseColumns builds m's column index for chains partial sums, or
// returns nil when its slots would not fit 32 bits.
func newSparseColumns(m pursuit.Matrix, chains int) *sparseColumns {
	chains = max(chains, 1)
	if int64(m.Rows)*int64(chains) > math.MaxUint32 {
		return nil
	}
	cs := m.Sparse
	all := cs.Indices[cs.Offsets[0]:cs.Offsets[m.Rows]]
	// The count of each occupied column, then its next free entry: in an
	// array by column when there are no more columns than non-zeros, else
	// in a map (O(non-zeros) either way).
	var byCol []int64
	var byMap map[int32]int64
	if int64(m.Cols) <= int64(len(all)) {
		byCol = make([]int64, m.Cols)
	} else {
		byMap = make(map[int32]int64)
	}
	get := func(c int32) int64 {
		if byCol != nil {
			return byCol[c]
		}
		return byMap[c]
	}
	set := func(c int32, v int64) {
		if byCol != nil {
			byCol[c] = v
		} else {
			byMap[c] = v
		}
	}
	for _, c := range all {
		set(c, get(c)+1)
	}
	sc := &sparseColumns{slot: make([]uint32, len(all)), val: make([]float32, len(all))}
	if byCol != nil {
		for c, n := range byCol {
			if n > 0 {
				sc.cols = append(sc.cols, int32(c))
			}
		}
	} else {
		sc.cols = make([]int32, 0, len(byMap))
		for c := range byMap {
			sc.cols = append(sc.cols, c)
		}
		slices.Sort(sc.cols)
	}
	sc.start = make([]int64, len(sc.cols)+1)
	for q, c := range sc.cols {
		n := get(c)
		sc.colNZ += n * n
		sc.start[q+1] = sc.start[q] + n
		set(c, sc.start[q]) // now the column's next free entry
	}
	l := uint32(m.Rows)
	for j := 0; j < m.Rows; j++ {
		idx, val := m.SparseRow(j)
		for p, c := range idx {
			e := get(c)
			sc.slot[e] = uint32(p%chains)*l + uint32(j)
			sc.val[e] = val[p]
			set(c, e+1)
		}
	}
	return sc
}

// column returns the entries of column c (none when it has no non-zeros).
func (sc *sparseColumns) column(c int32) ([]uint32, []float32) {
	q, ok := slices.BinarySearch(sc.cols, c)
	if !ok {
		return nil, nil
	}
	lo, hi := sc.start[q], sc.start[q+1]
	return sc.slot[lo:hi], sc.val[lo:hi]
}

// columnsWork estimates the work of kernelColumns for op (entries met,
// plus the partial sums cleared and added) and of the streamed path (b's
// non-zeros times the batches of SparseRows rows), in the same unit.
func (b *CPU) columnsWork(op *kernelOp, sc *sparseColumns) (columns, streamed int64) {
	n, m := op.dst.Rows, int64(op.dst.Cols)
	chains := int64(max(b.k.SparseChains, 1))
	for r := 0; r < n; r++ {
		row := op.row(r)
		if op.a.IsSparse() {
			idx, _ := op.a.SparseRow(row)
			for _, c := range idx {
				slot, _ := sc.column(c)
				columns += int64(len(slot))
			}
		} else {
			// A dense row: its non-zero columns are not known without a
			// pass; take the average column.
			columns += sc.colNZ / max(int64(len(sc.val)), 1) * int64(op.a.Cols)
		}
		columns += chains * m / 4
	}
	w := b.k.SparseRows
	batches := int64((n + w - 1) / w)
	return columns, streamedCost * int64(len(sc.val)) * batches
}

// streamedCost is what a streamed non-zero costs against a column entry
// of kernelColumns: on mushrooms' shape (6,093 rows, 21 non-zeros a row
// of 112 columns, one thread, AVX2 at 2.8 GHz) a streamed batch took 5 ns
// a non-zero (sparseDotAVX's 32 lanes) and a column row 1.6 ns an entry.
const streamedCost = 3

// kernelColumns computes a kernel op whose b is sparse and prepared, with
// its column index sc, one row of a at a time, over the workers by rows;
// see sparseColumns.
func (b *CPU) kernelColumns(op *kernelOp, sc *sparseColumns) {
	n, m := op.dst.Rows, op.dst.Cols
	chains := max(b.k.SparseChains, 1)
	ones := [2]float32{1, 1}
	workers := min(n, b.workers(int(min(int64(n)*int64(len(sc.val)), 1<<40)), minParallelFlops))
	par.Tasks(n, max(workers, 1),
		func() *sparseWS { return b.sparseWorkspace(0, chains*m) },
		func(ws *sparseWS) { b.sparsePool.Put(ws) },
		func(ws *sparseWS, r int) {
			acc := ws.acc[:chains*m]
			clear(acc)
			row := op.row(r)
			add := func(c int32, x float32) {
				if x != 0 {
					if slot, val := sc.column(c); len(slot) > 0 {
						b.k.SparseScatter(acc, slot, val, x)
					}
				}
			}
			if op.a.IsSparse() {
				idx, val := op.a.SparseRow(row)
				for p, c := range idx {
					add(c, val[p])
				}
			} else {
				for c, x := range op.a.Row(row) {
					add(int32(c), x)
				}
			}
			// The partial sums added in order: SparseChains is 1 or 2, and
			// 1·B + A is A + B exactly, fused or not.
			out := op.dst.Row(r)
			copy(out, acc[:m])
			if chains > 1 {
				b.k.Axpys(out, ones[:chains-1], acc[m:], m)
			}
		})
	b.transformAll(op)
}
