package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// Tensor is one parameter: its Hugging Face name, shape, values W and
// gradient G (nil until gradients are first needed).
type Tensor struct {
	Name  string
	Shape []int
	W     []float32
	G     []float32
	// Decay says whether AdamW applies weight decay (matrices yes; norm
	// weights and biases no).
	Decay bool
}

// Layer holds the parameters of one decoder layer. Linear weights are
// stored as Hugging Face stores them: [out, in], row-major.
type Layer struct {
	InputNorm *Tensor // [hidden]
	Q, K, V   *Tensor // [qdim|kvdim, hidden]
	QB, KB    *Tensor // [qdim], [kvdim]; nil for Qwen3
	VB        *Tensor // [kvdim]; nil for Qwen3
	O         *Tensor // [hidden, qdim]
	PostNorm  *Tensor // [hidden]
	Gate, Up  *Tensor // [intermediate, hidden]
	Down      *Tensor // [hidden, intermediate]

	// QNorm and KNorm are Qwen3's RMSNorm weights of each query and key
	// head ([head dim]), applied before RoPE; nil for Qwen2.
	QNorm, KNorm *Tensor
}

// Model is a Qwen2 or Qwen3 decoder with its parameters and gradients.
//
// LogProbs, Logits and decoders only read the parameters and may run
// concurrently with each other; Backward, ForwardBackward, ZeroGrad and
// optimizer steps write and must not overlap with anything else.
type Model struct {
	Cfg    Config
	Embed  *Tensor // [vocab, hidden]
	Layers []Layer
	Norm   *Tensor // [hidden]
	// LMHead is [vocab, hidden]; with tied embeddings it is Embed.
	LMHead *Tensor
	be     Backend
	params []*Tensor
	cos    []float32 // [max positions][head dim / 2]
	sin    []float32
	acc    Accelerator     // the device copy, when attached (accel.go)
	ctx    context.Context // stops the sequence loops when cancelled (SetContext); nil: never
	accErr error           // the first device error of a method returning none
	decCap int             // device decoders' capacity (SetDecoderCapacity)
	// invTemp scales the logits LogProbs, ForwardBackward and
	// ForwardBackwardPrefix score (SetScoringTemperature); 0 is 1.
	invTemp float32
	// issue 60: lora is the attached LoRA adapter (lora.go), nil without;
	// recompute keeps only each layer's input for the backward
	// (SetRecompute, recompute.go).
	lora      *Adapter
	recompute bool
	accLoRAOn bool // whether the accelerator's adapter is on (accPrepare)
}

// SetScoringTemperature makes LogProbs, ForwardBackward and
// ForwardBackwardPrefix score log softmax(logits / t) over the whole
// vocabulary, with the gradient of that, as a rollout sampled at
// temperature t records its behaviour log-probabilities (model.Sample).
// t <= 0 (greedy) and t == 1 score the logits as they are. Logits and the
// decoders are not affected. An accelerator does not implement a
// temperature: with one attached, any t other than 1 (or <= 0) is an
// error.
func (m *Model) SetScoringTemperature(t float64) error {
	if t <= 0 || t == 1 {
		m.invTemp = 0
		return nil
	}
	if m.acc != nil {
		return fmt.Errorf("scoring at temperature %g is not implemented on %s (only temperature 1 is)", t, m.acc.Name())
	}
	m.invTemp = float32(1 / t)
	return nil
}

// ScoringTemperature is the temperature SetScoringTemperature set (1 by
// default).
func (m *Model) ScoringTemperature() float64 {
	if m.invTemp == 0 {
		return 1
	}
	return 1 / float64(m.invTemp)
}

func newTensor(name string, decay bool, shape ...int) *Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return &Tensor{Name: name, Shape: shape, W: make([]float32, n), Decay: decay}
}

// alloc builds a model with zeroed parameters.
func alloc(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.checkMemory(); err != nil {
		return nil, err
	}
	h, q, kv, in, v := cfg.HiddenSize, cfg.QDim(), cfg.KVDim(), cfg.IntermediateSize, cfg.VocabSize
	m := &Model{Cfg: cfg, be: CPU{}}
	add := func(t *Tensor) *Tensor { m.params = append(m.params, t); return t }
	m.Embed = add(newTensor("model.embed_tokens.weight", true, v, h))
	for l := 0; l < cfg.NumHiddenLayers; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		var L Layer
		L.InputNorm = add(newTensor(p+"input_layernorm.weight", false, h))
		// Qwen2: q, q bias, k, k bias, v, v bias. Qwen3 (issue 60): q,
		// q_norm, k, k_norm, v, in the slots of the biases it lacks.
		hd := cfg.HeadDim()
		L.Q = add(newTensor(p+"self_attn.q_proj.weight", true, q, h))
		if cfg.QKVBias() {
			L.QB = add(newTensor(p+"self_attn.q_proj.bias", false, q))
		}
		if cfg.QKNorm() {
			L.QNorm = add(newTensor(p+"self_attn.q_norm.weight", false, hd))
		}
		L.K = add(newTensor(p+"self_attn.k_proj.weight", true, kv, h))
		if cfg.QKVBias() {
			L.KB = add(newTensor(p+"self_attn.k_proj.bias", false, kv))
		}
		if cfg.QKNorm() {
			L.KNorm = add(newTensor(p+"self_attn.k_norm.weight", false, hd))
		}
		L.V = add(newTensor(p+"self_attn.v_proj.weight", true, kv, h))
		if cfg.QKVBias() {
			L.VB = add(newTensor(p+"self_attn.v_proj.bias", false, kv))
		}
		L.O = add(newTensor(p+"self_attn.o_proj.weight", true, h, q))
		L.PostNorm = add(newTensor(p+"post_attention_layernorm.weight", false, h))
		L.Gate = add(newTensor(p+"mlp.gate_proj.weight", true, in, h))
		L.Up = add(newTensor(p+"mlp.up_proj.weight", true, in, h))
		L.Down = add(newTensor(p+"mlp.down_proj.weight", true, h, in))
		m.Layers = append(m.Layers, L)
	}
	m.Norm = add(newTensor("model.norm.weight", false, h))
	if cfg.TieWordEmbeddings {
		m.LMHead = m.Embed
	} else {
		m.LMHead = add(newTensor("lm_head.weight", true, v, h))
	}
	m.ropeTables()
	return m, nil
}

