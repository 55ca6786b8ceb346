# A base that reads (issue 11, part 1): SFT of MODEL on oracle
# demonstrations whose right action depends on text in the context, then
# its reading test. Included by the top Makefile.
#
#   make base-reading                 # runs/base-reading, the recorded recipe (docs/results-log.md, recipe 14)
#   make base-reading READING_BASE=runs/trial READING_EPOCHS=3 READING_EVAL=60
#   make base-reading READING_HISTORY=0 READING_ADMISSIBLE=none   # recipe 5
#   make base-reading-skills          # runs/base-reading-skills, its skills twin (recipe 15)
#   make base-reading-e1              # runs/base-reading-e1-s1, the PATS sweep's base (recipe 14, seed 1, one epoch)
#
# Each of the three ships in pipelines/bases/ (below): runs copy it, these
# targets retrain it and say whether it is byte-identical to the shipped one.
#
# The demonstrations are oracle episodes of READING_ENV's train split in
# shards (READING_MIX: name:tasks, each with its own seed and tasks), mixed
# into one file. A shard's name is its kind, or its kind and a suffix
# (mixed.2) for a second shard of a kind with its own seed and tasks: one
# shard has at most the split's 3,553 tasks. READING_ENV is
# household-drawn: household's tasks with conventions drawn per task (where the goal objects are kept, what heats),
# stated by the task's right rules and its right skill's body, so a rule
# decides the action and no type-level convention can stand in for it
# (recipes 9 and 10 took its large-room worlds, household-drawn-large and
# household-drawn-places, with READING_TEST_ENV=household-rl-large). The
# oracle follows every rule it reads, right or misleading ("Look in the K
# first.", "Heat the object with the K ..."), in the scaffold's place or in
# a skill body, as in an instruction-following model's data. Shard kinds
# of the recorded recipe (14: recipe 5's shards under a two-turn window
# with the admissible actions listed, 2 epochs), none with a skill slate:
#
#   mixed             `--hints mixed` (lib/rollout HintsMixed): no rules,
#                     right rules, right + irrelevant, irrelevant, right
#                     steps or an irrelevant rule as a skill body
#   misleading        the task's misleading rules (followed)
#   none              no rules
#   right             the task's right rules (`--hints right`)
#   preread-right     the right skill's library body before the first
#                     action (it states the task's draws), as if read
#   preread-random    a library skill drawn per task, its body before the
#                     first action (followed where it bears on the task)
#   common-K          kind K played in READING_COMMON_ENV (household: common
#                     sense, objects at their usual places) instead of
#                     READING_ENV; recipes 7 and 8 (docs/results-log.md) took
#                     common-none, common-misleading and common-preread-random,
#                     the episodes whose context says nothing right about the
#                     task, so that with no true text the base searches as
#                     common sense does
#
# and of recipes 2-4 (with the slate, which recipe 5 drops: docs/results-log.md):
#
#   slate-mixed, slate-misled, slate-none   the slate, no read; rules as above
#   read-right, read-random                 the slate, the first action reads
#                                           the right or a random skill
#   slate-right, slate-random, slate-misleading   recipe 1's (a read and rules)
#
# The reading test (READING_TEST_FLAGS) shows no slate either: its skill
# conditions put the body before the first action. A base of recipe 5 is
# therefore not a skills base; docs/results-log.md says which base the runs
# with skills on use.
# docs/environments.md describes the worlds and rules; docs/results-log.md
# records the recipes and their figures.
READING_BASE   ?= $(RUNS)/base-reading
READING_ENV    ?= household-drawn
READING_MODEL  ?= tiny
READING_MIX    ?= mixed:3200 misleading:1200 none:1600 preread-right:1200 preread-random:800 \
                  mixed.2:3200 misleading.2:1200 none.2:1600 preread-right.2:1200 preread-random.2:800
