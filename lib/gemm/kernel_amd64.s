//go:build amd64

#include "textflag.h"

// One k step of the 6x16 AVX2 kernel: B row (16 floats) in Y12:Y13, each of
// the 6 A values broadcast in turn, 12 FMAs into the accumulators Y0..Y11.
#define STEP6x16(aoff, boff) \
	VMOVUPS      boff(BX), Y12        \
	VMOVUPS      boff+32(BX), Y13     \
	VBROADCASTSS aoff(AX), Y14        \
	VFMADD231PS  Y12, Y14, Y0         \
	VFMADD231PS  Y13, Y14, Y1         \
	VBROADCASTSS aoff+4(AX), Y15      \
	VFMADD231PS  Y12, Y15, Y2         \
	VFMADD231PS  Y13, Y15, Y3         \
	VBROADCASTSS aoff+8(AX), Y14      \
	VFMADD231PS  Y12, Y14, Y4         \
	VFMADD231PS  Y13, Y14, Y5         \
	VBROADCASTSS aoff+12(AX), Y15     \
	VFMADD231PS  Y12, Y15, Y6         \
	VFMADD231PS  Y13, Y15, Y7         \
	VBROADCASTSS aoff+16(AX), Y14     \
	VFMADD231PS  Y12, Y14, Y8         \
	VFMADD231PS  Y13, Y14, Y9         \
	VBROADCASTSS aoff+20(AX), Y15     \
	VFMADD231PS  Y12, Y15, Y10        \
	VFMADD231PS  Y13, Y15, Y11

// Store one row of the tile: C = acc (alpha already applied) + beta*C.
#define ROWBETA(r0, r1) \
	VFMADD231PS (DI), Y13, r0         \
	VFMADD231PS 32(DI), Y13, r1       \
	VMOVUPS     r0, (DI)              \
	VMOVUPS     r1, 32(DI)            \
	ADDQ        SI, DI

#define ROWSTORE(r0, r1) \
	VMOVUPS r0, (DI)                  \
	VMOVUPS r1, 32(DI)                \
	ADDQ    SI, DI

// func kernelAVX2x6x16(kc int, a, b, c *float32, ldc int, alpha, beta float32)
TEXT ·kernelAVX2x6x16(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI

	// Warm the C rows while the products run.
	MOVQ       DI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 32(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 32(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 32(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 32(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 32(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 32(DX)

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loop4:
	CMPQ CX, $4
	JLT  tail
	STEP6x16(0, 0)
	STEP6x16(24, 64)
	STEP6x16(48, 128)
	STEP6x16(72, 192)
	ADDQ $96, AX
	ADDQ $256, BX
	SUBQ $4, CX
	JMP  loop4

tail:
	TESTQ CX, CX
	JEQ   done
	STEP6x16(0, 0)
	ADDQ  $24, AX
	ADDQ  $64, BX
	DECQ  CX
	JMP   tail

done:
	VBROADCASTSS alpha+40(FP), Y12
	VMULPS       Y12, Y0, Y0
	VMULPS       Y12, Y1, Y1
	VMULPS       Y12, Y2, Y2
	VMULPS       Y12, Y3, Y3
	VMULPS       Y12, Y4, Y4
	VMULPS       Y12, Y5, Y5
	VMULPS       Y12, Y6, Y6
	VMULPS       Y12, Y7, Y7
	VMULPS       Y12, Y8, Y8
	VMULPS       Y12, Y9, Y9
	VMULPS       Y12, Y10, Y10
	VMULPS       Y12, Y11, Y11

	MOVL  beta+44(FP), DX
	ANDL  $0x7fffffff, DX
	JEQ   storeonly
	VBROADCASTSS beta+44(FP), Y13
	ROWBETA(Y0, Y1)
	ROWBETA(Y2, Y3)
	ROWBETA(Y4, Y5)
	ROWBETA(Y6, Y7)
	ROWBETA(Y8, Y9)
	ROWBETA(Y10, Y11)
	VZEROUPPER
	RET

storeonly:
	ROWSTORE(Y0, Y1)
	ROWSTORE(Y2, Y3)
	ROWSTORE(Y4, Y5)
	ROWSTORE(Y6, Y7)
	ROWSTORE(Y8, Y9)
	ROWSTORE(Y10, Y11)
	VZEROUPPER
	RET

// func packB16AVX2(kc int, src *float32, ldb int, dst *float32)
// Copies kc rows of 16 floats, rows ldb floats apart, to dst contiguously.
TEXT ·packB16AVX2(SB), NOSPLIT, $0-32
	MOVQ kc+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ ldb+16(FP), DX
	MOVQ dst+24(FP), DI
	SHLQ $2, DX

pack2:
	CMPQ    CX, $2
	JLT     pack1
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS (SI)(DX*1), Y2
	VMOVUPS 32(SI)(DX*1), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	LEAQ    (SI)(DX*2), SI
	ADDQ    $128, DI
	SUBQ    $2, CX
	JMP     pack2

pack1:
	TESTQ   CX, CX
	JEQ     packdone
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)

packdone:
	VZEROUPPER
	RET
