//go:build amd64 && !purego

#include "textflag.h"

// Sign-clearing mask for float64 lanes, and the lane step 4 (int64).
DATA amAbs<>+0(SB)/8, $0x7fffffffffffffff
DATA amAbs<>+8(SB)/8, $0x7fffffffffffffff
DATA amAbs<>+16(SB)/8, $0x7fffffffffffffff
DATA amAbs<>+24(SB)/8, $0x7fffffffffffffff
GLOBL amAbs<>(SB), RODATA|NOPTR, $32

DATA amFour<>+0(SB)/8, $4
DATA amFour<>+8(SB)/8, $4
DATA amFour<>+16(SB)/8, $4
DATA amFour<>+24(SB)/8, $4
GLOBL amFour<>(SB), RODATA|NOPTR, $32

DATA amIota<>+0(SB)/8, $0
DATA amIota<>+8(SB)/8, $1
DATA amIota<>+16(SB)/8, $2
DATA amIota<>+24(SB)/8, $3
GLOBL amIota<>(SB), RODATA|NOPTR, $32

DATA amMinusOne<>+0(SB)/8, $-1.0
DATA amMinusOne<>+8(SB)/8, $-1.0
DATA amMinusOne<>+16(SB)/8, $-1.0
DATA amMinusOne<>+24(SB)/8, $-1.0
GLOBL amMinusOne<>(SB), RODATA|NOPTR, $32

// func scoredArgMaxAVX(s, n *float64, skip *bool, m int, best *float64, bestIdx *int64)
//
// Per lane l (candidates k ≡ l mod 4, k < m, m a multiple of 4): the largest
// |s_k|/sqrt(n_k) over eligible k (n_k > 0, score not NaN, skip nil or
// !skip[k]) and its smallest index, written to best[l] and bestIdx[l];
// best[l] = −1 when the lane has no eligible candidate. The score is
// computed as in backend.ScoredArgMaxRef (sqrt, then divide: correctly
// rounded, so the values are identical).
//
//   SI s   DI n   DX skip (0: none)   CX m   AX k
//   Y8 best indices   Y9 best scores   Y10 4s   Y11 current indices
//   Y12 −1   Y13 |·| mask   Y14 zero
TEXT ·scoredArgMaxAVX(SB), NOSPLIT, $0-48
	MOVQ    s+0(FP), SI
	MOVQ    n+8(FP), DI
	MOVQ    skip+16(FP), DX
	MOVQ    m+24(FP), CX
	VMOVUPD amMinusOne<>(SB), Y12
	VMOVUPD amAbs<>(SB), Y13
	VXORPD  Y14, Y14, Y14
	VMOVDQU amFour<>(SB), Y10
	VMOVDQU amIota<>(SB), Y11
	VMOVUPD Y12, Y9
	VPXOR   Y8, Y8, Y8
	XORQ    AX, AX

amloop:
	CMPQ AX, CX
	JGE  amdone

	// Score = |s|/sqrt(n); eligible where n > 0 and the score is not NaN.
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD (DI)(AX*8), Y1
	VANDPD  Y13, Y0, Y0
	VSQRTPD Y1, Y2
	VDIVPD  Y2, Y0, Y0
	VCMPPD  $0x1e, Y14, Y1, Y3
	VCMPPD  $7, Y0, Y0, Y4
	VANDPD  Y4, Y3, Y3

	// And where skip[k] is false, when there is a skip slice.
	TESTQ     DX, DX
	JZ        amnoskip
	MOVL      (DX)(AX*1), R8
	VMOVD     R8, X5
	VPMOVZXBQ X5, Y5
	VPCMPEQQ  Y14, Y5, Y5
	VANDPD    Y5, Y3, Y3

amnoskip:
	// Ineligible lanes score −1; keep the strictly larger score per lane
	// (so ties keep the earlier, smaller index).
	VBLENDVPD Y3, Y0, Y12, Y0
	VCMPPD    $0x1e, Y9, Y0, Y6
	VBLENDVPD Y6, Y0, Y9, Y9
	VBLENDVPD Y6, Y11, Y8, Y8
	VPADDQ    Y10, Y11, Y11
	ADDQ      $4, AX
	JMP       amloop

amdone:
	MOVQ    best+32(FP), R8
	MOVQ    bestIdx+40(FP), R9
	VMOVUPD Y9, (R8)
	VMOVDQU Y8, (R9)
	VZEROUPPER
	RET