READING_EPOCHS ?= 2
READING_LR     ?= 2e-3
READING_SEED   ?= 1
# the reading test: its world, its flags (none: no slate, the skill
# conditions put the body before the first action; --skills for a base
# trained with the slate, as the skills twin below), tasks per split (0:
# the whole split)
READING_TEST_ENV   ?= household-rl
READING_TEST_FLAGS ?=
READING_EVAL   ?= 0
READING_SPLITS ?= valid_seen valid_unseen
# extra rollout flags of every demonstration shard
READING_ROLLOUT_FLAGS ?=
# READING_HISTORY and READING_ADMISSIBLE, the context of the demonstrations
# and of the reading test, are set in pipelines/pats.mk: the runs from the
# base keep them.
# the world of the common-* shard kinds
READING_COMMON_ENV ?= household
# The skills twin (READING_SKILLS_BASE, pats.mk: READING_BASE-skills), the
# base of runs with skills on: the recorded recipe's shards (READING_MIX,
# no slate) and a share that carry a slate of 16 and read a skill first,
# the right one or one drawn from the slate (read-right, read-random: 4,000
# of 20,000 demonstrations, 20%), in the recorded recipe's context (the
# two-turn window, where a body read stays in view once its turn is
# dropped, and the admissible actions), and the reading test with
# --skills. Recipe 15, declared in docs/skillgate-experiment.md before any
# run, shipped (READING_SKILLS_SHIPPED below); recipe 4's mix (every
# demonstration with the slate, no window) was
# slate-mixed:3200 slate-misled:1200 slate-none:1600 read-right:1200
# read-random:800 and the same with .2. `make base-reading-skills` trains
# it, runs its test and compares it with the shipped one.
READING_SKILLS_MIX ?= $(READING_MIX) read-right:1200 read-random:800 read-right.2:1200 read-random.2:800
reading_skills_vars = READING_BASE=$(READING_SKILLS_BASE) READING_SKILLS_BASE=$(READING_SKILLS_BASE) \
                      READING_MIX="$(READING_SKILLS_MIX)" READING_TEST_FLAGS=--skills READING_SHIPPED=$(READING_SKILLS_SHIPPED)

# the rollout flags of each shard kind
reading_flags_mixed            := --hints mixed
reading_flags_none             := --hints none
reading_flags_right            := --hints right
reading_flags_preread-right    := --preread right
reading_flags_preread-random   := --preread random
reading_flags_misleading       := --hints misleading
reading_flags_slate-right      := --skills --text-read right --hints mixed
reading_flags_slate-random     := --skills --text-read random --hints mixed
reading_flags_slate-misleading := --skills --text-read right --hints misleading
reading_flags_slate-mixed      := --skills --text-read none --hints mixed
reading_flags_slate-misled     := --skills --text-read none --hints misleading
reading_flags_slate-none       := --skills --text-read none
reading_flags_read-right       := --skills --text-read right
reading_flags_read-random      := --skills --text-read random
# common-K is kind K played in READING_COMMON_ENV: a shard kind's flags are
# its base kind's, its world READING_ENV but for the common-* kinds
reading_kind  = $(patsubst common-%,%,$(1))
reading_flags = $(reading_flags_$(call reading_kind,$(1)))
reading_env   = $(if $(filter common-%,$(1)),$(READING_COMMON_ENV),$(READING_ENV))
READING_SHARDS := $(foreach s,$(READING_MIX),$(firstword $(subst :, ,$(s))))
reading_tasks   = $(word 2,$(subst :, ,$(filter $(1):%,$(READING_MIX))))
# shard i (from 1) of READING_MIX has seed READING_SEED 99 i
reading_index   = $(words $(call reading_upto,$(1),$(READING_SHARDS)))
reading_upto    = $(if $(filter $(1),$(firstword $(2))),$(1),$(firstword $(2)) $(call reading_upto,$(1),$(wordlist 2,$(words $(2)),$(2))))

