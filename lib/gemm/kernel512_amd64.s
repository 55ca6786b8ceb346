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

// HSUM8 reduces the 8 lanes of r exactly as kernel_amd64.s's HSUM does
// (high 128 bits added to the low, then two horizontal adds) and stores
// the sum at off(DI).
#define HSUM8(r, xr, off) \
	VEXTRACTF128 $1, r, X15           \
	VADDPS       X15, xr, X14         \
	VHADDPS      X14, X14, X14        \
	VHADDPS      X14, X14, X14        \
	VMOVSS       X14, off(DI)

// HSUM2 stores the sums of the low and the high 8 lanes of zr (its ymm
// half yr and xmm quarter xr) at off(DI) and off+4(DI), through Y13.
#define HSUM2(zr, yr, xr, off) \
	VEXTRACTF64X4 $1, zr, Y13         \
	HSUM8(yr, xr, off)                \
	HSUM8(Y13, X13, off+4)

// func dotNT4x4AVX512(k8 int, a *float32, lda int, b *float32, ldb int, out *[16]float32)
// out[4*i+j] = sum over p < k8 of a[i*lda+p]*b[j*ldb+p] for i, j < 4, each
// output computed lane for lane as dotNT4x2AVX2 computes it: 8 partial sums
// (a 256-bit half of a 512-bit register holds one output's), one fused
// multiply-add per 8 terms in ascending p, reduced by HSUM's sequence. Two
// rows of b share a register (row j in the low half, j+1 in the high), each
// row of a is broadcast into both halves. k8 is a positive multiple of 8.
TEXT ·dotNT4x4AVX512(SB), NOSPLIT, $0-48
	MOVQ k8+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), SI
	MOVQ b+24(FP), BX
	MOVQ ldb+32(FP), DX
	MOVQ out+40(FP), DI
	SHLQ $2, SI
	SHLQ $2, DX
	LEAQ (SI)(SI*2), R8
	LEAQ (DX)(DX*2), R9

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

dot44loop:
	VMOVUPS          (BX), Y8
	VINSERTF64X4     $1, (BX)(DX*1), Z8, Z8
	VMOVUPS          (BX)(DX*2), Y9
	VINSERTF64X4     $1, (BX)(R9*1), Z9, Z9
	VBROADCASTF64X4  (AX), Z10
	VFMADD231PS      Z8, Z10, Z0
	VFMADD231PS      Z9, Z10, Z1
	VBROADCASTF64X4  (AX)(SI*1), Z11
	VFMADD231PS      Z8, Z11, Z2
	VFMADD231PS      Z9, Z11, Z3
	VBROADCASTF64X4  (AX)(SI*2), Z10
	VFMADD231PS      Z8, Z10, Z4
	VFMADD231PS      Z9, Z10, Z5
	VBROADCASTF64X4  (AX)(R8*1), Z11
	VFMADD231PS      Z8, Z11, Z6
	VFMADD231PS      Z9, Z11, Z7
	ADDQ             $32, AX
	ADDQ             $32, BX
	SUBQ             $8, CX
	JNE              dot44loop

	// Z(2i) holds outputs (i,0)|(i,1), Z(2i+1) holds (i,2)|(i,3).
	HSUM2(Z0, Y0, X0, 0)
	HSUM2(Z1, Y1, X1, 8)
	HSUM2(Z2, Y2, X2, 16)
	HSUM2(Z3, Y3, X3, 24)
	HSUM2(Z4, Y4, X4, 32)
	HSUM2(Z5, Y5, X5, 40)
	HSUM2(Z6, Y6, X6, 48)
	HSUM2(Z7, Y7, X7, 56)
	VZEROUPPER
	RET
