// AVX2+FMA kernels of package vecmath (see vecmath_amd64.go). Every
// slice length passed here is a multiple of 8; sums keep fixed lanes and
// reduce them in a fixed order, so results depend only on the inputs.

#include "textflag.h"

DATA expLo<>+0(SB)/4, $0xc2aea8f6
DATA expLo<>+4(SB)/4, $0xc2aea8f6
DATA expLo<>+8(SB)/4, $0xc2aea8f6
DATA expLo<>+12(SB)/4, $0xc2aea8f6
DATA expLo<>+16(SB)/4, $0xc2aea8f6
DATA expLo<>+20(SB)/4, $0xc2aea8f6
DATA expLo<>+24(SB)/4, $0xc2aea8f6
DATA expLo<>+28(SB)/4, $0xc2aea8f6
GLOBL expLo<>(SB), RODATA|NOPTR, $32

DATA expHi<>+0(SB)/4, $0x42b170a4
DATA expHi<>+4(SB)/4, $0x42b170a4
DATA expHi<>+8(SB)/4, $0x42b170a4
DATA expHi<>+12(SB)/4, $0x42b170a4
DATA expHi<>+16(SB)/4, $0x42b170a4
DATA expHi<>+20(SB)/4, $0x42b170a4
DATA expHi<>+24(SB)/4, $0x42b170a4
DATA expHi<>+28(SB)/4, $0x42b170a4
GLOBL expHi<>(SB), RODATA|NOPTR, $32

