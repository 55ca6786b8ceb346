# The baselines and ablation sweep: every VARIANT for every seed, each in
# its own run folder runs/sweep/VARIANT-sSEED (keep reads the pats run: it
# trains identically and is evaluated with the scaffold), then
# runs/sweep/results.md, results.parquet (mean and spread over seeds) and
# runs.parquet (one row per run). Sizes pass through to every run:
#   make -j2 sweep VARIANTS="pats grpo" SEEDS="1 2 3" ITERS=3 TASKS=6
# A variant may have its own seeds (SEEDS_pats="1 2 3 4 5"); the others
# take SEEDS. The table adds the re-attached scaffold's rows and each
# variant's paired difference from SWEEP_BASELINE (grpo) on the seeds they
# share, with a 95% bootstrap interval (report sweep --baseline).
ALL_VARIANTS := pats pats-nofade pats-bare static-x2 grpo gigpo static frozen expand-only no-revise traj-cards warm-start warm-start-adapt no-warmup oracle-boot keep decay skillgate broadcast pats-skillgate-gigpo pats-skillgate pats-gigpo
VARIANTS     ?= $(ALL_VARIANTS)
SEEDS        ?= 1 2 3
SWEEP        ?= $(RUNS)/sweep
SWEEP_BASELINE ?= grpo
seeds_of      = $(or $(SEEDS_$(1)),$(SEEDS))
sweep_run     = $(SWEEP)/$(if $(filter keep,$(1)),pats,$(1))-s$(2)
ALL_SEEDS    := $(shell echo $(SEEDS) $(foreach v,$(VARIANTS),$(call seeds_of,$(v))) | tr ' ' '\n' | sort -n -u)
# Seed-major order: with a sweep cut short, every variant has its first seeds.
SWEEP_RUNS   := $(foreach s,$(ALL_SEEDS),$(foreach v,$(VARIANTS),$(if $(filter $(s),$(call seeds_of,$(v))),$(call sweep_run,$(v),$(s)))))
comma        := ,
sweep_space  := $(subst ,, )
SWEEP_RUN_FLAGS   = --variants "$(VARIANTS)" --seeds "$(SEEDS)" --variant-seeds "$(foreach v,$(VARIANTS),$(v):$(subst $(sweep_space),$(comma),$(strip $(call seeds_of,$(v)))))"
SWEEP_SEEDS_FLAGS = $(SWEEP_RUN_FLAGS) --baseline $(SWEEP_BASELINE)

.PHONY: sweep sweep-partial

sweep: $(SWEEP)/results.md
	@cat $<

# Warm-ups are shared: variants whose demonstrations and ckpt/0 are the
# same bytes (same warm-up, same skill setting, same seed) copy them from
# one warm-up run, runs/sweep/warmup-KIND-sSEED (pats.mk WARMUP=); B_0 is
# always each run's own. KIND: format (the interface warm-up, whose
# demonstrations never carry the run's scaffold: pats, static, frozen,
# warm-start, oracle-boot and the other ablations), none (no warm-up:
# grpo, gigpo, no-warmup), skills (no scaffold, skill slates on:
# skillgate and broadcast), format-skills (the interface warm-up with skill
# slates on, from the skills base: pats-skillgate-gigpo, pats-skillgate,
# pats-gigpo). With SKILLS=1 (a slate in every variant's rollouts: gigpo
# from the skills base in issue 51's split) none becomes skills and format
# becomes format-skills, so those runs start from BASE_SKILLS like the
# variants that always read.
warmup_kind0  = $(if $(filter grpo gigpo no-warmup,$(1)),none,$(if $(filter skillgate broadcast,$(1)),skills,$(if $(filter pats-skillgate-gigpo pats-skillgate pats-gigpo,$(1)),format-skills,format)))
warmup_kind   = $(if $(filter 1,$(SKILLS)),$(patsubst none,skills,$(patsubst format,format-skills,$(call warmup_kind0,$(1)))),$(call warmup_kind0,$(1)))
warmup_repr   = $(if $(filter none,$(1)),grpo,$(if $(filter skills,$(1)),skillgate,$(if $(filter format-skills,$(1)),pats-skillgate-gigpo,pats)))
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
$(SWEEP)/warmup-$(1)-s$(2)/ckpt/0/config.json: $(if $(BASE),$(RUNS)/$(if $(filter format-skills,$(1)),$(BASE_SKILLS),$(BASE))/ckpt/0/config.json) | $(PIPE_BINS)
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
$(foreach k,$(sort $(foreach v,$(SWEEP_VARIANTS),$(call warmup_kind,$(v)))),$(foreach s,$(sort $(foreach s,$(ALL_SEEDS),$(call warmup_seed,$(s)))),$(eval $(call SWEEP_WARMUP,$(k),$(s)))))
$(foreach v,$(SWEEP_VARIANTS),$(foreach s,$(call seeds_of,$(v)),$(eval $(call SWEEP_RUN,$(v),$(s)))))

# The variants and seeds of the last table: its recipe runs every time
# (reading this file runs nothing, so make -n executes nothing) and
# rewrites it only when they change, so a table made for another set is
# made again.
SWEEP_SET    := $(SWEEP)/sweep-set.txt
SWEEP_SET_LINE = variants: $(VARIANTS); seeds: $(SEEDS)$(foreach v,$(VARIANTS),$(if $(SEEDS_$(v)),; $(v): $(strip $(SEEDS_$(v)))))
.PHONY: sweep-set-force
sweep-set-force:
$(SWEEP_SET): sweep-set-force
	@mkdir -p '$(SWEEP)' && { echo '$(SWEEP_SET_LINE)' | cmp -s - '$@' || echo '$(SWEEP_SET_LINE)' > '$@'; }

