package model

import (
	"math"
	"testing"
)

// TestExpf bounds expf's relative error against math.Exp over the range
// softmax uses, and checks the limits.
func TestExpf(t *testing.T) {
	var worst float64
	for x := -87.0; x <= 88.0; x += 0.001953125 {
		want := math.Exp(float64(float32(x)))
		got := float64(expf(float32(x)))
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 3e-7 {
		t.Errorf("worst relative error %g", worst)
	}
	if expf(-100) != 0 || !math.IsInf(float64(expf(100)), 1) || expf(0) != 1 {
		t.Errorf("limits: %g %g %g", expf(-100), expf(100), expf(0))
	}
	if v := expf(float32(math.Inf(-1))); v != 0 {
		t.Errorf("exp(-inf) = %g", v)
	}
}
