package asm

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit/backend"
)

// Cache blocking of the kernel-block GEMM (BLIS order): a kc×nr panel of B
// (16 or 32 KiB) stays in L1 while mc×kc of A (144 KiB) streams from L2,
// and the packed kc×nc block of B (1 MiB) lives in L2. mcBlock is a
// multiple of both tile heights (6, 12) and ncBlock of both widths (16, 32).
const (
	kcBlock = 256
	mcBlock = 144
	ncBlock = 1024
)

// gemmWorkspace holds one worker's packing buffers.
type gemmWorkspace struct {
	ap, bp []float32 // packed A (mc×kc) and B (kc×nc) blocks
	an, bn []float32 // squared norms of the packed rows, zero padded
	tile   []float32 // mr×nr scratch for edge tiles
}

func (b *Backend) workspace() *gemmWorkspace {
	if ws, ok := b.gemmWS.Get().(*gemmWorkspace); ok {
		return ws
	}
	return &gemmWorkspace{
		ap:   make([]float32, mcBlock*kcBlock),
		bp:   make([]float32, ncBlock*kcBlock),
		an:   make([]float32, mcBlock),
		bn:   make([]float32, ncBlock),
		tile: make([]float32, b.k.mr*b.k.nr),
	}
}

// kernelOp is one kernel-block computation: dst[r][j] = k(a_row(r), b_j),
// where row(r) is idx[r] (gather) or r.
type kernelOp struct {
	k      backend.Kernel
	dst    backend.Matrix
	a      backend.Matrix
	idx    []int     // nil: identity
	an     []float32 // RBF only: ‖a_row(r)‖², indexed by r (dst row)
	b      backend.Matrix
	bn     []float32 // RBF only: ‖b_j‖²
	bp     *prepared // b packed once, nil to pack it per block
	negGam float32
}

func (op *kernelOp) row(r int) int {
	if op.idx != nil {
		return op.idx[r]
	}
	return r
}

// KernelBlock writes dst[i][j] = k(a_i, b_j).
func (b *Backend) KernelBlock(dst backend.Matrix, k backend.Kernel, a backend.Matrix, aNorms []float32, bm backend.Matrix, bNorms []float32) error {
	if err := backend.CheckKernelBlock(dst, k, a, aNorms, bm, bNorms); err != nil {
		return err
	}
	op := &kernelOp{k: k, dst: dst, a: a, b: bm}
	if k.Kind == backend.RBF {
		op.an = b.norms(aNorms, a)
		op.bn = b.norms(bNorms, bm)
	}
	b.kernelBlock(op)
	return nil
}

// KernelGather writes dst[r][j] = k(a_{idx[r]}, b_j).
func (b *Backend) KernelGather(dst backend.Matrix, k backend.Kernel, a backend.Matrix, aNorms []float32, idx []int, bm backend.Matrix, bNorms []float32) error {
	if err := backend.CheckKernelGather(dst, k, a, aNorms, idx, bm, bNorms); err != nil {
		return err
	}
	op := &kernelOp{k: k, dst: dst, a: a, idx: idx, b: bm}
	if k.Kind == backend.RBF {
		op.an = b.gatheredNorms(aNorms, a, idx)
		op.bn = b.norms(bNorms, bm)
	}
	b.kernelBlock(op)
	return nil
}

// gatheredNorms returns ‖a_{idx[r]}‖² for every r, from given when it is
// not nil.
func (b *Backend) gatheredNorms(given []float32, a backend.Matrix, idx []int) []float32 {
	an := make([]float32, len(idx))
	if given != nil {
		for r, i := range idx {
			an[r] = given[i]
		}
		return an
	}
	var out [1]float64
	for r, i := range idx {
		row := a.Row(i)
		b.k.dots(out[:], row, row, 0, 1)
		an[r] = float32(out[0])
	}
	return an
}

