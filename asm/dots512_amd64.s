//go:build amd64 && !purego

#include "textflag.h"

// AVX-512F dot kernels for DictProducts with 4 and 8 vectors: 16 zmm
// accumulators Z16…Z31 (16 float32 lanes each), loads in Z0…Z7. As in
// dots_amd64.s, work goes in chunks of at most 256 elements (16 steps of 16,
// so each lane sums at most 16 products in float32) and each accumulator is
// then widened to float64, folded to 4 lanes and added into acc. n is a
// multiple of 16.

// FLUSH512 adds accumulator A (16 float32; YA its low half), widened and folded to 4 float64,
// into off(BX). Z0, Z1 are scratch.
#define FLUSH512(A, YA, off) \
	VCVTPS2PD     YA, Z0;           \
	VEXTRACTF64X4 $1, A, Y1;        \
	VCVTPS2PD     Y1, Z1;           \
	VADDPD        Z1, Z0, Z0;       \
	VEXTRACTF64X4 $1, Z0, Y1;       \
	VADDPD        Y1, Y0, Y0;       \
	VADDPD        off(BX), Y0, Y0;  \
	VMOVUPD       Y0, off(BX)

#define PFDIST512 1024

#define ZERO16 \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23; \
	VPXORD Z24, Z24, Z24; \
	VPXORD Z25, Z25, Z25; \
	VPXORD Z26, Z26, Z26; \
	VPXORD Z27, Z27, Z27; \
	VPXORD Z28, Z28, Z28; \
	VPXORD Z29, Z29, Z29; \
	VPXORD Z30, Z30, Z30; \
	VPXORD Z31, Z31, Z31

#define FLUSH16 \
	FLUSH512(Z16, Y16, 0);   \
	FLUSH512(Z17, Y17, 32);  \
	FLUSH512(Z18, Y18, 64);  \
	FLUSH512(Z19, Y19, 96);  \
	FLUSH512(Z20, Y20, 128); \
	FLUSH512(Z21, Y21, 160); \
	FLUSH512(Z22, Y22, 192); \
	FLUSH512(Z23, Y23, 224); \
	FLUSH512(Z24, Y24, 256); \
	FLUSH512(Z25, Y25, 288); \
	FLUSH512(Z26, Y26, 320); \
	FLUSH512(Z27, Y27, 352); \
	FLUSH512(Z28, Y28, 384); \
	FLUSH512(Z29, Y29, 416); \
	FLUSH512(Z30, Y30, 448); \
	FLUSH512(Z31, Y31, 480)

