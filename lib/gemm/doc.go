// Package gemm is the float32 matrix product behind every linear layer:
// Sgemm computes C = alpha*op(A)*op(B) + beta*C on row-major matrices, where
// op(X) is X or its transpose, so that one routine serves the forward pass
// (activations [tokens, d] times weights [d, k]: A*B, or times weights
// stored [k, d]: A*B^T) and the backward pass (dX = dY*W^T: A*B^T,
// dW = X^T*dY: A^T*B). Values are float32; leading dimensions (lda, ldb,
// ldc) are row strides counted in elements.
//
// # Blocking
//
// The product is cut into blocks sized for the caches (the GotoBLAS/BLIS
// scheme). The k dimension is cut into blocks of depth kc (at most 256,
// balanced: ceil(k/ceil(k/256))); the columns of C into blocks of width nc
// (at most 4096); the rows into outer blocks of at most 16 row blocks of mc
// rows (mc at most 144 for the AVX2 kernel). For each step (outer row block,
// column block, k block, k ascending):
//
//   - op(A)[rows, k block] is packed into micro-panels of mr rows: for each p
//     of the k block, the mr values of that column stored together, so the
//     micro-kernel reads A with unit stride whatever lda and transA are.
//     Rows past m are zero-padded.
//   - op(B)[k block, columns] is packed into micro-panels of nr columns: for
//     each p, the nr values of that row together; columns past n are zero.
//     With AVX2, the packing that transposes (row-major A, 6 rows at a time;
//     B stored transposed, 16 rows at a time) swaps 8x8 blocks in registers.
//   - every tile of C of mc rows by a chunk of columns is a work item: for
//     each B micro-panel (kc x nr, kept in L1) and each A micro-panel (mr x kc,
//     streamed from the mc x kc block kept in L2), the micro-kernel updates
//     one mr x nr block of C.
//
// # Micro-kernel
//
// The kernel computes acc[i][j] = sum over p of a[p][i]*b[p][j] for one
// mr x nr block entirely in registers, p ascending, then writes
// C = alpha*acc + beta*C (beta is the caller's on the first k block and 1 on
// the others; with beta 0, C is not read, so NaN in C does not leak). On
// amd64 with AVX2 and FMA (detected at run time through golang.org/x/sys/cpu)
// it is Go assembly working on a 6x16 block: 12 ymm accumulators (6 rows x 2
// vectors of 8), each step loads one 16-wide row of packed B into two
// registers, broadcasts the 6 packed A values one at a time and issues 12
// fused multiply-adds; the k loop is unrolled by 4. Tiles cut by the matrix
// edge are computed into a scratch block by the same kernel and merged. A
// pure-Go 4x4 scalar kernel is the fallback on other CPUs and architectures
// (tests force it through an internal switch; PATS_GEMM=go forces it for a
// whole process).
//
// Where the processor also has AVX-512F the blocked product pairs
// neighbouring B micro-panels: a 6x32 kernel on 12 zmm accumulators (6
// rows x 2 vectors of 16) reads two packed 16-wide panels side by side,
// with the same packing, blocking and per-element operation order as the
// AVX2 kernel (the same fused multiply-adds, alpha then beta*C fused), so
// it gives the AVX2 kernel's bits; tiles at the bottom edge go through it
// into a scratch block (their rows merged into C), an odd last panel
// through the AVX2 kernel. A test checks the bit equality on
// every shape class where AVX-512 is present. PATS_GEMM=avx2 keeps a
// process on the AVX2 kernel. On an AMD EPYC (Zen 5, 512-bit FMA units)
// the micro-kernel alone measured 2.3x the AVX2 kernel's GFLOP/s and a
// 512^3 product 2.3x (bench/results.md).
//
// # Few rows: the direct path
//
// Weights are often stored [out, in], so a layer's forward pass is A*B^T, and
// decoding runs it on one to four rows of A. Packing all of B for so few rows
// would cost more than the product, so with AVX2, A*B^T with m <= 4 and
// k >= 8 is computed straight from the operands: an assembly kernel takes 4
// rows of A (rows past m are zero) and 2 rows of B and forms the 8 dot
// products over the first k&^7 terms with 8-lane fused multiply-adds,
// reduced in a fixed order; the remaining terms are added in ascending
// order in Go. With one or two rows of A the roles are swapped (4 rows of B
// against the rows of A) so that no work is spent on padding. With three or
// four rows and AVX-512 selected, a 4x4 kernel takes 4 rows of B at a time:
// a zmm register holds two outputs' 8 partial sums (two rows of B side by
// side, the row of A broadcast into both halves), each reduced by the same
// sequence, so every output is the 4x2 kernel's bits at half its fused
// multiply-adds. Columns of C are split into items of 64.
//
// # Goroutines and determinism
//
// Work is split into phases: phase f packs the A and B blocks of step f
// (into one of two buffers) and computes the tiles of step f-1 (from the
// other), so a single barrier separates consecutive steps. Items are taken
// from an atomic counter by the caller and up to GOMAXPROCS-1 helper
// goroutines; the caller finishes everything itself if a helper starts
// late. Helpers are started on first use and live for the process; after a
// task an idle helper polls for the next one for a short while (200 µs)
// before it parks, so back-to-back products do not pay a wake-up each time.
// Products with m*n*k below parallelMinWork run on the caller alone.
//
// Determinism rule: a work item is an output tile (or, on the direct path,
// a run of columns of C), never part of the k sum. Every element of C is
// computed by the same sequence of operations whatever the number of
// goroutines and whoever runs its tile: the k blocks depend on k alone,
// within a block the kernel accumulates p in ascending order from zero, the
// k blocks are applied to C in ascending order (the barrier orders them),
// and which tiles are cut by the matrix edge does not depend on the split
// (row blocks are multiples of mr, column chunks of nr). Hence results are
// bit-identical for any GOMAXPROCS on a given kernel. Different kernels
// (AVX2 with fused multiply-add, pure Go) may differ in the last bits.
package gemm