// prepared is a matrix packed once into the panels packB makes of a block:
// for each kcBlock-long slice pc of the features, the panels of nr rows of
// all of its rows (the rows padded with zeros to npan·nr), each kc×nr with
// kc = min(kcBlock, cols−pc). Slice pc thus starts at npan·nr·pc, and the
// panel of rows [j, j+nr) (j a multiple of nr) at (j/nr)·kc·nr within it.
// bn holds the squared norms padded with zeros to npan·nr.
type prepared struct {
	backend.PreparedBase
	owner  *Backend
	nr     int
	packed []float32
	bn     []float32
}

// Prepare packs b once into the micro-kernel's panel layout, for use as the
// b operand of KernelBlockPrepared and KernelGatherPrepared; see
// backend.Preparer.
func (b *Backend) Prepare(m backend.Matrix) (backend.Prepared, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("Prepare: %w: b: %v", backend.ErrShape, err)
	}
	nr := b.k.nr
	npan := (m.Rows + nr - 1) / nr
	p := &prepared{owner: b, nr: nr, packed: make([]float32, npan*nr*m.Cols), bn: make([]float32, npan*nr)}
	_ = b.SqNorms(p.bn, m) // validated above
	p.M, p.SqNorms = m, p.bn[:m.Rows:m.Rows]
	for pc := 0; pc < m.Cols; pc += kcBlock {
		kc := min(kcBlock, m.Cols-pc)
		slice := p.packed[npan*nr*pc:]
		b.parallel(npan, 1, m.Rows*kc, func(lo, hi int) {
			j0 := lo * nr
			b.packB(slice[lo*kc*nr:], nr, m, j0, min(hi*nr, m.Rows)-j0, pc, kc)
		})
	}
	return p, nil
}

// Release drops the packed copy.
func (p *prepared) Release() error {
	if p.MarkReleased() {
		p.packed, p.bn = nil, nil
	}
	return nil
}

func (b *Backend) prepared(op string, h backend.Prepared) (*prepared, error) {
	return backend.CheckPrepared(op, h, func(p *prepared) bool { return p.owner == b && p.nr == b.k.nr })
}

// KernelBlockPrepared is KernelBlock with b packed once.
func (b *Backend) KernelBlockPrepared(dst backend.Matrix, k backend.Kernel, a backend.Matrix, aNorms []float32, bp backend.Prepared) error {
	p, err := b.prepared("KernelBlock", bp)
	if err != nil {
		return err
	}
	if err := backend.CheckKernelBlock(dst, k, a, aNorms, p.M, nil); err != nil {
		return err
	}
	op := &kernelOp{k: k, dst: dst, a: a, b: p.M, bp: p}
	if k.Kind == backend.RBF {
		op.an = b.norms(aNorms, a)
		op.bn = p.SqNorms
	}
	b.kernelBlock(op)
	return nil
}

// KernelGatherPrepared is KernelGather with b packed once.
func (b *Backend) KernelGatherPrepared(dst backend.Matrix, k backend.Kernel, a backend.Matrix, aNorms []float32, idx []int, bp backend.Prepared) error {
	p, err := b.prepared("KernelGather", bp)
	if err != nil {
		return err
	}
	if err := backend.CheckKernelGather(dst, k, a, aNorms, idx, p.M, nil); err != nil {
		return err
	}
	op := &kernelOp{k: k, dst: dst, a: a, idx: idx, b: p.M, bp: p}
	if k.Kind == backend.RBF {
		op.an = b.gatheredNorms(aNorms, a, idx)
		op.bn = p.SqNorms
	}
	b.kernelBlock(op)
	return nil
}

// norms returns given, or the squared row norms of x when given is nil.
func (b *Backend) norms(given []float32, x backend.Matrix) []float32 {
	if given != nil {
		return given
	}
	n := make([]float32, x.Rows)
	_ = b.SqNorms(n, x) // x was validated by the caller
	return n
}

