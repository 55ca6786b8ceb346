# The SkillGate and GiGPO experiments from the reading base (issue 33),
# declared in docs/skillgate-experiment.md ("Declared design") before any
# run. Included by the top Makefile.
#
#   make skillgate-experiment     # the skills twin and its reading test, then
#                                 # skillgate, broadcast and skillgate without
#                                 # a baseline, SG_SEEDS seeds each, the audits,
#                                 # and each sweep's tables again with them
#                                 # (make sweep-report)
#   make gigpo-experiment         # grpo against gigpo from the reading base
#   make composed-experiment      # the three together (pats-skillgate-gigpo)
#                                 # from the reading base's skills twin
#
# and issue 51's (docs/skillgate-experiment.md, "Declared design (issue
# 51)"):
#
#   make -j2 skillgate-choose-experiment   # skillgate, broadcast and skillgate
#                                 # without a baseline from the choosing base
#                                 # (pipelines/bases/reading-choose), SG_SEEDS
#                                 # seeds, into runs/sgb and runs/sgb-nobaseline,
#                                 # and the table of the three paired with
#                                 # broadcast (runs/sgb/results-choose.md)
#   make -j2 composed-split-experiment     # gigpo (with the slate),
#                                 # pats-skillgate, pats-gigpo and the composed
#                                 # run from the skills base, CS_SEEDS seeds,
#                                 # into runs/sgs, and the tables with issue
#                                 # 33's composed run, skillgate and broadcast
#                                 # (restored from results/sgc and results/sg)
#                                 # paired with broadcast and with the composed
#                                 # run (runs/sgs/results-split*.md)
#
# The regime is the PATS sweep's from the reading base (docs/results-log.md):
# household-rl, 20 iterations of 8 tasks x 8 episodes, whole splits at
# temperature 0.4, the reading base's two-turn window and admissible
# actions (pats.mk RUN_CONTEXT), MINIBATCH and learning rates as pats.mk.
SG_SEEDS  ?= 1 2 3 4 5
SG_ITERS  ?= 20
SG_SWEEP  ?= $(RUNS)/sg
GG_SWEEP  ?= $(RUNS)/gg
# the sizes of every run (a smoke test sets them small)
SG_TASKS      ?= 8
SG_GROUP      ?= 8
SG_EVAL_TASKS ?= 0
sg_sizes   = ENV=household-rl BASE=$(patsubst $(RUNS)/%,%,$(READING_BASE)) SEEDS="$(SG_SEEDS)" ITERS=$(SG_ITERS) \
             TASKS=$(SG_TASKS) GROUP=$(SG_GROUP) BOOT_TASKS=24 EVAL_TASKS=$(SG_EVAL_TASKS)

# The composed run: pats's scaffold loop with a skill slate, SkillGate's
# selection credit and GiGPO's step credit (VARIANT=pats-skillgate-gigpo),
# in the same regime, its own sweep folder; its seeds (CMP_SEEDS) default
# to the parts'.
CMP_SEEDS ?= $(SG_SEEDS)
CMP_SWEEP ?= $(RUNS)/sgc
# How each experiment's sweeps run: sweep, or sweep-rest when they go on
# from archived runs (sweep.mk: make sweep-restore SWEEP=... first; a
# restored run is never run again, and sweep-report makes the tables).
SG_GOAL   ?= sweep

.PHONY: skillgate-experiment gigpo-experiment composed-experiment skillgate-choose-experiment skillgate-choose-report \
        composed-split-experiment composed-split-report

skillgate-experiment: | $(PIPE_BINS) $(BIN)/audit
	+$(MAKE) --no-print-directory $(foreach s,$(READING_SPLITS),$(READING_SKILLS_BASE)/reading/$(READING_TEST_ENV)/$(s).md) $(reading_skills_vars)
	+$(MAKE) --no-print-directory $(SG_GOAL) SWEEP=$(SG_SWEEP) VARIANTS="skillgate broadcast" $(sg_sizes)
	+$(MAKE) --no-print-directory $(SG_GOAL) SWEEP=$(SG_SWEEP)-nobaseline VARIANTS=skillgate GRPO_FLAGS="--select-baseline none" $(sg_sizes)
	BIN=$(BIN) scripts/sweep-audits.sh $(SG_SWEEP) $(SG_ITERS)
	BIN=$(BIN) scripts/sweep-audits.sh $(SG_SWEEP)-nobaseline $(SG_ITERS)
	+$(MAKE) --no-print-directory sweep-report SWEEP=$(SG_SWEEP) VARIANTS="skillgate broadcast" $(sg_sizes)
	+$(MAKE) --no-print-directory sweep-report SWEEP=$(SG_SWEEP)-nobaseline VARIANTS=skillgate $(sg_sizes)

