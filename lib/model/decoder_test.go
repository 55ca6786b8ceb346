package model

import (
	"math"
	"testing"
)

func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// TestDecoderMatchesForward: the logits of a full forward equal those of
// the KV-cache decoder fed in chunks of various sizes, within 1e-5.
func TestDecoderMatchesForward(t *testing.T) {
	for _, tied := range []bool{true, false} {
		cfg := testConfig(tied)
		m := randomModel(t, cfg, 21)
		seq := randomSeqs(4, cfg.VocabSize, 13)[0]
		full, err := m.Logits(seq)
		if err != nil {
			t.Fatal(err)
		}
		V := cfg.VocabSize
		for _, chunks := range [][]int{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {5, 1, 1, 6}, {13}, {2, 11}} {
			d := m.NewDecoder()
			pos := 0
			for _, n := range chunks {
				logits, err := d.Append(seq[pos : pos+n])
				if err != nil {
					t.Fatal(err)
				}
				pos += n
				if diff := maxAbsDiff(logits, full[(pos-1)*V:pos*V]); diff > 1e-5 {
					t.Errorf("tied=%v chunks %v: position %d differs by %g", tied, chunks, pos-1, diff)
				}
			}
			if d.Len() != len(seq) {
				t.Errorf("decoder length %d, want %d", d.Len(), len(seq))
			}
		}
	}
}

// TestDecoderClone: continuing a clone of a prefix equals decoding the
// whole sequence afresh, and the original is not disturbed by the clone.
func TestDecoderClone(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 8)
	seqs := randomSeqs(2, cfg.VocabSize, 10, 10)
	prefix := seqs[0][:6]
	base := m.NewDecoder()
	if _, err := base.Append(prefix); err != nil {
		t.Fatal(err)
	}
	for _, cont := range [][]int32{seqs[0][6:], seqs[1][6:]} {
		c := base.Clone()
		fresh := m.NewDecoder()
		if _, err := fresh.Append(prefix); err != nil {
			t.Fatal(err)
		}
		for _, tok := range cont {
			a, err := c.Append([]int32{tok})
			if err != nil {
				t.Fatal(err)
			}
			b, err := fresh.Append([]int32{tok})
			if err != nil {
				t.Fatal(err)
			}
			if diff := maxAbsDiff(a, b); diff != 0 {
				t.Fatalf("clone differs from fresh decoding by %g", diff)
			}
		}
	}
	if base.Len() != len(prefix) {
		t.Errorf("base decoder grew to %d after clones", base.Len())
	}
}

func TestDecoderErrors(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 1)
	d := m.NewDecoder()
	for name, toks := range map[string][]int32{"empty": {}, "negative": {-1}, "too large": {int32(cfg.VocabSize)}, "too long": make([]int32, cfg.MaxPositionEmbeddings+1)} {
		if _, err := d.Append(toks); err == nil {
			t.Errorf("%s: no error", name)
		}
		if d.Len() != 0 {
			t.Errorf("%s: decoder changed", name)
		}
	}
	if _, _, err := m.LogProbs([][]int32{{1, 99}}, nil); err == nil {
		t.Error("LogProbs accepted an out-of-range token")
	}
}

// TestLogProbsMask: masked log-probs equal the unmasked ones (to rounding) at selected
// positions, are zero elsewhere, and agree with a log-softmax of Logits.
func TestLogProbsMask(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 2)
	seqs := randomSeqs(3, cfg.VocabSize, 9, 1, 5)
	all, ent, err := m.LogProbs(seqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	masks := [][]bool{{false, true, false, false, true, true, false, false, true}, nil, {false, false, false, false, false}}
	part, _, err := m.LogProbs(seqs, masks)
	if err != nil {
		t.Fatal(err)
	}
	V := cfg.VocabSize
	for i, seq := range seqs {
		logits, _ := m.Logits(seq)
		for j := range seq {
			sel := j > 0 && (masks[i] == nil || masks[i][j])
			if !sel && part[i][j] != 0 {
				t.Errorf("seq %d pos %d: unselected log-prob %g", i, j, part[i][j])
			}
			// The matrix product takes a direct path for one to four rows,
			// so scoring fewer rows may round differently in the last bits.
			if sel && math.Abs(float64(part[i][j]-all[i][j])) > 1e-5 {
				t.Errorf("seq %d pos %d: masked %g vs full %g", i, j, part[i][j], all[i][j])
			}
			if j == 0 {
				continue
			}
			row := logits[(j-1)*V : j*V]
			_, lse := logSumExp(row)
			if d := math.Abs(float64(row[seq[j]] - lse - all[i][j])); d > 1e-5 {
				t.Errorf("seq %d pos %d: log-prob off by %g", i, j, d)
			}
			var h float64
			for _, v := range row {
				h -= math.Exp(float64(v-lse)) * float64(v-lse)
			}
			if d := math.Abs(h - float64(ent[i][j])); d > 1e-4 || ent[i][j] <= 0 {
				t.Errorf("seq %d pos %d: entropy %g, want %g", i, j, ent[i][j], h)
			}
		}
	}
}
