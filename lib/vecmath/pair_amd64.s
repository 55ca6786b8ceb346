//go:build amd64

#include "textflag.h"

// func axpyRows2AVX2(d1, d2, a []float32, lda int, w1, w2 []float32)
//
// axpyRowsAVX2 for two weight vectors over the same rows of a: each row is
// loaded once and feeds both outputs, and the two outputs' independent
// accumulators double the multiply-adds in flight. Every output element
// gets axpyRowsAVX2's operations in axpyRowsAVX2's order.
TEXT ·axpyRows2AVX2(SB), NOSPLIT, $0-128
	MOVQ d1_base+0(FP), DI
	MOVQ d1_len+8(FP), CX
	MOVQ d2_base+24(FP), R11
	MOVQ a_base+48(FP), SI
	MOVQ lda+72(FP), R8
	SHLQ $2, R8
	MOVQ w1_base+80(FP), DX
	MOVQ w1_len+88(FP), BX
	MOVQ w2_base+104(FP), R12

p32:
	CMPQ    CX, $32
	JLT     p8
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS (R11), Y4
	VMOVUPS 32(R11), Y5
	VMOVUPS 64(R11), Y6
	VMOVUPS 96(R11), Y7
	MOVQ    SI, R9
	XORQ    AX, AX

p32i:
	VBROADCASTSS (DX)(AX*4), Y8
	VBROADCASTSS (R12)(AX*4), Y9
	VMOVUPS      (R9), Y10
	VMOVUPS      32(R9), Y11
	VMOVUPS      64(R9), Y12
	VMOVUPS      96(R9), Y13
	VFMADD231PS  Y10, Y8, Y0
	VFMADD231PS  Y10, Y9, Y4
	VFMADD231PS  Y11, Y8, Y1
	VFMADD231PS  Y11, Y9, Y5
	VFMADD231PS  Y12, Y8, Y2
	VFMADD231PS  Y12, Y9, Y6
	VFMADD231PS  Y13, Y8, Y3
	VFMADD231PS  Y13, Y9, Y7
	ADDQ         R8, R9
	INCQ         AX
	CMPQ         AX, BX
	JLT          p32i
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	VMOVUPS      Y4, (R11)
	VMOVUPS      Y5, 32(R11)
	VMOVUPS      Y6, 64(R11)
	VMOVUPS      Y7, 96(R11)
	ADDQ         $128, DI
	ADDQ         $128, R11
	ADDQ         $128, SI
	SUBQ         $32, CX
	JMP          p32

p8:
	CMPQ    CX, $0
	JEQ     pdone
	VMOVUPS (DI), Y0
	VMOVUPS (R11), Y4
	MOVQ    SI, R9
	XORQ    AX, AX

p8i:
	VBROADCASTSS (DX)(AX*4), Y8
	VBROADCASTSS (R12)(AX*4), Y9
	VMOVUPS      (R9), Y10
	VFMADD231PS  Y10, Y8, Y0
	VFMADD231PS  Y10, Y9, Y4
	ADDQ         R8, R9
	INCQ         AX
	CMPQ         AX, BX
	JLT          p8i
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y4, (R11)
	ADDQ         $32, DI
	ADDQ         $32, R11
	ADDQ         $32, SI
	SUBQ         $8, CX
	JMP          p8

pdone:
	VZEROUPPER
	RET