gigpo-experiment: | $(PIPE_BINS) $(BIN)/audit
	+$(MAKE) --no-print-directory $(SG_GOAL) SWEEP=$(GG_SWEEP) VARIANTS="grpo gigpo" $(sg_sizes)
	BIN=$(BIN) scripts/sweep-audits.sh $(GG_SWEEP) $(SG_ITERS)
	+$(MAKE) --no-print-directory sweep-report SWEEP=$(GG_SWEEP) VARIANTS="grpo gigpo" $(sg_sizes)

composed-experiment: | $(PIPE_BINS) $(BIN)/audit
	+$(MAKE) --no-print-directory $(foreach s,$(READING_SPLITS),$(READING_SKILLS_BASE)/reading/$(READING_TEST_ENV)/$(s).md) $(reading_skills_vars)
	+$(MAKE) --no-print-directory $(SG_GOAL) SWEEP=$(CMP_SWEEP) VARIANTS=pats-skillgate-gigpo $(sg_sizes) SEEDS="$(CMP_SEEDS)"
	BIN=$(BIN) scripts/sweep-audits.sh $(CMP_SWEEP) $(SG_ITERS)
	+$(MAKE) --no-print-directory sweep-report SWEEP=$(CMP_SWEEP) VARIANTS=pats-skillgate-gigpo $(sg_sizes) SEEDS="$(CMP_SEEDS)"

# ---- issue 51 ------------------------------------------------------------------
# SkillGate where the choice matters: the same three runs as
# skillgate-experiment from the choosing base (recipe 16a, shipped in
# pipelines/bases/reading-choose, copied to READING_CHOOSE_BASE; its reading
# test first), into SGB_SWEEP and SGB_SWEEP-nobaseline. Then one table of
# the three (report sweep across both folders, the run without a baseline
# labelled skillgate-nobaseline): success, and at evaluation reads per
# episode, right reads and misleading exposure per episode, each paired with
# broadcast on the same seed with bootstrap intervals, into
# SGB_SWEEP/results-choose.md (and .parquet, runs, credit).
SGB_SWEEP ?= $(RUNS)/sgb
sgb_base   = BASE_SKILLS=$(patsubst $(RUNS)/%,%,$(READING_CHOOSE_BASE)) READING_SKILLS_BASE=$(READING_CHOOSE_BASE)
SGB_VARIANTS = skillgate broadcast skillgate-nobaseline=$(SGB_SWEEP)-nobaseline:skillgate

skillgate-choose-experiment: | $(PIPE_BINS) $(BIN)/audit
	+$(MAKE) --no-print-directory $(foreach s,$(READING_SPLITS),$(READING_CHOOSE_BASE)/reading/$(READING_TEST_ENV)/$(s).md) $(reading_choose_vars)
	+$(MAKE) --no-print-directory $(SG_GOAL) SWEEP=$(SGB_SWEEP) VARIANTS="skillgate broadcast" $(sg_sizes) $(sgb_base)
	+$(MAKE) --no-print-directory $(SG_GOAL) SWEEP=$(SGB_SWEEP)-nobaseline VARIANTS=skillgate GRPO_FLAGS="--select-baseline none" $(sg_sizes) $(sgb_base)
	BIN=$(BIN) scripts/sweep-audits.sh $(SGB_SWEEP) $(SG_ITERS)
	BIN=$(BIN) scripts/sweep-audits.sh $(SGB_SWEEP)-nobaseline $(SG_ITERS)
	+$(MAKE) --no-print-directory sweep-report SWEEP=$(SGB_SWEEP) VARIANTS="skillgate broadcast" SWEEP_BASELINE=broadcast $(sg_sizes) $(sgb_base)
	+$(MAKE) --no-print-directory sweep-report SWEEP=$(SGB_SWEEP)-nobaseline VARIANTS=skillgate $(sg_sizes) $(sgb_base)
	+$(MAKE) --no-print-directory skillgate-choose-report

