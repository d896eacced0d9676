//go:build amd64 && !purego

#include "textflag.h"

// func axpyAVX(d *float32, n int, c *float32, k int, v *float32, vs int)
//
// d[i] += Σ_{t<k} c[t]·v[t·vs+i] for i < n (n a multiple of 8, k ≥ 1).
// Each block of d is loaded once, receives all k updates in registers and is
// stored once, so d is streamed exactly once whatever k is.
//
//   DI d      CX end offset (n·4)   AX byte offset into d and each v_t
//   SI v_0    R10 vs·4 (stride)     R8 c, R9 k
//   DX v_t    R11 &c[t]             R12 remaining t     BX next offset
TEXT ·axpyAVX(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ c+16(FP), R8
	MOVQ k+24(FP), R9
	MOVQ v+32(FP), SI
	MOVQ vs+40(FP), R10
	SHLQ $2, CX
	SHLQ $2, R10
	XORQ AX, AX

a64:
	// 64 elements of d in Y0…Y7 (eight independent FMA chains).
	LEAQ    256(AX), BX
	CMPQ    BX, CX
	JGT     a8
	VMOVUPS (DI)(AX*1), Y0
	VMOVUPS 32(DI)(AX*1), Y1
	VMOVUPS 64(DI)(AX*1), Y2
	VMOVUPS 96(DI)(AX*1), Y3
	VMOVUPS 128(DI)(AX*1), Y4
	VMOVUPS 160(DI)(AX*1), Y5
	VMOVUPS 192(DI)(AX*1), Y6
	VMOVUPS 224(DI)(AX*1), Y7
	MOVQ    SI, DX
	MOVQ    R8, R11
	MOVQ    R9, R12

a64t:
	// Add c[t]·v_t for every t.
	VBROADCASTSS (R11), Y8
	VFMADD231PS  (DX)(AX*1), Y8, Y0
	VFMADD231PS  32(DX)(AX*1), Y8, Y1
	VFMADD231PS  64(DX)(AX*1), Y8, Y2
	VFMADD231PS  96(DX)(AX*1), Y8, Y3
	VFMADD231PS  128(DX)(AX*1), Y8, Y4
	VFMADD231PS  160(DX)(AX*1), Y8, Y5
	VFMADD231PS  192(DX)(AX*1), Y8, Y6
	VFMADD231PS  224(DX)(AX*1), Y8, Y7
	ADDQ         R10, DX
	ADDQ         $4, R11
	DECQ         R12
	JNZ          a64t

	VMOVUPS Y0, (DI)(AX*1)
	VMOVUPS Y1, 32(DI)(AX*1)
	VMOVUPS Y2, 64(DI)(AX*1)
	VMOVUPS Y3, 96(DI)(AX*1)
	VMOVUPS Y4, 128(DI)(AX*1)
	VMOVUPS Y5, 160(DI)(AX*1)
	VMOVUPS Y6, 192(DI)(AX*1)
	VMOVUPS Y7, 224(DI)(AX*1)
	MOVQ    BX, AX
	JMP     a64

a8:
	// The remaining multiples of 8, one vector at a time.
	CMPQ    AX, CX
	JGE     adone
	VMOVUPS (DI)(AX*1), Y0
	MOVQ    SI, DX
	MOVQ    R8, R11
	MOVQ    R9, R12

a8t:
	VBROADCASTSS (R11), Y8
	VFMADD231PS  (DX)(AX*1), Y8, Y0
	ADDQ         R10, DX
	ADDQ         $4, R11
	DECQ         R12
	JNZ          a8t

	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     a8

adone:
	VZEROUPPER
	RET

// func axpy4AVX(d *float32, ds, n int, c *float32, k int, v *float32, vs int)
//
// Four rows at once: d_r[i] += Σ_{t<k} c[4t+r]·v[t·vs+i] for r < 4 and
// i < n (n a multiple of 8, k ≥ 1), rows d_r = d + r·ds. Each v_t element
// is loaded once for the four rows, and four rows stream together.
//
//   DI, R8, R9, R10  d_0…d_3     SI v_0     R11 vs·4    AX byte offset
//   R13 &c[4t]   R12 &c[4k] (end)   DX v_t   CX end offset   BX next offset
//   Y(2r), Y(2r+1) the 16 elements of row r;  Y8, Y9 v_t;  Y10…Y13 c[4t+r]
TEXT ·axpy4AVX(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), DI
	MOVQ ds+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R12
	MOVQ k+32(FP), R13
	MOVQ v+40(FP), SI
	MOVQ vs+48(FP), R11
	SHLQ $2, DX
	LEAQ (DI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	SHLQ $4, R13
	ADDQ R13, R12
	SHLQ $2, R11
	SHLQ $2, CX
	XORQ AX, AX

b16:
	// 16 elements of each row.
	LEAQ    64(AX), BX
	CMPQ    BX, CX
	JGT     b8
	VMOVUPS (DI)(AX*1), Y0
	VMOVUPS 32(DI)(AX*1), Y1
	VMOVUPS (R8)(AX*1), Y2
	VMOVUPS 32(R8)(AX*1), Y3
	VMOVUPS (R9)(AX*1), Y4
	VMOVUPS 32(R9)(AX*1), Y5
	VMOVUPS (R10)(AX*1), Y6
	VMOVUPS 32(R10)(AX*1), Y7
	MOVQ    c+24(FP), R13
	MOVQ    SI, DX

b16t:
	VMOVUPS      (DX)(AX*1), Y8
	VMOVUPS      32(DX)(AX*1), Y9
	VBROADCASTSS (R13), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS 4(R13), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS 8(R13), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS 12(R13), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         R11, DX
	ADDQ         $16, R13
	CMPQ         R13, R12
	JLT          b16t

	VMOVUPS Y0, (DI)(AX*1)
	VMOVUPS Y1, 32(DI)(AX*1)
	VMOVUPS Y2, (R8)(AX*1)
	VMOVUPS Y3, 32(R8)(AX*1)
	VMOVUPS Y4, (R9)(AX*1)
	VMOVUPS Y5, 32(R9)(AX*1)
	VMOVUPS Y6, (R10)(AX*1)
	VMOVUPS Y7, 32(R10)(AX*1)
	MOVQ    BX, AX
	JMP     b16

b8:
	// A last block of 8 elements, if any.
	CMPQ    AX, CX
	JGE     bdone
	VMOVUPS (DI)(AX*1), Y0
	VMOVUPS (R8)(AX*1), Y2
	VMOVUPS (R9)(AX*1), Y4
	VMOVUPS (R10)(AX*1), Y6
	MOVQ    c+24(FP), R13
	MOVQ    SI, DX

b8t:
	VMOVUPS      (DX)(AX*1), Y8
	VBROADCASTSS (R13), Y10
	VFMADD231PS  Y8, Y10, Y0
	VBROADCASTSS 4(R13), Y11
	VFMADD231PS  Y8, Y11, Y2
	VBROADCASTSS 8(R13), Y12
	VFMADD231PS  Y8, Y12, Y4
	VBROADCASTSS 12(R13), Y13
	VFMADD231PS  Y8, Y13, Y6
	ADDQ         R11, DX
	ADDQ         $16, R13
	CMPQ         R13, R12
	JLT          b8t

	VMOVUPS Y0, (DI)(AX*1)
	VMOVUPS Y2, (R8)(AX*1)
	VMOVUPS Y4, (R9)(AX*1)
	VMOVUPS Y6, (R10)(AX*1)
	ADDQ    $32, AX
	JMP     b8

bdone:
	VZEROUPPER
	RET
