package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestPacking checks packA and packB against their definitions, including the
// specialised paths (6-row A, 16-wide B) and zero padding of partial panels.
func TestPacking(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const ld, rowsStored = 40, 40
	src := randSlice(r, ld*rowsStored)
	at := func(trans bool, i, p int) float32 { // op(X)[i][p] with X stored ld apart
		if trans {
			return src[p*ld+i]
		}
		return src[i*ld+p]
	}
	for _, trans := range []bool{false, true} {
		for _, mr := range []int{4, 6, 16} {
			for _, rows := range []int{mr, mr - 1, 1} {
				const i0, p0, kc = 3, 5, 21
				dst := make([]float32, kc*mr)
				for i := range dst {
					dst[i] = -99 // must be overwritten, padding included
				}
				packA(trans, src, ld, i0, rows, p0, kc, mr, dst)
				for p := 0; p < kc; p++ {
					for i := 0; i < mr; i++ {
						want := float32(0)
						if i < rows {
							want = at(trans, i0+i, p0+p)
						}
						if got := dst[p*mr+i]; got != want {
							t.Fatalf("packA trans=%v mr=%d rows=%d: [p=%d][i=%d]=%v, want %v", trans, mr, rows, p, i, got, want)
						}
					}
				}
				// packB: op(B)[p][j] is b[p*ldb+j], or b[j*ldb+p] when transposed.
				dst = make([]float32, kc*mr)
				for i := range dst {
					dst[i] = -99
				}
				packB(trans, src, ld, p0, kc, i0, rows, mr, dst)
				for p := 0; p < kc; p++ {
					for j := 0; j < mr; j++ {
						want := float32(0)
						if j < rows {
							if !trans {
								want = src[(p0+p)*ld+i0+j]
							} else {
								want = src[(i0+j)*ld+p0+p]
							}
						}
						if got := dst[p*mr+j]; got != want {
							t.Fatalf("packB trans=%v nr=%d cols=%d: [p=%d][j=%d]=%v, want %v", trans, mr, rows, p, j, got, want)
						}
					}
				}
			}
		}
	}
	// The portable transposing copies must match the ones packA/packB use.
	for _, kc := range []int{1, 7, 8, 9, 16, 23} {
		x, y := make([]float32, kc*6), make([]float32, kc*6)
		packA6(kc, src[1:], ld, x)
		packA6Go(0, kc, src[1:], ld, y)
		if i := firstDiff(x, y); i >= 0 {
			t.Fatalf("packA6 and packA6Go differ at %d for kc=%d", i, kc)
		}
		x, y = make([]float32, kc*16), make([]float32, kc*16)
		packBT16(kc, src[1:], ld, x)
		packBT16Go(0, kc, src[1:], ld, y)
		if i := firstDiff(x, y); i >= 0 {
			t.Fatalf("packBT16 and packBT16Go differ at %d for kc=%d", i, kc)
		}
	}
	// The portable 16-wide copy must match the one packB uses.
	for _, kc := range []int{1, 2, 7} {
		x, y := make([]float32, kc*16), make([]float32, kc*16)
		packB16(kc, src[2:], ld, x)
		packB16Go(kc, src[2:], ld, y)
		if i := firstDiff(x, y); i >= 0 {
			t.Fatalf("packB16 and packB16Go differ at %d for kc=%d", i, kc)
		}
	}
}
