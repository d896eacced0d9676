//go:build amd64 && !purego

#include "textflag.h"

// Dot products of dictionary rows with k = 1, 2 or 4 vectors (single rows:
// k = 1 and 4; several rows: 4×2 and 2×4).
//
// Register use shared by the single-row functions (the multi-row ones below
// keep AX, BX, CX and the accumulators the same way):
//   SI  x                     AX  byte offset into x and every v_j
//   DI  v_0 (others below)    BX  end offset of the current chunk, then the acc pointer
//   CX  end offset (n·4)      Y0…Y7 float32 accumulators
//
// Work is done in chunks of at most 256 elements: within a chunk each
// accumulator lane sums at most 32 products in float32; at the end of the
// chunk the lanes are widened to float64 and added into acc (FLUSH), so the
// float32 rounding error never grows with n.

// FLUSH adds accumulator A (its xmm name XA), widened to float64 and folded
// from 8 lanes to 4, into the 4 float64 at off(BX). Y14 and Y15 are scratch.
#define FLUSH(A, XA, off) \
	VCVTPS2PD    XA, Y14;          \
	VEXTRACTF128 $1, A, X15;       \
	VCVTPS2PD    X15, Y15;         \
	VADDPD       Y15, Y14, Y14;    \
	VADDPD       off(BX), Y14, Y14; \
	VMOVUPD      Y14, off(BX)

// PFDIST is how far ahead (bytes) the multi-row kernels prefetch their rows.
#define PFDIST 1024

// CHUNK sets BX to the end of the next chunk: min(AX+1024, CX).
#define CHUNK \
	LEAQ    1024(AX), BX; \
	CMPQ    BX, CX;       \
	CMOVQGT CX, BX

