package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sparse emits sparseDotAVX, CPUKernels.SparseDot for 32 lanes: the
// products of one sparse row with 32 rows scattered column-interleaved
// into a block (128 bytes a block row). Non-zeros are taken in pairs, the
// even one into Y0…Y3 and the odd one into Y4…Y7 (eight independent FMA
// chains), a last odd-numbered one into Y0…Y3; the two sets are added at
// the end, so a lane's order of summation depends on the row's length
// only, never on the other lanes.
//
//	DI acc   SI blk   DX pos   R8 idx   R9 val   CX non-zeros left
func (g gen) sparse() {
	g.sparseDot()
	g.sparseScatter()
}

func (g gen) sparseDot() {
	g.text("sparseDotAVX", "(acc *float32, blk *float32, pos *int32, idx *int32, val *float32, n int)",
		"sparseDotAVX sets acc[t] = Σ_{p<n} val[p]·blk[32·pos[idx[p]] + t] for t < 32",
		"(n ≥ 0): pos maps a column to its block row of 32 floats.")
	g.args(RDI, RSI, RDX, R8, R9, RCX)
	for i := 0; i < 8; i++ {
		g.zero(ymm, i)
	}
	g.Label("pair")
	g.CMPQ(RCX, U8(2))
	g.JLT(lbl("one"))
	g.MOVLQSX(Mem{Base: R8}, R10)
	g.MOVLQSX(Mem{Base: R8, Disp: 4}, R11)
	g.MOVLQSX(Mem{Base: RDX, Index: R10, Scale: 4}, R10)
	g.MOVLQSX(Mem{Base: RDX, Index: R11, Scale: 4}, R11)
	g.SHLQ(U8(7), R10)
	g.SHLQ(U8(7), R11)
	g.VBROADCASTSS(Mem{Base: R9}, Y8)
	g.VBROADCASTSS(Mem{Base: R9, Disp: 4}, Y9)
	for i := 0; i < 4; i++ {
		g.VFMADD231PS(at(RSI, 32*i, R10), Y8, y(i))
		g.VFMADD231PS(at(RSI, 32*i, R11), Y9, y(4+i))
	}
	g.ADDQ(U8(8), R8)
	g.ADDQ(U8(8), R9)
	g.SUBQ(U8(2), RCX)
	g.JMP(lbl("pair"))
	g.Label("one")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("sum"))
	g.MOVLQSX(Mem{Base: R8}, R10)
	g.MOVLQSX(Mem{Base: RDX, Index: R10, Scale: 4}, R10)
	g.SHLQ(U8(7), R10)
	g.VBROADCASTSS(Mem{Base: R9}, Y8)
	for i := 0; i < 4; i++ {
		g.VFMADD231PS(at(RSI, 32*i, R10), Y8, y(i))
	}
	g.Label("sum")
	for i := 0; i < 4; i++ {
		g.VADDPS(y(4+i), y(i), y(i))
		g.VMOVUPS(y(i), Mem{Base: RDI, Disp: 32 * i})
	}
	g.done()
}

// sparseScatter emits sparseScatterAVX, CPUKernels.SparseScatter: the
// products of one value x of a row with a column of a sparse operand (its
// entries' accumulator slots ent and values val), each added to its slot
// by one scalar FMA, acc[ent[e]] = val[e]·x + acc[ent[e]], in order of e,
// four entries an iteration. The slots of one call are distinct (one per
// row of the column), so the four FMAs are independent.
//
//	DI acc   SI ent   DX val   CX entries left   X0 x
func (g gen) sparseScatter() {
	g.text("sparseScatterAVX", "(acc *float32, ent *uint32, val *float32, n int, x float32)",
		"sparseScatterAVX sets acc[ent[e]] = val[e]·x + acc[ent[e]] (one fused",
		"multiply-add, rounded once) for e < n, in increasing e.")
	g.args(RDI, RSI, RDX, RCX)
	g.VMOVSS(g.param("x"), X0)
	step := func(u int) {
		g.MOVL(Mem{Base: RSI, Disp: 4 * u}, R8L)
		g.VMOVSS(Mem{Base: RDX, Disp: 4 * u}, x(1+u))
		g.VFMADD213SS(Mem{Base: RDI, Index: R8, Scale: 4}, X0, x(1+u))
		g.VMOVSS(x(1+u), Mem{Base: RDI, Index: R8, Scale: 4})
	}
	g.Label("four")
	g.CMPQ(RCX, U8(4))
	g.JLT(lbl("one"))
	for u := 0; u < 4; u++ {
		step(u)
	}
	g.ADDQ(U8(16), RSI)
	g.ADDQ(U8(16), RDX)
	g.SUBQ(U8(4), RCX)
	g.JMP(lbl("four"))
	g.Label("one")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	step(0)
	g.ADDQ(U8(4), RSI)
	g.ADDQ(U8(4), RDX)
	g.DECQ(RCX)
	g.JMP(lbl("one"))
	g.Label("done")
	g.RET()
}