// kernelBlock runs the blocked GEMM with the kernel transform on every tile,
// split over threads along the larger of the two output dimensions.
func (b *Backend) kernelBlock(op *kernelOp) {
	n, m, d := op.dst.Rows, op.dst.Cols, op.a.Cols
	if n == 0 || m == 0 {
		return
	}
	op.negGam = float32(-op.k.Gamma)
	if d == 0 {
		for r := 0; r < n; r++ {
			for j := 0; j < m; j++ {
				var sq float64
				if op.k.Kind == backend.RBF {
					sq = float64(op.an[r]) + float64(op.bn[j])
				}
				op.dst.Set(r, j, float32(op.k.FromDot(0, sq)))
			}
		}
		return
	}
	if n <= fewRowsMax && m >= 4*fewRowsMax {
		b.kernelFewRows(op)
		return
	}
	work := n * m * d
	if n >= m {
		b.parallel(n, b.k.mr, work, func(lo, hi int) { b.gemmRegion(op, lo, hi, 0, m) })
	} else {
		b.parallel(m, b.k.nr, work, func(lo, hi int) { b.gemmRegion(op, 0, n, lo, hi) })
	}
}

// fewRowsMax is the largest number of rows of a for which kernelFewRows is
// used: below it the GEMM's packing of b (a full extra pass over b) and its
// 6-row tiles waste more than the streaming dot kernels lose.
const fewRowsMax = 8

// kernelFewRows computes a kernel block with few rows of a (an SMO kernel
// row, a stochastic-KMP batch) as one streaming pass over b with the
// DictProducts kernels, then applies the transform row by row.
func (b *Backend) kernelFewRows(op *kernelOp) {
	n, m, d := op.dst.Rows, op.dst.Cols, op.a.Cols
	vecs := backend.NewMatrix(n, d)
	for r := 0; r < n; r++ {
		copy(vecs.Row(r), op.a.Row(op.row(r)))
	}
	pp, _ := b.prodPool.Get().(*[]float64)
	if pp == nil || cap(*pp) < n*m {
		s := make([]float64, n*m)
		pp = &s
	}
	defer b.prodPool.Put(pp)
	prod := (*pp)[:n*m]
	_ = b.DictProducts(prod, op.b, vecs) // shapes checked by the caller
	g, c0 := op.k.Gamma, op.k.Coef0
	for r := 0; r < n; r++ {
		row, p := op.dst.Row(r), prod[r*m:(r+1)*m]
		switch op.k.Kind {
		case backend.Linear:
			for j, t := range p {
				row[j] = float32(t)
			}
		case backend.RBF:
			an := float64(op.an[r])
			for j, t := range p {
				row[j] = float32(-g * max(an+float64(op.bn[j])-2*t, 0))
			}
			b.k.exp(row, row)
		case backend.Polynomial:
			for j, t := range p {
				row[j] = float32(ipow(g*t+c0, op.k.Degree))
			}
		case backend.Sigmoid:
			for j, t := range p {
				row[j] = float32(math.Tanh(g*t + c0))
			}
		}
	}
}