// func dot1AVX(x, v *float32, n int, acc *float64)
TEXT ·dot1AVX(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX

d1chunk:
	CMPQ AX, CX
	JGE  d1done
	CHUNK
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

d1loop32:
	// 32 elements per step, four independent accumulators.
	LEAQ        128(AX), DX
	CMPQ        DX, BX
	JGT         d1loop8
	VMOVUPS     (SI)(AX*1), Y4
	VMOVUPS     32(SI)(AX*1), Y5
	VMOVUPS     64(SI)(AX*1), Y6
	VMOVUPS     96(SI)(AX*1), Y7
	VFMADD231PS (DI)(AX*1), Y4, Y0
	VFMADD231PS 32(DI)(AX*1), Y5, Y1
	VFMADD231PS 64(DI)(AX*1), Y6, Y2
	VFMADD231PS 96(DI)(AX*1), Y7, Y3
	MOVQ        DX, AX
	JMP         d1loop32

d1loop8:
	// The chunk's remaining multiples of 8.
	CMPQ        AX, BX
	JGE         d1flush
	VMOVUPS     (SI)(AX*1), Y4
	VFMADD231PS (DI)(AX*1), Y4, Y0
	ADDQ        $32, AX
	JMP         d1loop8

d1flush:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	MOVQ   acc+24(FP), BX
	FLUSH(Y0, X0, 0)
	JMP    d1chunk

d1done:
	VZEROUPPER
	RET

// func dot4AVX(x, v *float32, vs, n int, acc *float64)
// v_0…v_3 = DI, R8, R9, R10. With the roles swapped (x a vector, v four
// dictionary rows xs apart) it is also the 4-rows × 1-vector kernel, which
// is why it prefetches the four v streams PFDIST bytes ahead.
TEXT ·dot4AVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ vs+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $2, DX
	LEAQ (DI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	SHLQ $2, CX
	XORQ AX, AX

d4chunk:
	CMPQ AX, CX
	JGE  d4done
	CHUNK
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

d4loop16:
	// 16 elements per step: Y0…Y3 take the first 8 against v_0…v_3,
	// Y4…Y7 the next 8, so eight FMA chains are in flight.
	LEAQ        64(AX), DX
	CMPQ        DX, BX
	JGT         d4loop8
	PREFETCHT0  PFDIST(DI)(AX*1)
	PREFETCHT0  PFDIST(R8)(AX*1)
	PREFETCHT0  PFDIST(R9)(AX*1)
	PREFETCHT0  PFDIST(R10)(AX*1)
	VMOVUPS     (SI)(AX*1), Y8
	VMOVUPS     32(SI)(AX*1), Y9
	VFMADD231PS (DI)(AX*1), Y8, Y0
	VFMADD231PS (R8)(AX*1), Y8, Y1
	VFMADD231PS (R9)(AX*1), Y8, Y2
	VFMADD231PS (R10)(AX*1), Y8, Y3
	VFMADD231PS 32(DI)(AX*1), Y9, Y4
	VFMADD231PS 32(R8)(AX*1), Y9, Y5
	VFMADD231PS 32(R9)(AX*1), Y9, Y6
	VFMADD231PS 32(R10)(AX*1), Y9, Y7
	MOVQ        DX, AX
	JMP         d4loop16

d4loop8:
	CMPQ        AX, BX
	JGE         d4flush
	VMOVUPS     (SI)(AX*1), Y8
	VFMADD231PS (DI)(AX*1), Y8, Y0
	VFMADD231PS (R8)(AX*1), Y8, Y1
	VFMADD231PS (R9)(AX*1), Y8, Y2
	VFMADD231PS (R10)(AX*1), Y8, Y3
	ADDQ        $32, AX
	JMP         d4loop8

d4flush:
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	MOVQ   acc+32(FP), BX
	FLUSH(Y0, X0, 0)
	FLUSH(Y1, X1, 32)
	FLUSH(Y2, X2, 64)
	FLUSH(Y3, X3, 96)
	JMP    d4chunk

d4done:
	VZEROUPPER
	RET

// Multi-row kernels: several dictionary rows are streamed at once (more
// memory streams in flight than one row gives), each vector element loaded
// once feeding every row. The acc layout is acc[((r·k)+j)·4 + lane].

// func dot4r2AVX(x *float32, xs int, v *float32, vs, n int, acc *float64)
// Rows x_0…x_3 = SI, R8, R9, R10; v_0 = DI, v_1 = R11.
// Accumulator for (row r, vector j) is Y(2r+j).
TEXT ·dot4r2AVX(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ xs+8(FP), DX
	MOVQ v+16(FP), DI
	MOVQ vs+24(FP), R11
	MOVQ n+32(FP), CX
	SHLQ $2, DX
	LEAQ (SI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	SHLQ $2, R11
	ADDQ DI, R11
	SHLQ $2, CX
	XORQ AX, AX

r42chunk:
	CMPQ AX, CX
	JGE  r42done
	CHUNK
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

r42loop8:
	// 8 elements: v_0, v_1 in Y8, Y9; each row loaded once for both.
	// Rows are prefetched PFDIST bytes ahead.
	CMPQ        AX, BX
	JGE         r42flush
	PREFETCHT0  PFDIST(SI)(AX*1)
	PREFETCHT0  PFDIST(R8)(AX*1)
	PREFETCHT0  PFDIST(R9)(AX*1)
	PREFETCHT0  PFDIST(R10)(AX*1)
	VMOVUPS     (DI)(AX*1), Y8
	VMOVUPS     (R11)(AX*1), Y9
	VMOVUPS     (SI)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VMOVUPS     (R8)(AX*1), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VMOVUPS     (R9)(AX*1), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VMOVUPS     (R10)(AX*1), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ        $32, AX
	JMP         r42loop8

r42flush:
	MOVQ acc+40(FP), BX
	FLUSH(Y0, X0, 0)
	FLUSH(Y1, X1, 32)
	FLUSH(Y2, X2, 64)
	FLUSH(Y3, X3, 96)
	FLUSH(Y4, X4, 128)
	FLUSH(Y5, X5, 160)
	FLUSH(Y6, X6, 192)
	FLUSH(Y7, X7, 224)
	JMP  r42chunk

r42done:
	VZEROUPPER
	RET

// func dot2r4AVX(x *float32, xs int, v *float32, vs, n int, acc *float64)
// Rows x_0, x_1 = SI, R8; v_0…v_3 = DI, R9, R10, R11.
// Accumulator for (row r, vector j) is Y(4r+j).
TEXT ·dot2r4AVX(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ xs+8(FP), DX
	MOVQ v+16(FP), DI
	MOVQ vs+24(FP), R11
	MOVQ n+32(FP), CX
	SHLQ $2, DX
	LEAQ (SI)(DX*1), R8
	SHLQ $2, R11
	LEAQ (DI)(R11*1), R9
	LEAQ (R9)(R11*1), R10
	LEAQ (R10)(R11*1), R11
	SHLQ $2, CX
	XORQ AX, AX

r24chunk:
	CMPQ AX, CX
	JGE  r24done
	CHUNK
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

r24loop8:
	// 8 elements: rows in Y8, Y9; each v_j loaded once for both rows.
	// The rows are prefetched PFDIST bytes ahead so that memory latency
	// overlaps the FMAs.
	CMPQ        AX, BX
	JGE         r24flush
	PREFETCHT0  PFDIST(SI)(AX*1)
	PREFETCHT0  PFDIST(R8)(AX*1)
	VMOVUPS     (SI)(AX*1), Y8
	VMOVUPS     (R8)(AX*1), Y9
	VMOVUPS     (DI)(AX*1), Y10
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y4
	VMOVUPS     (R9)(AX*1), Y11
	VFMADD231PS Y11, Y8, Y1
	VFMADD231PS Y11, Y9, Y5
	VMOVUPS     (R10)(AX*1), Y12
	VFMADD231PS Y12, Y8, Y2
	VFMADD231PS Y12, Y9, Y6
	VMOVUPS     (R11)(AX*1), Y13
	VFMADD231PS Y13, Y8, Y3
	VFMADD231PS Y13, Y9, Y7
	ADDQ        $32, AX
	JMP         r24loop8

r24flush:
	MOVQ acc+40(FP), BX
	FLUSH(Y0, X0, 0)
	FLUSH(Y1, X1, 32)
	FLUSH(Y2, X2, 64)
	FLUSH(Y3, X3, 96)
	FLUSH(Y4, X4, 128)
	FLUSH(Y5, X5, 160)
	FLUSH(Y6, X6, 192)
	FLUSH(Y7, X7, 224)
	JMP  r24chunk

r24done:
	VZEROUPPER
	RET
