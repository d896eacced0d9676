//go:build amd64 && !purego

#include "textflag.h"

// func sgemm6x16AVX(kc int, a, b, c *float32, ldc int, accumulate bool)
//
// The SGEMM micro-kernel: C (6×16, row stride ldc) = Σ_p a_p b_pᵀ, where the
// packed panel a holds 6 floats per p (one per row of the tile) and b holds
// 16 floats per p (one per column). Twelve ymm accumulators hold the tile:
// row r is Y(2r) (columns 0…7) and Y(2r+1) (columns 8…15).
//
//   CX kc (steps left)   SI a   DI b   DX c row pointer   R8 ldc·4
//   Y12, Y13 the 16 b values of step p    Y14, Y15 broadcast a values

// STEP does one p: two loads of b, six broadcasts of a, twelve FMAs, and
// moves a and b on to the next p.
#define STEP \
	VMOVUPS      (DI), Y12;        \
	VMOVUPS      32(DI), Y13;      \
	VBROADCASTSS (SI), Y14;        \
	VFMADD231PS  Y12, Y14, Y0;     \
	VFMADD231PS  Y13, Y14, Y1;     \
	VBROADCASTSS 4(SI), Y15;       \
	VFMADD231PS  Y12, Y15, Y2;     \
	VFMADD231PS  Y13, Y15, Y3;     \
	VBROADCASTSS 8(SI), Y14;       \
	VFMADD231PS  Y12, Y14, Y4;     \
	VFMADD231PS  Y13, Y14, Y5;     \
	VBROADCASTSS 12(SI), Y15;      \
	VFMADD231PS  Y12, Y15, Y6;     \
	VFMADD231PS  Y13, Y15, Y7;     \
	VBROADCASTSS 16(SI), Y14;      \
	VFMADD231PS  Y12, Y14, Y8;     \
	VFMADD231PS  Y13, Y14, Y9;     \
	VBROADCASTSS 20(SI), Y15;      \
	VFMADD231PS  Y12, Y15, Y10;    \
	VFMADD231PS  Y13, Y15, Y11;    \
	ADDQ         $24, SI;          \
	ADDQ         $64, DI

// STORE_ROW writes accumulators A, B to row DX and moves DX to the next row.
#define STORE_ROW(A, B) \
	VMOVUPS A, (DX);   \
	VMOVUPS B, 32(DX); \
	ADDQ    R8, DX

// ADD_ROW adds row DX into accumulators A, B, writes them back and moves on.
#define ADD_ROW(A, B) \
	VADDPS  (DX), A, A;   \
	VADDPS  32(DX), B, B; \
	STORE_ROW(A, B)

// PF_ROW prefetches the cache line(s) of a 64-byte tile row at R9 and
// moves R9 to the next row.
#define PF_ROW \
	PREFETCHT0 (R9);   \
	PREFETCHT0 63(R9); \
	ADDQ       R8, R9

TEXT ·sgemm6x16AVX(SB), NOSPLIT, $0-41
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

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

gloop4:
	// Main loop, unrolled four times.
	CMPQ CX, $4
	JL   gloop1
	STEP
	STEP
	STEP
	STEP
	SUBQ $4, CX
	JMP  gloop4

gloop1:
	TESTQ CX, CX
	JZ    gstore
	STEP
	DECQ  CX
	JMP   gloop1

gstore:
	// Write the tile, or add it to what C holds (later blocks of p).
	MOVBQZX accumulate+40(FP), AX
	TESTQ   AX, AX
	JNZ     gadd
	STORE_ROW(Y0, Y1)
	STORE_ROW(Y2, Y3)
	STORE_ROW(Y4, Y5)
	STORE_ROW(Y6, Y7)
	STORE_ROW(Y8, Y9)
	STORE_ROW(Y10, Y11)
	VZEROUPPER
	RET

gadd:
	ADD_ROW(Y0, Y1)
	ADD_ROW(Y2, Y3)
	ADD_ROW(Y4, Y5)
	ADD_ROW(Y6, Y7)
	ADD_ROW(Y8, Y9)
	ADD_ROW(Y10, Y11)
	VZEROUPPER
	RET
