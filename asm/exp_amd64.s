//go:build amd64 && !purego

#include "textflag.h"

// Vectorised exp for float32 (see the package documentation):
//   n = round(x·log₂e), r = (x − n·ln2hi) − n·ln2lo   (Cody–Waite; n·ln2hi is exact)
//   p = c0 + r(c1 + r(c2 + … + r·c6))                  (Horner, 6 FMAs)
//   exp(x) = p · 2^n, 2^n built by shifting n+127 into the exponent field;
//   x < −126·ln2 (≈ −87.3365) gives exactly 0, NaN stays NaN.
// c0…c6 interpolate e^r at the Chebyshev points of [−ln2/2, ln2/2]
// (rounded to float32: c0 = c1 = 1, c2 = 0.5).

// -87.33655: below this exp(x) returns 0
DATA expUnderflow<>+0(SB)/4, $0xc2aeac50
DATA expUnderflow<>+4(SB)/4, $0xc2aeac50
DATA expUnderflow<>+8(SB)/4, $0xc2aeac50
DATA expUnderflow<>+12(SB)/4, $0xc2aeac50
DATA expUnderflow<>+16(SB)/4, $0xc2aeac50
DATA expUnderflow<>+20(SB)/4, $0xc2aeac50
DATA expUnderflow<>+24(SB)/4, $0xc2aeac50
DATA expUnderflow<>+28(SB)/4, $0xc2aeac50
GLOBL expUnderflow<>(SB), RODATA|NOPTR, $32

// -88: inputs are clamped here before the integer conversion
DATA expClamp<>+0(SB)/4, $0xc2b00000
DATA expClamp<>+4(SB)/4, $0xc2b00000
DATA expClamp<>+8(SB)/4, $0xc2b00000
DATA expClamp<>+12(SB)/4, $0xc2b00000
DATA expClamp<>+16(SB)/4, $0xc2b00000
DATA expClamp<>+20(SB)/4, $0xc2b00000
DATA expClamp<>+24(SB)/4, $0xc2b00000
DATA expClamp<>+28(SB)/4, $0xc2b00000
GLOBL expClamp<>(SB), RODATA|NOPTR, $32