DATA expLog2e<>+0(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+4(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+8(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+12(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+16(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+20(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+24(SB)/4, $0x3fb8aa3b
DATA expLog2e<>+28(SB)/4, $0x3fb8aa3b
GLOBL expLog2e<>(SB), RODATA|NOPTR, $32

DATA expLn2Hi<>+0(SB)/4, $0x3f318000
DATA expLn2Hi<>+4(SB)/4, $0x3f318000
DATA expLn2Hi<>+8(SB)/4, $0x3f318000
DATA expLn2Hi<>+12(SB)/4, $0x3f318000
DATA expLn2Hi<>+16(SB)/4, $0x3f318000
DATA expLn2Hi<>+20(SB)/4, $0x3f318000
DATA expLn2Hi<>+24(SB)/4, $0x3f318000
DATA expLn2Hi<>+28(SB)/4, $0x3f318000
GLOBL expLn2Hi<>(SB), RODATA|NOPTR, $32

DATA expLn2Lo<>+0(SB)/4, $0xb95e8083
DATA expLn2Lo<>+4(SB)/4, $0xb95e8083
DATA expLn2Lo<>+8(SB)/4, $0xb95e8083
DATA expLn2Lo<>+12(SB)/4, $0xb95e8083
DATA expLn2Lo<>+16(SB)/4, $0xb95e8083
DATA expLn2Lo<>+20(SB)/4, $0xb95e8083
DATA expLn2Lo<>+24(SB)/4, $0xb95e8083
DATA expLn2Lo<>+28(SB)/4, $0xb95e8083
GLOBL expLn2Lo<>(SB), RODATA|NOPTR, $32

DATA expP0<>+0(SB)/4, $0x39506967
DATA expP0<>+4(SB)/4, $0x39506967
DATA expP0<>+8(SB)/4, $0x39506967
DATA expP0<>+12(SB)/4, $0x39506967
DATA expP0<>+16(SB)/4, $0x39506967
DATA expP0<>+20(SB)/4, $0x39506967
DATA expP0<>+24(SB)/4, $0x39506967
DATA expP0<>+28(SB)/4, $0x39506967
GLOBL expP0<>(SB), RODATA|NOPTR, $32

DATA expP1<>+0(SB)/4, $0x3ab743ce
DATA expP1<>+4(SB)/4, $0x3ab743ce
DATA expP1<>+8(SB)/4, $0x3ab743ce
DATA expP1<>+12(SB)/4, $0x3ab743ce
DATA expP1<>+16(SB)/4, $0x3ab743ce
DATA expP1<>+20(SB)/4, $0x3ab743ce
DATA expP1<>+24(SB)/4, $0x3ab743ce
DATA expP1<>+28(SB)/4, $0x3ab743ce
GLOBL expP1<>(SB), RODATA|NOPTR, $32

DATA expP2<>+0(SB)/4, $0x3c088908
DATA expP2<>+4(SB)/4, $0x3c088908
DATA expP2<>+8(SB)/4, $0x3c088908
DATA expP2<>+12(SB)/4, $0x3c088908
DATA expP2<>+16(SB)/4, $0x3c088908
DATA expP2<>+20(SB)/4, $0x3c088908
DATA expP2<>+24(SB)/4, $0x3c088908
DATA expP2<>+28(SB)/4, $0x3c088908
GLOBL expP2<>(SB), RODATA|NOPTR, $32

DATA expP3<>+0(SB)/4, $0x3d2aa9c1
DATA expP3<>+4(SB)/4, $0x3d2aa9c1
DATA expP3<>+8(SB)/4, $0x3d2aa9c1
DATA expP3<>+12(SB)/4, $0x3d2aa9c1
DATA expP3<>+16(SB)/4, $0x3d2aa9c1
DATA expP3<>+20(SB)/4, $0x3d2aa9c1
DATA expP3<>+24(SB)/4, $0x3d2aa9c1
DATA expP3<>+28(SB)/4, $0x3d2aa9c1
GLOBL expP3<>(SB), RODATA|NOPTR, $32

DATA expP4<>+0(SB)/4, $0x3e2aaaaa
DATA expP4<>+4(SB)/4, $0x3e2aaaaa
DATA expP4<>+8(SB)/4, $0x3e2aaaaa
DATA expP4<>+12(SB)/4, $0x3e2aaaaa
DATA expP4<>+16(SB)/4, $0x3e2aaaaa
DATA expP4<>+20(SB)/4, $0x3e2aaaaa
DATA expP4<>+24(SB)/4, $0x3e2aaaaa
DATA expP4<>+28(SB)/4, $0x3e2aaaaa
GLOBL expP4<>(SB), RODATA|NOPTR, $32

DATA expP5<>+0(SB)/4, $0x3f000000
DATA expP5<>+4(SB)/4, $0x3f000000
DATA expP5<>+8(SB)/4, $0x3f000000
DATA expP5<>+12(SB)/4, $0x3f000000
DATA expP5<>+16(SB)/4, $0x3f000000
DATA expP5<>+20(SB)/4, $0x3f000000
DATA expP5<>+24(SB)/4, $0x3f000000
DATA expP5<>+28(SB)/4, $0x3f000000
GLOBL expP5<>(SB), RODATA|NOPTR, $32

DATA expOne<>+0(SB)/4, $0x3f800000
DATA expOne<>+4(SB)/4, $0x3f800000
DATA expOne<>+8(SB)/4, $0x3f800000
DATA expOne<>+12(SB)/4, $0x3f800000
DATA expOne<>+16(SB)/4, $0x3f800000
DATA expOne<>+20(SB)/4, $0x3f800000
DATA expOne<>+24(SB)/4, $0x3f800000
DATA expOne<>+28(SB)/4, $0x3f800000
GLOBL expOne<>(SB), RODATA|NOPTR, $32

DATA expBias<>+0(SB)/4, $0x0000007f
DATA expBias<>+4(SB)/4, $0x0000007f
DATA expBias<>+8(SB)/4, $0x0000007f
DATA expBias<>+12(SB)/4, $0x0000007f
DATA expBias<>+16(SB)/4, $0x0000007f
DATA expBias<>+20(SB)/4, $0x0000007f
DATA expBias<>+24(SB)/4, $0x0000007f
DATA expBias<>+28(SB)/4, $0x0000007f
GLOBL expBias<>(SB), RODATA|NOPTR, $32

// EXP8 sets Y3 = exp(Y0) lane by lane and leaves Y0 unchanged; it
// clobbers Y1 and Y2. x is clamped to [expLo, expHi] (NaN passes through
// both clamps), k = round(x*log2e), r = x - k*ln2 (two fused steps),
// exp(r) = ((P(r)*r + 1)*r + 1), times 2^k built in the exponent bits;
// lanes with x < expLo are zeroed.
#define EXP8 \
	VMOVUPS      expLo<>(SB), Y1; \
	VMAXPS       Y0, Y1, Y1; \
	VMOVUPS      expHi<>(SB), Y2; \
	VMINPS       Y1, Y2, Y1; \
	VMULPS       expLog2e<>(SB), Y1, Y2; \
	VROUNDPS     $0, Y2, Y2; \
	VFNMADD231PS expLn2Hi<>(SB), Y2, Y1; \
	VFNMADD231PS expLn2Lo<>(SB), Y2, Y1; \
	VMOVUPS      expP0<>(SB), Y3; \
	VFMADD213PS  expP1<>(SB), Y1, Y3; \
	VFMADD213PS  expP2<>(SB), Y1, Y3; \
	VFMADD213PS  expP3<>(SB), Y1, Y3; \
	VFMADD213PS  expP4<>(SB), Y1, Y3; \
	VFMADD213PS  expP5<>(SB), Y1, Y3; \
	VFMADD213PS  expOne<>(SB), Y1, Y3; \
	VFMADD213PS  expOne<>(SB), Y1, Y3; \
	VCVTPS2DQ    Y2, Y2; \
	VPADDD       expBias<>(SB), Y2, Y2; \
	VPSLLD       $23, Y2, Y2; \
	VMULPS       Y2, Y3, Y3; \
	VCMPPS       $1, expLo<>(SB), Y0, Y1; \
	VANDNPS      Y3, Y1, Y3

// HSUM leaves in the low lane of X the sum of the 8 lanes of Y, as
// ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)); T is clobbered.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T; \
	VADDPS       T, X, X; \
	VMOVHLPS     X, X, T; \
	VADDPS       T, X, X; \
	VMOVSHDUP    X, T; \
	VADDSS       T, X, X

// HMAX is HSUM with max.
#define HMAX(Y, X, T) \
	VEXTRACTF128 $1, Y, T; \
	VMAXPS       T, X, X; \
	VMOVHLPS     X, X, T; \
	VMAXPS       T, X, X; \
	VMOVSHDUP    X, T; \
	VMAXSS       T, X, X

// func maxAVX2(x []float32) float32
TEXT ·maxAVX2(SB), NOSPLIT, $0-28
	MOVQ    x_base+0(FP), SI
	MOVQ    x_len+8(FP), CX
	VMOVUPS (SI), Y0
	VMOVAPS Y0, Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y0, Y3

max32:
	CMPQ    CX, $32
	JLT     max8
	VMAXPS  (SI), Y0, Y0
	VMAXPS  32(SI), Y1, Y1
	VMAXPS  64(SI), Y2, Y2
	VMAXPS  96(SI), Y3, Y3
	ADDQ    $128, SI
	SUBQ    $32, CX
	JMP     max32

max8:
	CMPQ    CX, $0
	JEQ     maxdone
	VMAXPS  (SI), Y0, Y0
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     max8

maxdone:
	VMAXPS Y1, Y0, Y0
	VMAXPS Y3, Y2, Y2
	VMAXPS Y2, Y0, Y0
	HMAX(Y0, X0, X1)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func sumAVX2(x []float32) float32
TEXT ·sumAVX2(SB), NOSPLIT, $0-28
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

sum32:
	CMPQ   CX, $32
	JLT    sum8
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	ADDQ   $128, SI
	SUBQ   $32, CX
	JMP    sum32

sum8:
	CMPQ   CX, $0
	JEQ    sumdone
	VADDPS (SI), Y0, Y0
	ADDQ   $32, SI
	SUBQ   $8, CX
	JMP    sum8

sumdone:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM(Y0, X0, X1)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotAVX2(a, b []float32) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

dot32:
	CMPQ        CX, $32
	JLT         dot8
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         dot32

dot8:
	CMPQ        CX, $0
	JEQ         dotdone
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         dot8

dotdone:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM(Y0, X0, X1)
	VMOVSS X0, ret+48(FP)
	VZEROUPPER
	RET

// func axpyAVX2(alpha float32, x, y []float32)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-56
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI

axpy32:
	CMPQ        CX, $32
	JLT         axpy8
	VMOVUPS     (DI), Y1
	VMOVUPS     32(DI), Y2
	VMOVUPS     64(DI), Y3
	VMOVUPS     96(DI), Y4
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VFMADD231PS 64(SI), Y0, Y3
	VFMADD231PS 96(SI), Y0, Y4
	VMOVUPS     Y1, (DI)
	VMOVUPS     Y2, 32(DI)
	VMOVUPS     Y3, 64(DI)
	VMOVUPS     Y4, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         axpy32

axpy8:
	CMPQ        CX, $0
	JEQ         axpydone
	VMOVUPS     (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS     Y1, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         axpy8

axpydone:
	VZEROUPPER
	RET

// func scaleAVX2(alpha float32, x []float32)
TEXT ·scaleAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX

scale8:
	CMPQ    CX, $0
	JEQ     scaledone
	VMULPS  (SI), Y0, Y1
	VMOVUPS Y1, (SI)
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     scale8

scaledone:
	VZEROUPPER
	RET

// func expAffineAVX2(dst, x []float32, a, b, c float32) float32
TEXT ·expAffineAVX2(SB), NOSPLIT, $0-68
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSS a+48(FP), Y5
	VBROADCASTSS b+52(FP), Y6
	VBROADCASTSS c+56(FP), Y7
	VXORPS       Y8, Y8, Y8

expa8:
	CMPQ        CX, $0
	JEQ         expadone
	VMOVUPS     (SI), Y0
	VFMADD213PS Y6, Y5, Y0
	EXP8
	VMULPS      Y7, Y3, Y3
	VMOVUPS     Y3, (DI)
	VADDPS      Y3, Y8, Y8
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         expa8

expadone:
	HSUM(Y8, X8, X1)
	VMOVSS X8, ret+64(FP)
	VZEROUPPER
	RET

// func expSumsAVX2(x []float32, shift float32) (s, sx float32)
TEXT ·expSumsAVX2(SB), NOSPLIT, $0-40
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS shift+24(FP), Y5
	VXORPS       Y6, Y6, Y6
	VXORPS       Y7, Y7, Y7

exps8:
	CMPQ        CX, $0
	JEQ         expsdone
	VMOVUPS     (SI), Y0
	VSUBPS      Y5, Y0, Y0
	EXP8
	VADDPS      Y3, Y6, Y6
	VMAXPS      expLo<>(SB), Y0, Y0
	VFMADD231PS Y0, Y3, Y7
	ADDQ        $32, SI
	SUBQ        $8, CX
	JMP         exps8

expsdone:
	HSUM(Y6, X6, X1)
	HSUM(Y7, X7, X1)
	VMOVSS X6, s+32(FP)
	VMOVSS X7, sx+36(FP)
	VZEROUPPER
	RET

// REDUCE4 leaves in X0 the lane sums of Y0..Y3, each as
// ((l0+l1)+(l2+l3)) + ((l4+l5)+(l6+l7)); it clobbers Y2 and X1.
#define REDUCE4 \
	VHADDPS      Y1, Y0, Y0; \
	VHADDPS      Y3, Y2, Y2; \
	VHADDPS      Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0

// func dotRowsAVX2(dst, a []float32, lda int, x []float32)
TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), BX
	MOVQ a_base+24(FP), SI
	MOVQ lda+48(FP), R8
	SHLQ $2, R8
	MOVQ x_base+56(FP), DX
	MOVQ x_len+64(FP), CX
	SHLQ $2, CX

drows4:
	CMPQ   BX, $4
	JLT    drows1
	MOVQ   SI, R9
	LEAQ   (SI)(R8*1), R10
	LEAQ   (R10)(R8*1), R11
	LEAQ   (R11)(R8*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

drows4k:
	VMOVUPS     (DX)(AX*1), Y4
	VFMADD231PS (R9)(AX*1), Y4, Y0
	VFMADD231PS (R10)(AX*1), Y4, Y1
	VFMADD231PS (R11)(AX*1), Y4, Y2
	VFMADD231PS (R12)(AX*1), Y4, Y3
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         drows4k
	REDUCE4
	VMOVUPS     X0, (DI)
	ADDQ        $16, DI
	LEAQ        (R12)(R8*1), SI
	SUBQ        $4, BX
	JMP         drows4

drows1:
	CMPQ   BX, $0
	JEQ    drowsdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

drows1k:
	VMOVUPS     (DX)(AX*1), Y4
	VFMADD231PS (SI)(AX*1), Y4, Y0
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         drows1k
	REDUCE4
	VMOVSS      X0, (DI)
	ADDQ        $4, DI
	ADDQ        R8, SI
	DECQ        BX
	JMP         drows1

drowsdone:
	VZEROUPPER
	RET

// func axpyRowsAVX2(dst, a []float32, lda int, w []float32)
TEXT ·axpyRowsAVX2(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ lda+48(FP), R8
	SHLQ $2, R8
	MOVQ w_base+56(FP), DX
	MOVQ w_len+64(FP), BX

arows32:
	CMPQ    CX, $32
	JLT     arows8
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	MOVQ    SI, R9
	XORQ    AX, AX

arows32i:
	VBROADCASTSS (DX)(AX*4), Y4
	VFMADD231PS  (R9), Y4, Y0
	VFMADD231PS  32(R9), Y4, Y1
	VFMADD231PS  64(R9), Y4, Y2
	VFMADD231PS  96(R9), Y4, Y3
	ADDQ         R8, R9
	INCQ         AX
	CMPQ         AX, BX
	JLT          arows32i
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	ADDQ         $128, DI
	ADDQ         $128, SI
	SUBQ         $32, CX
	JMP          arows32

arows8:
	CMPQ    CX, $0
	JEQ     arowsdone
	VMOVUPS (DI), Y0
	MOVQ    SI, R9
	XORQ    AX, AX

arows8i:
	VBROADCASTSS (DX)(AX*4), Y4
	VFMADD231PS  (R9), Y4, Y0
	ADDQ         R8, R9
	INCQ         AX
	CMPQ         AX, BX
	JLT          arows8i
	VMOVUPS      Y0, (DI)
	ADDQ         $32, DI
	ADDQ         $32, SI
	SUBQ         $8, CX
	JMP          arows8

arowsdone:
	VZEROUPPER
	RET

// func addOuterAVX2(a []float32, lda int, x, y []float32)
TEXT ·addOuterAVX2(SB), NOSPLIT, $0-80
	MOVQ a_base+0(FP), DI
	MOVQ lda+24(FP), R8
	SHLQ $2, R8
	MOVQ x_base+32(FP), DX
	MOVQ x_len+40(FP), BX
	MOVQ y_base+56(FP), SI
	MOVQ y_len+64(FP), CX

outer32:
	CMPQ    CX, $32
	JLT     outer8
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	MOVQ    DI, R9
	XORQ    AX, AX

outer32i:
	VBROADCASTSS (DX)(AX*4), Y4
	VMOVUPS      (R9), Y5
	VMOVUPS      32(R9), Y6
	VMOVUPS      64(R9), Y7
	VMOVUPS      96(R9), Y8
	VFMADD231PS  Y0, Y4, Y5
	VFMADD231PS  Y1, Y4, Y6
	VFMADD231PS  Y2, Y4, Y7
	VFMADD231PS  Y3, Y4, Y8
	VMOVUPS      Y5, (R9)
	VMOVUPS      Y6, 32(R9)
	VMOVUPS      Y7, 64(R9)
	VMOVUPS      Y8, 96(R9)
	ADDQ         R8, R9
	INCQ         AX
	CMPQ         AX, BX
	JLT          outer32i
	ADDQ         $128, DI
	ADDQ         $128, SI
	SUBQ         $32, CX
	JMP          outer32

outer8:
	CMPQ    CX, $0
	JEQ     outerdone
	VMOVUPS (SI), Y0
	MOVQ    DI, R9
	XORQ    AX, AX

outer8i:
	VBROADCASTSS (DX)(AX*4), Y4
	VMOVUPS      (R9), Y5
	VFMADD231PS  Y0, Y4, Y5
	VMOVUPS      Y5, (R9)
	ADDQ         R8, R9
	INCQ         AX
	CMPQ         AX, BX
	JLT          outer8i
	ADDQ         $32, DI
	ADDQ         $32, SI
	SUBQ         $8, CX
	JMP          outer8

outerdone:
	VZEROUPPER
	RET

// func siluMulAVX2(h, g, u []float32)
TEXT ·siluMulAVX2(SB), NOSPLIT, $0-72
	MOVQ h_base+0(FP), DI
	MOVQ h_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ u_base+48(FP), DX

silu8:
	CMPQ    CX, $0
	JEQ     siludone
	VMOVUPS (SI), Y4
	VXORPS  Y0, Y0, Y0
	VSUBPS  Y4, Y0, Y0
	EXP8
	VADDPS  expOne<>(SB), Y3, Y3
	VMULPS  (DX), Y4, Y1
	VDIVPS  Y3, Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, DX
	SUBQ    $8, CX
	JMP     silu8

siludone:
	VZEROUPPER
	RET

// func siluMulBackwardAVX2(dg, du, dh, g, u []float32)
TEXT ·siluMulBackwardAVX2(SB), NOSPLIT, $0-120
	MOVQ dg_base+0(FP), DI
	MOVQ dg_len+8(FP), CX
	MOVQ du_base+24(FP), R8
	MOVQ dh_base+48(FP), R9
	MOVQ g_base+72(FP), SI
	MOVQ u_base+96(FP), DX

silub8:
	CMPQ        CX, $0
	JEQ         silubdone
	VMOVUPS     (SI), Y4
	VXORPS      Y0, Y0, Y0
	VSUBPS      Y4, Y0, Y0
	EXP8
	VADDPS      expOne<>(SB), Y3, Y3
	VMOVUPS     expOne<>(SB), Y1
	VDIVPS      Y3, Y1, Y1
	VMOVUPS     (R9), Y5
	VMULPS      Y1, Y4, Y2
	VMULPS      Y2, Y5, Y2
	VMOVUPS     Y2, (R8)
	VMOVUPS     expOne<>(SB), Y2
	VSUBPS      Y1, Y2, Y2
	VFMADD213PS expOne<>(SB), Y4, Y2
	VMULPS      (DX), Y5, Y5
	VMULPS      Y1, Y5, Y5
	VMULPS      Y2, Y5, Y5
	VMOVUPS     Y5, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	ADDQ        $32, DX
	ADDQ        $32, R8
	ADDQ        $32, R9
	SUBQ        $8, CX
	JMP         silub8

silubdone:
	VZEROUPPER
	RET

// func dot3AVX2(a, b, c []float32) float32
TEXT ·dot3AVX2(SB), NOSPLIT, $0-76
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), DX
	MOVQ   c_base+48(FP), DI
	VXORPS Y0, Y0, Y0

dot3loop:
	CMPQ        CX, $0
	JEQ         dot3done
	VMOVUPS     (SI), Y1
	VMULPS      (DX), Y1, Y1
	VFMADD231PS (DI), Y1, Y0
	ADDQ        $32, SI
	ADDQ        $32, DX
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         dot3loop

dot3done:
	HSUM(Y0, X0, X1)
	VMOVSS X0, ret+72(FP)
	VZEROUPPER
	RET

// func mulAVX2(dst, a, b []float32, s float32)
TEXT ·mulAVX2(SB), NOSPLIT, $0-76
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         a_base+24(FP), SI
	MOVQ         b_base+48(FP), DX
	VBROADCASTSS s+72(FP), Y0

mulloop:
	CMPQ    CX, $0
	JEQ     muldone
	VMOVUPS (SI), Y1
	VMULPS  (DX), Y1, Y1
	VMULPS  Y0, Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     mulloop

muldone:
	VZEROUPPER
	RET

// func mulAddAVX2(dst, a, b []float32, s float32)
TEXT ·mulAddAVX2(SB), NOSPLIT, $0-76
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         a_base+24(FP), SI
	MOVQ         b_base+48(FP), DX
	VBROADCASTSS s+72(FP), Y0

muladdloop:
	CMPQ        CX, $0
	JEQ         muladddone
	VMOVUPS     (SI), Y1
	VMULPS      (DX), Y1, Y1
	VMOVUPS     (DI), Y2
	VFMADD231PS Y0, Y1, Y2
	VMOVUPS     Y2, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DX
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         muladdloop

muladddone:
	VZEROUPPER
	RET

// func adamWAVX2(p, g, m, v []float32, c *adamConsts)
// Separate multiplies and adds, in the Go code's order: the same bits as
// adamWGo.
TEXT ·adamWAVX2(SB), NOSPLIT, $0-104
	MOVQ         p_base+0(FP), DI
	MOVQ         p_len+8(FP), CX
	MOVQ         g_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	MOVQ         v_base+72(FP), R9
	MOVQ         c+96(FP), AX
	VBROADCASTSS 0(AX), Y8
	VBROADCASTSS 4(AX), Y9
	VBROADCASTSS 8(AX), Y10
	VBROADCASTSS 12(AX), Y11
	VBROADCASTSS 16(AX), Y12
	VBROADCASTSS 20(AX), Y13
	VBROADCASTSS 24(AX), Y14
	VBROADCASTSS 28(AX), Y15
	VBROADCASTSS 32(AX), Y7

adamloop:
	CMPQ    CX, $0
	JEQ     adamdone
	VMOVUPS (SI), Y0
	VMULPS  (R8), Y8, Y1
	VMULPS  Y0, Y9, Y2
	VADDPS  Y2, Y1, Y1
	VMOVUPS Y1, (R8)
	VMULPS  (R9), Y10, Y2
	VMULPS  Y0, Y11, Y3
	VMULPS  Y0, Y3, Y3
	VADDPS  Y3, Y2, Y2
	VMOVUPS Y2, (R9)
	VDIVPS  Y12, Y1, Y1
	VDIVPS  Y13, Y2, Y2
	VSQRTPS Y2, Y2
	VADDPS  Y14, Y2, Y2
	VDIVPS  Y2, Y1, Y1
	VMOVUPS (DI), Y4
	VMULPS  Y4, Y15, Y5
	VADDPS  Y1, Y5, Y5
	VMULPS  Y5, Y7, Y5
	VSUBPS  Y5, Y4, Y4
	VMOVUPS Y4, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R9
	SUBQ    $8, CX
	JMP     adamloop

adamdone:
	VZEROUPPER
	RET
