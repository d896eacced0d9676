//go:build amd64 && !purego

#include "textflag.h"

// Each kernel: BX counts the entries q; AX = idx[q], checked against the
// limit (unsigned: a negative index fails too), then scaled to the byte
// offset of row idx[q] of zt. Products (VMULPD) are rounded before they
// are added (VADDPD), as dotsGo does; every accumulator is one sum's own
// chain, in the order of q.

// func dots16AVX2(dots *float64, zt *float64, ldz int, idx *int32, val *float64, n, limit int) int
TEXT ·dots16AVX2(SB), NOSPLIT, $0-64
	MOVQ   zt+8(FP), SI
	MOVQ   ldz+16(FP), DX
	SHLQ   $3, DX
	MOVQ   idx+24(FP), R8
	MOVQ   val+32(FP), R9
	MOVQ   n+40(FP), CX
	MOVQ   limit+48(FP), R13
	XORQ   BX, BX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	MOVLQSX      (R8)(BX*4), AX
	CMPQ         AX, R13
	JAE          bad16
	IMULQ        DX, AX
	VBROADCASTSD (R9)(BX*8), Y4
	VMULPD       (SI)(AX*1), Y4, Y5
	VMULPD       32(SI)(AX*1), Y4, Y6
	VMULPD       64(SI)(AX*1), Y4, Y7
	VMULPD       96(SI)(AX*1), Y4, Y8
	VADDPD       Y5, Y0, Y0
	VADDPD       Y6, Y1, Y1
	VADDPD       Y7, Y2, Y2
	VADDPD       Y8, Y3, Y3
	INCQ         BX
	CMPQ         BX, CX
	JLT          loop16

	MOVQ    dots+0(FP), DI
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	MOVQ    $1, ret+56(FP)
	RET

bad16:
	VZEROUPPER
	MOVQ $0, ret+56(FP)
	RET

// func dots8x2AVX2(d0, d1 *float64, zt *float64, ldz int, idx *int32, v0, v1 *float64, n, limit int) int
TEXT ·dots8x2AVX2(SB), NOSPLIT, $0-80
	MOVQ   zt+16(FP), SI
	MOVQ   ldz+24(FP), DX
	SHLQ   $3, DX
	MOVQ   idx+32(FP), R8
	MOVQ   v0+40(FP), R9
	MOVQ   v1+48(FP), R10
	MOVQ   n+56(FP), CX
	MOVQ   limit+64(FP), R13
	XORQ   BX, BX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop8:
	MOVLQSX      (R8)(BX*4), AX
	CMPQ         AX, R13
	JAE          bad8
	IMULQ        DX, AX
	VMOVUPD      (SI)(AX*1), Y4
	VMOVUPD      32(SI)(AX*1), Y5
	VBROADCASTSD (R9)(BX*8), Y6
	VBROADCASTSD (R10)(BX*8), Y7
	VMULPD       Y4, Y6, Y8
	VMULPD       Y5, Y6, Y9
	VMULPD       Y4, Y7, Y10
	VMULPD       Y5, Y7, Y11
	VADDPD       Y8, Y0, Y0
	VADDPD       Y9, Y1, Y1
	VADDPD       Y10, Y2, Y2
	VADDPD       Y11, Y3, Y3
	INCQ         BX
	CMPQ         BX, CX
	JLT          loop8

	MOVQ    d0+0(FP), DI
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	MOVQ    d1+8(FP), DI
	VMOVUPD Y2, (DI)
	VMOVUPD Y3, 32(DI)
	VZEROUPPER
	MOVQ    $1, ret+72(FP)
	RET

bad8:
	VZEROUPPER
	MOVQ $0, ret+72(FP)
	RET

// func dots4x4AVX2(d0, d1, d2, d3 *float64, zt *float64, ldz int, idx *int32, v0, v1, v2, v3 *float64, n, limit int) int
TEXT ·dots4x4AVX2(SB), NOSPLIT, $0-112
	MOVQ   zt+32(FP), SI
	MOVQ   ldz+40(FP), DX
	SHLQ   $3, DX
	MOVQ   idx+48(FP), R8
	MOVQ   v0+56(FP), R9
	MOVQ   v1+64(FP), R10
	MOVQ   v2+72(FP), R11
	MOVQ   v3+80(FP), R12
	MOVQ   n+88(FP), CX
	MOVQ   limit+96(FP), R13
	XORQ   BX, BX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop4:
	MOVLQSX      (R8)(BX*4), AX
	CMPQ         AX, R13
	JAE          bad4
	IMULQ        DX, AX
	VMOVUPD      (SI)(AX*1), Y4
	VBROADCASTSD (R9)(BX*8), Y5
	VBROADCASTSD (R10)(BX*8), Y6
	VBROADCASTSD (R11)(BX*8), Y7
	VBROADCASTSD (R12)(BX*8), Y8
	VMULPD       Y4, Y5, Y5
	VMULPD       Y4, Y6, Y6
	VMULPD       Y4, Y7, Y7
	VMULPD       Y4, Y8, Y8
	VADDPD       Y5, Y0, Y0
	VADDPD       Y6, Y1, Y1
	VADDPD       Y7, Y2, Y2
	VADDPD       Y8, Y3, Y3
	INCQ         BX
	CMPQ         BX, CX
	JLT          loop4

	MOVQ    d0+0(FP), DI
	VMOVUPD Y0, (DI)
	MOVQ    d1+8(FP), DI
	VMOVUPD Y1, (DI)
	MOVQ    d2+16(FP), DI
	VMOVUPD Y2, (DI)
	MOVQ    d3+24(FP), DI
	VMOVUPD Y3, (DI)
	VZEROUPPER
	MOVQ    $1, ret+104(FP)
	RET

bad4:
	VZEROUPPER
	MOVQ $0, ret+104(FP)
	RET