# The shipped base (READING_SHIPPED, when its SHA256SUMS is there): the
# checkpoint the recorded recipe wrote (weights, tokenizer, config and the
# optimizer state a warm-up from the base continues), with its SHA256SUMS,
# and its SFT metrics (a run without a scaffold copies the base's).
# Runs that start from READING_BASE (BASE=base-reading, the sweep) get a
# copy of it instead of training it (a copy whose files already match the
# shipped ones is left as it is, with its times, so that a fresh clone or
# checkout, which gives the shipped files new times, does not make every
# run from the base out of date); `make base-reading` always trains
# from scratch, runs the reading test, and says whether the checkpoint is
# byte-identical to the shipped one; `make base-reading-ship` replaces the
# shipped files with READING_BASE's checkpoint.
READING_SHIPPED ?= $(if $(wildcard pipelines/bases/reading/SHA256SUMS),pipelines/bases/reading)
READING_FILES   := config.json model.safetensors tokenizer.json optimizer.json optimizer.safetensors agent.json
# Two more bases ship the same way, each with its own variable, its
# rebuild check and its ship target:
#
# - the skills twin of the recorded recipe (recipe 15, READING_SKILLS_BASE,
#   runs/base-reading-skills): READING_SKILLS_SHIPPED, pipelines/bases/reading-skills
#   when its SHA256SUMS is there and the reading base is the shipped
#   recorded one (READING_SHIPPED= or another shipped base turns it off too:
#   a rebuilt or other reading base has its own twin). Runs with skills on
#   from the reading base copy it; `make base-reading-skills` trains it from
#   scratch, runs its reading test and says whether it is byte-identical to
#   the shipped one; `make base-reading-skills-ship` replaces the shipped files.
# - the PATS sweep's base (docs/results.md, "The sweep: design and sizes"):
#   the recorded recipe with seed 1 and one epoch, READING_E1_BASE
#   (runs/base-reading-e1-s1), READING_E1_SHIPPED (pipelines/bases/reading-e1).
#   A run names it as its reading base with READING_SHIPPED set to it
#   (reading_e1_vars: what the sweep's command block and the demo pass);
#   `make base-reading-e1` trains it from scratch, runs its reading test and
#   says whether it is byte-identical to the shipped one; `make
#   base-reading-e1-ship` replaces the shipped files.
READING_SKILLS_SHIPPED ?= $(if $(filter pipelines/bases/reading,$(READING_SHIPPED)),$(if $(wildcard pipelines/bases/reading-skills/SHA256SUMS),pipelines/bases/reading-skills))
READING_E1_BASE    ?= $(RUNS)/base-reading-e1-s1
READING_E1_SHIPPED ?= $(if $(wildcard pipelines/bases/reading-e1/SHA256SUMS),pipelines/bases/reading-e1)
reading_e1_vars     = READING_BASE=$(READING_E1_BASE) READING_SEED=1 READING_EPOCHS=1 READING_SHIPPED=$(READING_E1_SHIPPED)
# where base-reading-ship writes
READING_SHIP_TO    ?= pipelines/bases/reading

# - the choosing twin (recipe 16, issue 51, docs/skillgate-experiment.md):
#   the shipped skills twin fine-tuned for one epoch on demonstrations
#   that read a skill drawn from the slate far more often than the right
#   one (READING_CHOOSE_MIX), so that it still chooses badly at the
#   evaluation temperature. READING_CHOOSE_BASE (runs/base-reading-choose),
#   READING_CHOOSE_SHIPPED (pipelines/bases/reading-choose); `make
#   base-reading-choose` trains it from the shipped skills twin, runs its
#   reading test and says whether it is byte-identical to the shipped one;
#   `make base-reading-choose-ship` replaces the shipped files.
READING_CHOOSE_BASE    ?= $(RUNS)/base-reading-choose
READING_CHOOSE_INIT    ?= pipelines/bases/reading-skills/ckpt/0
READING_CHOOSE_MIX     ?= read-right:400 read-random:1800 read-random.2:1800
READING_CHOOSE_SHIPPED ?= $(if $(wildcard pipelines/bases/reading-choose/SHA256SUMS),pipelines/bases/reading-choose)
reading_choose_vars     = READING_BASE=$(READING_CHOOSE_BASE) READING_SKILLS_BASE=$(READING_CHOOSE_BASE) READING_MODEL=$(READING_CHOOSE_INIT) \
                          READING_MIX="$(READING_CHOOSE_MIX)" READING_EPOCHS=1 READING_LR=1e-3 READING_SEED=3 READING_TEST_FLAGS=--skills \
                          READING_SHIPPED=$(READING_CHOOSE_SHIPPED)

