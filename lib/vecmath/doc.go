// Package vecmath holds the float32 vector kernels of the model's CPU
// backend: reductions (Max, Sum, Dot), updates (Axpy, Scale), the
// exponential in the shapes softmax needs (Exp, ExpAffine, ExpSums,
// LogSumExp), small matrix-vector kernels for attention (DotRows: one
// query against many keys; AxpyRows: probability-weighted sum of value
// rows; DotRows2 and AxpyRows2: the same for two query heads sharing the
// rows, with the single kernels' bits; AddOuter: rank-one gradient
// updates), the SwiGLU activation with its gradient (SiLUMul,
// SiLUMulBackward), and ExpF64, a float64 exponential with math.Exp's
// bits for sampling.
//
// # Implementations
//
// On amd64 with AVX2 and FMA (checked once at start-up with
// golang.org/x/sys/cpu) the kernels are Go assembly working on 8 lanes;
// elsewhere, or with the environment variable PATS_VECMATH=go, they are
// plain Go. Impl reports which. The assembly handles the largest prefix
// whose length is a multiple of 8 and the Go code the rest, so both
// implementations are exercised by every call with a ragged length.
//
// The two implementations evaluate the same formulas but are not
// bit-identical: the assembly fuses multiply-adds (one rounding instead
// of two) and sums Dot and Sum in 32 lanes where the Go code uses 8.
// Exponentials agree within 2.5e-7 relative, sums to the rounding of
// their terms; the tests bound both against float64 references.
//
// # Determinism
//
// Every kernel computes each output from its inputs alone, in a fixed
// order that depends only on the slice lengths: no threads, no
// data-dependent paths other than the exponential's range limits. The
// same inputs give the same bits on every run on a given machine and
// implementation. Notable orders: DotRows sums each row the same way
// whether the row is computed in a block of four or alone; AxpyRows and
// AddOuter give exactly what repeated Axpy calls give.
//
// # The exponential
//
// exp(x) = 2^k * exp(r) with k = round(x*log2 e), r = x - k*ln2 (ln2 in
// two parts so the reduction is exact to float32), exp(r) by a degree-7
// polynomial in Horner form. Measured maximum relative error against
// math.Exp: 7.2e-8 (AVX2) and 1.0e-7 (Go) on [-87, 88]. exp(x) is 0 for
// x < -87.33 and -Inf (no denormals), +Inf from x ≈ 88.38, NaN for NaN.
//
// # Speed
//
// About 20x the scalar code for the exponential kernels and 5-40x for
// the attention kernels; with them the model trains 2.3-3x faster per
// CPU second. Figures and commands: bench/hotloops.md.
//
// AVX-512 is not used here, even where the processor has it (lib/gemm's
// matrix kernel does use it): these kernels are under a tenth of the
// model's training time, and 16-lane reductions would sum Dot, DotRows and
// the exponential sums in another order than the 8-lane ones, so results
// would differ between AVX2 and AVX-512 machines.
package vecmath
