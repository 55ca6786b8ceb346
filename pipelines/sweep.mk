# The baselines and ablation sweep: every VARIANT for every seed, each in
# its own run folder runs/sweep/VARIANT-sSEED (keep reads the pats run: it
# trains identically and is evaluated with the scaffold), then
# runs/sweep/results.md, results.parquet (mean and spread over seeds) and
# runs.parquet (one row per run). Sizes pass through to every run:
#   make -j2 sweep VARIANTS="pats grpo" SEEDS="1 2 3" ITERS=3 TASKS=6
ALL_VARIANTS := pats grpo static frozen expand-only no-revise traj-cards warm-start keep decay skillgate broadcast
VARIANTS     ?= $(ALL_VARIANTS)
SEEDS        ?= 1 2 3
SWEEP        ?= $(RUNS)/sweep
sweep_run     = $(SWEEP)/$(if $(filter keep,$(1)),pats,$(1))-s$(2)
SWEEP_RUNS   := $(sort $(foreach v,$(VARIANTS),$(foreach s,$(SEEDS),$(call sweep_run,$(v),$(s)))))

.PHONY: sweep sweep-partial

sweep: $(SWEEP)/results.md
	@cat $<

# Each run is its own make; inside it pats.mk owns the run's files, so the
# wrapper rule exists only in the calling make.
define SWEEP_RUN
ifneq ($(R),$(SWEEP)/$(1)-s$(2))
$(SWEEP)/$(1)-s$(2)/summary.md: | $(PIPE_BINS)
	+$(MAKE) --no-print-directory pats VARIANT=$(1) SEED=$(2) RUN=$(patsubst $(RUNS)/%,%,$(SWEEP))/$(1)-s$(2)
endif
endef
$(foreach v,$(sort $(patsubst keep,pats,$(VARIANTS))),$(foreach s,$(SEEDS),$(eval $(call SWEEP_RUN,$(v),$(s)))))

$(SWEEP)/results.md $(SWEEP)/results.parquet $(SWEEP)/runs.parquet &: $(addsuffix /summary.md,$(SWEEP_RUNS))
	$(BIN)/report sweep --root $(SWEEP) --variants "$(VARIANTS)" --seeds "$(SEEDS)" -o $(SWEEP)/results.parquet --runs $(SWEEP)/runs.parquet > $(SWEEP)/results.md.tmp && mv $(SWEEP)/results.md.tmp $(SWEEP)/results.md

# The table of the runs finished so far (unfinished ones listed under it).
sweep-partial: | $(PIPE_BINS)
	@$(BIN)/report sweep --partial --root $(SWEEP) --variants "$(VARIANTS)" --seeds "$(SEEDS)"
