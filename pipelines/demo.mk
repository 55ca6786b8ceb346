# The demo: the PATS loop (pipelines/pats.mk) on household with the tiny
# model, against the same loop without a scaffold (VARIANT=grpo) on the same
# seed and budget; it ends by printing the evaluation table. Sized to finish
# within 20 minutes on 2 cores (docs/pipelines.md has the measured time).
# `make envs-demo` keeps the oracle/random tables of every environment.
DEMO       ?= $(RUNS)/demo
DEMO_NAME  := $(patsubst $(RUNS)/%,%,$(DEMO))
# Both runs start from one base policy (runs/demo/base: 3,500 oracle
# demonstrations, 6 SFT epochs from tiny); the pats run's warm-up then
# teaches the scaffold's format (256 demonstrations with B_0, 2 epochs),
# the grpo run starts GRPO from the base itself.
DEMO_SIZES ?= ITERS=4 TASKS=8 GROUP=8 BOOT_TASKS=24 EVAL_TASKS=32 SEED=1 BASE=$(DEMO_NAME)/base
DEMO_ENVS  := household household-rl household-drawn household-rl-large household-drawn-large household-drawn-places shop searchqa
# the base is built first, once, unless DEMO_SIZES is given without one
DEMO_BASE  := $(if $(findstring BASE=$(DEMO_NAME)/base,$(DEMO_SIZES)),$(DEMO)/base/ckpt/0/config.json)

# The shipped base's files: the checkpoint with its optimizer state (the
# grpo run continues the base's AdamW moments), and its SFT metrics (the
# grpo run's warm-up is a copy of the base's).
DEMO_BASE_SHIPPED ?= pipelines/bases/demo
DEMO_BASE_FILES   := config.json model.safetensors tokenizer.json optimizer.safetensors optimizer.json

.PHONY: demo envs-demo base-demo base-check

# The two runs go side by side: the demo makes its table with -j2 unless
# the caller already chose a parallelism with -j.
DEMO_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j2)

demo:
	+@$(MAKE) --no-print-directory $(DEMO_JOBS) $(DEMO)/table.md
	@echo
	@echo "demo: success with no scaffold (deployment) on household, tiny model"
	@cat $(DEMO)/table.md

# Each run is its own make (PIPE_SUB=1, its own variables); there pats.mk
# owns the run's files, so these wrappers exist only in the calling make.
ifeq ($(PIPE_SUB)$(filter $(DEMO)/pats,$(R)),)
$(DEMO)/pats/summary.md: $(DEMO_BASE) | $(PIPE_BINS)
	+$(MAKE) --no-print-directory pats PIPE_SUB=1 VARIANT=pats RUN=$(patsubst $(RUNS)/%,%,$(DEMO))/pats $(DEMO_SIZES)
endif
ifeq ($(PIPE_SUB)$(filter $(DEMO)/grpo,$(R)),)
$(DEMO)/grpo/summary.md: $(DEMO_BASE) | $(PIPE_BINS)
	+$(MAKE) --no-print-directory pats PIPE_SUB=1 VARIANT=grpo RUN=$(patsubst $(RUNS)/%,%,$(DEMO))/grpo $(DEMO_SIZES)
endif

# The base is shipped in the repository (DEMO_BASE_SHIPPED: the checkpoint
# and the SFT metrics that BASE_RULE's recipe wrote here, with the
# checkpoint's SHA256SUMS): the demo copies it instead of training it.
# DEMO_BASE_SHIPPED= trains it with the recipe instead.
ifeq ($(PIPE_SUB),)
ifneq ($(DEMO_BASE),)
ifneq ($(DEMO_BASE_SHIPPED),)
$(DEMO)/base/ckpt/0/config.json $(DEMO)/base/metrics/sft.parquet &: $(DEMO_BASE_SHIPPED)/SHA256SUMS $(DEMO_BASE_SHIPPED)/metrics/sft.parquet $(addprefix $(DEMO_BASE_SHIPPED)/ckpt/0/,$(DEMO_BASE_FILES))
	@mkdir -p $(DEMO)/base/ckpt $(DEMO)/base/metrics
	rm -rf $(DEMO)/base/ckpt/.0.tmp && cp -r $(DEMO_BASE_SHIPPED)/ckpt/0 $(DEMO)/base/ckpt/.0.tmp && rm -rf $(DEMO)/base/ckpt/0 && mv $(DEMO)/base/ckpt/.0.tmp $(DEMO)/base/ckpt/0
	cp $(DEMO_BASE_SHIPPED)/metrics/sft.parquet $(DEMO)/base/metrics/sft.parquet.tmp && mv $(DEMO)/base/metrics/sft.parquet.tmp $(DEMO)/base/metrics/sft.parquet