# The warm-ups the sweep makes come first among the table's prerequisites:
# make -j scans a prerequisite list once in order and puts off a target
# whose own prerequisite is being made until the end of the list, so with
# a warm-up still training, every scaffold run of its seed would wait
# behind all the runs of every later seed that need none. Warm-ups first
# (about a minute each), then the runs in seed-major order.
sweep_pairs   = $(foreach s,$(ALL_SEEDS),$(foreach v,$(VARIANTS),$(if $(filter $(s),$(call seeds_of,$(v))),$(v):$(s))))
sweep_warmup  = $(if $(call warmup_dir,$(call warmup_kind,$(1))),,$(SWEEP)/warmup-$(call warmup_kind,$(1))-s$(call warmup_seed,$(2))/ckpt/0/config.json)
# the warm-ups of the runs in $(1) (run folders), each once
sweep_warmups = $(sort $(foreach p,$(sweep_pairs),$(if $(filter $(call sweep_run,$(word 1,$(subst :, ,$(p))),$(word 2,$(subst :, ,$(p)))),$(1)),$(call sweep_warmup,$(word 1,$(subst :, ,$(p))),$(word 2,$(subst :, ,$(p)))))))

$(SWEEP)/results.md $(SWEEP)/results.parquet $(SWEEP)/runs.parquet &: $(call sweep_warmups,$(SWEEP_RUNS)) $(addsuffix /summary.md,$(SWEEP_RUNS)) $(SWEEP_SET)
	$(BIN)/report sweep --root $(SWEEP) $(SWEEP_SEEDS_FLAGS) -o $(SWEEP)/results.parquet --runs $(SWEEP)/runs.parquet > $(SWEEP)/results.md.tmp && mv $(SWEEP)/results.md.tmp $(SWEEP)/results.md

# The tables again once the runs' audits are written (scripts/sweep-audits.sh):
# besides results.md's tables, the credit audits per variant and horizon
# bin (skill-name share, right reads credited < 0, GiGPO's anchor coverage
# and step-group size), also as $(SWEEP)/credit.parquet; and the sweep's
# plots in $(SWEEP)/plots (report plots: success per split, zero-variance
# groups, scaffold items and, from the audits, the NLL gap, per variant
# over iterations, the mean over seeds with a band of one sample sd).
.PHONY: sweep-report sweep-plots sweep-plots-docs
sweep-report: | $(PIPE_BINS)
	$(BIN)/report sweep --root $(SWEEP) $(SWEEP_SEEDS_FLAGS) -o $(SWEEP)/results.parquet --runs $(SWEEP)/runs.parquet --credit $(SWEEP)/credit.parquet > $(SWEEP)/results.md.tmp && mv $(SWEEP)/results.md.tmp $(SWEEP)/results.md
	$(BIN)/report plots $(SWEEP) $(SWEEP_RUN_FLAGS) -o $(SWEEP)/plots
	@cat $(SWEEP)/results.md

# The sweep's plots alone, into $(SWEEP)/plots. Every run must have
# finished, unless PARTIAL=1: then unfinished runs are drawn as far as they
# go (named on stderr; the titles say partial).
SWEEP_PARTIAL_FLAG = $(if $(PARTIAL),--partial)
sweep-plots: | $(PIPE_BINS)
	$(BIN)/report plots $(SWEEP) $(SWEEP_RUN_FLAGS) $(SWEEP_PARTIAL_FLAG) -o $(SWEEP)/plots

# The sweep's plots where docs/results.md links them, docs/plots/NAME for
# SWEEP=runs/NAME (make sweep-plots-docs SWEEP=runs/s32 with the sweep's
# VARIANTS and SEEDS); every run must have finished, unless PARTIAL=1 (as
# sweep-plots).
SWEEP_PLOTS_DOCS ?= docs/plots/$(SWEEP_NAME)
sweep-plots-docs: | $(PIPE_BINS)
	$(BIN)/report plots $(SWEEP) $(SWEEP_RUN_FLAGS) $(SWEEP_PARTIAL_FLAG) -o $(SWEEP_PLOTS_DOCS)

# The table of the runs finished so far (unfinished ones listed under it).
sweep-partial: | $(PIPE_BINS)
	@$(BIN)/report sweep --partial --root $(SWEEP) $(SWEEP_SEEDS_FLAGS)

# A sweep in parts on machines that do not keep runs/ (a session, a Slurm
# allocation): sweep-archive packs every finished run into SWEEP_ARCHIVE
# (results/NAME; RUN.tar.xz, no weights; scripts/sweep-archive.sh, after
# scripts/sweep-audits.sh for the pats runs' scaffold audits), and on the
# next machine sweep-restore unpacks them, sweep-rest runs only the runs
# that have no summary.md (a restored run has no weights, so `make sweep`,
# which would remake its warm-up, is not the way on: sweep-rest never
# touches a finished run) and sweep-report or sweep-partial makes the
# tables over both.
SWEEP_ARCHIVE ?= results/$(SWEEP_NAME)
SWEEP_TODO    = $(foreach r,$(SWEEP_RUNS),$(if $(wildcard $(r)/summary.md),,$(r)))
.PHONY: sweep-archive sweep-restore sweep-rest
sweep-archive:
	scripts/sweep-archive.sh $(SWEEP) $(SWEEP_ARCHIVE)
sweep-restore:
	scripts/sweep-restore.sh $(SWEEP_ARCHIVE) $(SWEEP)
sweep-rest: $(call sweep_warmups,$(SWEEP_TODO)) $(addsuffix /summary.md,$(SWEEP_TODO))
	@echo "sweep-rest: $(words $(SWEEP_RUNS)) runs in the sweep, $(words $(SWEEP_TODO)) run now"