// ropeTables fills cos/sin for every position below MaxPositionEmbeddings:
// angle(p, i) = p * theta^(-2i/headDim), computed in float64.
func (m *Model) ropeTables() {
	hd := m.Cfg.HeadDim()
	half := hd / 2
	n := m.Cfg.MaxPositionEmbeddings
	m.cos = make([]float32, n*half)
	m.sin = make([]float32, n*half)
	for i := 0; i < half; i++ {
		f := math.Pow(m.Cfg.RopeTheta, -float64(2*i)/float64(hd))
		for p := 0; p < n; p++ {
			s, c := math.Sincos(float64(p) * f)
			m.cos[p*half+i] = float32(c)
			m.sin[p*half+i] = float32(s)
		}
	}
}

// New builds a model with freshly initialised parameters: matrices from
// N(0, initializer_range^2) (0.02 when unset), norm weights 1, biases 0,
// drawn from a PCG generator seeded with seed in parameter order.
func New(cfg Config, seed uint64) (*Model, error) {
	m, err := alloc(cfg)
	if err != nil {
		return nil, err
	}
	std := cfg.InitializerRange
	if std <= 0 {
		std = 0.02
	}
	rng := rand.New(rand.NewPCG(seed, 0x9a75))
	for _, t := range m.params {
		switch {
		case len(t.Shape) == 2:
			for i := range t.W {
				t.W[i] = float32(rng.NormFloat64() * std)
			}
		case isNorm(t.Name):
			for i := range t.W {
				t.W[i] = 1
			}
		}
	}
	return m, nil
}

func isNorm(name string) bool {
	n := len(name)
	return n > len("norm.weight") && name[n-len("norm.weight"):] == "norm.weight"
}

// Backend returns the numeric backend in use.
func (m *Model) Backend() Backend { return m.be }

// Params lists the parameter tensors in a fixed order (the Hugging Face
// names of model.safetensors); a tied lm_head is not listed twice.
func (m *Model) Params() []*Tensor { return m.params }

// NumParams counts the parameters (a tied lm_head once).
func (m *Model) NumParams() int {
	n := 0
	for _, t := range m.params {
		n += len(t.W)
	}
	return n
}

// ZeroGrad clears (allocating if needed) the gradient of every trained
// tensor (Trainable).
func (m *Model) ZeroGrad() {
	if m.acc != nil {
		if err := m.acc.ZeroGrad(); err != nil {
			m.fail(err)
		}
		return
	}
	for _, t := range m.Trainable() {
		if t.G == nil {
			t.G = make([]float32, len(t.W))
		} else {
			clear(t.G)
		}
	}
}

func (m *Model) ensureGrad() {
	for _, t := range m.Trainable() {
		if t.G == nil {
			t.G = make([]float32, len(t.W))
		}
	}
}

// GradNorm is the global L2 norm of the trained tensors' gradients
// (summed in float64 in Trainable order).
func (m *Model) GradNorm() float64 {
	if m.acc != nil {
		return m.accGradNorm(0)
	}
	var s float64
	for _, t := range m.Trainable() {
		for _, g := range t.G {
			s += float64(g) * float64(g)
		}
	}
	return math.Sqrt(s)
}

// ClipGradNorm scales all gradients so their global norm is at most
// maxNorm (no-op when maxNorm <= 0 or the norm is already within) and
// returns the norm before clipping.
func (m *Model) ClipGradNorm(maxNorm float64) float64 {
	if m.acc != nil {
		return m.accGradNorm(maxNorm)
	}
	n := m.GradNorm()
	if maxNorm > 0 && n > maxNorm {
		c := float32(maxNorm / (n + 1e-6))
		for _, t := range m.Trainable() {
			for i := range t.G {
				t.G[i] *= c
			}
		}
	}
	return n
}

// checkSeq reports a token sequence the model cannot score.
func (m *Model) checkSeq(seq []int32) error {
	if len(seq) > m.Cfg.MaxPositionEmbeddings {
		return fmt.Errorf("sequence of %d tokens exceeds max_position_embeddings %d", len(seq), m.Cfg.MaxPositionEmbeddings)
	}
	for i, t := range seq {
		if t < 0 || int(t) >= m.Cfg.VocabSize {
			return fmt.Errorf("token %d at position %d outside vocabulary of %d", t, i, m.Cfg.VocabSize)
		}
	}
	return nil
}
