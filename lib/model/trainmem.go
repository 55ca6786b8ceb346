package model

// TrainPlan is how an update is laid out on a device, for TrainMemory.
type TrainPlan struct {
	// LoRARank > 0 trains adapters of this rank on LoRATargets (nil: all
	// of LoRAModules) over a frozen BF16 base; 0 trains every weight.
	LoRARank    int
	LoRATargets []string
	// Recompute keeps each layer's input only (SetRecompute).
	Recompute bool
	// SeqTokens is the longest sequence of a step: sequences run one at a
	// time, so a step's activations are those of one sequence however
	// many sequences it holds.
	SeqTokens int
}

// TrainMemory is what an update of a model of configuration c holds on a
// device under plan p, in bytes (float64, so no size overflows):
//   - Model: full training keeps weights, gradients and both AdamW
//     moments in F32 and a BF16 copy of every linear weight, the
//     vocabulary projection included (16 bytes a parameter and 2 a linear
//     weight); under LoRA the frozen base is BF16 (2 bytes a parameter)
//     and the adapters alone keep F32 weights, gradients and moments and
//     a BF16 copy (18 bytes an adapter parameter); both hold the F32
//     rotary tables;
//   - Activations: per token of the sequence and layer, (4 hidden + 2 q +
//     2 kv + heads + 3 intermediate + 2) floats (docs/cuda.md), and under
//     Qwen3's head norms (QKNorm) q + kv + heads + kv heads more (q and k
//     before the norms and their 1/rms); with
//     recompute, the layer's input (hidden floats) per layer, and one
//     layer's full set at a time;
//   - Logits: the scored rows' logits and their gradient, 2 x tokens x
//     vocabulary floats.
type TrainMemory struct {
	Params, AdapterParams      float64
	Model, Activations, Logits float64
	Total                      float64
}

// LoRAParams is the number of adapter parameters of rank r on targets
// (nil: all of LoRAModules): r x (in + out) per targeted projection.
func (c Config) LoRAParams(r int, targets []string) float64 {
	if targets == nil {
		targets = LoRAModules
	}
	h, in := float64(c.HiddenSize), float64(c.IntermediateSize)
	q := float64(c.NumAttentionHeads) * float64(c.HeadDim())
	kv := float64(c.NumKeyValueHeads) * float64(c.HeadDim())
	shape := map[string]float64{"q_proj": h + q, "k_proj": h + kv, "v_proj": h + kv, "o_proj": q + h,
		"gate_proj": h + in, "up_proj": h + in, "down_proj": in + h}
	var n float64
	for _, t := range targets {
		n += shape[t]
	}
	return float64(r) * n * float64(c.NumHiddenLayers)
}

// PlanMemory computes TrainMemory for c under p.
func (c Config) PlanMemory(p TrainPlan) TrainMemory {
	h, in, v := float64(c.HiddenSize), float64(c.IntermediateSize), float64(c.VocabSize)
	q := float64(c.NumAttentionHeads) * float64(c.HeadDim())
	kv := float64(c.NumKeyValueHeads) * float64(c.HeadDim())
	layers := float64(c.NumHiddenLayers)
	var t TrainMemory
	t.Params = float64(c.NumParams())
	rope := c.MemoryBytes() - 4*t.Params
	if p.LoRARank > 0 {
		t.AdapterParams = c.LoRAParams(p.LoRARank, p.LoRATargets)
		t.Model = 2*t.Params + 18*t.AdapterParams + rope
	} else {
		linear := layers*(q*h+2*kv*h+h*q+3*h*in) + v*h
		t.Model = 16*t.Params + 2*linear + rope
	}
	T := float64(p.SeqTokens)
	floats := 4*h + 2*q + 2*kv + float64(c.NumAttentionHeads) + 3*in + 2
	if c.QKNorm() {
		floats += q + kv + float64(c.NumAttentionHeads) + float64(c.NumKeyValueHeads)
	}
	layer := 4 * floats * T
	if p.Recompute {
		t.Activations = 4*h*T*layers + layer
	} else {
		t.Activations = layer * layers
	}
	t.Logits = 2 * 4 * T * v
	t.Total = t.Model + t.Activations + t.Logits
	return t
}
