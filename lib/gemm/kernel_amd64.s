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

// func packA6AVX2(kc8 int, src *float32, lda int, dst *float32)
// Interleaves 6 rows (lda floats apart) into dst[p*6+r] for p < kc8, a
// multiple of 8, transposing 8 columns at a time in registers.
TEXT ·packA6AVX2(SB), NOSPLIT, $0-32
	MOVQ kc8+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ lda+16(FP), DX
	MOVQ dst+24(FP), DI
	SHLQ $2, DX
	LEAQ (DX)(DX*2), R8 // 3*lda
	LEAQ (DX)(DX*4), R9 // 5*lda

a6loop:
	CMPQ    CX, $8
	JLT     a6done
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(DX*1), Y1
	VMOVUPS (SI)(DX*2), Y2
	VMOVUPS (SI)(R8*1), Y3
	VMOVUPS (SI)(DX*4), Y4
	VMOVUPS (SI)(R9*1), Y5
	VUNPCKLPS Y1, Y0, Y6  // r0[0] r1[0] r0[1] r1[1] | p+4, p+5
	VUNPCKHPS Y1, Y0, Y7  // p+2, p+3 | p+6, p+7
	VUNPCKLPS Y3, Y2, Y8
	VUNPCKHPS Y3, Y2, Y9
	VUNPCKLPS Y5, Y4, Y10 // (r4, r5) pairs: p, p+1 | p+4, p+5
	VUNPCKHPS Y5, Y4, Y11 // p+2, p+3 | p+6, p+7
	VSHUFPS $0x44, Y8, Y6, Y0 // r0..r3 at p | p+4
	VSHUFPS $0xEE, Y8, Y6, Y1 // p+1 | p+5
	VSHUFPS $0x44, Y9, Y7, Y2 // p+2 | p+6
	VSHUFPS $0xEE, Y9, Y7, Y3 // p+3 | p+7
	VMOVUPS X0, 0(DI)
	VMOVQ   X10, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVHPS X10, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVQ   X11, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVHPS X11, 88(DI)
	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y1, X1
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y3, X3
	VEXTRACTF128 $1, Y10, X12
	VEXTRACTF128 $1, Y11, X13
	VMOVUPS X0, 96(DI)
	VMOVQ   X12, 112(DI)
	VMOVUPS X1, 120(DI)
	VMOVHPS X12, 136(DI)
	VMOVUPS X2, 144(DI)
	VMOVQ   X13, 160(DI)
	VMOVUPS X3, 168(DI)
	VMOVHPS X13, 184(DI)
	ADDQ    $32, SI
	ADDQ    $192, DI
	SUBQ    $8, CX
	JMP     a6loop

a6done:
	VZEROUPPER
	RET

// Transposes the 8x8 block in Y0..Y7 (row i in Yi) and stores column c of it
// at off+c*64(DI), using Y8..Y15 as scratch.
#define TRANSPOSE8STORE(off) \
	VUNPCKLPS Y1, Y0, Y8              \
	VUNPCKHPS Y1, Y0, Y9              \
	VUNPCKLPS Y3, Y2, Y10             \
	VUNPCKHPS Y3, Y2, Y11             \
	VUNPCKLPS Y5, Y4, Y12             \
	VUNPCKHPS Y5, Y4, Y13             \
	VUNPCKLPS Y7, Y6, Y14             \
	VUNPCKHPS Y7, Y6, Y15             \
	VSHUFPS $0x44, Y10, Y8, Y0        \
	VSHUFPS $0xEE, Y10, Y8, Y1        \
	VSHUFPS $0x44, Y11, Y9, Y2        \
	VSHUFPS $0xEE, Y11, Y9, Y3        \
	VSHUFPS $0x44, Y14, Y12, Y4       \
	VSHUFPS $0xEE, Y14, Y12, Y5       \
	VSHUFPS $0x44, Y15, Y13, Y6       \
	VSHUFPS $0xEE, Y15, Y13, Y7       \
	VPERM2F128 $0x20, Y4, Y0, Y8      \
	VPERM2F128 $0x20, Y5, Y1, Y9      \
	VPERM2F128 $0x20, Y6, Y2, Y10     \
	VPERM2F128 $0x20, Y7, Y3, Y11     \
	VPERM2F128 $0x31, Y4, Y0, Y12     \
	VPERM2F128 $0x31, Y5, Y1, Y13     \
	VPERM2F128 $0x31, Y6, Y2, Y14     \
	VPERM2F128 $0x31, Y7, Y3, Y15     \
	VMOVUPS Y8, off(DI)               \
	VMOVUPS Y9, off+64(DI)            \
	VMOVUPS Y10, off+128(DI)          \
	VMOVUPS Y11, off+192(DI)          \
	VMOVUPS Y12, off+256(DI)          \
	VMOVUPS Y13, off+320(DI)          \
	VMOVUPS Y14, off+384(DI)          \
	VMOVUPS Y15, off+448(DI)

