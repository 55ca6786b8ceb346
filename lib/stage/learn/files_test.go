package learn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
)

// TestWrittenFilesAreCheckpointFiles ties lib/output's list of a
// checkpoint's files (which decides whether a folder may be replaced) to
// what learn writes: a full checkpoint that carries every carried file,
// with its optimizer state and provenance, and a LoRA adapter checkpoint
// trained from it. Every file either holds is a checkpoint file, and each
// carried file and provenance.json is there.
func TestWrittenFilesAreCheckpointFiles(t *testing.T) {
	dir := t.TempDir()
	in, err := LoadInit("tiny", 1, AsInit)
	if err != nil {
		t.Fatal(err)
	}
	in.Files = map[string][]byte{}
	for _, name := range output.CarriedFiles {
		in.Files[name] = []byte("{}\n")
	}
	full := filepath.Join(dir, "full")
	opt := model.NewAdamW(in.Model, adamCfg(0))
	if err := finish(full, "", "", nil, nil, in, opt, map[string]string{}, 1, nil, Provenance{Stage: "learn sft", Parent: "tiny"}); err != nil {
		t.Fatal(err)
	}
	ad, err := loadInit(full, 1, AsInit, LoRAOptions{Rank: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := applyLoRA(ad, full, LoRAOptions{Rank: 2}, 1); err != nil {
		t.Fatal(err)
	}
	if ad.Model.Adapter() == nil {
		t.Fatal("no adapter added: the adapter checkpoint shows nothing")
	}
	adapter := filepath.Join(dir, "adapter")
	if err := finish(adapter, "", "", nil, nil, ad, model.NewAdamW(ad.Model, adamCfg(0)), map[string]string{}, 1, nil, Provenance{Stage: "learn sft", Parent: full}); err != nil {
		t.Fatal(err)
	}
	for _, folder := range []string{full, adapter} {
		ents, err := os.ReadDir(folder)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, e := range ents {
			have[e.Name()] = true
			if !output.IsCheckpointFile(e.Name()) {
				t.Errorf("%s: learn writes %s, which lib/output does not count as a checkpoint file (a rerun would refuse the folder)", filepath.Base(folder), e.Name())
			}
		}
		for _, name := range append([]string{ProvenanceFile}, output.CarriedFiles...) {
			if !have[name] {
				t.Errorf("%s: %s not written", filepath.Base(folder), name)
			}
		}
	}
}