// gemmRegion computes dst rows [r0, r1) × columns [c0, c1).
func (b *Backend) gemmRegion(op *kernelOp, r0, r1, c0, c1 int) {
	ws := b.workspace()
	defer b.gemmWS.Put(ws)
	d := op.a.Cols
	mr, nr := b.k.mr, b.k.nr
	rbf := op.k.Kind == backend.RBF
	for jc := c0; jc < c1; jc += ncBlock {
		ncur := min(ncBlock, c1-jc)
		npan := (ncur + nr - 1) / nr
		for pc := 0; pc < d; pc += kcBlock {
			kcur := min(kcBlock, d-pc)
			first, last := pc == 0, pc+kcur == d
			bp, bn := ws.bp, ws.bn
			if op.bp != nil {
				// packed once (see prepared); jc is a multiple of nr
				q := op.bp
				bp = q.packed[len(q.bn)*pc+jc*kcur:]
				bn = q.bn[jc:]
			} else {
				b.packB(ws.bp, nr, op.b, jc, ncur, pc, kcur)
				if last && rbf {
					clear(ws.bn[:npan*nr])
					copy(ws.bn, op.bn[jc:jc+ncur])
				}
			}
			for ic := r0; ic < r1; ic += mcBlock {
				mcur := min(mcBlock, r1-ic)
				mpan := (mcur + mr - 1) / mr
				packA(ws.ap, mr, op, ic, mcur, pc, kcur)
				if last && rbf {
					clear(ws.an[:mpan*mr])
					copy(ws.an, op.an[ic:ic+mcur])
				}
				for jp := 0; jp < npan; jp++ {
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
			}
		}
	}
}

// tile runs the micro-kernel for the ni×nj output tile at (i0, j0), through
// the scratch tile when it is not a full mr×nr, and applies the kernel
// transform after the last block of p.
func (b *Backend) tile(op *kernelOp, ws *gemmWorkspace, apan, bpan []float32, kc, i0, ni, j0, nj int, first, last bool, an, bn []float32) {
	dst := op.dst
	mr, nr := b.k.mr, b.k.nr
	if ni == mr && nj == nr {
		c := dst.Data[i0*dst.Stride+j0:]
		b.k.gemm(kc, apan, bpan, c, dst.Stride, !first)
		if last {
			b.transform(op, c, dst.Stride, mr, nr, an, bn)
		}
		return
	}
	t := ws.tile
	clear(t)
	if !first {
		for i := 0; i < ni; i++ {
			copy(t[i*nr:i*nr+nj], dst.Data[(i0+i)*dst.Stride+j0:])
		}
	}
	b.k.gemm(kc, apan, bpan, t, nr, !first)
	if last {
		b.transform(op, t, nr, ni, nj, an, bn)
	}
	for i := 0; i < ni; i++ {
		copy(dst.Data[(i0+i)*dst.Stride+j0:(i0+i)*dst.Stride+j0+nj], t[i*nr:i*nr+nj])
	}
}

// transform applies the kernel function to the inner products of a tile
// (ni valid rows, nj valid columns; RBF processes all nr columns).
func (b *Backend) transform(op *kernelOp, c []float32, ldc, ni, nj int, an, bn []float32) {
	switch op.k.Kind {
	case backend.Linear:
	case backend.RBF:
		b.k.rbf(c, ldc, ni, b.k.nr, an, bn, op.negGam)
	case backend.Polynomial:
		b.k.poly(c, ldc, ni, b.k.nr, float32(op.k.Gamma), float32(op.k.Coef0), op.k.Degree)
	case backend.Sigmoid:
		g, c0 := op.k.Gamma, op.k.Coef0
		for i := 0; i < ni; i++ {
			row := c[i*ldc : i*ldc+nj]
			for j, t := range row {
				row[j] = float32(math.Tanh(g*float64(t) + c0))
			}
		}
	}
}

// ipow returns x^n for n ≥ 1 by repeated squaring.
func ipow(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

// packB copies rows [j0, j0+ncur) × columns [pc, pc+kc) of b into panels of
// nr rows, each stored p-major (nr consecutive values per p), zero padded.
// Groups of 8 rows go through the transposing pack8 kernel.
func (b *Backend) packB(bp []float32, nr int, m backend.Matrix, j0, ncur, pc, kc int) {
	for jp := 0; jp*nr < ncur; jp++ {
		pan := bp[jp*kc*nr : (jp+1)*kc*nr]
		jj := 0
		for ; jj+8 <= nr && jp*nr+jj+8 <= ncur; jj += 8 {
			j := j0 + jp*nr + jj
			b.k.pack8(pan[jj:], nr, m.Data[j*m.Stride+pc:], m.Stride, kc)
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
// [pc, pc+kc) into panels of mr rows stored p-major, zero padded.
func packA(ap []float32, mr int, op *kernelOp, i0, mcur, pc, kc int) {
	a := op.a
	for ip := 0; ip*mr < mcur; ip++ {
		pan := ap[ip*kc*mr : (ip+1)*kc*mr]
		for ii := 0; ii < mr; ii++ {
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
