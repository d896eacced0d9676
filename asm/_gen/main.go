// Command _gen writes the assembly kernels of package asm with avo
// (github.com/mmcloughlin/avo): for each family below, FAMILY_amd64.s and
// its Go declarations FAMILY_amd64.go. Run it through `go generate ./asm`
// (it writes into asm/) or `go -C asm/_gen run . DIR`; scripts/asm-gen.sh
// regenerates into a temporary directory and compares with the committed
// files. It lives in its own module so that avo is no dependency of pursuit.
//
// The twins (AVX2 and AVX-512), the k-variants and the role swaps are
// instances of one template each; registers are named explicitly, so the
// output is the instruction sequence a person would write, with no
// allocation left to avo.
package main

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	. "github.com/mmcloughlin/avo/reg"
)

// gen builds one output file.
type gen struct{ *build.Context }

func main() {
	log.SetFlags(0)
	log.SetPrefix("asm/_gen: ")
	dir := ".."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	families := []struct {
		name  string
		build func(gen)
	}{{"dots", gen.dots}, {"sgemm", gen.sgemm}, {"exp", gen.exp}, {"axpy", gen.axpy},
		{"pack", gen.pack}, {"poly", gen.poly}, {"argmax", gen.argmax}, {"smo", gen.smo},
		{"sparse", gen.sparse}}
	for _, f := range families {
		g := gen{build.NewContext()}
		g.ConstraintExpr("amd64,!purego")
		f.build(g)
		if err := g.write(filepath.Join(dir, f.name)); err != nil {
			log.Fatalf("%s: %v", f.name, err)
		}
	}
}

