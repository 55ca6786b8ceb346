#!/usr/bin/env python3
"""hf-logits.py DIR: check pats's logits against Hugging Face transformers.

DIR holds one folder per checkpoint, as the parity suite's
TestParityHFExport writes them under $PATS_GPU_SCRATCH/hf/ (the GPU
check's scratch folder: the checkpoints are too large for its output):

  NAME/ckpt/            a checkpoint folder written by pats (config.json,
                        model.safetensors, ...)
  NAME/logits.f32       our logits on the device for meta.json's tokens
                        (tokens x vocab, little-endian float32)
  NAME/logits_cpu.f32   the same on the CPU backend
  NAME/meta.json        tokens, vocab, tolerance_float32, tolerance_bfloat16

Each checkpoint is loaded with transformers' AutoModelForCausalLM (the
architecture its config.json names: Qwen2ForCausalLM or Qwen3ForCausalLM) in float32
and in bfloat16; the error is max|ours - theirs| / max|theirs| over all
positions and the whole vocabulary, held to the tolerance meta.json states
(the parity suite explains how it was chosen). One line per comparison,
then a one-line verdict; the exit status is 1 when any comparison fails.

numpy, torch and transformers are imported only when needed: where one is
missing the script prints one line, "hf-logits: SKIP: ...", and exits 3
(scripts/gpu-check.sh records the step as skipped). transformers 5 names
the weights' type dtype= (torch_dtype= is its old name, kept here only
for transformers 4).
"""

import importlib
import json
import os
import sys

SKIP = 3


def need(name):
    """Imports a module or exits with one SKIP line."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        print(f"hf-logits: SKIP: the Python package {name} is not installed ({e})")
        sys.exit(SKIP)


def load_model(ckpt, dtype):
    """The checkpoint's causal LM in dtype, with transformers 5's dtype= (4's torch_dtype= as a fallback)."""
    transformers = need("transformers")
    cls = transformers.AutoModelForCausalLM
    major = int(str(getattr(transformers, "__version__", "5")).split(".")[0] or 5)
    if major >= 5:
        return cls.from_pretrained(ckpt, dtype=dtype)
    return cls.from_pretrained(ckpt, torch_dtype=dtype)


def their_logits(ckpt, tokens, dtype, device):
    torch = need("torch")
    model = load_model(ckpt, dtype).to(device)
    model.eval()
    with torch.no_grad():
        ids = torch.tensor([tokens], dtype=torch.long, device=device)
        out = model(input_ids=ids).logits[0].float().cpu().numpy()
    del model
    if device == "cuda":
        torch.cuda.empty_cache()
    return out


def rel_error(ours, theirs):
    np = need("numpy")
    scale = float(np.max(np.abs(theirs))) or 1.0
    return float(np.max(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)))) / scale


def main():
    if len(sys.argv) != 2:
        print("usage: hf-logits.py DIR", file=sys.stderr)
        return 2
    root = sys.argv[1]
    np = need("numpy")
    torch = need("torch")
    need("transformers")
    if not os.path.isdir(root):
        print(f"hf-logits: FAIL: {root} is not a folder (the parity suite's TestParityHFExport writes it)")
        return 1
    names = sorted(n for n in os.listdir(root) if os.path.isfile(os.path.join(root, n, "meta.json")))
    if not names:
        print(f"hf-logits: FAIL: no checkpoints with meta.json under {root}")
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = "cuda" if torch.cuda.is_available() else "cpu"
    failed, summary = [], []
    for name in names:
        base = os.path.join(root, name)
        with open(os.path.join(base, "meta.json")) as f:
            meta = json.load(f)
        tokens, vocab = meta["tokens"], meta["vocab"]
        shape = (len(tokens), vocab)
        ours = np.fromfile(os.path.join(base, "logits.f32"), dtype="<f4").reshape(shape)
        cpu = np.fromfile(os.path.join(base, "logits_cpu.f32"), dtype="<f4").reshape(shape)
        for dtype, key in ((torch.float32, "tolerance_float32"), (torch.bfloat16, "tolerance_bfloat16")):
            theirs = their_logits(os.path.join(base, "ckpt"), tokens, dtype, device)
            if theirs.shape != shape:
                print(f"{name} {dtype}: transformers gave logits of shape {theirs.shape}, ours are {shape}")
                failed.append(f"{name} {dtype}")
                continue
            tol = meta[key]
            err, err_cpu = rel_error(ours, theirs), rel_error(cpu, theirs)
            same_argmax = float(np.mean(np.argmax(ours, axis=1) == np.argmax(theirs, axis=1)))
            ok = err <= tol
            label = str(dtype).replace("torch.", "")
            print(f"{name} {label}: device {err:.3g}, cpu {err_cpu:.3g} (tolerance {tol:.3g}), "
                  f"same argmax at {same_argmax:.0%} of {len(tokens)} positions: {'ok' if ok else 'FAIL'}")
            summary.append(f"{name}/{label} {err:.2g}")
            if not ok:
                failed.append(f"{name} {label}")
    if failed:
        print(f"hf-logits: FAIL: {', '.join(failed)} beyond tolerance ({'; '.join(summary)})")
        return 1
    print(f"hf-logits: PASS: transformers' logits match ours on {len(names)} checkpoints ({'; '.join(summary)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