// func dot4r4AVX512(x *float32, xs int, v *float32, vs, n int, acc *float64)
// Rows x_0…x_3 = SI, R8, R9, R10; vectors v_0…v_3 = DI, R11, R12, R13;
// AX byte offset, BX chunk end (then acc), CX end. Accumulator for (row r,
// vector j) is Z(16+4r+j), flushed to acc[4(4r+j)].
TEXT ·dot4r4AVX512(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ xs+8(FP), DX
	MOVQ v+16(FP), DI
	MOVQ vs+24(FP), BX
	MOVQ n+32(FP), CX
	SHLQ $2, DX
	LEAQ (SI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	SHLQ $2, BX
	LEAQ (DI)(BX*1), R11
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	SHLQ $2, CX
	XORQ AX, AX

q44chunk:
	CMPQ    AX, CX
	JGE     q44done
	LEAQ    1024(AX), BX
	CMPQ    BX, CX
	CMOVQGT CX, BX
	ZERO16

q44loop:
	// 16 elements: the 4 vectors in Z0…Z3, each row loaded once (Z4…Z7)
	// and multiplied with all four; rows prefetched ahead.
	CMPQ        AX, BX
	JGE         q44flush
	PREFETCHT0  PFDIST512(SI)(AX*1)
	PREFETCHT0  PFDIST512(R8)(AX*1)
	PREFETCHT0  PFDIST512(R9)(AX*1)
	PREFETCHT0  PFDIST512(R10)(AX*1)
	VMOVUPS     (DI)(AX*1), Z0
	VMOVUPS     (R11)(AX*1), Z1
	VMOVUPS     (R12)(AX*1), Z2
	VMOVUPS     (R13)(AX*1), Z3
	VMOVUPS     (SI)(AX*1), Z4
	VFMADD231PS Z0, Z4, Z16
	VFMADD231PS Z1, Z4, Z17
	VFMADD231PS Z2, Z4, Z18
	VFMADD231PS Z3, Z4, Z19
	VMOVUPS     (R8)(AX*1), Z5
	VFMADD231PS Z0, Z5, Z20
	VFMADD231PS Z1, Z5, Z21
	VFMADD231PS Z2, Z5, Z22
	VFMADD231PS Z3, Z5, Z23
	VMOVUPS     (R9)(AX*1), Z6
	VFMADD231PS Z0, Z6, Z24
	VFMADD231PS Z1, Z6, Z25
	VFMADD231PS Z2, Z6, Z26
	VFMADD231PS Z3, Z6, Z27
	VMOVUPS     (R10)(AX*1), Z7
	VFMADD231PS Z0, Z7, Z28
	VFMADD231PS Z1, Z7, Z29
	VFMADD231PS Z2, Z7, Z30
	VFMADD231PS Z3, Z7, Z31
	ADDQ        $64, AX
	JMP         q44loop

q44flush:
	MOVQ acc+40(FP), BX
	FLUSH16
	JMP  q44chunk

q44done:
	VZEROUPPER
	RET

// func dot2r8AVX512(x *float32, xs int, v *float32, vs, n int, acc *float64)
// Rows x_0, x_1 = SI, R8; vectors v_0…v_7 = DI, R9, R10, R11, R12, R13,
// DX, AX, all moved forward together (no index register is left). BX is the
// chunk end for SI (then acc), CX the end for SI. Accumulator for (row r,
// vector j) is Z(16+8r+j), flushed to acc[4(8r+j)].
TEXT ·dot2r8AVX512(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ xs+8(FP), R8
	MOVQ v+16(FP), DI
	MOVQ vs+24(FP), BX
	MOVQ n+32(FP), CX
	SHLQ $2, R8
	ADDQ SI, R8
	SHLQ $2, BX
	LEAQ (DI)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	LEAQ (R10)(BX*1), R11
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	LEAQ (R13)(BX*1), DX
	LEAQ (DX)(BX*1), AX
	SHLQ $2, CX
	ADDQ SI, CX

q28chunk:
	CMPQ    SI, CX
	JGE     q28done
	LEAQ    1024(SI), BX
	CMPQ    BX, CX
	CMOVQGT CX, BX
	ZERO16

q28loop:
	// 16 elements: both rows in Z2, Z3; each vector loaded once (Z0)
	// for both rows; rows prefetched ahead.
	CMPQ        SI, BX
	JGE         q28flush
	PREFETCHT0  PFDIST512(SI)
	PREFETCHT0  PFDIST512(R8)
	VMOVUPS     (SI), Z2
	VMOVUPS     (R8), Z3
	VMOVUPS     (DI), Z0
	VFMADD231PS Z0, Z2, Z16
	VFMADD231PS Z0, Z3, Z24
	VMOVUPS     (R9), Z0
	VFMADD231PS Z0, Z2, Z17
	VFMADD231PS Z0, Z3, Z25
	VMOVUPS     (R10), Z0
	VFMADD231PS Z0, Z2, Z18
	VFMADD231PS Z0, Z3, Z26
	VMOVUPS     (R11), Z0
	VFMADD231PS Z0, Z2, Z19
	VFMADD231PS Z0, Z3, Z27
	VMOVUPS     (R12), Z0
	VFMADD231PS Z0, Z2, Z20
	VFMADD231PS Z0, Z3, Z28
	VMOVUPS     (R13), Z0
	VFMADD231PS Z0, Z2, Z21
	VFMADD231PS Z0, Z3, Z29
	VMOVUPS     (DX), Z0
	VFMADD231PS Z0, Z2, Z22
	VFMADD231PS Z0, Z3, Z30
	VMOVUPS     (AX), Z0
	VFMADD231PS Z0, Z2, Z23
	VFMADD231PS Z0, Z3, Z31
	ADDQ        $64, SI
	ADDQ        $64, R8
	ADDQ        $64, DI
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, R11
	ADDQ        $64, R12
	ADDQ        $64, R13
	ADDQ        $64, DX
	ADDQ        $64, AX
	JMP         q28loop

q28flush:
	MOVQ acc+40(FP), BX
	FLUSH16
	JMP  q28chunk

q28done:
	VZEROUPPER
	RET
