#include "textflag.h"

// func dots16AVX2(dots *float64, zt *float64, ldz int, idx *int32, val *float64, n int)
TEXT ·dots16AVX2(SB), NOSPLIT, $0-48
	MOVQ   dots+0(FP), DI
	MOVQ   zt+8(FP), SI
	MOVQ   ldz+16(FP), DX
	SHLQ   $3, DX
	MOVQ   idx+24(FP), R8
	MOVQ   val+32(FP), R9
	MOVQ   n+40(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop:
	MOVLQSX      (R8), AX
	IMULQ        DX, AX
	VBROADCASTSD (R9), Y4
	VMULPD       (SI)(AX*1), Y4, Y5
	VMULPD       32(SI)(AX*1), Y4, Y6
	VMULPD       64(SI)(AX*1), Y4, Y7
	VMULPD       96(SI)(AX*1), Y4, Y8
	VADDPD       Y5, Y0, Y0
	VADDPD       Y6, Y1, Y1
	VADDPD       Y7, Y2, Y2
	VADDPD       Y8, Y3, Y3
	ADDQ         $4, R8
	ADDQ         $8, R9
	DECQ         CX
	JNZ          loop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET
