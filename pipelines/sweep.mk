# The baselines and ablation sweep: every VARIANT for every seed, each in
# its own run folder runs/sweep/VARIANT-sSEED (keep reads the pats run: it
# trains identically and is evaluated with the scaffold), then
# runs/sweep/results.md, results.parquet (mean and spread over seeds) and
# runs.parquet (one row per run). Sizes pass through to every run:
#   make -j2 sweep VARIANTS="pats grpo" SEEDS="1 2 3" ITERS=3 TASKS=6
ALL_VARIANTS := pats grpo gigpo static frozen expand-only no-revise traj-cards warm-start keep decay skillgate broadcast
VARIANTS     ?= $(ALL_VARIANTS)
SEEDS        ?= 1 2 3
SWEEP        ?= $(RUNS)/sweep
sweep_run     = $(SWEEP)/$(if $(filter keep,$(1)),pats,$(1))-s$(2)
# Seed-major order: with a sweep cut short, every variant has its first seeds.
SWEEP_RUNS   := $(foreach s,$(SEEDS),$(foreach v,$(VARIANTS),$(call sweep_run,$(v),$(s))))

.PHONY: sweep sweep-partial

sweep: $(SWEEP)/results.md
	@cat $<

# Warm-ups are shared: variants whose B_0, demonstrations and ckpt/0 are
# the same bytes (same B_0 recipe, same skill setting, same seed) copy them
# from one warm-up run, runs/sweep/warmup-KIND-sSEED (pats.mk WARMUP=).
# KIND: evidence (B_0 from evidence), none (grpo, gigpo), expert (warm-start),
# skills (no scaffold, skill slates on: skillgate and broadcast).
warmup_kind   = $(if $(filter grpo gigpo,$(1)),none,$(if $(filter warm-start,$(1)),expert,$(if $(filter skillgate broadcast,$(1)),skills,evidence)))
warmup_repr   = $(if $(filter none,$(1)),grpo,$(if $(filter expert,$(1)),warm-start,$(if $(filter skills,$(1)),skillgate,pats)))
SWEEP_NAME   := $(patsubst $(RUNS)/%,%,$(SWEEP))
# Empty: one warm-up per kind and seed. A seed (WARMUP_SEED=1): every seed's
# runs start from that seed's warm-up of their kind, so seeds differ only in
# the loop (rollout sampling, GRPO, the scaffold branch); a third of the
# warm-up cost, and the spread then measures the loop alone.
WARMUP_SEED  ?=
warmup_seed   = $(if $(WARMUP_SEED),$(WARMUP_SEED),$(1))
# With a base policy (BASE=, pats.mk) the runs without a scaffold (none,
# skills) start from the base itself, shared by every seed; the others'
# warm-ups are short SFTs from it (the scaffold's format), one per seed.
warmup_dir    = $(if $(BASE),$(if $(filter none,$(1)),$(RUNS)/$(BASE),$(if $(filter skills,$(1)),$(RUNS)/$(BASE_SKILLS))))
warmup_of     = $(or $(call warmup_dir,$(1)),$(SWEEP)/warmup-$(1)-s$(call warmup_seed,$(2)))

# Each run is its own make (PIPE_SUB=1); there pats.mk owns the run's
# files, so the wrapper rules exist only in the calling make.
define SWEEP_WARMUP
ifeq ($(PIPE_SUB)$(filter $(SWEEP)/warmup-$(1)-s$(2),$(R))$(call warmup_dir,$(1)),)
$(SWEEP)/warmup-$(1)-s$(2)/ckpt/0/config.json: $(if $(BASE),$(RUNS)/$(BASE)/ckpt/0/config.json) | $(PIPE_BINS)
	+$(MAKE) --no-print-directory warmup PIPE_SUB=1 WARMUP= VARIANT=$(call warmup_repr,$(1)) SEED=$(2) RUN=$(SWEEP_NAME)/warmup-$(1)-s$(2)
endif
endef
define SWEEP_RUN
ifeq ($(PIPE_SUB)$(filter $(SWEEP)/$(1)-s$(2),$(R)),)
$(SWEEP)/$(1)-s$(2)/summary.md: $(call warmup_of,$(call warmup_kind,$(1)),$(2))/ckpt/0/config.json | $(PIPE_BINS)
	+$(MAKE) --no-print-directory pats PIPE_SUB=1 VARIANT=$(1) SEED=$(2) RUN=$(SWEEP_NAME)/$(1)-s$(2) WARMUP=$(call warmup_of,$(call warmup_kind,$(1)),$(2))
endif
endef
SWEEP_VARIANTS := $(sort $(patsubst keep,pats,$(VARIANTS)))
$(foreach k,$(sort $(foreach v,$(SWEEP_VARIANTS),$(call warmup_kind,$(v)))),$(foreach s,$(sort $(foreach s,$(SEEDS),$(call warmup_seed,$(s)))),$(eval $(call SWEEP_WARMUP,$(k),$(s)))))
$(foreach v,$(SWEEP_VARIANTS),$(foreach s,$(SEEDS),$(eval $(call SWEEP_RUN,$(v),$(s)))))

# The variants and seeds of the last table: rewritten (at parse time) only
# when they change, so a table made for another set is made again.
SWEEP_SET    := $(SWEEP)/sweep-set.txt
ifneq ($(filter sweep,$(MAKECMDGOALS)),)
ifeq ($(PIPE_SUB),)
$(shell mkdir -p $(SWEEP) && { echo "variants: $(VARIANTS); seeds: $(SEEDS)" | cmp -s - $(SWEEP_SET) || echo "variants: $(VARIANTS); seeds: $(SEEDS)" > $(SWEEP_SET); })
endif
endif

$(SWEEP)/results.md $(SWEEP)/results.parquet $(SWEEP)/runs.parquet &: $(addsuffix /summary.md,$(SWEEP_RUNS)) $(SWEEP_SET)
	$(BIN)/report sweep --root $(SWEEP) --variants "$(VARIANTS)" --seeds "$(SEEDS)" -o $(SWEEP)/results.parquet --runs $(SWEEP)/runs.parquet > $(SWEEP)/results.md.tmp && mv $(SWEEP)/results.md.tmp $(SWEEP)/results.md

# The table of the runs finished so far (unfinished ones listed under it).
sweep-partial: | $(PIPE_BINS)
	@$(BIN)/report sweep --partial --root $(SWEEP) --variants "$(VARIANTS)" --seeds "$(SEEDS)"
