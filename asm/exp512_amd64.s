//go:build amd64 && !purego

#include "textflag.h"

// AVX-512F versions of exp and the RBF tile transform (16 lanes per zmm).
// Same algorithm and constants as exp_amd64.s, with two shortcuts AVX-512
// allows: n is rounded by adding 1.5·2²³ (the float add rounds to nearest
// even) and p·2ⁿ is one VSCALEFPS, which also handles NaN.

// 1.5·2^23: adding it rounds to an integer
DATA e5Magic<>+0(SB)/4, $0x4b400000
GLOBL e5Magic<>(SB), RODATA|NOPTR, $4

// -2 (the other constants are exp_amd64.s's)
DATA e5Minus2<>+0(SB)/4, $0xc0000000
GLOBL e5Minus2<>(SB), RODATA|NOPTR, $4

// LOADCONSTS broadcasts the constants into Z16…Z28 (Z29 = 0).
#define LOADCONSTS \
	VBROADCASTSS ·expUnderflow(SB), Z16; \
	VBROADCASTSS ·expClamp(SB), Z17;     \
	VBROADCASTSS ·expLog2e(SB), Z18;     \
	VBROADCASTSS e5Magic<>(SB), Z19;     \
	VBROADCASTSS ·expLn2Hi(SB), Z20;     \
	VBROADCASTSS ·expLn2Lo(SB), Z21;     \
	VBROADCASTSS ·expC6(SB), Z22;        \
	VBROADCASTSS ·expC5(SB), Z23;        \
	VBROADCASTSS ·expC4(SB), Z24;        \
	VBROADCASTSS ·expC3(SB), Z25;        \
	VBROADCASTSS ·expC2(SB), Z26;        \
	VBROADCASTSS ·expC1(SB), Z27;       \
	VBROADCASTSS e5Minus2<>(SB), Z28;    \
	VPXORD       Z29, Z29, Z29

// EXP512 replaces X by exp(X); N and P are scratch zmm, K an opmask.
// K flags x below the underflow bound; X is clamped at −88 keeping NaN;
// N = x·log₂e + 1.5·2²³ then n = N − 1.5·2²³; X becomes r by Cody–Waite;
// P = p(r) by Horner; X = P·2ⁿ (VSCALEFPS); flagged lanes are zeroed.
#define EXP512(X, N, P, K) \
	VCMPPS       $1, Z16, X, K;  \
	VMAXPS       X, Z17, X;      \
	VMOVAPS      Z19, N;         \
	VFMADD231PS  Z18, X, N;      \
	VSUBPS       Z19, N, N;      \
	VFNMADD231PS Z20, N, X;      \
	VFNMADD231PS Z21, N, X;      \
	VMOVAPS      Z22, P;         \
	VFMADD213PS  Z23, X, P;      \
	VFMADD213PS  Z24, X, P;      \
	VFMADD213PS  Z25, X, P;      \
	VFMADD213PS  Z26, X, P;      \
	VFMADD213PS  Z27, X, P;      \
	VFMADD213PS  Z27, X, P;      \
	VSCALEFPS    N, P, X;        \
	VPXORD       X, X, K, X

// func expAVX512(dst, src *float32, n int)
// n is a multiple of 16.
TEXT ·expAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	LOADCONSTS

zeloop:
	CMPQ    CX, $16
	JL      zedone
	VMOVUPS (SI), Z0
	EXP512(Z0, Z1, Z2, K1)
	VMOVUPS Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JMP     zeloop

zedone:
	VZEROUPPER
	RET

// func rbfAVX512(c *float32, ldc, rows int, an, bn *float32, negGamma float32)
//
// For each of rows rows of the 32-wide tile c:
// t ← exp(−γ·max(an_i + bn_j − 2t, 0)).
//   DI c row   R8 ldc·4   CX rows left   SI an_i
//   Z30 −γ   Z31 an_i   Z14, Z15 bn_0…31   constants in Z16…Z29
TEXT ·rbfAVX512(SB), NOSPLIT, $0-44
	MOVQ         c+0(FP), DI
	MOVQ         ldc+8(FP), R8
	MOVQ         rows+16(FP), CX
	MOVQ         an+24(FP), SI
	MOVQ         bn+32(FP), DX
	SHLQ         $2, R8
	LOADCONSTS
	VBROADCASTSS negGamma+40(FP), Z30
	VMOVUPS      (DX), Z14
	VMOVUPS      64(DX), Z15

zrrow:
	TESTQ        CX, CX
	JZ           zrdone
	VBROADCASTSS (SI), Z31

	// Columns 0…15 in Z0 (Z1, Z2 scratch) and 16…31 in Z4 (Z5, Z6):
	// x = −γ·max(an_i + bn_j − 2t, 0), NaN kept; then exp.
	VMOVUPS     (DI), Z3
	VADDPS      Z14, Z31, Z0
	VFMADD231PS Z28, Z3, Z0
	VMAXPS      Z0, Z29, Z0
	VMULPS      Z30, Z0, Z0
	VMOVUPS     64(DI), Z7
	VADDPS      Z15, Z31, Z4
	VFMADD231PS Z28, Z7, Z4
	VMAXPS      Z4, Z29, Z4
	VMULPS      Z30, Z4, Z4
	EXP512(Z0, Z1, Z2, K1)
	EXP512(Z4, Z5, Z6, K2)
	VMOVUPS     Z0, (DI)
	VMOVUPS     Z4, 64(DI)

	ADDQ R8, DI
	ADDQ $4, SI
	DECQ CX
	JMP  zrrow

zrdone:
	VZEROUPPER
	RET