else
$(eval $(call BASE_RULE,$(DEMO_NAME)/base,grpo))
endif
endif
endif

# `make base-demo` trains the demo's base from scratch with BASE_RULE's
# recipe (in a fresh temporary RUNS, so nothing of runs/ is reused) and
# replaces the shipped files; `make base-check` trains it the same way and
# compares the checkpoint's bytes with the shipped SHA256SUMS (exit 1 on a
# difference). Both print the training's wall time.
base_build = t=$$(mktemp -d); s=$$(date +%s); \
	$(MAKE) --no-print-directory $$t/demo/base/ckpt/0/config.json RUNS=$$t DEMO=$$t/demo DEMO_BASE_SHIPPED=; \
	(cd $$t/demo/base/ckpt/0 && sha256sum $(DEMO_BASE_FILES)) > $$t/demo/base/SHA256SUMS; \
	echo "$@: trained in $$(( $$(date +%s) - s )) s wall into $$t/demo/base"

base-demo: | $(PIPE_BINS)
	@set -e; $(base_build); \
	mkdir -p $(DEMO_BASE_SHIPPED)/ckpt/0 $(DEMO_BASE_SHIPPED)/metrics; \
	cp $(addprefix $$t/demo/base/ckpt/0/,$(DEMO_BASE_FILES)) $(DEMO_BASE_SHIPPED)/ckpt/0/; \
	cp $$t/demo/base/metrics/sft.parquet $(DEMO_BASE_SHIPPED)/metrics/; \
	cp $$t/demo/base/SHA256SUMS $(DEMO_BASE_SHIPPED)/SHA256SUMS; \
	echo "$@: $(DEMO_BASE_SHIPPED) replaced:"; cat $(DEMO_BASE_SHIPPED)/SHA256SUMS; rm -rf $$t

base-check: | $(PIPE_BINS)
	@(cd $(DEMO_BASE_SHIPPED)/ckpt/0 && sha256sum --quiet -c ../../SHA256SUMS) || { echo "$@: the shipped files do not match $(DEMO_BASE_SHIPPED)/SHA256SUMS" >&2; exit 1; }
	@set -e; $(base_build); \
	if cmp -s $$t/demo/base/SHA256SUMS $(DEMO_BASE_SHIPPED)/SHA256SUMS; then \
	  echo "$@: byte-identical to $(DEMO_BASE_SHIPPED):"; cat $$t/demo/base/SHA256SUMS; rm -rf $$t; \
	else \
	  echo "$@: $$t/demo/base differs from $(DEMO_BASE_SHIPPED):" >&2; diff $(DEMO_BASE_SHIPPED)/SHA256SUMS $$t/demo/base/SHA256SUMS >&2; exit 1; \
	fi

$(DEMO)/table.md: $(DEMO)/pats/summary.md $(DEMO)/grpo/summary.md
	$(BIN)/report compare base=$(DEMO)/grpo@0 warm-up=$(DEMO)/pats@0 pats=$(DEMO)/pats \
	  grpo=$(DEMO)/grpo pats+scaffold=$(DEMO)/pats+scaffold > $@.tmp && mv $@.tmp $@

envs-demo: | $(PIPE_BINS)
	@mkdir -p $(DEMO)
	@for e in $(DEMO_ENVS); do \
	  for p in oracle random; do \
	    $(BIN)/rollout --env $$e --split valid_seen --tasks 40 --group 2 --policy $$p --seed 1 --run demo -o $(DEMO)/$$e-$$p.parquet || exit 1; \
	    $(BIN)/evaluate $(DEMO)/$$e-$$p.parquet || exit 1; echo; \
	  done; \
	done
