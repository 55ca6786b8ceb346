package model

import (
	"math"
	"testing"
)

// TestScoringTemperature checks that LogProbs under a scoring temperature
// are log softmax(logits / t) computed here from Logits in float64, that
// the log-probability Sample records at that temperature is the same
// number, and that temperature 1 and greedy (0) leave the scores alone.
func TestScoringTemperature(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 4)
	seq := randomSeqs(6, cfg.VocabSize, 9)[0]
	logits, err := m.Logits(seq)
	if err != nil {
		t.Fatal(err)
	}
	V := cfg.VocabSize
	for _, temp := range []float64{0.7, 0.4, 1, 0, 2} {
		if err := m.SetScoringTemperature(temp); err != nil {
			t.Fatal(err)
		}
		lp, _, err := m.LogProbs([][]int32{seq}, nil)
		if err != nil {
			t.Fatal(err)
		}
		eff := temp
		if eff <= 0 {
			eff = 1
		}
		for pos := 1; pos < len(seq); pos++ {
			row := logits[(pos-1)*V : pos*V]
			mx := math.Inf(-1)
			for _, v := range row {
				mx = math.Max(mx, float64(v)/eff)
			}
			var s float64
			for _, v := range row {
				s += math.Exp(float64(v)/eff - mx)
			}
			want := float64(row[seq[pos]])/eff - mx - math.Log(s)
			if d := math.Abs(float64(lp[0][pos]) - want); d > 1e-5 {
				t.Errorf("temperature %g position %d: log-prob %v, want %v", temp, pos, lp[0][pos], want)
			}
			if temp > 0 {
				// The behaviour log-probability a rollout records for the
				// same token: find u that draws it.
				if _, l := sampleToken(row, float32(temp), seq[pos]); math.Abs(float64(l)-want) > 1e-5 {
					t.Errorf("temperature %g position %d: Sample records %v, want %v", temp, pos, l, want)
				}
			}
		}
	}
	if got := m.ScoringTemperature(); got != 2 {
		t.Errorf("ScoringTemperature() = %v, want 2", got)
	}
}

// sampleToken returns the log-probability SampleU records when it draws
// tok at temperature temp (top-p 1), scanning u over [0, 1).
func sampleToken(row []float32, temp float32, tok int32) (int32, float32) {
	for k := 0; k < 20000; k++ {
		got, l := SampleU(row, temp, 1, (float64(k)+0.5)/20000)
		if got == tok {
			return got, l
		}
	}
	return -1, float32(math.NaN())
}

// TestScoringTemperatureOnDevice: a device scores at temperature 1 only
// (the CUDA library's log-softmax takes no temperature), so a model set to
// score at another one is not attached, and an attached model refuses
// another scoring temperature; temperature 1 and greedy (0) pass both ways.
func TestScoringTemperatureOnDevice(t *testing.T) {
	cfg := testConfig(false)
	cases := []struct {
		temp   float64
		refuse bool
	}{{0.7, true}, {2, true}, {1, false}, {0, false}}
	for _, c := range cases {
		m := randomModel(t, cfg, 4)
		if err := m.SetScoringTemperature(c.temp); err != nil {
			t.Fatal(err)
		}
		acc, err := NewHostAccelerator(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Attach(acc); (err != nil) != c.refuse {
			t.Errorf("temperature %g, then Attach: %v; want refused %v", c.temp, err, c.refuse)
		}
		m = randomModel(t, cfg, 4)
		if acc, err = NewHostAccelerator(cfg); err != nil {
			t.Fatal(err)
		}
		if err := m.Attach(acc); err != nil {
			t.Fatal(err)
		}
		if err := m.SetScoringTemperature(c.temp); (err != nil) != c.refuse {
			t.Errorf("Attach, then temperature %g: %v; want refused %v", c.temp, err, c.refuse)
		}
	}
}
