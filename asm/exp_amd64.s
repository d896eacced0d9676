//go:build amd64 && !purego

#include "textflag.h"

// Vectorised exp for float32 (see the package documentation):
//   n = round(x·log₂e), r = (x − n·ln2hi) − n·ln2lo   (Cody–Waite; n·ln2hi is exact)
//   p = c0 + r(c1 + r(c2 + … + r·c6))                  (Horner, 6 FMAs)
//   exp(x) = p · 2^n, 2^n built by shifting n+127 into the exponent field;
//   x < −126·ln2 (≈ −87.3365) gives exactly 0, NaN stays NaN.
// c0…c6 interpolate e^r at the Chebyshev points of [−ln2/2, ln2/2]
// (rounded to float32: c0 = c1 = 1, c2 = 0.5).

// The constants are package symbols: exp512_amd64.s broadcasts them too.
// SPLAT8 defines the read-only symbol sym: eight float32 (or int32) lanes,
// each holding the 32-bit pattern v.
#define SPLAT8(sym, v) \
	DATA sym+0(SB)/4, v;  \
	DATA sym+4(SB)/4, v;  \
	DATA sym+8(SB)/4, v;  \
	DATA sym+12(SB)/4, v; \
	DATA sym+16(SB)/4, v; \
	DATA sym+20(SB)/4, v; \
	DATA sym+24(SB)/4, v; \
	DATA sym+28(SB)/4, v; \
	GLOBL sym(SB), RODATA|NOPTR, $32

// -87.33655: below this exp(x) returns 0
SPLAT8(·expUnderflow, $0xc2aeac50)

// -88: inputs are clamped here before the integer conversion
SPLAT8(·expClamp, $0xc2b00000)

// log2(e)
SPLAT8(·expLog2e, $0x3fb8aa3b)

// ln2 high part, 0.693359375 (few bits, so n·ln2hi is exact)
SPLAT8(·expLn2Hi, $0x3f318000)

// ln2 low part, ln2 − ln2hi
SPLAT8(·expLn2Lo, $0xb95e8083)

// c6 = 0.0013941108
SPLAT8(·expC6, $0x3ab6ba99)

// c5 = 0.008375126
SPLAT8(·expC5, $0x3c0937d3)

// c4 = 0.04166635
SPLAT8(·expC4, $0x3d2aaa56)

// c3 = 0.16666415
SPLAT8(·expC3, $0x3e2aaa02)

// c2 = 0.5
SPLAT8(·expC2, $0x3f000000)

// c1 = 1
SPLAT8(·expC1, $0x3f800000)

// 127, the float32 exponent bias (int32 lanes)
SPLAT8(·expBias, $0x0000007f)

// EXP replaces X by exp(X). M, N and P are scratch; Y11 must hold expClamp.
#define EXP(X, M, N, P) \
	VCMPPS       $1, ·expUnderflow(SB), X, M; \
	VMAXPS       X, Y11, X;                    \
	VMULPS       ·expLog2e(SB), X, N;         \
	VROUNDPS     $0, N, N;                     \
	VFNMADD231PS ·expLn2Hi(SB), N, X;         \
	VFNMADD231PS ·expLn2Lo(SB), N, X;         \
	VMOVUPS      ·expC6(SB), P;               \
	VFMADD213PS  ·expC5(SB), X, P;            \
	VFMADD213PS  ·expC4(SB), X, P;            \
	VFMADD213PS  ·expC3(SB), X, P;            \
	VFMADD213PS  ·expC2(SB), X, P;            \
	VFMADD213PS  ·expC1(SB), X, P;            \
	VFMADD213PS  ·expC1(SB), X, P;            \
	VCVTPS2DQ    N, N;                         \
	VPADDD       ·expBias(SB), N, N;          \
	VPSLLD       $23, N, N;                    \
	VMULPS       N, P, X;                      \
	VANDNPS      X, M, X

// Notes on EXP, in order: M flags x below the underflow bound (false for NaN);
// VMAXPS with X as Intel's second source keeps NaN while clamping at −88;
// N = round(x·log₂e) (nearest even); X becomes r; P = p(r) by Horner (the
// last step uses c0 = c1 = 1); N becomes the float 2^n; X = p·2^n; lanes
// flagged in M are cleared to +0.

// func expAVX(dst, src *float32, n int)
TEXT ·expAVX(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    n+16(FP), CX
	VMOVUPS ·expClamp(SB), Y11

eloop:
	// 8 values per step.
	CMPQ    CX, $8
	JL      edone
	VMOVUPS (SI), Y0
	EXP(Y0, Y1, Y2, Y3)
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     eloop

edone:
	VZEROUPPER
	RET

// func rbfAVX(c *float32, ldc, rows int, an, bn *float32, negGamma float32)
//
// For each of rows rows of the 16-wide tile c: t ← exp(−γ·max(an_i + bn_j − 2t, 0)).
//   DI c row   R8 ldc·4   CX rows left   SI an_i
//   Y10 an_i broadcast   Y11 expClamp   Y12 zero   Y13, Y14 bn_0…15   Y15 −γ
TEXT ·rbfAVX(SB), NOSPLIT, $0-44
	MOVQ         c+0(FP), DI
	MOVQ         ldc+8(FP), R8
	MOVQ         rows+16(FP), CX
	MOVQ         an+24(FP), SI
	MOVQ         bn+32(FP), DX
	SHLQ         $2, R8
	VBROADCASTSS negGamma+40(FP), Y15
	VMOVUPS      (DX), Y13
	VMOVUPS      32(DX), Y14
	VXORPS       Y12, Y12, Y12
	VMOVUPS      ·expClamp(SB), Y11

rrow:
	TESTQ        CX, CX
	JZ           rdone
	VBROADCASTSS (SI), Y10

	// Columns 0…7: Y1 = an_i + bn_j − 2t, clamped at 0 (NaN kept), times −γ.
	VMOVUPS (DI), Y0
	VADDPS  Y13, Y10, Y1
	VADDPS  Y0, Y0, Y0
	VSUBPS  Y0, Y1, Y1
	VMAXPS  Y1, Y12, Y1
	VMULPS  Y15, Y1, Y1
	EXP(Y1, Y2, Y3, Y4)
	VMOVUPS Y1, (DI)

	// Columns 8…15.
	VMOVUPS 32(DI), Y5
	VADDPS  Y14, Y10, Y6
	VADDPS  Y5, Y5, Y5
	VSUBPS  Y5, Y6, Y6
	VMAXPS  Y6, Y12, Y6
	VMULPS  Y15, Y6, Y6
	EXP(Y6, Y7, Y8, Y9)
	VMOVUPS Y6, 32(DI)

	ADDQ R8, DI
	ADDQ $4, SI
	DECQ CX
	JMP  rrow

rdone:
	VZEROUPPER
	RET