# The table of the three alone, from finished (or restored) runs.
skillgate-choose-report: | $(PIPE_BINS)
	$(BIN)/report sweep --root $(SGB_SWEEP) --variants "$(SGB_VARIANTS)" --seeds "$(SG_SEEDS)" --baseline broadcast \
	  -o $(SGB_SWEEP)/results-choose.parquet --runs $(SGB_SWEEP)/runs-choose.parquet --credit $(SGB_SWEEP)/credit-choose.parquet \
	  > $(SGB_SWEEP)/results-choose.md.tmp && mv $(SGB_SWEEP)/results-choose.md.tmp $(SGB_SWEEP)/results-choose.md
	@cat $(SGB_SWEEP)/results-choose.md

# The composed run split into its parts: from the skills base the composed
# run started from (recipe 15; BASE_SKILLS of sg_sizes), with the slate of
# 16 in every run (SKILLS=1: gigpo reads too), CS_SEEDS seeds, into
# CS_SWEEP: gigpo, pats-skillgate, pats-gigpo and the composed run
# pats-skillgate-gigpo itself, run again beside its parts because the
# interface warm-up's demonstrations (WARMUP_HINTS=mixed) and the refiner's
# evidence window (REFINER_WINDOW) changed after issue 33's runs (drop it
# from CS_PARTS to run the parts alone). Then two tables (report sweep
# across sweep folders) of the parts beside skillgate and broadcast
# (SG_SWEEP) and issue 33's composed run (CMP_SWEEP, the row
# pats-skillgate-gigpo-33), whose finished runs are restored from their
# archives first where those are there (CMP_ARCHIVE, SG_ARCHIVE:
# results/sgc, results/sg; empty: no restore): paired with broadcast
# (CS_SWEEP/results-split.md) and with the composed run of CS_SWEEP, what
# each part lacks (CS_SWEEP/results-split-composed.md); each with its
# .parquet, runs and credit rows.
CS_SEEDS    ?= 1 2 3
CS_SWEEP    ?= $(RUNS)/sgs
CS_PARTS    ?= gigpo pats-skillgate pats-gigpo pats-skillgate-gigpo
CMP_ARCHIVE ?= results/$(patsubst $(RUNS)/%,%,$(CMP_SWEEP))
SG_ARCHIVE  ?= results/$(patsubst $(RUNS)/%,%,$(SG_SWEEP))
CS_VARIANTS  = broadcast=$(SG_SWEEP):broadcast skillgate=$(SG_SWEEP):skillgate $(CS_PARTS) pats-skillgate-gigpo-33=$(CMP_SWEEP):pats-skillgate-gigpo
# report sweep over CS_VARIANTS paired with $(1), into CS_SWEEP/results-$(2).md and its rows
cs_report    = $(BIN)/report sweep --root $(CS_SWEEP) --variants "$(CS_VARIANTS)" --seeds "$(CS_SEEDS)" --baseline $(1) \
  -o $(CS_SWEEP)/results-$(2).parquet --runs $(CS_SWEEP)/runs-$(2).parquet --credit $(CS_SWEEP)/credit-$(2).parquet \
  > $(CS_SWEEP)/results-$(2).md.tmp && mv $(CS_SWEEP)/results-$(2).md.tmp $(CS_SWEEP)/results-$(2).md

composed-split-experiment: | $(PIPE_BINS) $(BIN)/audit
	+$(MAKE) --no-print-directory $(SG_GOAL) SWEEP=$(CS_SWEEP) VARIANTS="$(CS_PARTS)" SKILLS=1 $(sg_sizes) SEEDS="$(CS_SEEDS)"
	BIN=$(BIN) scripts/sweep-audits.sh $(CS_SWEEP) $(SG_ITERS)
	+$(MAKE) --no-print-directory sweep-report SWEEP=$(CS_SWEEP) VARIANTS="$(CS_PARTS)" SKILLS=1 $(sg_sizes) SEEDS="$(CS_SEEDS)" SWEEP_BASELINE=pats-skillgate-gigpo
	+$(MAKE) --no-print-directory composed-split-report

# The tables alone, from finished (or restored) runs.
composed-split-report: | $(PIPE_BINS)
	$(if $(CMP_ARCHIVE),$(if $(wildcard $(CMP_ARCHIVE)/*.tar.xz),scripts/sweep-restore.sh $(CMP_ARCHIVE) $(CMP_SWEEP)))
	$(if $(SG_ARCHIVE),$(if $(wildcard $(SG_ARCHIVE)/*.tar.xz),scripts/sweep-restore.sh $(SG_ARCHIVE) $(SG_SWEEP)))
	$(call cs_report,broadcast,split)
	$(call cs_report,pats-skillgate-gigpo,split-composed)
	@cat $(CS_SWEEP)/results-split.md
