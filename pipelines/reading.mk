# A base that reads (issue 11, part 1): SFT of MODEL on oracle
# demonstrations whose right action depends on text in the context, then
# its reading test. Included by the top Makefile.
#
#   make base-reading                 # runs/base-reading, the recorded recipe (docs/results.md)
#   make base-reading READING_BASE=runs/trial READING_EPOCHS=3 READING_EVAL=60
#
# The demonstrations are oracle episodes of READING_ENV's train split in
# shards (READING_MIX: name:tasks, each with its own seed and tasks), mixed
# into one file. The oracle follows every rule it reads, right or
# misleading ("Look in the K first.", "Heat the object with the K ..."), in
# the scaffold's place or in a skill body, so the right action depends on
# the text, as in an instruction-following model's data:
#
#   mixed             no slate; `--hints mixed` (lib/rollout HintsMixed):
#                     no rules, right rules, right + irrelevant, irrelevant,
#                     right steps or an irrelevant rule as a skill body
#   misleading        no slate; the task's misleading rules (followed)
#   slate-right       the skill slate, the first action reads the right
#                     skill (its library body follows), `--hints mixed`
#   slate-random      the slate, the first action reads a random skill,
#                     `--hints mixed`
#   slate-misleading  the slate, a read of the right skill, and the
#                     misleading rules in the scaffold's place
#
# The shards with a slate make the base a skills base too: a run with
# skills on (VARIANT=skillgate, broadcast) uses it as BASE_SKILLS.
# docs/environments.md describes the rules; docs/results.md records the
# recipe and its figures.
READING_BASE   ?= $(RUNS)/base-reading
READING_ENV    ?= household
READING_MODEL  ?= tiny
READING_MIX    ?= mixed:1400 misleading:400 slate-right:700 slate-random:500 slate-misleading:300
READING_EPOCHS ?= 6
READING_LR     ?= 2e-3
READING_SEED   ?= 1
# the reading test: its world, its flags (--skills: every condition shows
# the slate, the skill conditions read from it), tasks per split (0: the
# whole split)
READING_TEST_ENV   ?= household-rl
READING_TEST_FLAGS ?= --skills
READING_EVAL   ?= 0
READING_SPLITS ?= valid_seen valid_unseen
# extra rollout flags of every demonstration shard
READING_ROLLOUT_FLAGS ?=

# the rollout flags of each shard kind
reading_flags_mixed            := --hints mixed
reading_flags_misleading       := --hints misleading
reading_flags_slate-right      := --skills --text-read right --hints mixed
reading_flags_slate-random     := --skills --text-read random --hints mixed
reading_flags_slate-misleading := --skills --text-read right --hints misleading
READING_SHARDS := $(foreach s,$(READING_MIX),$(firstword $(subst :, ,$(s))))
reading_tasks   = $(word 2,$(subst :, ,$(filter $(1):%,$(READING_MIX))))
# shard i (from 1) of READING_MIX has seed READING_SEED 99 i
reading_index   = $(words $(call reading_upto,$(1),$(READING_SHARDS)))
reading_upto    = $(if $(filter $(1),$(firstword $(2))),$(1),$(firstword $(2)) $(call reading_upto,$(1),$(wordlist 2,$(words $(2)),$(2))))

.PHONY: base-reading

base-reading: $(foreach s,$(READING_SPLITS),$(READING_BASE)/reading/$(READING_TEST_ENV)/$(s).md)
	@for s in $(READING_SPLITS); do echo; cat $(READING_BASE)/reading/$(READING_TEST_ENV)/$$s.md; done

ifeq ($(PIPE_BUILD),1)
$(BIN)/audit: $(PIPE_SOURCES)
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/audit
endif

$(READING_BASE)/demos/%.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(if $(reading_flags_$*),,$(error READING_MIX: unknown shard kind $*))
	$(BIN)/rollout --env $(READING_ENV) --max-context $(MAX_CONTEXT) --split train --tasks $(call reading_tasks,$*) --group 1 \
	  --seed $(READING_SEED)99$(call reading_index,$*) --policy oracle $(reading_flags_$*) --run base-reading $(READING_ROLLOUT_FLAGS) -o $@

$(READING_BASE)/demos.parquet: $(foreach s,$(READING_SHARDS),$(READING_BASE)/demos/$(s).parquet)
	$(BIN)/report mix $^ -o $@

$(READING_BASE)/ckpt/0/config.json $(READING_BASE)/metrics/sft.parquet &: $(READING_BASE)/demos.parquet
	@mkdir -p $(READING_BASE)/ckpt $(READING_BASE)/metrics
	$(BIN)/learn sft --init $(READING_MODEL) --demos $< -o $(READING_BASE)/ckpt/0 --epochs $(READING_EPOCHS) \
	  --batch-tokens $(SFT_BATCH) --lr $(READING_LR) --seed $(READING_SEED) --metrics $(READING_BASE)/metrics/sft.parquet

$(READING_BASE)/reading/$(READING_TEST_ENV)/%.md: $(READING_BASE)/ckpt/0/config.json | $(BIN)/audit
	@mkdir -p $(@D)
	$(BIN)/audit reading --policy $(READING_BASE)/ckpt/0 --env $(READING_TEST_ENV) --split $* --tasks $(READING_EVAL) $(READING_TEST_FLAGS) \
	  --seed $(EVAL_SEED) --max-context $(MAX_CONTEXT) -o $(@D)/$*.parquet > $@.tmp && mv $@.tmp $@
