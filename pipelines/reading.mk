# A base that reads (issue 11, part 1): SFT of MODEL on oracle
# demonstrations whose right action depends on text in the context, then
# its reading test. Included by the top Makefile.
#
#   make base-reading                          # runs/base-reading, the recorded recipe
#   make base-reading READING_BASE=runs/trial READING_TASKS=1200 READING_EPOCHS=3 READING_EVAL=60
#
# The demonstrations are `rollout --hints mixed` (lib/rollout HintsMixed):
# per task, no rules, the task's right rules, right rules with an
# irrelevant one, an irrelevant one alone (in the scaffold's place, rendered
# like the scaffold's Task layer), or right or irrelevant rules as a skill
# body before the first action. The oracle follows the rules it reads
# ("Look in the K first.", "Heat the object with the K ..."), so the right
# action depends on the text. docs/environments.md describes the rules.
READING_BASE   ?= $(RUNS)/base-reading
READING_ENV    ?= household
READING_MODEL  ?= $(MODEL)
READING_TASKS  ?= 3500
READING_EPOCHS ?= 6
READING_LR     ?= 2e-3
READING_SEED   ?= 1
# tasks per split of the reading test (0: the whole split)
READING_EVAL   ?= 0
READING_SPLITS ?= valid_seen valid_unseen
# extra rollout flags of the demonstrations (e.g. --skills: a slate, and a
# first read of the right skill, in every demonstration)
READING_ROLLOUT_FLAGS ?=

.PHONY: base-reading

base-reading: $(foreach s,$(READING_SPLITS),$(READING_BASE)/reading/$(s).md)
	@for s in $(READING_SPLITS); do echo; cat $(READING_BASE)/reading/$$s.md; done

ifeq ($(PIPE_BUILD),1)
$(BIN)/audit: $(PIPE_SOURCES)
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/audit
endif

$(READING_BASE)/demos.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/rollout --env $(READING_ENV) --max-context $(MAX_CONTEXT) --split train --tasks $(READING_TASKS) --group 1 \
	  --seed $(READING_SEED)997 --policy oracle --hints mixed --run base-reading $(READING_ROLLOUT_FLAGS) -o $@

$(READING_BASE)/ckpt/0/config.json $(READING_BASE)/metrics/sft.parquet &: $(READING_BASE)/demos.parquet
	@mkdir -p $(READING_BASE)/ckpt $(READING_BASE)/metrics
	$(BIN)/learn sft --init $(READING_MODEL) --demos $< -o $(READING_BASE)/ckpt/0 --epochs $(READING_EPOCHS) \
	  --batch-tokens $(SFT_BATCH) --lr $(READING_LR) --seed $(READING_SEED) --metrics $(READING_BASE)/metrics/sft.parquet

$(READING_BASE)/reading/%.md: $(READING_BASE)/ckpt/0/config.json | $(BIN)/audit
	@mkdir -p $(@D)
	$(BIN)/audit reading --policy $(READING_BASE)/ckpt/0 --env $(READING_ENV) --split $* --tasks $(READING_EVAL) \
	  --seed $(EVAL_SEED) --max-context $(MAX_CONTEXT) -o $(READING_BASE)/reading/$*.parquet > $@.tmp && mv $@.tmp $@
