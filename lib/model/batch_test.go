package model

import "testing"

// TestAppendBatchMatchesAppend: decoding several sequences in one batch,
// with ragged chunks and different cache lengths, gives the logits of
// decoding each alone (within 1e-5), and leaves the caches in the same
// state.
func TestAppendBatchMatchesAppend(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 5)
	seqs := randomSeqs(9, cfg.VocabSize, 7, 3, 12)
	// Each decoder starts from a different prefix length.
	alone := make([]*Decoder, len(seqs))
	batch := make([]*Decoder, len(seqs))
	for i, s := range seqs {
		alone[i], batch[i] = m.NewDecoder(), m.NewDecoder()
		for _, d := range []*Decoder{alone[i], batch[i]} {
			if _, err := d.Append(s[:i+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := [][][]int32{
		{seqs[0][1:3], seqs[1][2:3], seqs[2][3:8]},
		{seqs[0][3:4], {seqs[1][0]}, seqs[2][8:9]},
	}
	for si, chunks := range steps {
		got, err := m.AppendBatch(batch, chunks)
		if err != nil {
			t.Fatal(err)
		}
		for i := range chunks {
			want, err := alone[i].Append(chunks[i])
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(want, got[i]); d > 1e-5 {
				t.Errorf("step %d decoder %d: batched logits differ by %g", si, i, d)
			}
			if alone[i].Len() != batch[i].Len() {
				t.Errorf("step %d decoder %d: cache %d, want %d", si, i, batch[i].Len(), alone[i].Len())
			}
		}
	}
	if _, err := m.AppendBatch([]*Decoder{batch[0], batch[0]}, [][]int32{{1}, {2}}); err == nil {
		t.Error("a decoder twice in one batch: no error")
	}
	n := batch[1].Len()
	if _, err := m.AppendBatch([]*Decoder{batch[1], batch[2]}, [][]int32{{1}, {}}); err == nil || batch[1].Len() != n {
		t.Error("an empty chunk: no error, or a cache changed")
	}
}
