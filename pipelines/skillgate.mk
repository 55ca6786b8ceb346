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
# The regime is the PATS sweep's from the reading base (docs/results-log.md):
# household-rl, 20 iterations of 8 tasks x 8 episodes, whole splits at
# temperature 0.4, the reading base's two-turn window and admissible
# actions (pats.mk RUN_CONTEXT), MINIBATCH and learning rates as pats.mk.
SG_SEEDS  ?= 1 2 3 4 5
SG_ITERS  ?= 20
SG_SWEEP  ?= $(RUNS)/sg
GG_SWEEP  ?= $(RUNS)/gg
sg_sizes   = ENV=household-rl BASE=$(patsubst $(RUNS)/%,%,$(READING_BASE)) SEEDS="$(SG_SEEDS)" ITERS=$(SG_ITERS) \
             TASKS=8 GROUP=8 BOOT_TASKS=24 EVAL_TASKS=0

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

.PHONY: skillgate-experiment gigpo-experiment composed-experiment

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
