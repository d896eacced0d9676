//go:build amd64 && !purego

#include "textflag.h"

// func polyAVX(c *float32, ldc, rows, cols int, gamma, coef0 float32, degree int)
//
// Polynomial kernel transform of a rows×cols tile (cols a multiple of 8,
// row stride ldc): t ← (γ·t + c0)^degree, degree ≥ 1, by degree−1 repeated
// multiplications in float32.
//
//   DI c row   R8 ldc·4   CX rows left   DX cols·4   AX byte offset in the row
//   R9 degree−1   R10 multiplications left   Y14 γ   Y15 c0
TEXT ·polyAVX(SB), NOSPLIT, $0-48
	MOVQ         c+0(FP), DI
	MOVQ         ldc+8(FP), R8
	MOVQ         rows+16(FP), CX
	MOVQ         cols+24(FP), DX
	VBROADCASTSS gamma+32(FP), Y14
	VBROADCASTSS coef0+36(FP), Y15
	MOVQ         degree+40(FP), R9
	SHLQ         $2, R8
	SHLQ         $2, DX
	DECQ         R9

prow:
	TESTQ CX, CX
	JZ    pdone
	XORQ  AX, AX

pcol:
	// 8 values: y = γt + c0 (one FMA), then r = y^degree.
	CMPQ        AX, DX
	JGE         pnext
	VMOVUPS     Y15, Y1
	VFMADD231PS (DI)(AX*1), Y14, Y1
	VMOVUPS     Y1, Y0
	MOVQ        R9, R10

ppow:
	TESTQ  R10, R10
	JZ     pstore
	VMULPS Y1, Y0, Y0
	DECQ   R10
	JMP    ppow

pstore:
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     pcol

pnext:
	ADDQ R8, DI
	DECQ CX
	JMP  prow

pdone:
	VZEROUPPER
	RET
