package gemm

// mergeEdge writes a partial tile: c = t + beta*c, where t already holds
// alpha*acc; C is not read when beta is 0.
func mergeEdge(t []float32, ldt int, c []float32, ldc, mr, nr int, beta float32) {
	for i := 0; i < mr; i++ {
		tr := t[i*ldt : i*ldt+nr]
		cr := c[i*ldc : i*ldc+nr]
		switch beta {
		case 0:
			copy(cr, tr)
		case 1:
			for j, v := range tr {
				cr[j] += v
			}
		default:
			for j, v := range tr {
				cr[j] = v + beta*cr[j]
			}
		}
	}
}

// packA copies rows [i0, i0+rows) x columns [p0, p0+kc) of op(A) into dst as
// one mr-tall micro-panel: dst[p*mr+r] = op(A)[i0+r][p0+p], zero for r >= rows.
func packA(trans bool, a []float32, lda, i0, rows, p0, kc, mr int, dst []float32) {
	dst = dst[:kc*mr]
	switch {
	case mr == 6 && rows == 6 && trans:
		for p := 0; p < kc; p++ {
			s := (*[6]float32)(a[(p0+p)*lda+i0:])
			d := (*[6]float32)(dst[p*6:])
			d[0], d[1], d[2], d[3], d[4], d[5] = s[0], s[1], s[2], s[3], s[4], s[5]
		}
		return
	case mr == 6 && rows == 6:
		packA6(kc, a[i0*lda+p0:], lda, dst)
		return
	}
	if rows < mr {
		clear(dst)
	}
	if trans {
		// op(A)[i][p] = a[p*lda+i]: each p is a contiguous run of rows.
		for p := 0; p < kc; p++ {
			copy(dst[p*mr:p*mr+rows], a[(p0+p)*lda+i0:])
		}
		return
	}
	for r := 0; r < rows; r++ {
		src := a[(i0+r)*lda+p0 : (i0+r)*lda+p0+kc]
		for p, v := range src {
			dst[p*mr+r] = v
		}
	}
}

// packB copies rows [p0, p0+kc) x columns [j0, j0+cols) of op(B) into dst as
// one nr-wide micro-panel: dst[p*nr+j] = op(B)[p0+p][j0+j], zero for j >= cols.
func packB(trans bool, b []float32, ldb, p0, kc, j0, cols, nr int, dst []float32) {
	dst = dst[:kc*nr]
	if cols < nr {
		clear(dst)
	}
	if !trans {
		if nr == 16 && cols == 16 {
			packB16(kc, b[p0*ldb+j0:], ldb, dst)
			return
		}
		for p := 0; p < kc; p++ {
			copy(dst[p*nr:p*nr+cols], b[(p0+p)*ldb+j0:])
		}
		return
	}
	// op(B)[p][j] = b[j*ldb+p]: each j is a contiguous run of p.
	if nr == 16 && cols == 16 {
		packBT16(kc, b[j0*ldb+p0:], ldb, dst)
		return
	}
	for j := 0; j < cols; j++ {
		src := b[(j0+j)*ldb+p0 : (j0+j)*ldb+p0+kc]
		for p, v := range src {
			dst[p*nr+j] = v
		}
	}
}

// packB16Go copies kc rows of 16 values, ldb apart, from src into dst.
func packB16Go(kc int, src []float32, ldb int, dst []float32) {
	for p := 0; p < kc; p++ {
		*(*[16]float32)(dst[p*16:]) = *(*[16]float32)(src[p*ldb:])
	}
}

// packA6Go interleaves columns [from, kc) of 6 rows, lda apart, into
// dst[p*6+r].
func packA6Go(from, kc int, src []float32, lda int, dst []float32) {
	if from >= kc {
		return
	}
	r0 := src[from:kc]
	r1 := src[lda+from : lda+kc]
	r2 := src[2*lda+from : 2*lda+kc]
	r3 := src[3*lda+from : 3*lda+kc]
	r4 := src[4*lda+from : 4*lda+kc]
	r5 := src[5*lda+from : 5*lda+kc]
	dst = dst[from*6:]
	for p := range r0 {
		d := (*[6]float32)(dst[p*6:])
		d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
	}
}

// packBT16Go transposes columns [from, kc) of 16 rows, ldb apart, into
// dst[p*16+j].
func packBT16Go(from, kc int, src []float32, ldb int, dst []float32) {
	for j := 0; j < 16; j++ {
		row := src[j*ldb+from : j*ldb+kc]
		for p, v := range row {
			dst[(from+p)*16+j] = v
		}
	}
}
