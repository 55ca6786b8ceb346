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

// The reduction of dotRowsAVX2 (REDUCE4 in vecmath_amd64.s): lane r of X0
// is the sum of accumulator Yr's 8 lanes, in the same order whatever the
// other accumulators hold.
#define PREDUCE4 \
	VHADDPS      Y1, Y0, Y0; \
	VHADDPS      Y3, Y2, Y2; \
	VHADDPS      Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0

// func dotRows2AVX2(d1, d2, a []float32, lda int, x1, x2 []float32)
//
// dotRowsAVX2 for two vectors against the same rows of a, two rows at a
// time: accumulators Y0, Y1 hold rows r, r+1 against x1 and Y2, Y3 against
// x2, each summed over k in dotRowsAVX2's order and reduced by its
// reduction, so every output has dotRowsAVX2's bits while each row is
// loaded once for both vectors.
TEXT ·dotRows2AVX2(SB), NOSPLIT, $0-128
	MOVQ d1_base+0(FP), DI
	MOVQ d1_len+8(FP), BX
	MOVQ d2_base+24(FP), R11
	MOVQ a_base+48(FP), SI
	MOVQ lda+72(FP), R8
	SHLQ $2, R8
	MOVQ x1_base+80(FP), DX
	MOVQ x1_len+88(FP), CX
	SHLQ $2, CX
	MOVQ x2_base+104(FP), R12

q2:
	CMPQ   BX, $2
	JLT    q1
	MOVQ   SI, R9
	LEAQ   (SI)(R8*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

q2k:
	VMOVUPS     (DX)(AX*1), Y4
	VMOVUPS     (R12)(AX*1), Y5
	VMOVUPS     (R9)(AX*1), Y6
	VMOVUPS     (R10)(AX*1), Y7
	VFMADD231PS Y6, Y4, Y0
	VFMADD231PS Y7, Y4, Y1
	VFMADD231PS Y6, Y5, Y2
	VFMADD231PS Y7, Y5, Y3
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         q2k
	PREDUCE4
	VMOVSD      X0, (DI)
	VPEXTRQ     $1, X0, (R11)
	ADDQ        $8, DI
	ADDQ        $8, R11
	LEAQ        (R10)(R8*1), SI
	SUBQ        $2, BX
	JMP         q2

q1:
	CMPQ   BX, $0
	JEQ    qdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

q1k:
	VMOVUPS     (DX)(AX*1), Y4
	VMOVUPS     (R12)(AX*1), Y5
	VMOVUPS     (SI)(AX*1), Y6
	VFMADD231PS Y6, Y4, Y0
	VFMADD231PS Y6, Y5, Y2
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         q1k
	PREDUCE4
	VMOVSS      X0, (DI)
	VEXTRACTPS  $2, X0, (R11)

qdone:
	VZEROUPPER
	RET