// func packBT16AVX2(kc8 int, src *float32, ldb int, dst *float32)
// Transposes 16 rows (ldb floats apart) into dst[p*16+j] for p < kc8, a
// multiple of 8.
TEXT ·packBT16AVX2(SB), NOSPLIT, $0-32
	MOVQ kc8+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ ldb+16(FP), DX
	MOVQ dst+24(FP), DI
	SHLQ $2, DX
	LEAQ (DX)(DX*2), R8  // 3*ldb
	LEAQ (DX)(DX*4), R9  // 5*ldb
	LEAQ (R8)(DX*4), R10 // 7*ldb
	LEAQ (SI)(DX*8), R11 // row 8

bt16loop:
	CMPQ    CX, $8
	JLT     bt16done
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(DX*1), Y1
	VMOVUPS (SI)(DX*2), Y2
	VMOVUPS (SI)(R8*1), Y3
	VMOVUPS (SI)(DX*4), Y4
	VMOVUPS (SI)(R9*1), Y5
	VMOVUPS (SI)(R8*2), Y6
	VMOVUPS (SI)(R10*1), Y7
	TRANSPOSE8STORE(0)
	VMOVUPS (R11), Y0
	VMOVUPS (R11)(DX*1), Y1
	VMOVUPS (R11)(DX*2), Y2
	VMOVUPS (R11)(R8*1), Y3
	VMOVUPS (R11)(DX*4), Y4
	VMOVUPS (R11)(R9*1), Y5
	VMOVUPS (R11)(R8*2), Y6
	VMOVUPS (R11)(R10*1), Y7
	TRANSPOSE8STORE(32)
	ADDQ    $32, SI
	ADDQ    $32, R11
	ADDQ    $512, DI
	SUBQ    $8, CX
	JMP     bt16loop

bt16done:
	VZEROUPPER
	RET

// Horizontal sum of the 8 lanes of ymm r into the float at off(DI), using
// X14 and X15 as scratch: (lanes 0-3 + lanes 4-7), then pairwise adds.
#define HSUM(r, xr, off) \
	VEXTRACTF128 $1, r, X15           \
	VADDPS       X15, xr, X14         \
	VHADDPS      X14, X14, X14        \
	VHADDPS      X14, X14, X14        \
	VMOVSS       X14, off(DI)

// func dotNT4x2AVX2(k8 int, a *float32, lda int, b *float32, ldb int, out *[8]float32)
// out[2*i+j] = sum over p < k8 of a[i*lda+p]*b[j*ldb+p] for i < 4, j < 2,
// with 8 lane-wise partial sums per output reduced in a fixed order. k8 is
// a positive multiple of 8.
TEXT ·dotNT4x2AVX2(SB), NOSPLIT, $0-48
	MOVQ k8+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), SI
	MOVQ b+24(FP), BX
	MOVQ ldb+32(FP), DX
	MOVQ out+40(FP), DI
	SHLQ $2, SI
	SHLQ $2, DX
	LEAQ (SI)(SI*2), R8

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

dotloop:
	VMOVUPS     (BX), Y8
	VMOVUPS     (BX)(DX*1), Y9
	VMOVUPS     (AX), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VMOVUPS     (AX)(SI*1), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VMOVUPS     (AX)(SI*2), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VMOVUPS     (AX)(R8*1), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ        $32, AX
	ADDQ        $32, BX
	SUBQ        $8, CX
	JNE         dotloop

	HSUM(Y0, X0, 0)
	HSUM(Y1, X1, 4)
	HSUM(Y2, X2, 8)
	HSUM(Y3, X3, 12)
	HSUM(Y4, X4, 16)
	HSUM(Y5, X5, 20)
	HSUM(Y6, X6, 24)
	HSUM(Y7, X7, 28)
	VZEROUPPER
	RET
