//go:build amd64

#include "textflag.h"

// func expF64AVX2(dst, src []float64, c *[14]uint64)
//
// dst[i] = exp(src[i]) by the operations of the Go standard library's
// amd64 exponential on its fused multiply-add path, four lanes at a time:
// k = round(x*log2e); r = (x - k*ln2hi - k*ln2lo) / 16 (both fused); a
// degree-8 Horner polynomial in r (fused); four squarings y = y*(y+2),
// the last fused with +1; times 2^k. Only lanes with -700 <= x <= 700 are
// valid (the caller recomputes the others); len(dst) is a multiple of 4.
// c: log2e, ln2hi, ln2lo, 1/16, the polynomial's 8 coefficients from the
// highest down, 2, and the exponent bias 1023 (as an integer).
TEXT ·expF64AVX2(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	MOVQ c+48(FP), DX
	VBROADCASTSD 0(DX), Y8
	VBROADCASTSD 8(DX), Y9
	VBROADCASTSD 16(DX), Y10
	VBROADCASTSD 24(DX), Y11
	VBROADCASTSD 96(DX), Y12
	VBROADCASTSD 88(DX), Y13
	VPBROADCASTQ 104(DX), Y14
	XORQ AX, AX

eloop:
	CMPQ AX, CX
	JGE  edone
	VMOVUPD      (SI)(AX*8), Y0
	VMULPD       Y8, Y0, Y1
	VCVTPD2DQY   Y1, X2
	VCVTDQ2PD    X2, Y1
	VFNMADD231PD Y9, Y1, Y0
	VFNMADD231PD Y10, Y1, Y0
	VMULPD       Y11, Y0, Y0
	VBROADCASTSD 32(DX), Y3
	VBROADCASTSD 40(DX), Y5
	VFMADD213PD  Y5, Y0, Y3
	VBROADCASTSD 48(DX), Y5
	VFMADD213PD  Y5, Y0, Y3
	VBROADCASTSD 56(DX), Y5
	VFMADD213PD  Y5, Y0, Y3
	VBROADCASTSD 64(DX), Y5
	VFMADD213PD  Y5, Y0, Y3
	VBROADCASTSD 72(DX), Y5
	VFMADD213PD  Y5, Y0, Y3
	VBROADCASTSD 80(DX), Y5
	VFMADD213PD  Y5, Y0, Y3
	VFMADD213PD  Y13, Y0, Y3
	VMULPD       Y3, Y0, Y0
	VADDPD       Y12, Y0, Y3
	VMULPD       Y3, Y0, Y0
	VADDPD       Y12, Y0, Y3
	VMULPD       Y3, Y0, Y0
	VADDPD       Y12, Y0, Y3
	VMULPD       Y3, Y0, Y0
	VADDPD       Y12, Y0, Y3
	VFMADD213PD  Y13, Y3, Y0
	VPMOVSXDQ    X2, Y4
	VPADDQ       Y14, Y4, Y4
	VPSLLQ       $52, Y4, Y4
	VMULPD       Y4, Y0, Y0
	VMOVUPD      Y0, (DI)(AX*8)
	ADDQ         $4, AX
	JMP          eloop

edone:
	VZEROUPPER
	RET
