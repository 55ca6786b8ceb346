package learn

import (
	"encoding/json"
	"fmt"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/model/safetensors"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/table"
)

// ProvenanceFile is the file of a checkpoint folder that says how it was
// made (Provenance).
const ProvenanceFile = "provenance.json"

// Provenance is what a checkpoint folder's provenance.json records: the
// command that wrote it, the content hashes of its inputs, the checkpoint
// it was trained from and the toolkit, time and host (as every output
// file's metadata, table.Stamp). It is written fresh with every
// checkpoint, never carried over.
type Provenance struct {
	Stage      string            `json:"stage"`                 // learn sft or learn grpo
	Command    string            `json:"command"`               // the command line, shell-quoted
	Seed       int64             `json:"seed"`                  // its seed
	Parent     string            `json:"parent"`                // --init: the checkpoint trained from, or tiny/small for a fresh model
	ParentHash string            `json:"parent_hash,omitempty"` // the content hash of the parent's weights
	Ref        string            `json:"ref,omitempty"`         // learn grpo's --ref
	Base       string            `json:"base,omitempty"`        // an adapter checkpoint's base folder (LoRA)
	BaseHash   string            `json:"base_hash,omitempty"`   // and the content hash of its weights
	Inputs     map[string]string `json:"inputs"`                // input path -> content hash (table.HashFile)
	Toolkit    string            `json:"toolkit_version,omitempty"`
	Commit     string            `json:"toolkit_commit,omitempty"`
	Time       string            `json:"time,omitempty"`
	Host       string            `json:"host,omitempty"`
}

// finish writes the checkpoint, the metrics and the advantages as one
// unit (lib/output): all complete in temporaries first, then renamed into
// place, the checkpoint first; on any error none of them is written.
func finish(out, metricsPath, advPath string, metrics []table.TrainMetrics, adv []table.TokenAdvantages,
	in *Init, opt *model.AdamW, inputs map[string]string, seed int64, extra map[string]string, prov Provenance) error {
	return finishAs(out, metricsPath, advPath, metrics, adv, in, opt, inputs, seed, extra, prov, "")
}

// finishDType writes a checkpoint alone (no optimizer, metrics or
// advantages) with weights in dtype: learn merge's output.
func finishDType(out string, in *Init, prov Provenance, dtype safetensors.DType) error {
	inputs := map[string]string{prov.Parent: prov.ParentHash}
	return finishAs(out, "", "", nil, nil, in, nil, inputs, 0, nil, prov, dtype)
}

// finishAs is finish with the weights' dtype ("" is F32).
func finishAs(out, metricsPath, advPath string, metrics []table.TrainMetrics, adv []table.TokenAdvantages,
	in *Init, opt *model.AdamW, inputs map[string]string, seed int64, extra map[string]string, prov Provenance, dtype safetensors.DType) error {
	meta := func() table.Meta {
		return table.Meta{Command: table.CommandLine(), Seed: seed, Inputs: inputs, Extra: extra}
	}
	var u output.Unit
	defer u.Abort()
	files := map[string][]byte{}
	for k, v := range in.Files {
		files[k] = v
	}
	prov.Command, prov.Seed, prov.Inputs = table.CommandLine(), seed, inputs
	if s := table.CurrentStamp(); s != nil {
		prov.Toolkit, prov.Commit, prov.Time, prov.Host = s.Version, s.Commit, s.Time, s.Host
	}
	b, err := json.MarshalIndent(prov, "", "  ")
	if err != nil {
		return err
	}
	files[ProvenanceFile] = append(b, '\n')
	if err := in.Model.StageSave(&u, out, in.TokJSON, model.SaveOptions{Optimizer: opt, Files: files, DType: dtype}); err != nil {
		return err
	}
	if metricsPath != "" {
		if err := table.Stage(&u, metricsPath, metrics, meta()); err != nil {
			return fmt.Errorf("write %s: %w", metricsPath, err)
		}
	}
	if advPath != "" {
		if err := table.Stage(&u, advPath, adv, meta()); err != nil {
			return fmt.Errorf("write %s: %w", advPath, err)
		}
	}
	return u.Commit()
}
