//go:build amd64

#include "textflag.h"

// One k step of the 6x32 AVX-512 kernel: the p-th rows of two consecutive
// 16-wide B micro-panels in Z12 (columns 0-15, from BX) and Z13 (columns
// 16-31, from R8), each of the 6 A values broadcast in turn, 12 FMAs into
// the accumulators Z0..Z11 (row i in Z(2i), Z(2i+1)).
#define STEP6x32(aoff, boff) \
	VMOVUPS      boff(BX), Z12        \
	VMOVUPS      boff(R8), Z13        \
	VBROADCASTSS aoff(AX), Z14        \
	VFMADD231PS  Z12, Z14, Z0         \
	VFMADD231PS  Z13, Z14, Z1         \
	VBROADCASTSS aoff+4(AX), Z15      \
	VFMADD231PS  Z12, Z15, Z2         \
	VFMADD231PS  Z13, Z15, Z3         \
	VBROADCASTSS aoff+8(AX), Z14      \
	VFMADD231PS  Z12, Z14, Z4         \
	VFMADD231PS  Z13, Z14, Z5         \
	VBROADCASTSS aoff+12(AX), Z15     \
	VFMADD231PS  Z12, Z15, Z6         \
	VFMADD231PS  Z13, Z15, Z7         \
	VBROADCASTSS aoff+16(AX), Z14     \
	VFMADD231PS  Z12, Z14, Z8         \
	VFMADD231PS  Z13, Z14, Z9         \
	VBROADCASTSS aoff+20(AX), Z15     \
	VFMADD231PS  Z12, Z15, Z10        \
	VFMADD231PS  Z13, Z15, Z11

// Store one row of the tile: C = acc (alpha already applied) + beta*C, one
// fused multiply-add per element as in the AVX2 kernel.
#define ROWBETA512(r0, r1) \
	VFMADD231PS (DI), Z13, r0         \
	VFMADD231PS 64(DI), Z13, r1       \
	VMOVUPS     r0, (DI)              \
	VMOVUPS     r1, 64(DI)            \
	ADDQ        SI, DI

#define ROWSTORE512(r0, r1) \
	VMOVUPS r0, (DI)                  \
	VMOVUPS r1, 64(DI)                \
	ADDQ    SI, DI

// func kernelAVX512x6x32(kc int, a, b, c *float32, ldc int, alpha, beta float32)
//
// b holds two packed kc x 16 micro-panels one after the other.
TEXT ·kernelAVX512x6x32(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI
	MOVQ CX, R8
	SHLQ $6, R8
	ADDQ BX, R8

	// Warm the C rows while the products run.
	MOVQ       DI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	ADDQ       SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11

loop4:
	CMPQ CX, $4
	JLT  tail
	STEP6x32(0, 0)
	STEP6x32(24, 64)
	STEP6x32(48, 128)
	STEP6x32(72, 192)
	ADDQ $96, AX
	ADDQ $256, BX
	ADDQ $256, R8
	SUBQ $4, CX
	JMP  loop4

tail:
	TESTQ CX, CX
	JEQ   done
	STEP6x32(0, 0)
	ADDQ  $24, AX
	ADDQ  $64, BX
	ADDQ  $64, R8
	DECQ  CX
	JMP   tail

done:
	VBROADCASTSS alpha+40(FP), Z12
	VMULPS       Z12, Z0, Z0
	VMULPS       Z12, Z1, Z1
	VMULPS       Z12, Z2, Z2
	VMULPS       Z12, Z3, Z3
	VMULPS       Z12, Z4, Z4
	VMULPS       Z12, Z5, Z5
	VMULPS       Z12, Z6, Z6
	VMULPS       Z12, Z7, Z7
	VMULPS       Z12, Z8, Z8
	VMULPS       Z12, Z9, Z9
	VMULPS       Z12, Z10, Z10
	VMULPS       Z12, Z11, Z11

	MOVL  beta+44(FP), DX
	ANDL  $0x7fffffff, DX
	JEQ   storeonly
	VBROADCASTSS beta+44(FP), Z13
	ROWBETA512(Z0, Z1)
	ROWBETA512(Z2, Z3)
	ROWBETA512(Z4, Z5)
	ROWBETA512(Z6, Z7)
	ROWBETA512(Z8, Z9)
	ROWBETA512(Z10, Z11)
	VZEROUPPER
	RET

storeonly:
	ROWSTORE512(Z0, Z1)
	ROWSTORE512(Z2, Z3)
	ROWSTORE512(Z4, Z5)
	ROWSTORE512(Z6, Z7)
	ROWSTORE512(Z8, Z9)
	ROWSTORE512(Z10, Z11)
	VZEROUPPER
	RET
