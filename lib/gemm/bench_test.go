package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchShape is one benchmarked product: op(A) is m x k, op(B) is k x n.
type benchShape struct {
	name           string
	transA, transB bool
	m, n, k        int
}

// benchShapes are the square sizes and the model's layer shapes: activations
// [tokens, d] times weights [d, k] forward, and the transposed products of
// the backward pass (dX = dY * W^T, dW = X^T * dY).
var benchShapes = []benchShape{
	{"square32", false, false, 32, 32, 32},
	{"square64", false, false, 64, 64, 64},
	{"square256", false, false, 256, 256, 256},
	{"square512", false, false, 512, 512, 512},
	{"square1024", false, false, 1024, 1024, 1024},
	{"qkv_512x128x384", false, false, 512, 384, 128},
	{"proj_512x384x128", false, false, 512, 128, 384},
	{"lmhead_512x256x6000", false, false, 512, 6000, 256},
	{"qkv_dX_NT_512x384x128", false, true, 512, 128, 384},
	{"qkv_dW_TN_128x512x384", true, false, 128, 384, 512},
	{"lmhead_dX_NT_512x6000x256", false, true, 512, 256, 6000},
	{"lmhead_dW_TN_256x512x6000", true, false, 256, 6000, 512},
	// Weights stored [out, in]: forward is A*B^T; decoding runs it on one row.
	{"lmhead_fwd_NT_512x256x6000", false, true, 512, 6000, 256},
	{"qkv_fwd_NT_512x128x384", false, true, 512, 384, 128},
	{"decode_lmhead_NT_1x256x6000", false, true, 1, 6000, 256},
	{"decode_qkv_NT_1x128x384", false, true, 1, 384, 128},
	{"decode4_lmhead_NT_4x256x6000", false, true, 4, 6000, 256},
}

func BenchmarkSgemm(b *testing.B) {
	for _, s := range benchShapes {
		b.Run(s.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			a, lda, bm, ldb, c, ldc := operands(r, s.transA, s.transB, s.m, s.n, s.k, 0)
			flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
			b.ReportAllocs()
			for b.Loop() {
				Sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, ldc)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkKernels compares every available kernel on one mid-size product.
func BenchmarkKernels(b *testing.B) {
	for _, kn := range availableKernels() {
		b.Run(fmt.Sprintf("%s/512", kn.name), func(b *testing.B) {
			prev, _ := setKernel(kn.name)
			defer func() { current = prev }()
			r := rand.New(rand.NewPCG(1, 1))
			a, lda, bm, ldb, c, ldc := operands(r, false, false, 512, 512, 512, 0)
			for b.Loop() {
				Sgemm(false, false, 512, 512, 512, 1, a, lda, bm, ldb, 0, c, ldc)
			}
			b.ReportMetric(2*512*512*512*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMicroKernel measures each micro-kernel alone on packed panels that
// stay in L1, the ceiling the blocked product can approach.
func BenchmarkMicroKernel(b *testing.B) {
	const kc = 256
	for _, kn := range availableKernels() {
		b.Run(kn.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			fn, nr := kn.fn, kn.nr
			if kn.fn2 != nil {
				fn, nr = kn.fn2, 2*kn.nr
			}
			a, bp := randSlice(r, kc*kn.mr), randSlice(r, kc*nr)
			c := make([]float32, kn.mr*nr)
			for b.Loop() {
				fn(kc, a, bp, c, nr, 1, 1)
			}
			b.ReportMetric(2*kc*float64(kn.mr*nr)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkDecodeWorkers times the layer products of batched decoding
// (weights [out, in], so A*B^T) of tiny (hidden 128, intermediate 384) and
// small (256, 768) at batch sizes 1 to 64 on one goroutine and on two, on
// the path Sgemm takes for that shape (direct for m <= directMaxM, else
// blocked), to place directParallelMin and parallelMinWork.
func BenchmarkDecodeWorkers(b *testing.B) {
	type layer struct {
		name string
		n, k int
	}
	for _, l := range []layer{
		{"tiny_q", 128, 128}, {"tiny_gate", 384, 128}, {"tiny_down", 128, 384},
		{"small_q", 256, 256}, {"small_gate", 768, 256}, {"small_down", 256, 768},
		{"small_lmhead", 1847, 256},
	} {
		for _, m := range []int{1, 2, 4, 8, 16, 64} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/m=%d/workers=%d", l.name, m, workers), func(b *testing.B) {
					r := rand.New(rand.NewPCG(1, 1))
					a, lda, bm, ldb, c, ldc := operands(r, false, true, m, l.n, l.k, 0)
					for b.Loop() {
						if useDirect(false, true, m, l.k) {
							gemmDirectNT(workers, m, l.n, l.k, 1, a, lda, bm, ldb, 0, c, ldc)
						} else {
							gemmBlocked(current, workers, false, true, m, l.n, l.k, 1, a, lda, bm, ldb, 0, c, ldc)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m), "ns/row")
				})
			}
		}
	}
}