// write compiles the file and writes base_amd64.s and base_amd64.go.
func (g gen) write(base string) error {
	f, err := g.Result()
	if err != nil {
		return err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return err
	}
	cfg := printer.Config{Name: "asm/_gen with avo (go generate ./asm)", Pkg: "asm"}
	for ext, p := range map[string]printer.Printer{".s": printer.NewGoAsm(cfg), ".go": printer.NewStubs(cfg)} {
		b, err := p.Print(f)
		if err == nil {
			err = os.WriteFile(base+"_amd64"+ext, b, 0o644)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// text starts function name (NOSPLIT, no frame) with Go signature sig and
// its documentation.
func (g gen) text(name, sig string, doc ...string) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr("func" + sig)
	g.Pragma("noescape")
	g.Doc(doc...)
}

// param is the frame address of the named argument.
func (g gen) param(name string) Mem {
	b, err := g.Param(name).Resolve()
	if err != nil {
		log.Fatal(err)
	}
	return b.Addr
}

// args loads the first len(regs) arguments, in order, into regs.
func (g gen) args(regs ...Register) {
	for i, r := range regs {
		b, err := g.ParamIndex(i).Resolve()
		if err != nil {
			log.Fatal(err)
		}
		g.MOVQ(b.Addr, r)
	}
}

// spread turns stride, an element count, into bytes and sets the pointers
// dst[i] = base + (i+1)·stride (a single dst may be stride itself).
func (g gen) spread(base, stride Register, dst ...Register) {
	g.SHLQ(U8(2), stride)
	if len(dst) == 1 && dst[0] == stride {
		g.ADDQ(base, stride)
		return
	}
	for _, d := range dst {
		g.LEAQ(Mem{Base: base, Index: stride, Scale: 1}, d)
		base = d
	}
}

// vw is a vector width: ymm (AVX2, 8 float32) or zmm (AVX-512, 16).
type vw struct {
	spec  Spec
	bytes int
}

var ymm, zmm = vw{S256, 32}, vw{S512, 64}

func (w vw) r(i int) Register { return Vector.Lookup(Index(i), w.spec) }
func x(i int) Register        { return Vector.Lookup(Index(i), S128) }
func y(i int) Register        { return ymm.r(i) }
func z(i int) Register        { return zmm.r(i) }

func (g gen) zero(w vw, i int) {
	if w == ymm {
		g.VXORPS(y(i), y(i), y(i))
	} else {
		g.VPXORD(z(i), z(i), z(i))
	}
}

func (g gen) done() {
	g.Label("done")
	g.VZEROUPPER()
	g.RET()
}

func lbl(format string, a ...any) LabelRef { return LabelRef(fmt.Sprintf(format, a...)) }

// at is disp(base)(index*1), or disp(base) without an index.
func at(base Register, disp int, index Register) Mem {
	if index == nil {
		return Mem{Base: base, Disp: disp}
	}
	return Mem{Base: base, Disp: disp, Index: index, Scale: 1}
}

// Dot products (DictProducts, SqNorms). Every kernel works in chunks of at
// most 256 elements (1024 bytes): within a chunk each accumulator lane sums at
// most 32 products in float32; at the end of the chunk the lanes are widened
// to float64, folded to 4 and added into acc, so the float32 rounding error
// never grows with n. AX is the byte offset into every row and vector (SI
// itself for dot2r8AVX512, which needs AX for a vector), BX the chunk end
// and then the acc pointer, CX the end (n·4).
func (g gen) dots() {
	multi := "(x *float32, xs int, v *float32, vs, n int, acc *float64)"
	g.dotVecs("dot1AVX", "(x, v *float32, n int, acc *float64)", 1, 4, []Register{RDI},
		"dot1AVX adds the 4 lane sums of Σ x[i]·v[i] (i < n, a multiple of 8) into acc[0:4].")
	g.dotVecs("dot4AVX", "(x, v *float32, vs, n int, acc *float64)", 4, 2, []Register{RDI, R8, R9, R10},
		"dot4AVX does the same for 4 vectors v_j at v + j·vs (vs in elements),",
		"adding into acc[4j : 4j+4]; it prefetches the v_j ahead, being also the",
		"4-rows × 1-vector kernel with the roles swapped.")
	doc := "adding the lane sums of <x_r, v_j> into acc[4(r·k+j) : 4(r·k+j)+4]."
	g.dotRows(dotRows{"dot4r2AVX", ymm, RDX, R11, []Register{RSI, R8, R9, R10}, []Register{RDI, R11},
		[]int{10, 11, 12, 13}, []int{8, 9}, false, RAX}, multi,
		"dot4r2AVX takes 4 rows x_r = x + r·xs and 2 vectors v_j = v + j·vs,", doc)
	g.dotRows(dotRows{"dot2r4AVX", ymm, RDX, R11, []Register{RSI, R8}, []Register{RDI, R9, R10, R11},
		[]int{8, 9}, []int{10, 11, 12, 13}, true, RAX}, multi,
		"dot2r4AVX is dot4r2AVX for 2 rows and 4 vectors.")
	g.dotRows(dotRows{"dot4r4AVX512", zmm, RDX, RBX, []Register{RSI, R8, R9, R10}, []Register{RDI, R11, R12, R13},
		[]int{4, 5, 6, 7}, []int{0, 1, 2, 3}, false, RAX}, multi,
		"dot4r4AVX512 is the AVX-512F kernel for 4 rows × 4 vectors (n a multiple of 16).")
	g.dotRows(dotRows{"dot2r8AVX512", zmm, R8, RBX, []Register{RSI, R8},
		[]Register{RDI, R9, R10, R11, R12, R13, RDX, RAX},
		[]int{2, 3}, []int{0, 0, 0, 0, 0, 0, 0, 0}, true, nil}, multi,
		"dot2r8AVX512 is the AVX-512F kernel for 2 rows × 8 vectors (n a multiple of 16).")
	g.dotPairs(1)
	g.dotPairs(2)
	g.dotSingles(2)
	g.dotSingles(4)
}

// chunks emits the chunk loop around body, which runs the chunk from pos up
// to BX and then goes to "flush"; accumulators base… (nZero of them) are
// cleared per chunk and the first nFlush added into acc, after combine.
func (g gen) chunks(w vw, pos Register, base, nZero, nFlush int, body, combine func()) {
	g.chunksWith(w, pos, base, nZero, body, func() {
		combine()
		g.MOVQ(g.param("acc"), RBX)
		for i := 0; i < nFlush; i++ {
			g.flush(w, base+i, 32*i)
		}
	})
}

// chunksWith is chunks with flush emitting the end of a chunk (BX free).
func (g gen) chunksWith(w vw, pos Register, base, nZero int, body, flush func()) {
	g.Label("chunk")
	g.CMPQ(pos, RCX)
	g.JGE(lbl("done"))
	g.LEAQ(Mem{Base: pos, Disp: 1024}, RBX)
	g.CMPQ(RBX, RCX)
	g.CMOVQGT(RCX, RBX)
	for i := 0; i < nZero; i++ {
		g.zero(w, base+i)
	}
	body()
	g.Label("flush")
	flush()
	g.JMP(lbl("chunk"))
	g.done()
}

// dotPairs emits the AVX-512F kernels for 8 rows against sets of 2
// vectors (one set: dot8r2AVX512; two: dot8r2x2AVX512) that sum every
// product exactly as the AVX2 kernel dot4r2AVX does (8 float32 lanes,
// chunks of 256 elements folded into 4 float64 lanes): each zmm
// accumulator holds a pair of rows' 8 lanes for one vector, row 2q in its
// low half and row 2q+1 in its high half (loaded by a masked load 32
// bytes before the row, which reads only the high lanes), the vector's 8
// elements broadcast to both halves. Twice the lanes per instruction as
// dot4r2AVX; with two sets each row pair loaded feeds four multiply-adds.
//
//	SI, R9, R10 row bases (rows 0–2, 3–5, 6–7; +xs in DX, +2xs in R12);
//	DI, R11 the first set's vectors, R13, AX the second's; CX the end of
//	row 0; K1 the high half; Z16… the accumulators (16 + 2·sets·q + j),
//	Z0–Z3 the vectors, Z10, Z11 a row pair; Y12, Y14, Y15 flush scratch.
func (g gen) dotPairs(sets int) {
	vecs := []Register{RDI, R11, R13, RAX}[:2*sets]
	accs := []string{"acc"}
	if sets == 1 {
		g.text("dot8r2AVX512", "(x *float32, xs int, v *float32, vs, n int, acc *float64)",
			"dot8r2AVX512 takes 8 rows x_r = x + r·xs and 2 vectors v_j = v + j·vs",
			"(n a multiple of 8), adding the lane sums of <x_r, v_j> into",
			"acc[4(2r+j) : +4] exactly as dot4r2AVX adds them.")
		g.args(RSI, RDX, RDI, R11, RCX)
	} else {
		accs = []string{"acca", "accb"}
		g.text("dot8r2x2AVX512", "(x *float32, xs int, va *float32, vas int, vb *float32, vbs, n int, acca, accb *float64)",
			"dot8r2x2AVX512 is dot8r2AVX512 for two sets of 2 vectors, va + j·vas and",
			"vb + j·vbs, adding into acca and accb (each laid out as dot8r2AVX512's acc).")
		g.args(RSI, RDX, RDI, R11, R13, RAX, RCX)
	}
	row := g.rowBases(8, 0xff00) // K1: the high half of a zmm
	// Each set's second vector.
	for i := 0; i < len(vecs); i += 2 {
		g.SHLQ(U8(2), vecs[i+1])
		g.ADDQ(vecs[i], vecs[i+1])
	}
	g.SHLQ(U8(2), RCX)
	g.ADDQ(RSI, RCX)
	const base = 16
	nv := len(vecs)
	g.chunksWith(zmm, RSI, base, 4*nv, func() {
		g.Label("loop")
		g.CMPQ(RSI, RBX)
		g.JGE(lbl("flush"))
		for j, p := range vecs {
			g.VBROADCASTF64X4(Mem{Base: p}, z(j))
		}
		for q := range 4 {
			x := z(10 + q%2)
			g.VMOVUPS(row(2*q), x.(VecPhysical).AsY())
			hi := row(2*q + 1)
			hi.Disp = -32 // lanes 8–15 of the 16 floats there are the row's first 8
			g.VMOVUPS(hi, K1, x)
			for j := range nv {
				g.VFMADD231PS(z(j), x, z(base+nv*q+j))
			}
		}
		for _, p := range append([]Register{RSI, R9, R10}, vecs...) {
			g.ADDQ(U8(32), p)
		}
		g.JMP(lbl("loop"))
	}, func() {
		for set, acc := range accs {
			g.MOVQ(g.param(acc), RBX)
			for q := range 4 {
				for j := range 2 {
					a := base + nv*q + 2*set + j
					g.VMOVAPS(y(a), Y12) // the low half (Y16… have no VEX form)
					g.flush(ymm, 12, 32*(2*(2*q)+j))
					g.VEXTRACTF64X4(U8(1), z(a), Y12)
					g.flush(ymm, 12, 32*(2*(2*q+1)+j))
				}
			}
		}
	})
}

// dotSingles emits dot4r1xNAVX512: 4 rows against n single vectors (n = 2
// or 4, each a group of its own) that sums every product exactly as dot4AVX
// does for 4 rows × 1 vector (roles swapped): dot4AVX keeps two 8-lane
// accumulators per product, the even and the odd 8 elements of every 16,
// a last 8 of a chunk going to the even one, and adds the two at the end of
// the chunk. Here one zmm holds both, the even lanes low and the odd high,
// so that 16 elements of a row and of a vector are one load each; a last 8
// is a merge-masked multiply-add into the low half.
//
//	SI, R9 row bases (rows 0–2 at SI, +xs in DX, +2xs in R12; row 3 at R9);
//	DI, R11, R13, AX the vectors; CX the end of row 0; R8 scratch; K1 the
//	low half; Z16… the accumulators (16 + n·r + j), Z0–Z3 the vectors,
//	Z4–Z7 the rows; Y12, Y14, Y15 flush scratch.
func (g gen) dotSingles(n int) {
	vecs := []Register{RDI, R11, R13, RAX}[:n]
	name := fmt.Sprintf("dot4r1x%dAVX512", n)
	sig := "(x *float32, xs int, "
	accs := make([]string, n)
	for j := range n {
		sig += fmt.Sprintf("v%c *float32, ", 'a'+j)
		accs[j] = fmt.Sprintf("acc%c", 'a'+j)
	}
	sig += "n int"
	for _, a := range accs {
		sig += ", " + a + " *float64"
	}
	g.text(name, sig+")",
		fmt.Sprintf("%s takes 4 rows x_r = x + r·xs and %d single vectors va, vb, …", name, n),
		"(n a multiple of 8), adding the lane sums of <x_r, v> into the vector's",
		"acc[4r : 4r+4] exactly as dot4AVX adds those of 4 rows × 1 vector.")
	g.args(append([]Register{RSI, RDX}, append(vecs, RCX)...)...)
	row := g.rowBases(4, 0x00ff) // K1: the low half of a zmm
	g.SHLQ(U8(2), RCX)
	g.ADDQ(RSI, RCX)
	const base = 16
	step := func(w vw) {
		for j, p := range vecs {
			g.VMOVUPS(Mem{Base: p}, w.r(j))
		}
		for r := range 4 {
			g.VMOVUPS(row(r), w.r(4+r))
			for j := range n {
				if w == zmm {
					g.VFMADD231PS(z(j), z(4+r), z(base+n*r+j))
				} else {
					g.VFMADD231PS(z(j), z(4+r), K1, z(base+n*r+j))
				}
			}
		}
		for _, p := range append([]Register{RSI, R9}, vecs...) {
			g.ADDQ(U8(w.bytes), p)
		}
	}
	g.chunksWith(zmm, RSI, base, 4*n, func() {
		g.Label("loop")
		g.LEAQ(Mem{Base: RSI, Disp: 64}, R8)
		g.CMPQ(R8, RBX)
		g.JGT(lbl("tail"))
		step(zmm)
		g.JMP(lbl("loop"))
		g.Label("tail")
		g.CMPQ(RSI, RBX)
		g.JGE(lbl("flush"))
		step(ymm) // the loads zero the high halves, which K1 leaves alone
		g.JMP(lbl("tail"))
	}, func() {
		for j, acc := range accs {
			g.MOVQ(g.param(acc), RBX)
			for r := range 4 {
				a := base + n*r + j
				g.VEXTRACTF64X4(U8(1), z(a), Y12)
				g.VADDPS(y(a), Y12, Y12) // the even and the odd lanes
				g.flush(ymm, 12, 32*r)
			}
		}
	})
}

// rowBases sets K1 to mask and the bases of rows dictionary rows (4 or 8)
// at SI, xs elements apart (DX, made bytes): R12 = 2xs, R9 = x + 3xs and,
// for 8 rows, R10 = x + 6xs. row(r) is the address of row r: SI, R9 or R10
// plus 0, xs or 2xs.
func (g gen) rowBases(rows int, mask uint32) func(r int) Mem {
	g.MOVL(U32(mask), R8L)
	g.KMOVW(R8L, K1)
	g.SHLQ(U8(2), RDX)
	g.LEAQ(Mem{Base: RDX, Index: RDX, Scale: 1}, R12) // 2xs
	g.LEAQ(Mem{Base: RSI, Index: R12, Scale: 1}, R9)
	g.ADDQ(RDX, R9) // x + 3xs
	if rows > 4 {
		g.LEAQ(Mem{Base: R9, Index: R12, Scale: 1}, R10)
		g.ADDQ(RDX, R10) // x + 6xs
	}
	bases := []Register{RSI, R9, R10}
	return func(r int) Mem {
		m := Mem{Base: bases[r/3]}
		switch r % 3 {
		case 1:
			m.Index, m.Scale = RDX, 1
		case 2:
			m.Index, m.Scale = R12, 1
		}
		return m
	}
}

// flush adds accumulator a, widened to float64 and folded to 4 lanes, into
// the 4 float64 at off(BX). Scratch: Y14, Y15 (ymm); Z0, Z1 (zmm).
func (g gen) flush(w vw, a, off int) {
	acc := Mem{Base: RBX, Disp: off}
	if w == ymm {
		g.VCVTPS2PD(x(a), Y14)
		g.VEXTRACTF128(U8(1), y(a), X15)
		g.VCVTPS2PD(X15, Y15)
		g.VADDPD(Y15, Y14, Y14)
		g.VADDPD(acc, Y14, Y14)
		g.VMOVUPD(Y14, acc)
		return
	}
	g.VCVTPS2PD(y(a), Z0)
	g.VEXTRACTF64X4(U8(1), z(a), Y1)
	g.VCVTPS2PD(Y1, Z1)
	g.VADDPD(Z1, Z0, Z0)
	g.VEXTRACTF64X4(U8(1), Z0, Y1)
	g.VADDPD(Y1, Y0, Y0)
	g.VADDPD(acc, Y0, Y0)
	g.VMOVUPD(Y0, acc)
}

// dotVecs is x (SI) against k vectors (pointers vp): a main loop of unroll·8
// elements with unroll·k accumulators Y(k·u+j), x loaded into
// Y(k·unroll+u), then a loop of 8; the unrolled copies are summed by a tree
// at the flush. With k > 1 the vectors are prefetched 1024 bytes ahead.
func (g gen) dotVecs(name, sig string, k, unroll int, vp []Register, doc ...string) {
	g.text(name, sig, doc...)
	if k == 1 {
		g.args(RSI, RDI, RCX)
	} else {
		g.args(RSI, RDI, RDX, RCX)
		g.spread(RDI, RDX, vp[1:]...)
	}
	g.SHLQ(U8(2), RCX)
	g.XORQ(RAX, RAX)
	step := func(n int) {
		if k > 1 && n > 1 {
			for _, p := range vp {
				g.PREFETCHT0(at(p, 1024, RAX))
			}
		}
		for u := 0; u < n; u++ {
			g.VMOVUPS(at(RSI, 32*u, RAX), y(k*unroll+u))
		}
		for u := 0; u < n; u++ {
			for j, p := range vp {
				g.VFMADD231PS(at(p, 32*u, RAX), y(k*unroll+u), y(k*u+j))
			}
		}
	}
	g.chunks(ymm, RAX, 0, k*unroll, k, func() {
		g.Label("loop")
		g.LEAQ(Mem{Base: RAX, Disp: 32 * unroll}, RDX)
		g.CMPQ(RDX, RBX)
		g.JGT(lbl("tail"))
		step(unroll)
		g.MOVQ(RDX, RAX)
		g.JMP(lbl("loop"))
		g.Label("tail")
		g.CMPQ(RAX, RBX)
		g.JGE(lbl("flush"))
		step(1)
		g.ADDQ(U8(32), RAX)
		g.JMP(lbl("tail"))
	}, func() {
		for s := 1; s < unroll; s *= 2 {
			for u := 0; u+s < unroll; u += 2 * s {
				for j := 0; j < k; j++ {
					g.VADDPS(y(k*(u+s)+j), y(k*u+j), y(k*u+j))
				}
			}
		}
	})
}

// dotRows describes a multi-row kernel: several dictionary rows streamed at
// once (prefetched 1024 bytes ahead), each element loaded once feeding every
// product. The accumulator of (row r, vector j) is r·k+j from Y0 (ymm) or
// Z16 (zmm); xr and vr are the registers the rows and vectors are loaded
// into; rowsFirst loads the rows before the vectors. A nil index moves every
// pointer on instead of an offset (dot2r8AVX512 has no register to spare).
type dotRows struct {
	name       string
	w          vw
	xs, vs     Register // the strides' registers
	rows, vecs []Register
	xr, vr     []int
	rowsFirst  bool
	index      Register
}

func (g gen) dotRows(d dotRows, sig string, doc ...string) {
	g.text(d.name, sig, doc...)
	g.args(RSI, d.xs, RDI, d.vs, RCX)
	g.spread(RSI, d.xs, d.rows[1:]...)
	g.spread(RDI, d.vs, d.vecs[1:]...)
	g.SHLQ(U8(2), RCX)
	pos, base := RAX, 0
	if d.index == nil {
		pos = RSI
		g.ADDQ(RSI, RCX)
	} else {
		g.XORQ(RAX, RAX)
	}
	if d.w == zmm {
		base = 16
	}
	n := len(d.rows) * len(d.vecs)
	load := func(ps []Register, rs []int, i int) { g.VMOVUPS(at(ps[i], 0, d.index), d.w.r(rs[i])) }
	fma := func(r, j int) { g.VFMADD231PS(d.w.r(d.vr[j]), d.w.r(d.xr[r]), d.w.r(base+r*len(d.vecs)+j)) }
	g.chunks(d.w, pos, base, n, n, func() {
		g.Label("loop")
		g.CMPQ(pos, RBX)
		g.JGE(lbl("flush"))
		for _, p := range d.rows {
			g.PREFETCHT0(at(p, 1024, d.index))
		}
		if d.rowsFirst {
			for r := range d.rows {
				load(d.rows, d.xr, r)
			}
			for j := range d.vecs {
				load(d.vecs, d.vr, j)
				for r := range d.rows {
					fma(r, j)
				}
			}
		} else {
			for j := range d.vecs {
				load(d.vecs, d.vr, j)
			}
			for r := range d.rows {
				load(d.rows, d.xr, r)
				for j := range d.vecs {
					fma(r, j)
				}
			}
		}
		if d.index != nil {
			g.ADDQ(U8(d.w.bytes), d.index)
		} else {
			for _, p := range append(d.rows, d.vecs...) {
				g.ADDQ(U8(d.w.bytes), p)
			}
		}
		g.JMP(lbl("loop"))
	}, func() {})
}

// SGEMM micro-kernels: the rows×(2·lanes) tile c (row stride ldc) = Σ_p
// a_p b_pᵀ, or c plus that when accumulate is set; a is packed rows floats
// per p, b 2·lanes per p. Row r of the tile is accumulators 2r and 2r+1, b_p
// is loaded into 2·rows and 2·rows+1 and the a values are broadcast
// alternately into 2·rows+2 and 2·rows+3.
//
//	CX kc (steps left)   SI a   DI b   DX c row   R8 ldc·4   R9 row to prefetch
func (g gen) sgemm() {
	sig := "(kc int, a, b, c *float32, ldc int, accumulate bool)"
	g.sgemmKernel("sgemm6x16AVX", sig, ymm, 6, 4, []int{0, 63},
		"sgemm6x16AVX computes the 6×16 tile c (row stride ldc elements) = a·bᵀ,",
		"or adds it to c when accumulate is set; a is kc×6 and b kc×16, packed by p.")
	g.sgemmKernel("sgemm12x32AVX512", sig, zmm, 12, 2, []int{0, 64, 127},
		"sgemm12x32AVX512 is the AVX-512F micro-kernel for 12×32 tiles, with the",
		"same contract as sgemm6x16AVX.")
}

// sgemmKernel unrolls the loop over p unroll times; pf are the offsets
// prefetched in each row of the tile before the loop (so that its cache
// misses overlap the loop).
func (g gen) sgemmKernel(name, sig string, w vw, rows, unroll int, pf []int, doc ...string) {
	g.text(name, sig, doc...)
	g.args(RCX, RSI, RDI, RDX, R8)
	g.SHLQ(U8(2), R8)
	g.MOVQ(RDX, R9)
	for r := 0; r < rows; r++ {
		for _, o := range pf {
			g.PREFETCHT0(Mem{Base: R9, Disp: o})
		}
		g.ADDQ(R8, R9)
	}
	for i := 0; i < 2*rows; i++ {
		g.zero(w, i)
	}
	b0, b1 := w.r(2*rows), w.r(2*rows+1)
	step := func() {
		g.VMOVUPS(Mem{Base: RDI}, b0)
		g.VMOVUPS(Mem{Base: RDI, Disp: w.bytes}, b1)
		for r := 0; r < rows; r++ {
			a := w.r(2*rows + 2 + r%2)
			g.VBROADCASTSS(Mem{Base: RSI, Disp: 4 * r}, a)
			g.VFMADD231PS(b0, a, w.r(2*r))
			g.VFMADD231PS(b1, a, w.r(2*r+1))
		}
		g.ADDQ(U8(4*rows), RSI)
		g.ADDQ(U8(2*w.bytes), RDI)
	}
	g.Label("loop")
	g.CMPQ(RCX, U8(unroll))
	g.JL(lbl("tail"))
	for i := 0; i < unroll; i++ {
		step()
	}
	g.SUBQ(U8(unroll), RCX)
	g.JMP(lbl("loop"))
	g.Label("tail")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("store"))
	step()
	g.DECQ(RCX)
	if unroll > 2 {
		g.JMP(lbl("tail"))
	}
	g.Label("store")
	g.MOVBQZX(g.param("accumulate"), RAX)
	g.TESTQ(RAX, RAX)
	g.JNZ(lbl("add"))
	for _, add := range []bool{false, true} {
		if add {
			g.Label("add")
		}
		for r := 0; r < 2*rows; r += 2 {
			lo, hi := Mem{Base: RDX}, Mem{Base: RDX, Disp: w.bytes}
			if add {
				g.VADDPS(lo, w.r(r), w.r(r))
				g.VADDPS(hi, w.r(r+1), w.r(r+1))
			}
			g.VMOVUPS(w.r(r), lo)
			g.VMOVUPS(w.r(r+1), hi)
			g.ADDQ(R8, RDX)
		}
		g.VZEROUPPER()
		g.RET()
	}
}

// expConsts are exp's float32 constants (see the package documentation):
// n = round(x·log₂e), r = (x − n·ln2hi) − n·ln2lo (Cody–Waite; n·ln2hi is
// exact), p = c0 + r(c1 + … + r·c6) by Horner, exp(x) = p·2ⁿ; x below
// −126·ln2 gives exactly 0 and NaN stays NaN. c0…c6 interpolate e^r at the
// Chebyshev points of [−ln2/2, ln2/2] (rounded to float32: c0 = c1 = 1,
// c2 = 0.5). Each is a 32-byte splat: AVX2 uses them as memory operands,
// AVX-512 broadcasts the first 13 into Z16…Z28.
var expConsts = []struct {
	name string
	bits uint32
}{
	{"Underflow", 0xc2aeac50}, // −87.33655
	{"Clamp", 0xc2b00000},     // −88: inputs are clamped here before the conversion
	{"Log2e", 0x3fb8aa3b},
	{"Magic", 0x4b400000}, // 1.5·2²³: adding it rounds to an integer (AVX-512)
	{"Ln2Hi", 0x3f318000}, // 0.693359375
	{"Ln2Lo", 0xb95e8083}, // ln2 − ln2hi
	{"C6", 0x3ab6ba99}, {"C5", 0x3c0937d3}, {"C4", 0x3d2aaa56}, {"C3", 0x3e2aaa02},
	{"C2", 0x3f000000}, {"C1", 0x3f800000},
	{"Minus2", 0xc0000000},
	{"Bias", 0x7f}, // the float32 exponent bias (int32 lanes, AVX2)
}

// exp emits rbfAVX and rbfAVX512, the RBF transform with a vectorised exp
// (expOp): the kernels' only exp.
func (g gen) exp() {
	mem := map[string]Mem{}
	for _, k := range expConsts {
		mem[k.name] = g.StaticGlobal("exp" + k.name)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for i := 0; i < 32; i += 4 {
			g.AddDatum(i, U32(k.bits))
		}
	}
	// c names a constant's operand: memory, or Y11 for the clamp (AVX2);
	// its register (AVX-512). setup loads what c expects in registers.
	c := map[vw]func(string) Op{
		ymm: func(k string) Op {
			if k == "Clamp" {
				return Y11
			}
			return mem[k]
		},
		zmm: func(k string) Op {
			for i, e := range expConsts {
				if e.name != k {
					continue
				}
				return z(16 + i)
			}
			log.Fatalf("no constant %s", k)
			return nil
		},
	}
	setup := map[vw]func(){
		ymm: func() { g.VMOVUPS(mem["Clamp"], Y11) },
		zmm: func() {
			for i, e := range expConsts[:13] {
				g.VBROADCASTSS(mem[e.name], z(16+i))
			}
			g.VPXORD(Z29, Z29, Z29)
		},
	}
	// rbf: for each of rows rows of the tile c (2·lanes wide, stride ldc),
	// t ← exp(−γ·max(an_i + bn_j − 2t, 0)), NaN kept.
	//   DI c row   R8 ldc·4   CX rows left   SI an_i   DX bn
	//   AVX2: Y10 an_i   Y11 clamp   Y12 zero   Y13, Y14 bn   Y15 −γ
	//   AVX-512: Z31 an_i   Z14, Z15 bn   Z30 −γ   constants Z16…Z28, Z29 zero
	sig := "(c *float32, ldc, rows int, an, bn *float32, negGamma float32)"
	for _, w := range []vw{ymm, zmm} {
		if w == ymm {
			g.text("rbfAVX", sig, "rbfAVX replaces each value t of the rows×16 tile c (stride ldc) by",
				"exp(negGamma·max(an[i]+bn[j]−2t, 0)).")
		} else {
			g.text("rbfAVX512", sig, "rbfAVX512 is rbfAVX for rows×32 tiles with AVX-512F.")
		}
		g.args(RDI, R8, RCX, RSI, RDX)
		g.SHLQ(U8(2), R8)
		an, ng, b0, b1 := Y10, Y15, Y13, Y14
		if w == zmm {
			an, ng, b0, b1 = Z31, Z30, Z14, Z15
			setup[w]()
		}
		g.VBROADCASTSS(g.param("negGamma"), ng)
		g.VMOVUPS(Mem{Base: RDX}, b0)
		g.VMOVUPS(Mem{Base: RDX, Disp: w.bytes}, b1)
		if w == ymm {
			g.VXORPS(Y12, Y12, Y12)
			setup[w]()
		}
		g.Label("row")
		g.TESTQ(RCX, RCX)
		g.JZ(lbl("done"))
		g.VBROADCASTSS(Mem{Base: RSI}, an)
		for h, b := range []Register{b0, b1} {
			m := Mem{Base: RDI, Disp: h * w.bytes}
			if w == ymm {
				t, o := y(5*h), y(5*h+1)
				g.VMOVUPS(m, t)
				g.VADDPS(b, an, o)
				g.VADDPS(t, t, t)
				g.VSUBPS(t, o, o)
				g.VMAXPS(o, Y12, o)
				g.VMULPS(ng, o, o)
				g.expOp(w, c[w], o, y(5*h+2), y(5*h+3), y(5*h+4))
				g.VMOVUPS(o, m)
				continue
			}
			t, o := z(4*h+3), z(4*h)
			g.VMOVUPS(m, t)
			g.VADDPS(b, an, o)
			g.VFMADD231PS(c[w]("Minus2"), t, o)
			g.VMAXPS(o, Z29, o)
			g.VMULPS(ng, o, o)
		}
		if w == zmm {
			g.expOp(w, c[w], Z0, K1, Z1, Z2)
			g.expOp(w, c[w], Z4, K2, Z5, Z6)
			g.VMOVUPS(Z0, Mem{Base: RDI})
			g.VMOVUPS(Z4, Mem{Base: RDI, Disp: 64})
		}
		g.ADDQ(R8, RDI)
		g.ADDQ(U8(4), RSI)
		g.DECQ(RCX)
		g.JMP(lbl("row"))
		g.done()
	}
}

// expOp replaces x by exp(x); m flags the lanes below the underflow bound
// (a ymm, or an opmask with AVX-512), n and p are scratch. VMAXPS with x as
// Intel's second source keeps NaN while clamping. AVX2 rounds n with
// VROUNDPS (nearest even) and builds 2ⁿ by shifting n+127 into the exponent
// field; AVX-512 rounds by adding 1.5·2²³ and scales with VSCALEFPS.
func (g gen) expOp(w vw, c func(string) Op, x, m, n, p Register) {
	g.VCMPPS(U8(1), c("Underflow"), x, m)
	g.VMAXPS(x, c("Clamp"), x)
	if w == ymm {
		g.VMULPS(c("Log2e"), x, n)
		g.VROUNDPS(U8(0), n, n)
	} else {
		g.VMOVAPS(c("Magic"), n)
		g.VFMADD231PS(c("Log2e"), x, n)
		g.VSUBPS(c("Magic"), n, n)
	}
	g.VFNMADD231PS(c("Ln2Hi"), n, x)
	g.VFNMADD231PS(c("Ln2Lo"), n, x)
	if w == ymm {
		g.VMOVUPS(c("C6"), p)
	} else {
		g.VMOVAPS(c("C6"), p)
	}
	for _, k := range []string{"C5", "C4", "C3", "C2", "C1", "C1"} {
		g.VFMADD213PS(c(k), x, p)
	}
	if w == zmm {
		g.VSCALEFPS(n, p, x)
		g.VPXORD(x, x, m, x)
		return
	}
	g.VCVTPS2DQ(n, n)
	g.VPADDD(c("Bias"), n, n)
	g.VPSLLD(U8(23), n, n)
	g.VMULPS(n, p, x)
	g.VANDNPS(x, m, x)
}

// axpy (RankUpdate): each block of d is loaded once, receives all k updates
// in registers and is stored once, so d is streamed once whatever k is.
//
//	axpyAVX:  DI d   SI v_0   DX v_t   R8 c   R9 k   R10 vs·4   R11 &c[t]   R12 t left
//	axpy4AVX: DI, R8, R9, R10 d_0…d_3   SI v_0   DX v_t   R11 vs·4   R13 &c[4t]
//	          R12 &c[4k]   Y8, Y9 v_t   Y10…Y13 c[4t+r]
//	both:     AX byte offset in d and every v_t   CX end (n·4)   BX next offset
func (g gen) axpy() {
	g.text("axpyAVX", "(d *float32, n int, c *float32, k int, v *float32, vs int)",
		"axpyAVX adds Σ_{t<k} c[t]·v[t·vs+i] to d[i] for i < n (a multiple of 8, k ≥ 1).")
	g.args(RDI, RCX, R8, R9, RSI, R10)
	g.SHLQ(U8(2), RCX)
	g.SHLQ(U8(2), R10)
	g.XORQ(RAX, RAX)
	for _, u := range []int{8, 1} {
		g.axpyPass([]Register{RDI}, 8, u, func() {
			g.MOVQ(RSI, RDX)
			g.MOVQ(R8, R11)
			g.MOVQ(R9, R12)
		}, func(loop LabelRef) {
			g.VBROADCASTSS(Mem{Base: R11}, Y8)
			for i := 0; i < u; i++ {
				g.VFMADD231PS(at(RDX, 32*i, RAX), Y8, y(i))
			}
			g.ADDQ(R10, RDX)
			g.ADDQ(U8(4), R11)
			g.DECQ(R12)
			g.JNZ(loop)
		})
	}
	g.done()

	g.text("axpy4AVX", "(d *float32, ds, n int, c *float32, k int, v *float32, vs int)",
		"axpy4AVX adds Σ_{t<k} c[4t+r]·v[t·vs+i] to d[r·ds+i] for r < 4, i < n (a",
		"multiple of 8, k ≥ 1): each v_t element is loaded once for the four rows.")
	g.args(RDI, RDX, RCX, R12, R13, RSI, R11)
	g.spread(RDI, RDX, R8, R9, R10)
	g.SHLQ(U8(4), R13)
	g.ADDQ(R13, R12)
	g.SHLQ(U8(2), R11)
	g.SHLQ(U8(2), RCX)
	g.XORQ(RAX, RAX)
	for _, u := range []int{2, 1} {
		g.axpyPass([]Register{RDI, R8, R9, R10}, 2, u, func() {
			g.MOVQ(g.param("c"), R13)
			g.MOVQ(RSI, RDX)
		}, func(loop LabelRef) {
			for i := 0; i < u; i++ {
				g.VMOVUPS(at(RDX, 32*i, RAX), y(8+i))
			}
			for r := 0; r < 4; r++ {
				g.VBROADCASTSS(Mem{Base: R13, Disp: 4 * r}, y(10+r))
				for i := 0; i < u; i++ {
					g.VFMADD231PS(y(8+i), y(10+r), y(2*r+i))
				}
			}
			g.ADDQ(R11, RDX)
			g.ADDQ(U8(16), R13)
			g.CMPQ(R13, R12)
			g.JLT(loop)
		})
	}
	g.done()
}

// axpyPass emits a pass over the rows d in blocks of u·8 elements: each
// block is loaded into Y(r·umax+i), set up, updated for every t (update
// branches back to the label it is given) and stored. The pass with
// u = umax runs while whole blocks remain, then goes to the pass with u = 1.
func (g gen) axpyPass(d []Register, umax, u int, setup func(), update func(LabelRef)) {
	g.Label(fmt.Sprintf("pass%d", u))
	if u == umax {
		g.LEAQ(Mem{Base: RAX, Disp: 32 * u}, RBX)
		g.CMPQ(RBX, RCX)
		g.JGT(lbl("pass1"))
	} else {
		g.CMPQ(RAX, RCX)
		g.JGE(lbl("done"))
	}
	blocks := func(f func(m Mem, v Register)) {
		for r, p := range d {
			for i := 0; i < u; i++ {
				f(at(p, 32*i, RAX), y(r*umax+i))
			}
		}
	}
	blocks(func(m Mem, v Register) { g.VMOVUPS(m, v) })
	setup()
	g.Label(fmt.Sprintf("t%d", u))
	update(lbl("t%d", u))
	blocks(func(m Mem, v Register) { g.VMOVUPS(v, m) })
	if u == umax {
		g.MOVQ(RBX, RAX)
	} else {
		g.ADDQ(U8(32), RAX)
	}
	g.JMP(lbl("pass%d", u))
}

// pack emits pack8AVX, the transposing copy that packs GEMM panels: each
// 8×8 block is loaded (rows 0…3 from SI, 4…7 from R10, at 0, ss, 2ss and
// 3ss = R9 bytes), transposed in registers (unpack pairs of rows, shuffle
// 64-bit pairs into groups of four, join the 128-bit halves) and stored as
// 8 rows of dst, ds = R11 bytes apart. CX counts the blocks.
func (g gen) pack() {
	g.text("pack8AVX", "(dst *float32, ds int, src *float32, ss, kc int)",
		"pack8AVX sets dst[p·ds+r] = src[r·ss+p] for r < 8 and p < kc (a multiple", "of 8).")
	g.args(RDI, R11, RSI, R8, RCX)
	g.SHLQ(U8(2), R11)
	g.SHLQ(U8(2), R8)
	g.LEAQ(Mem{Base: R8, Index: R8, Scale: 2}, R9)
	g.LEAQ(Mem{Base: RSI, Index: R8, Scale: 4}, R10)
	g.SHRQ(U8(3), RCX)
	g.Label("block")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	for i, b := range []Register{RSI, R10} {
		g.VMOVUPS(Mem{Base: b}, y(4*i))
		g.VMOVUPS(Mem{Base: b, Index: R8, Scale: 1}, y(4*i+1))
		g.VMOVUPS(Mem{Base: b, Index: R8, Scale: 2}, y(4*i+2))
		g.VMOVUPS(Mem{Base: b, Index: R9, Scale: 1}, y(4*i+3))
	}
	for i := 0; i < 8; i += 2 {
		g.VUNPCKLPS(y(i+1), y(i), y(8+i))
		g.VUNPCKHPS(y(i+1), y(i), y(9+i))
	}
	for q := 0; q < 4; q++ {
		a := 8 + 4*(q/2) + q%2
		g.VSHUFPS(U8(0x44), y(a+2), y(a), y(2*q))
		g.VSHUFPS(U8(0xee), y(a+2), y(a), y(2*q+1))
	}
	for i, imm := range []uint8{0x20, 0x20, 0x20, 0x20, 0x31, 0x31, 0x31, 0x31} {
		g.VPERM2F128(U8(imm), y(4+i%4), y(i%4), y(8+i))
	}
	g.MOVQ(RDI, RDX)
	for i := 8; i < 16; i++ {
		g.VMOVUPS(y(i), Mem{Base: RDX})
		g.ADDQ(R11, RDX)
	}
	g.MOVQ(RDX, RDI)
	g.ADDQ(U8(32), RSI)
	g.ADDQ(U8(32), R10)
	g.DECQ(RCX)
	g.JMP(lbl("block"))
	g.done()
}

// poly emits polyAVX: (γt + c0)^degree by degree−1 multiplications in
// float32, 8 values at a time.
//
//	DI c row   R8 ldc·4   CX rows left   DX cols·4   AX byte offset in the row
//	R9 degree−1   R10 multiplications left   Y14 γ   Y15 c0
func (g gen) poly() {
	g.text("polyAVX", "(c *float32, ldc, rows, cols int, gamma, coef0 float32, degree int)",
		"polyAVX replaces each value t of the rows×cols tile c (stride ldc, cols a",
		"multiple of 8) by (gamma·t + coef0)^degree, degree ≥ 1.")
	g.args(RDI, R8, RCX, RDX)
	g.VBROADCASTSS(g.param("gamma"), Y14)
	g.VBROADCASTSS(g.param("coef0"), Y15)
	g.MOVQ(g.param("degree"), R9)
	g.SHLQ(U8(2), R8)
	g.SHLQ(U8(2), RDX)
	g.DECQ(R9)
	g.Label("row")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	g.XORQ(RAX, RAX)
	g.Label("col")
	g.CMPQ(RAX, RDX)
	g.JGE(lbl("next"))
	g.VMOVUPS(Y15, Y1)
	g.VFMADD231PS(at(RDI, 0, RAX), Y14, Y1)
	g.VMOVUPS(Y1, Y0)
	g.MOVQ(R9, R10)
	g.Label("pow")
	g.TESTQ(R10, R10)
	g.JZ(lbl("store"))
	g.VMULPS(Y1, Y0, Y0)
	g.DECQ(R10)
	g.JMP(lbl("pow"))
	g.Label("store")
	g.VMOVUPS(Y0, at(RDI, 0, RAX))
	g.ADDQ(U8(32), RAX)
	g.JMP(lbl("col"))
	g.Label("next")
	g.ADDQ(R8, RDI)
	g.DECQ(RCX)
	g.JMP(lbl("row"))
	g.done()
}

// argmax emits scoredArgMaxAVX. Per lane l (candidates k ≡ l mod 4) it
// keeps the largest |s_k|/sqrt(n_k) over eligible k (n_k > 0, score not NaN,
// skip nil or !skip[k]) and its smallest index; the score is computed as in
// backend.ScoredArgMaxRef (sqrt, then divide: correctly rounded, so the
// values are identical).
//
//	SI s   DI n   DX skip (0: none)   CX m   AX k
//	Y8 best indices   Y9 best scores   Y10 4s   Y11 current indices
//	Y12 −1   Y13 |·| mask   Y14 zero
func (g gen) argmax() {
	lanes := map[string][4]uint64{
		"Abs":      {1<<63 - 1, 1<<63 - 1, 1<<63 - 1, 1<<63 - 1},
		"Four":     {4, 4, 4, 4},
		"Iota":     {0, 1, 2, 3},
		"MinusOne": {0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000}, // −1.0
	}
	mem := map[string]Mem{}
	for _, k := range []string{"Abs", "Four", "Iota", "MinusOne"} {
		mem[k] = g.StaticGlobal("am" + k)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for i, v := range lanes[k] {
			g.AddDatum(8*i, U64(v))
		}
	}
	g.text("scoredArgMaxAVX", "(s, n *float64, skip *bool, m int, best *float64, bestIdx *int64)",
		"scoredArgMaxAVX computes per-lane (k mod 4) best scores and indices for",
		"ScoredArgMax over k < m (a multiple of 4); skip may be nil. A lane with",
		"no eligible candidate gets best −1.")
	g.args(RSI, RDI, RDX, RCX)
	g.VMOVUPD(mem["MinusOne"], Y12)
	g.VMOVUPD(mem["Abs"], Y13)
	g.VXORPD(Y14, Y14, Y14)
	g.VMOVDQU(mem["Four"], Y10)
	g.VMOVDQU(mem["Iota"], Y11)
	g.VMOVUPD(Y12, Y9)
	g.VPXOR(Y8, Y8, Y8)
	g.XORQ(RAX, RAX)
	g.Label("loop")
	g.CMPQ(RAX, RCX)
	g.JGE(lbl("done"))
	// Score = |s|/sqrt(n); eligible where n > 0, the score is not NaN and,
	// with a skip slice, skip[k] is false.
	g.VMOVUPD(Mem{Base: RSI, Index: RAX, Scale: 8}, Y0)
	g.VMOVUPD(Mem{Base: RDI, Index: RAX, Scale: 8}, Y1)
	g.VANDPD(Y13, Y0, Y0)
	g.VSQRTPD(Y1, Y2)
	g.VDIVPD(Y2, Y0, Y0)
	g.VCMPPD(U8(0x1e), Y14, Y1, Y3)
	g.VCMPPD(U8(7), Y0, Y0, Y4)
	g.VANDPD(Y4, Y3, Y3)
	g.TESTQ(RDX, RDX)
	g.JZ(lbl("noskip"))
	g.MOVL(at(RDX, 0, RAX), R8L)
	g.VMOVD(R8L, X5)
	g.VPMOVZXBQ(X5, Y5)
	g.VPCMPEQQ(Y14, Y5, Y5)
	g.VANDPD(Y5, Y3, Y3)
	// Ineligible lanes score −1; keep the strictly larger score per lane
	// (so ties keep the earlier, smaller index).
	g.Label("noskip")
	g.VBLENDVPD(Y3, Y0, Y12, Y0)
	g.VCMPPD(U8(0x1e), Y9, Y0, Y6)
	g.VBLENDVPD(Y6, Y0, Y9, Y9)
	g.VBLENDVPD(Y6, Y11, Y8, Y8)
	g.VPADDQ(Y10, Y11, Y11)
	g.ADDQ(U8(4), RAX)
	g.JMP(lbl("loop"))
	g.Label("done")
	g.MOVQ(g.param("best"), R8)
	g.MOVQ(g.param("bestIdx"), R9)
	g.VMOVUPD(Y9, Mem{Base: R8})
	g.VMOVDQU(Y8, Mem{Base: R9})
	g.VZEROUPPER()
	g.RET()
}

// SMO scans (backend.SMOScanner): one pass over an SMO solver's float64
// state and float32 kernel rows, four variables per instruction in two
// groups of lanes (lane l takes the variables a ≡ l mod 8, a < n, a multiple
// of 8). Every value is computed with the operations of the Go references
// (backend.SMOGradientRef, SMOSelectRef, SMOAddScaledRef) in the same order
// and without fused multiply-adds, so the results are equal bit for bit;
// each lane keeps its best value and the last index attaining it, and the Go
// wrappers reduce the lanes.
func (g gen) smo() {
	consts := map[string]uint64{
		"NegInf": 0xfff0000000000000, "MinusOneQ": 1<<64 - 1, "Eight": 8,
		"Sign": 1 << 63, "Tau": math.Float64bits(1e-12), // LIBSVM's TAU
		"PosInf": 0x7ff0000000000000,
	}
	mem := map[string]Mem{}
	for _, k := range []string{"NegInf", "MinusOneQ", "Eight", "Sign", "Tau", "PosInf"} {
		mem[k] = g.StaticGlobal("smo" + k)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for i := range 4 {
			g.AddDatum(8*i, U64(consts[k]))
		}
	}
	iotaMem := g.StaticGlobal("smoIota")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := range 8 {
		g.AddDatum(8*i, U64(uint64(i)))
	}
	f64 := func(base Register, u int) Mem { return Mem{Base: base, Index: RAX, Scale: 8, Disp: 32 * u} }
	f32 := func(base Register, u int) Mem { return Mem{Base: base, Index: RAX, Scale: 4, Disp: 16 * u} }
	// keep sets best (and idx to cur) in the lanes of mask.
	keep := func(mask, v, best, cur, idx Register) {
		g.VBLENDVPD(mask, v, best, best)
		g.VBLENDVPD(mask, cur, idx, idx)
	}
	store := func(out, outIdx Mem, best, idx [2]Register) {
		g.MOVQ(out, R10)
		g.MOVQ(outIdx, R11)
		for u := range 2 {
			g.VMOVUPD(best[u], Mem{Base: R10, Disp: 32 * u})
			g.VMOVDQU(idx[u], Mem{Base: R11, Disp: 32 * u})
		}
	}

	//	SI g   DI y   DX up   R8 qi   R9 qj   CX n   AX a
	//	Y15 wi   Y14 wj   Y12, Y13 best   Y10, Y11 indices   Y8, Y9 current indices
	g.text("smoGradientAVX", "(grad, y, up *float64, qi, qj *float32, n int, wi, wj float64, best *float64, bestIdx *int64)",
		"smoGradientAVX sets grad[a] += y[a]·(wi·qi[a] + wj·qj[a]) for a < n (a",
		"multiple of 8) and keeps per lane (a mod 8) the largest up[a]·grad[a] and",
		"the last index attaining it (−∞ and −1 when none: NaN never counts).")
	g.args(RSI, RDI, RDX, R8, R9, RCX)
	g.VBROADCASTSD(g.param("wi"), Y15)
	g.VBROADCASTSD(g.param("wj"), Y14)
	best, idx, cur := [2]Register{Y12, Y13}, [2]Register{Y10, Y11}, [2]Register{Y8, Y9}
	for u := range 2 {
		g.VMOVUPD(mem["NegInf"], best[u])
		g.VMOVDQU(mem["MinusOneQ"], idx[u])
		g.VMOVDQU(iotaMem.Offset(32*u), cur[u])
	}
	g.XORQ(RAX, RAX)
	g.Label("grad")
	g.CMPQ(RAX, RCX)
	g.JGE(lbl("gradDone"))
	for u := range 2 {
		g.VCVTPS2PD(f32(R8, u), Y0)
		g.VCVTPS2PD(f32(R9, u), Y1)
		g.VMULPD(Y15, Y0, Y0)
		g.VMULPD(Y14, Y1, Y1)
		g.VADDPD(Y1, Y0, Y0)
		g.VMULPD(f64(RDI, u), Y0, Y0)
		g.VADDPD(f64(RSI, u), Y0, Y0)
		g.VMOVUPD(Y0, f64(RSI, u))
		g.VMULPD(f64(RDX, u), Y0, Y2)
		g.VCMPPD(U8(0x1d), best[u], Y2, Y3) // up·g ≥ best
		keep(Y3, Y2, best[u], cur[u], idx[u])
		g.VPADDQ(mem["Eight"], cur[u], cur[u])
	}
	g.ADDQ(U8(8), RAX)
	g.JMP(lbl("grad"))
	g.Label("gradDone")
	store(g.param("best"), g.param("bestIdx"), best, idx)
	g.VZEROUPPER()
	g.RET()

	//	SI low   DI g   DX qd   R8 qi   R9 obj (0: none)   CX n   AX a
	//	Y15 gmax   Y14 qdi   Y12, Y13 objective minima   Y10, Y11 their indices
	//	Y8, Y9 current indices   Y6, Y7 low maxima
	g.text("smoSelectAVX", "(low, grad, qd *float64, qi *float32, obj *float64, n int, gmax, qdi float64, out *float64, outIdx *int64)",
		"smoSelectAVX scans a < n (a multiple of 8) for the second-order choice of",
		"j: per lane (a mod 8) the least o = −diff²/quad over diff = gmax + low[a]·grad[a]",
		"> 0, quad = qdi + qd[a] − 2·qi[a] (τ when not positive), and the last index",
		"attaining it (+∞ and −1 when none), in out[0:8] and outIdx[0:8], and the",
		"largest low[a]·grad[a] in out[8:16] (−∞ when none: NaN never counts). When",
		"obj is not nil it also stores every o in obj[a] (+∞ where diff ≤ 0).")
	g.args(RSI, RDI, RDX, R8, R9, RCX)
	g.VBROADCASTSD(g.param("gmax"), Y15)
	g.VBROADCASTSD(g.param("qdi"), Y14)
	lowMax := [2]Register{Y6, Y7}
	for u := range 2 {
		g.VMOVUPD(mem["PosInf"], best[u])
		g.VMOVUPD(mem["NegInf"], lowMax[u])
		g.VMOVDQU(mem["MinusOneQ"], idx[u])
		g.VMOVDQU(iotaMem.Offset(32*u), cur[u])
	}
	g.VXORPD(Y5, Y5, Y5)
	g.XORQ(RAX, RAX)
	g.Label("sel")
	g.CMPQ(RAX, RCX)
	g.JGE(lbl("selDone"))
	for u := range 2 {
		g.VMOVUPD(f64(RSI, u), Y0)
		g.VMULPD(f64(RDI, u), Y0, Y0) // yg = low·g
		g.VCMPPD(U8(0x1d), lowMax[u], Y0, Y1)
		g.VBLENDVPD(Y1, Y0, lowMax[u], lowMax[u])
		g.VADDPD(Y0, Y15, Y0)          // diff = gmax + yg
		g.VCMPPD(U8(0x1e), Y5, Y0, Y1) // diff > 0
		g.VADDPD(f64(RDX, u), Y14, Y2) // qdi + qd
		g.VCVTPS2PD(f32(R8, u), Y3)
		g.VADDPD(Y3, Y3, Y3)           // 2·qi, exactly
		g.VSUBPD(Y3, Y2, Y2)           // quad
		g.VCMPPD(U8(0x12), Y5, Y2, Y3) // quad ≤ 0
		g.VBLENDVPD(Y3, mem["Tau"], Y2, Y2)
		g.VMULPD(Y0, Y0, Y0)
		g.VXORPD(mem["Sign"], Y0, Y0) // (−diff)·diff
		g.VDIVPD(Y2, Y0, Y0)          // o
		g.TESTQ(R9, R9)
		g.JZ(lbl("noObj%d", u))
		g.VMOVUPD(mem["PosInf"], Y4)
		g.VBLENDVPD(Y1, Y0, Y4, Y4)
		g.VMOVUPD(Y4, f64(R9, u))
		g.Label(fmt.Sprintf("noObj%d", u))
		g.VCMPPD(U8(0x12), best[u], Y0, Y3) // o ≤ best
		g.VANDPD(Y1, Y3, Y3)
		keep(Y3, Y0, best[u], cur[u], idx[u])
		g.VPADDQ(mem["Eight"], cur[u], cur[u])
	}
	g.ADDQ(U8(8), RAX)
	g.JMP(lbl("sel"))
	g.Label("selDone")
	store(g.param("out"), g.param("outIdx"), best, idx)
	for u := range 2 {
		g.VMOVUPD(lowMax[u], Mem{Base: R10, Disp: 64 + 32*u})
	}
	g.VZEROUPPER()
	g.RET()

	//	DI dst   SI y   R8 row   CX n   AX a   Y15 w
	g.text("smoAddScaledAVX", "(dst, y *float64, row *float32, n int, w float64)",
		"smoAddScaledAVX sets dst[a] += w·y[a]·row[a] for a < n (a multiple of 8).")
	g.args(RDI, RSI, R8, RCX)
	g.VBROADCASTSD(g.param("w"), Y15)
	g.XORQ(RAX, RAX)
	g.Label("add")
	g.CMPQ(RAX, RCX)
	g.JGE(lbl("addDone"))
	for u := range 2 {
		g.VMULPD(f64(RSI, u), Y15, Y0)
		g.VCVTPS2PD(f32(R8, u), Y1)
		g.VMULPD(Y1, Y0, Y0)
		g.VADDPD(f64(RDI, u), Y0, Y0)
		g.VMOVUPD(Y0, f64(RDI, u))
	}
	g.ADDQ(U8(8), RAX)
	g.JMP(lbl("add"))
	g.Label("addDone")
	g.VZEROUPPER()
	g.RET()
}
