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
DEMO_ENVS  := household shop searchqa
# the base is built first, once, unless DEMO_SIZES is given without one
DEMO_BASE  := $(if $(findstring BASE=$(DEMO_NAME)/base,$(DEMO_SIZES)),$(DEMO)/base/ckpt/0/config.json)

.PHONY: demo envs-demo

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

ifeq ($(PIPE_SUB),)
ifneq ($(DEMO_BASE),)
$(eval $(call BASE_RULE,$(DEMO_NAME)/base,grpo))
endif
endif

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