// log2(e)
DATA expLog2e<>+0(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+4(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+8(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+12(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+16(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+20(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+24(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+28(SB)/4, $0x3fb8aa3b
GLOBL expLog2e<>(SB), RODATA|NOPTR, $32

// ln2 high part, 0.693359375 (few bits, so n·ln2hi is exact)
DATA expLn2Hi<>+0(SB)/4, $0x3f318000
DATA expLn2Hi<>+4(SB)/4, $0x3f318000
DATA expLn2Hi<>+8(SB)/4, $0x3f318000
DATA expLn2Hi<>+12(SB)/4, $0x3f318000
DATA expLn2Hi<>+16(SB)/4, $0x3f318000
DATA expLn2Hi<>+20(SB)/4, $0x3f318000
DATA expLn2Hi<>+24(SB)/4, $0x3f318000
DATA expLn2Hi<>+28(SB)/4, $0x3f318000
GLOBL expLn2Hi<>(SB), RODATA|NOPTR, $32

// ln2 low part, ln2 − ln2hi
DATA expLn2Lo<>+0(SB)/4, $0xb95e8083
DATA expLn2Lo<>+4(SB)/4, $0xb95e8083
DATA expLn2Lo<>+8(SB)/4, $0xb95e8083
DATA expLn2Lo<>+12(SB)/4, $0xb95e8083
DATA expLn2Lo<>+16(SB)/4, $0xb95e8083
DATA expLn2Lo<>+20(SB)/4, $0xb95e8083
DATA expLn2Lo<>+24(SB)/4, $0xb95e8083
DATA expLn2Lo<>+28(SB)/4, $0xb95e8083
GLOBL expLn2Lo<>(SB), RODATA|NOPTR, $32

// c6 = 0.0013941108
DATA expC6<>+0(SB)/4, $0x3ab6ba99
DATA expC6<>+4(SB)/4, $0x3ab6ba99
DATA expC6<>+8(SB)/4, $0x3ab6ba99
DATA expC6<>+12(SB)/4, $0x3ab6ba99
DATA expC6<>+16(SB)/4, $0x3ab6ba99
DATA expC6<>+20(SB)/4, $0x3ab6ba99
DATA expC6<>+24(SB)/4, $0x3ab6ba99
DATA expC6<>+28(SB)/4, $0x3ab6ba99
GLOBL expC6<>(SB), RODATA|NOPTR, $32

// c5 = 0.008375126
DATA expC5<>+0(SB)/4, $0x3c0937d3
DATA expC5<>+4(SB)/4, $0x3c0937d3
DATA expC5<>+8(SB)/4, $0x3c0937d3
DATA expC5<>+12(SB)/4, $0x3c0937d3
DATA expC5<>+16(SB)/4, $0x3c0937d3
DATA expC5<>+20(SB)/4, $0x3c0937d3
DATA expC5<>+24(SB)/4, $0x3c0937d3
DATA expC5<>+28(SB)/4, $0x3c0937d3
GLOBL expC5<>(SB), RODATA|NOPTR, $32

// c4 = 0.04166635
DATA expC4<>+0(SB)/4, $0x3d2aaa56
DATA expC4<>+4(SB)/4, $0x3d2aaa56
DATA expC4<>+8(SB)/4, $0x3d2aaa56
DATA expC4<>+12(SB)/4, $0x3d2aaa56
DATA expC4<>+16(SB)/4, $0x3d2aaa56
DATA expC4<>+20(SB)/4, $0x3d2aaa56
DATA expC4<>+24(SB)/4, $0x3d2aaa56
DATA expC4<>+28(SB)/4, $0x3d2aaa56
GLOBL expC4<>(SB), RODATA|NOPTR, $32

// c3 = 0.16666415
DATA expC3<>+0(SB)/4, $0x3e2aaa02
DATA expC3<>+4(SB)/4, $0x3e2aaa02
DATA expC3<>+8(SB)/4, $0x3e2aaa02
DATA expC3<>+12(SB)/4, $0x3e2aaa02
DATA expC3<>+16(SB)/4, $0x3e2aaa02
DATA expC3<>+20(SB)/4, $0x3e2aaa02
DATA expC3<>+24(SB)/4, $0x3e2aaa02
DATA expC3<>+28(SB)/4, $0x3e2aaa02
GLOBL expC3<>(SB), RODATA|NOPTR, $32

// c2 = 0.5
DATA expC2<>+0(SB)/4, $0x3f000000
DATA expC2<>+4(SB)/4, $0x3f000000
DATA expC2<>+8(SB)/4, $0x3f000000
DATA expC2<>+12(SB)/4, $0x3f000000
DATA expC2<>+16(SB)/4, $0x3f000000
DATA expC2<>+20(SB)/4, $0x3f000000
DATA expC2<>+24(SB)/4, $0x3f000000
DATA expC2<>+28(SB)/4, $0x3f000000
GLOBL expC2<>(SB), RODATA|NOPTR, $32

// c1 = 1
DATA expC1<>+0(SB)/4, $0x3f800000
DATA expC1<>+4(SB)/4, $0x3f800000
DATA expC1<>+8(SB)/4, $0x3f800000
DATA expC1<>+12(SB)/4, $0x3f800000
DATA expC1<>+16(SB)/4, $0x3f800000
DATA expC1<>+20(SB)/4, $0x3f800000
DATA expC1<>+24(SB)/4, $0x3f800000
DATA expC1<>+28(SB)/4, $0x3f800000
GLOBL expC1<>(SB), RODATA|NOPTR, $32

// 127, the float32 exponent bias (int32 lanes)
DATA expBias<>+0(SB)/4, $0x0000007f
DATA expBias<>+4(SB)/4, $0x0000007f
DATA expBias<>+8(SB)/4, $0x0000007f
DATA expBias<>+12(SB)/4, $0x0000007f
DATA expBias<>+16(SB)/4, $0x0000007f
DATA expBias<>+20(SB)/4, $0x0000007f
DATA expBias<>+24(SB)/4, $0x0000007f
DATA expBias<>+28(SB)/4, $0x0000007f
GLOBL expBias<>(SB), RODATA|NOPTR, $32

// EXP replaces X by exp(X). M, N and P are scratch; Y11 must hold expClamp.
#define EXP(X, M, N, P) \
	VCMPPS       $1, expUnderflow<>(SB), X, M; \
	VMAXPS       X, Y11, X;                    \
	VMULPS       expLog2e<>(SB), X, N;         \
	VROUNDPS     $0, N, N;                     \
	VFNMADD231PS expLn2Hi<>(SB), N, X;         \
	VFNMADD231PS expLn2Lo<>(SB), N, X;         \
	VMOVUPS      expC6<>(SB), P;               \
	VFMADD213PS  expC5<>(SB), X, P;            \
	VFMADD213PS  expC4<>(SB), X, P;            \
	VFMADD213PS  expC3<>(SB), X, P;            \
	VFMADD213PS  expC2<>(SB), X, P;            \
	VFMADD213PS  expC1<>(SB), X, P;            \
	VFMADD213PS  expC1<>(SB), X, P;            \
	VCVTPS2DQ    N, N;                         \
	VPADDD       expBias<>(SB), N, N;          \
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
	VMOVUPS expClamp<>(SB), Y11

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
	VMOVUPS      expClamp<>(SB), Y11

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
