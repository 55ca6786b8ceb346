// Command gemm measures float32 matrix products in one run: the project's
// gemm.Sgemm, gonum's blas32.Gemm and, when built with -tags openblas,
// OpenBLAS cblas_sgemm, on the same shapes and the same data. It prints a
// Markdown table of GFLOP/s (2*m*n*k floating-point operations per product)
// and the ratio ours/OpenBLAS.
//
// Implementations are measured in interleaved rounds and each keeps its best
// round, so a burst of load from other processes hurts all of them alike
// (gonum, much slower, takes part in the first two rounds only).
// Use bench/gemm/run.sh to run it with OpenBLAS and two threads everywhere.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/pats-rl/pats/lib/gemm"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// sgemmFunc is one implementation of row-major C = alpha*op(A)*op(B) + beta*C.
type sgemmFunc func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

type impl struct {
	name string
	fn   sgemmFunc
}

// openBLAS is set by openblas.go when built with -tags openblas.
var (
	openBLAS     sgemmFunc
	openBLASInfo func() string
)

func gonumGemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	ar, ac, br, bc := m, k, k, n
	if transA {
		ta, ar, ac = blas.Trans, k, m
	}
	if transB {
		tb, br, bc = blas.Trans, n, k
	}
	blas32.Gemm(ta, tb, alpha,
		blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
		blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: b},
		beta,
		blas32.General{Rows: m, Cols: n, Stride: ldc, Data: c})
}

type shape struct {
	name           string
	transA, transB bool
	m, n, k        int
}

// shapes: square sizes, then the model's layers (tokens x d times d x k
// forward, and the transposed products of the backward pass).
var shapes = []shape{
	{"square 256", false, false, 256, 256, 256},
	{"square 512", false, false, 512, 512, 512},
	{"square 1024", false, false, 1024, 1024, 1024},
	{"qkv fwd [512x128]*[128x384]", false, false, 512, 384, 128},
	{"proj fwd [512x384]*[384x128]", false, false, 512, 128, 384},
	{"lm_head fwd [512x256]*[256x6000]", false, false, 512, 6000, 256},
	{"qkv dX [512x384]*[128x384]^T", false, true, 512, 128, 384},
	{"qkv dW [512x128]^T*[512x384]", true, false, 128, 384, 512},
	{"lm_head dX [512x6000]*[256x6000]^T", false, true, 512, 256, 6000},
	{"lm_head dW [512x256]^T*[512x6000]", true, false, 256, 6000, 512},
	// Weights stored [out, in]: forward is A*B^T; decoding runs it on 1-4 rows.
	{"lm_head fwd NT [512x256]*[6000x256]^T", false, true, 512, 6000, 256},
	{"qkv fwd NT [512x128]*[384x128]^T", false, true, 512, 384, 128},
	{"decode lm_head [1x256]*[6000x256]^T", false, true, 1, 6000, 256},
	{"decode qkv [1x128]*[384x128]^T", false, true, 1, 384, 128},
	{"decode x4 lm_head [4x256]*[6000x256]^T", false, true, 4, 6000, 256},
}

func main() {
	minTime := flag.Duration("time", 100*time.Millisecond, "minimum time per implementation per round")
	rounds := flag.Int("rounds", 5, "interleaved measurement rounds; the best round counts")
	clock := flag.String("clock", "wall", "wall: elapsed time; cpu: CPU time of the process (meaningful with one thread: it leaves out time taken by other processes)")
	flag.Parse()
	switch *clock {
	case "wall":
		now = wallSeconds
	case "cpu":
		now = cpuSeconds
	default:
		fmt.Fprintf(os.Stderr, "gemm: -clock must be wall or cpu, not %q\n", *clock)
		os.Exit(2)
	}

	impls := []impl{{"ours", gemm.Sgemm}}
	if openBLAS != nil {
		impls = append(impls, impl{"OpenBLAS", openBLAS})
	}
	impls = append(impls, impl{"gonum", gonumGemm})

	fmt.Printf("GOMAXPROCS=%d, GOARCH=%s, Go %s, clock %s\n", runtime.GOMAXPROCS(0), runtime.GOARCH, runtime.Version(), *clock)
	if openBLASInfo != nil {
		fmt.Println(openBLASInfo())
	} else {
		fmt.Println("OpenBLAS not built in (build with -tags openblas)")
	}
	fmt.Println()
	fmt.Println("| shape (op(A) m x k, op(B) k x n) | m | n | k | ours GFLOP/s | OpenBLAS GFLOP/s | gonum GFLOP/s | ours/OpenBLAS | rel. diff ours vs OpenBLAS |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, s := range shapes {
		res, diff := measure(s, impls, *minTime, *rounds)
		ob, ratio, d := "n/a", "n/a", "n/a"
		if v, ok := res["OpenBLAS"]; ok {
			ob = fmt.Sprintf("%.1f", v)
			ratio = fmt.Sprintf("%.2f", res["ours"]/v)
			d = fmt.Sprintf("%.1e", diff)
		}
		fmt.Printf("| %s | %d | %d | %d | %.1f | %s | %.1f | %s | %s |\n", s.name, s.m, s.n, s.k, res["ours"], ob, res["gonum"], ratio, d)
	}
}

// now is the clock of the measurements, in seconds.
var now = wallSeconds

var t0 = time.Now()

func wallSeconds() float64 { return time.Since(t0).Seconds() }

// slowRounds is how many rounds gonum takes part in.
const slowRounds = 2

// measure returns the best GFLOP/s of each implementation over the rounds
// and the relative difference ||ours-OpenBLAS||/||OpenBLAS|| of one product.
func measure(s shape, impls []impl, minTime time.Duration, rounds int) (map[string]float64, float64) {
	r := rand.New(rand.NewPCG(uint64(s.m), uint64(s.n*s.k)))
	ar, ac, br, bc := s.m, s.k, s.k, s.n
	if s.transA {
		ar, ac = ac, ar
	}
	if s.transB {
		br, bc = bc, br
	}
	a, b := randSlice(r, ar*ac), randSlice(r, br*bc)
	outs := make(map[string][]float32)
	for _, im := range impls {
		c := make([]float32, s.m*s.n)
		im.fn(s.transA, s.transB, s.m, s.n, s.k, 1, a, ac, b, bc, 0, c, s.n) // warm-up
		outs[im.name] = c
	}
	best := make(map[string]float64)
	flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
	for round := 0; round < rounds; round++ {
		for _, im := range impls {
			if im.name == "gonum" && round >= slowRounds {
				continue // an order of magnitude slower; a reference only
			}
			c := outs[im.name]
			reps := 0
			start := now()
			for reps == 0 || now()-start < minTime.Seconds() {
				im.fn(s.transA, s.transB, s.m, s.n, s.k, 1, a, ac, b, bc, 0, c, s.n)
				reps++
			}
			g := flops * float64(reps) / (now() - start) / 1e9
			best[im.name] = max(best[im.name], g)
		}
	}
	diff := math.NaN()
	if ref, ok := outs["OpenBLAS"]; ok {
		var num, den float64
		for i, v := range ref {
			d := float64(outs["ours"][i]) - float64(v)
			num += d * d
			den += float64(v) * float64(v)
		}
		diff = math.Sqrt(num / den)
	}
	return best, diff
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func init() {
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run [-tags openblas] ./bench/gemm [-time 100ms] [-rounds 5]\n")
		flag.PrintDefaults()
	}
}