.PHONY: base-reading base-reading-ship base-reading-skills base-reading-skills-ship base-reading-e1 base-reading-e1-ship \
        base-reading-choose base-reading-choose-ship

base-reading-choose: | $(PIPE_BINS)
	+$(MAKE) --no-print-directory base-reading $(reading_choose_vars)

base-reading-choose-ship:
	+$(MAKE) --no-print-directory base-reading-ship $(reading_choose_vars) READING_SHIPPED= READING_SHIP_TO=pipelines/bases/reading-choose

base-reading-skills: | $(PIPE_BINS)
	+$(MAKE) --no-print-directory base-reading $(reading_skills_vars)

base-reading-e1: | $(PIPE_BINS)
	+$(MAKE) --no-print-directory base-reading $(reading_e1_vars)

base-reading-skills-ship:
	+$(MAKE) --no-print-directory base-reading-ship $(reading_skills_vars) READING_SHIPPED= READING_SHIP_TO=pipelines/bases/reading-skills

base-reading-e1-ship:
	+$(MAKE) --no-print-directory base-reading-ship $(reading_e1_vars) READING_SHIPPED= READING_SHIP_TO=pipelines/bases/reading-e1

# The base of runs with skills on, when it is not READING_BASE itself: the
# skills twin by its recipe, or the choosing twin by its own when a run
# names it (READING_SKILLS_BASE=$(READING_CHOOSE_BASE), as
# skillgate-choose-experiment does): copied from its shipped folder.
reading_skills_base_vars = $(if $(filter $(READING_CHOOSE_BASE),$(READING_SKILLS_BASE)),$(reading_choose_vars),$(reading_skills_vars))
ifneq ($(READING_SKILLS_BASE),$(READING_BASE))
$(READING_SKILLS_BASE)/ckpt/0/config.json $(READING_SKILLS_BASE)/metrics/sft.parquet &: | $(PIPE_BINS)
	+$(MAKE) --no-print-directory $(READING_SKILLS_BASE)/ckpt/0/config.json $(reading_skills_base_vars)
endif

ifeq ($(READING_TRAIN),)
base-reading: | $(PIPE_BINS)
	+$(MAKE) --no-print-directory base-reading READING_TRAIN=1 READING_SHIPPED=
	@if [ -n "$(READING_SHIPPED)" ]; then \
	  (cd $(READING_BASE)/ckpt/0 && sha256sum $(READING_FILES)) > $(READING_BASE)/SHA256SUMS; \
	  if cmp -s $(READING_BASE)/SHA256SUMS $(READING_SHIPPED)/SHA256SUMS; then \
	    echo "base-reading: $(READING_BASE)/ckpt/0 is byte-identical to $(READING_SHIPPED)"; \
	  else echo "base-reading: $(READING_BASE)/ckpt/0 differs from $(READING_SHIPPED):"; diff $(READING_SHIPPED)/SHA256SUMS $(READING_BASE)/SHA256SUMS || :; fi; \
	fi
else
base-reading: $(foreach s,$(READING_SPLITS),$(READING_BASE)/reading/$(READING_TEST_ENV)/$(s).md)
	@for s in $(READING_SPLITS); do echo; cat $(READING_BASE)/reading/$(READING_TEST_ENV)/$$s.md; done
endif

# The ship targets take READING_BASE as built (READING_SHIPPED= : never a
# copy of the shipped files in its place).
ifneq ($(READING_SHIPPED),)
base-reading-ship:
	+$(MAKE) --no-print-directory base-reading-ship READING_SHIPPED=
