//go:build amd64 && !purego

#include "textflag.h"

// func pack8AVX(dst *float32, ds int, src *float32, ss, kc int)
//
// Transposing copy used to pack GEMM panels: for 8 source rows
// src + r·ss (r < 8) and columns p < kc (kc a multiple of 8), writes
// dst[p·ds + r] = src[r·ss + p]. Each 8×8 block is transposed in registers
// (unpack, shuffle, 128-bit permute) and stored as 8 rows of dst.
//
//   SI rows 0…3 base (R8 = ss·4, R9 = 3·ss·4)   R10 rows 4…7 base
//   DI dst block   R11 ds·4   CX blocks left   DX, BX row pointers of dst
TEXT ·pack8AVX(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ds+8(FP), R11
	MOVQ src+16(FP), SI
	MOVQ ss+24(FP), R8
	MOVQ kc+32(FP), CX
	SHLQ $2, R11
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), R10
	SHRQ $3, CX

pkblock:
	TESTQ CX, CX
	JZ    pkdone

	// Load the 8×8 block: Y0…Y7 are rows 0…7, columns p…p+7.
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (SI)(R9*1), Y3
	VMOVUPS (R10), Y4
	VMOVUPS (R10)(R8*1), Y5
	VMOVUPS (R10)(R8*2), Y6
	VMOVUPS (R10)(R9*1), Y7

	// Interleave pairs of rows (32-bit elements).
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	// Gather groups of four rows (64-bit pairs).
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xee, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xee, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xee, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xee, Y15, Y13, Y7

	// Join the 128-bit halves: Y8…Y15 are columns p…p+7 (8 rows each).
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15

	// Store column p+q at dst + q·ds.
	MOVQ    DI, DX
	VMOVUPS Y8, (DX)
	ADDQ    R11, DX
	VMOVUPS Y9, (DX)
	ADDQ    R11, DX
	VMOVUPS Y10, (DX)
	ADDQ    R11, DX
	VMOVUPS Y11, (DX)
	ADDQ    R11, DX
	VMOVUPS Y12, (DX)
	ADDQ    R11, DX
	VMOVUPS Y13, (DX)
	ADDQ    R11, DX
	VMOVUPS Y14, (DX)
	ADDQ    R11, DX
	VMOVUPS Y15, (DX)
	ADDQ    R11, DX
	MOVQ    DX, DI

	ADDQ $32, SI
	ADDQ $32, R10
	DECQ CX
	JMP  pkblock

pkdone:
	VZEROUPPER
	RET
