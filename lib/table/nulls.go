package table

import "math"

// NullNaN is the value of a nullable float column for x: nil (NULL) when
// x is NaN (a mean or a correlation over nothing), else x.
func NullNaN(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

// OrNaN is a nullable float column's value for arithmetic that skips
// NaN: *p, or NaN when p is nil (NULL).
func OrNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// nanToNull sets each *p that holds NaN to nil: how an upgrade reads a
// NaN an older version wrote for an absent value.
func nanToNull(ps ...**float64) {
	for _, p := range ps {
		if *p != nil && math.IsNaN(**p) {
			*p = nil
		}
	}
}

// OrZero is a nullable float column's value where an absent one counts as
// 0: *p, or 0 when p is nil (NULL).
func OrZero(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
