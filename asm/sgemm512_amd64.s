//go:build amd64 && !purego

#include "textflag.h"

// func sgemm12x32AVX512(kc int, a, b, c *float32, ldc int, accumulate bool)
//
// The AVX-512 SGEMM micro-kernel, used when the CPU has AVX-512F: C (12×32,
// row stride ldc) = Σ_p a_p b_pᵀ with a packed 12 floats per p and b packed
// 32 floats per p. Row r of the tile is Z(2r) (columns 0…15) and Z(2r+1)
// (columns 16…31): 24 zmm accumulators.
//
//   CX kc (steps left)   SI a   DI b   DX c row pointer   R8 ldc·4
//   Z24, Z25 the 32 b values of step p    Z26, Z27 broadcast a values

// ROW2 multiplies two rows (a values at offsets o0, o1) into their
// accumulators.
#define ROW2(o0, o1, A0, A1, B0, B1) \
	VBROADCASTSS o0(SI), Z26;     \
	VFMADD231PS  Z24, Z26, A0;    \
	VFMADD231PS  Z25, Z26, A1;    \
	VBROADCASTSS o1(SI), Z27;     \
	VFMADD231PS  Z24, Z27, B0;    \
	VFMADD231PS  Z25, Z27, B1

// STEP512 does one p: two loads of b, twelve broadcasts, 24 FMAs.
#define STEP512 \
	VMOVUPS (DI), Z24;                       \
	VMOVUPS 64(DI), Z25;                     \
	ROW2(0, 4, Z0, Z1, Z2, Z3);              \
	ROW2(8, 12, Z4, Z5, Z6, Z7);             \
	ROW2(16, 20, Z8, Z9, Z10, Z11);          \
	ROW2(24, 28, Z12, Z13, Z14, Z15);        \
	ROW2(32, 36, Z16, Z17, Z18, Z19);        \
	ROW2(40, 44, Z20, Z21, Z22, Z23);        \
	ADDQ    $48, SI;                         \
	ADDQ    $128, DI

// STORE512 writes accumulators A, B to row DX and moves to the next row;
// ADD512 first adds what the row holds.
#define STORE512(A, B) \
	VMOVUPS A, (DX);   \
	VMOVUPS B, 64(DX); \
	ADDQ    R8, DX

#define ADD512(A, B) \
	VADDPS (DX), A, A;   \
	VADDPS 64(DX), B, B; \
	STORE512(A, B)

// PF_ROW prefetches the two cache lines of a tile row at R9 (and the line
// after, for tiles that start mid-line) and moves R9 to the next row.
#define PF_ROW \
	PREFETCHT0 (R9);    \
	PREFETCHT0 64(R9);  \
	PREFETCHT0 127(R9); \
	ADDQ       R8, R9

TEXT ·sgemm12x32AVX512(SB), NOSPLIT, $0-41
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8

	// Start fetching the C tile now so its cache misses overlap the loop.
	MOVQ DX, R9
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW
	PF_ROW

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23

zloop2:
	// Main loop, unrolled twice.
	CMPQ CX, $2
	JL   zloop1
	STEP512
	STEP512
	SUBQ $2, CX
	JMP  zloop2

zloop1:
	TESTQ CX, CX
	JZ    zstore
	STEP512
	DECQ  CX

zstore:
	// Write the tile, or add it to what C holds (later blocks of p).
	MOVBQZX accumulate+40(FP), AX
	TESTQ   AX, AX
	JNZ     zadd
	STORE512(Z0, Z1)
	STORE512(Z2, Z3)
	STORE512(Z4, Z5)
	STORE512(Z6, Z7)
	STORE512(Z8, Z9)
	STORE512(Z10, Z11)
	STORE512(Z12, Z13)
	STORE512(Z14, Z15)
	STORE512(Z16, Z17)
	STORE512(Z18, Z19)
	STORE512(Z20, Z21)
	STORE512(Z22, Z23)
	VZEROUPPER
	RET

zadd:
	ADD512(Z0, Z1)
	ADD512(Z2, Z3)
	ADD512(Z4, Z5)
	ADD512(Z6, Z7)
	ADD512(Z8, Z9)
	ADD512(Z10, Z11)
	ADD512(Z12, Z13)
	ADD512(Z14, Z15)
	ADD512(Z16, Z17)
	ADD512(Z18, Z19)
	ADD512(Z20, Z21)
	ADD512(Z22, Z23)
	VZEROUPPER
	RET