else
base-reading-ship: $(READING_BASE)/ckpt/0/config.json
	@mkdir -p $(READING_SHIP_TO)/ckpt/0 $(READING_SHIP_TO)/metrics
	cp $(addprefix $(READING_BASE)/ckpt/0/,$(READING_FILES)) $(READING_SHIP_TO)/ckpt/0/
	cp $(READING_BASE)/metrics/sft.parquet $(READING_SHIP_TO)/metrics/
	(cd $(READING_SHIP_TO)/ckpt/0 && sha256sum $(READING_FILES)) > $(READING_SHIP_TO)/SHA256SUMS
	@cat $(READING_SHIP_TO)/SHA256SUMS
endif

# $(BIN)/audit is one of pats.mk's PIPE_BINS.

$(READING_BASE)/demos/%.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(if $(call reading_flags,$(basename $*)),,$(error READING_MIX: unknown shard kind $(basename $*)))
	$(BIN)/rollout --env $(call reading_env,$(basename $*)) --max-context $(MAX_CONTEXT) --split train --tasks $(call reading_tasks,$*) --group 1 \
	  --seed $(READING_SEED)99$(call reading_index,$*) --policy oracle $(call reading_flags,$(basename $*)) --run base-reading$(reading_history) $(READING_ROLLOUT_FLAGS) -o $@

$(READING_BASE)/demos.parquet: $(foreach s,$(READING_SHARDS),$(READING_BASE)/demos/$(s).parquet)
	$(BIN)/report mix $^ -o $@

ifneq ($(READING_SHIPPED),)
$(READING_BASE)/ckpt/0/config.json $(READING_BASE)/metrics/sft.parquet &: $(READING_SHIPPED)/SHA256SUMS $(READING_SHIPPED)/metrics/sft.parquet $(addprefix $(READING_SHIPPED)/ckpt/0/,$(READING_FILES))
	@mkdir -p $(READING_BASE)/ckpt $(READING_BASE)/metrics
	@if (cd $(READING_BASE)/ckpt/0 2>/dev/null && sha256sum --quiet --status -c $(abspath $(READING_SHIPPED))/SHA256SUMS) && \
	  cmp -s $(READING_SHIPPED)/metrics/sft.parquet $(READING_BASE)/metrics/sft.parquet; then :; else \
	  echo "copy $(READING_SHIPPED) to $(READING_BASE)"; \
	  rm -rf $(READING_BASE)/ckpt/.0.tmp && cp -r $(READING_SHIPPED)/ckpt/0 $(READING_BASE)/ckpt/.0.tmp && rm -rf $(READING_BASE)/ckpt/0 && mv $(READING_BASE)/ckpt/.0.tmp $(READING_BASE)/ckpt/0 && \
	  cp $(READING_SHIPPED)/metrics/sft.parquet $(READING_BASE)/metrics/sft.parquet.tmp && mv $(READING_BASE)/metrics/sft.parquet.tmp $(READING_BASE)/metrics/sft.parquet; fi
else
$(READING_BASE)/ckpt/0/config.json $(READING_BASE)/metrics/sft.parquet &: $(READING_BASE)/demos.parquet
	@mkdir -p $(READING_BASE)/ckpt $(READING_BASE)/metrics
	$(BIN)/learn sft --init $(READING_MODEL) --traj $< -o $(READING_BASE)/ckpt/0 --epochs $(READING_EPOCHS) \
	  --batch-tokens $(SFT_BATCH) --lr $(READING_LR) --seed $(READING_SEED) --metrics $(READING_BASE)/metrics/sft.parquet
	printf '{"prompt_format": "builtin", "history": %s, "admissible": "%s", "max_action_tokens": 32}\n' $(READING_HISTORY) $(READING_ADMISSIBLE) > $(READING_BASE)/ckpt/0/agent.json
endif

$(READING_BASE)/reading/$(READING_TEST_ENV)/%.md: $(READING_BASE)/ckpt/0/config.json | $(BIN)/audit
	@mkdir -p $(@D)
	$(BIN)/audit reading --policy $(READING_BASE)/ckpt/0 --env $(READING_TEST_ENV) --split $* --tasks $(READING_EVAL) $(READING_TEST_FLAGS)$(reading_history) \
	  --seed $(EVAL_SEED) --max-context $(MAX_CONTEXT) -o $(@D)/$*.parquet > $@.tmp && mv $@.tmp $@
