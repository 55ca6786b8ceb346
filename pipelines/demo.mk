# The demo: the PATS loop (pipelines/pats.mk) against the same loop
# without a scaffold (VARIANT=grpo) on the same seed and budget, in the
# configuration of the headline results (docs/results.md, "The sweep:
# design and sizes"): household-rl, the tiny model, the PATS sweep's base
# (recipe 14 with seed 1 and one epoch, shipped in pipelines/bases/reading-e1
# and copied, not trained) and its context (the two-turn window and the
# admissible actions at the place on every rollout and evaluation), the
# sweep's iteration (8 tasks x 8 episodes) and interface warm-up (256
# household-drawn demonstrations, 2 epochs); only shorter: DEMO_SIZES's
# iterations and evaluation tasks, one seed. Sized to finish in about 4
# minutes on 2 idle cores (docs/pipelines.md has the estimate); it ends
# by printing the evaluation table, labelled as the short run it is.
# `make envs-demo` keeps the oracle/random tables of every environment.
DEMO       ?= $(RUNS)/demo
DEMO_NAME  := $(patsubst $(RUNS)/%,%,$(DEMO))
# The shipped base the demo copies into DEMO/base (empty: train it with
# the sweep base's recipe, about 30 minutes on 2 cores).
DEMO_SHIPPED ?= $(READING_E1_SHIPPED)
# Both runs start from DEMO/base as the reading base of their sub-make
# (READING_BASE: its context, and the pats run's warm-up in the base's
# pretraining world), with the sweep base's recipe variables for a rebuild.
# The mechanism audits (pats.mk MECHANISM) are off here; the pats run still
# plays each iteration's groups bare (its absorption signal, one rollout per
# iteration); `make demo DEMO_MECHANISM=1` adds the audits
# (RUNS/demo/pats/summary.md then has the lift and item-truth tables).
DEMO_MECHANISM ?= 0
DEMO_SIZES ?= ENV=household-rl ITERS=3 TASKS=8 GROUP=8 BOOT_TASKS=24 EVAL_TASKS=32 SEED=1 BASE=$(DEMO_NAME)/base \
              READING_BASE=$(DEMO)/base READING_SHIPPED=$(DEMO_SHIPPED) READING_SEED=1 READING_EPOCHS=1 MECHANISM=$(DEMO_MECHANISM)
DEMO_ENVS  := household household-rl household-drawn household-rl-large household-drawn-large household-drawn-places shop searchqa
# the base is made first, once, unless DEMO_SIZES is given without one
DEMO_BASE  := $(if $(findstring BASE=$(DEMO_NAME)/base,$(DEMO_SIZES)),$(DEMO)/base/ckpt/0/config.json)
# what the table's label says of the sizes
demo_size   = $(patsubst $(1)=%,%,$(filter $(1)=%,$(DEMO_SIZES)))

.PHONY: demo envs-demo base-demo base-check

# The two runs go side by side: the demo makes its table with -j2 unless
# the caller already chose a parallelism with -j.
DEMO_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j2)

demo:
	+@$(MAKE) --no-print-directory $(DEMO_JOBS) $(DEMO)/table.md
	@echo
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

# The base, once, before the two runs: the reading base's rule of a sub-make
# with DEMO_SIZES (pipelines/reading.mk) copies DEMO_SHIPPED (a copy whose
# bytes already match is left as it is) or, with DEMO_SHIPPED empty, trains it.
ifeq ($(PIPE_SUB),)
ifneq ($(DEMO_BASE),)
$(DEMO_BASE): $(if $(DEMO_SHIPPED),$(DEMO_SHIPPED)/SHA256SUMS $(DEMO_SHIPPED)/metrics/sft.parquet $(addprefix $(DEMO_SHIPPED)/ckpt/0/,$(READING_FILES))) | $(PIPE_BINS)
	+$(MAKE) --no-print-directory $@ PIPE_SUB=1 $(DEMO_SIZES)
endif
endif

# The household base (pipelines/bases/demo, the base of the earlier demo
# on household: BASE_RULE's recipe, 3,500 oracle demonstrations, 6 SFT
# epochs from tiny) stays shipped as a check that training is
# deterministic: `make base-demo` trains it from scratch (in a fresh
# temporary RUNS, so nothing of runs/ is reused) and replaces the shipped
# files; `make base-check` trains it the same way and compares the
# checkpoint's bytes with the shipped SHA256SUMS (exit 1 on a difference).
# Both print the training's wall time.
DEMO_BASE_SHIPPED ?= pipelines/bases/demo
DEMO_BASE_FILES   := config.json model.safetensors tokenizer.json optimizer.safetensors optimizer.json
base_build = t=$$(mktemp -d); s=$$(date +%s); \
	$(MAKE) --no-print-directory warmup PIPE_SUB=1 RUNS=$$t WARMUP= BASE= BASE_SKILLS= DEMO_TASKS=$(BASE_TASKS) \
	  SFT_EPOCHS=$(BASE_EPOCHS) SFT_LR=$(BASE_LR) VARIANT=grpo SEED=$(BASE_SEED) RUN=demo/base; \
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

# The table, under a label that says what it is: a short run of the
# sweep's configuration, not the sweep's result.
$(DEMO)/table.md: $(DEMO)/pats/summary.md $(DEMO)/grpo/summary.md
	{ echo "demo: a short run ($(call demo_size,ITERS) iterations of $(call demo_size,TASKS) tasks x $(call demo_size,GROUP) episodes, $(call demo_size,EVAL_TASKS) evaluation tasks per split, seed $(call demo_size,SEED)) of the PATS sweep's configuration"; \
	  echo "(household-rl, tiny model, the sweep's base $(or $(DEMO_SHIPPED),trained with its recipe) and context); not the sweep's result, which is in docs/results.md."; \
	  echo "Success per split; context: no scaffold (deployment) or the pats run's scaffold kept."; \
	  $(BIN)/report compare base=$(DEMO)/grpo@0 warm-up=$(DEMO)/pats@0 pats=$(DEMO)/pats \
	    grpo=$(DEMO)/grpo pats+scaffold=$(DEMO)/pats+scaffold; } > $@.tmp && mv $@.tmp $@

envs-demo: | $(PIPE_BINS)
	@mkdir -p $(DEMO)
	@for e in $(DEMO_ENVS); do \
	  for p in oracle random; do \
	    $(BIN)/rollout --env $$e --split valid_seen --tasks 40 --group 2 --policy $$p --seed 1 --run demo -o $(DEMO)/$$e-$$p.parquet || exit 1; \
	    $(BIN)/evaluate $(DEMO)/$$e-$$p.parquet || exit 1; echo; \
	  done; \
	done
