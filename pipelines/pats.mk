# The PATS training loop as Make rules. Included by the top Makefile;
# docs/pipelines.md documents every variable, variant and output.
#
#   make pats VARIANT=pats SEED=1 ITERS=4            # one run, into runs/$(RUN)
#   make -j2 pats ...                                # scaffold and policy branches side by side
#   make plots RUN=pats-s1                           # PNG plots of a run
#   make sweep-plots SWEEP=runs/s1 VARIANTS=... SEEDS=...   # of a sweep, per variant with seed bands (sweep.mk)
#
# Every target is a file each command writes atomically (a checkpoint is a
# folder replaced atomically; its config.json stands for it), so an
# interrupted run resumes where it stopped, and a finished run does nothing
# (`make -q pats ...` exits 0).

# ---- what to run ------------------------------------------------------------
include $(dir $(lastword $(MAKEFILE_LIST)))guard.mk

ENV          ?= household
MODEL        ?= tiny
VARIANT      ?= pats
SEED         ?= 1
ITERS        ?= 4
RUN          ?= $(VARIANT)-s$(SEED)
RUNS         ?= runs
R            := $(RUNS)/$(RUN)

# ---- sizes ------------------------------------------------------------------
# tasks per iteration
TASKS        ?= 8
# episodes per task (a GRPO group)
GROUP        ?= 4
# tasks behind oracle-boot's B_0: GROUP oracle + GROUP weak episodes each
BOOT_TASKS   ?= 12
# A run folder under RUNS whose ckpt/0 is the base policy: the warm-up SFT
# starts from it instead of MODEL. The base stands in for the paper's
# pretrained model, which already acts: it is the warm-up of a run without
# scaffold (VARIANT=grpo, or skillgate with skills) trained from MODEL on
# many oracle demonstrations, and is built by the rule below when missing.
# With a base the warm-up only teaches the scaffold's format (a short SFT).
BASE         ?=
# The base that reads (pipelines/reading.mk) has its own recipe,
READING_BASE ?= $(RUNS)/base-reading
# and its own context: the history window of its demonstrations, its
# reading test and every rollout and evaluation of a run from it
# (rollout/audit --history: each answer sees the prompt and the last N
# turns, as verl-agent's ALFWorld prompts with N = 2; the recorded recipe,
# 14, as 13); 0 keeps the whole episode (recipe 5)
READING_HISTORY ?= 2
reading_history = $(if $(filter-out 0,$(READING_HISTORY)), --history $(READING_HISTORY))$(reading_admissible)
# and the admissible actions each of their observations lists after it
# (rollout/audit --admissible: here, the actions that change something at
# the current place, or all, as verl-agent's ALFWorld prompts); here in
# the recorded recipe (14, as 13); none passes nothing (recipe 5)
READING_ADMISSIBLE ?= here
reading_admissible = $(if $(filter-out none,$(READING_ADMISSIBLE)), --admissible $(READING_ADMISSIBLE))
# and so has its twin for runs with skills on (a slate in every
# demonstration): READING_BASE-skills, `make base-reading-skills`
READING_SKILLS_BASE ?= $(READING_BASE)-skills
# the base of runs with skills on (their demonstrations read skills)
BASE_SKILLS  ?= $(if $(BASE),$(BASE)-skills)
BASE_SEED    ?= 1
# The base's recipe: oracle demonstrations, SFT epochs and learning rate
# (about 30-46% greedy success on household valid_seen with tiny; shorter
# recipes reach about 0).
BASE_TASKS   ?= 3500
BASE_EPOCHS  ?= 6
BASE_LR      ?= 2e-3
# The warm-up SFT: the base's recipe from MODEL without BASE, a short one
# (the scaffold's format) from the base with it.
DEMO_TASKS   ?= $(if $(RUN_BASE),256,$(BASE_TASKS))
SFT_EPOCHS   ?= $(if $(RUN_BASE),2,$(BASE_EPOCHS))
SFT_LR       ?= $(if $(RUN_BASE),1e-3,$(BASE_LR))
SFT_BATCH    ?= 2048
# The interface warm-up of the scaffold variants (the PATS paper's: a
# little offline data that teaches the prompt interface and creates or
# updates no scaffold content): DEMO_TASKS oracle demonstrations of
# WARMUP_ENV's train split whose context carries the rules the environment
# states about each task in the scaffold's place and format (rollout
# --hints WARMUP_HINTS), never the run's own scaffold. With the reading
# base the set comes from its pretraining world (READING_ENV,
# household-drawn: conventions drawn per task), so the warm-up teaches the
# format and none of the RL world's conventions, which grpo never sees.
# FORMAT_SFT=0 skips it for every variant (as variant no-warmup does):
# ckpt/0 is then a copy of the base. WARMUP_HINTS=mixed (issue 48's probe,
# docs/results.md): the demonstrations mix no rules, right rules, right and
# irrelevant rules, irrelevant rules, and rules as a skill body, as the
# reading base's own data does, so the warm-up keeps what the base does
# with no text (right: every demonstration carries the right rules, and the
# policy it makes acts only with rules).
FORMAT_SFT   ?= 1
WARMUP_ENV   ?= $(if $(filter $(READING_BASE) $(READING_SKILLS_BASE),$(RUNS)/$(RUN_BASE)),$(READING_ENV),$(ENV))
WARMUP_HINTS ?= mixed
# GRPO's learning rate: learn grpo's default (TestDefaultsAgree keeps them
# equal); a pretrained checkpoint of a billion parameters wants about 1e-6
GRPO_LR      ?= 5e-4
KL           ?= 0.01
# sequences per GRPO optimizer step (0: one step per iteration)
MINIBATCH    ?= 16
# evaluate ckpt/0, every EVAL_EVERY iterations, and the last
EVAL_EVERY   ?= $(ITERS)
# tasks per split and evaluation (0: the whole split)
EVAL_TASKS   ?= 24
# the same evaluation tasks for every run
EVAL_SEED    ?= 7
EVAL_SPLITS  ?= valid_seen valid_unseen
# extra evaluate flags; its default sampling is the published one
# (temperature 0.4, unless the checkpoint's generation_config.json sets
# its own)
EVAL_FLAGS   ?=
MAX_CONTEXT  ?= 4096
# scaffold token budget
BUDGET       ?= 400
# The fade of variant pats (issue 59; control/validate --fade-start,
# --fade-end): the caps of snapshot j stay whole while j/ITERS <=
# FADE_START, fall linearly, and are 0 from j/ITERS >= FADE_END, so the
# iterations from FADE_END on play and train bare, as the policy is
# deployed (20 iterations: snapshots 11-15 shrink, iterations 16-19 bare).
FADE_START   ?= 0.5
FADE_END     ?= 0.8
# the absorption margin (control --absorb-margin): a scope whose bare EMA is
# within it of its scaffolded EMA, or above, has absorbed its items
ABSORB_MARGIN ?= 0.05
# 1: a skill slate in every rollout and evaluation
SKILLS       ?= 0
# 1: the mechanism audits of a scaffold run, every iteration (docs/pipelines.md):
# bare/K (traj/K's groups played again by ckpt/K with no scaffold), lift/K
# (audit lift: success with minus without, per task type) and truth/K
# (audit truth: snap/K's items judged by the environment's own rules, and
# which of them the snapshot states). The loop never reads them: cards,
# control and validate see the same inputs with 0 (TestMechanismAudits).
MECHANISM    ?= 1
# broadcast, skillgate, or gigpo (GiGPO's step-level credit on top of the
# variant's credit: broadcast, or skillgate for the skillgate variant)
CREDIT       ?= broadcast
# with skills on: the first read of the demonstrations, one shard of
# DEMO_TASKS / (number of modes) tasks per mode (rollout --text-read)
DEMO_READS   ?= right random
# the hand-written scaffold of warm-start; a large world
# (household-rl-large) has its ordinary world's conventions and scaffold
EXPERT       ?= pipelines/expert/$(patsubst %-large,%,$(ENV)).yaml
# A run folder whose snap/0, demos and ckpt/0 to copy instead of computing
# them (the sweep shares one warm-up among variants); empty: compute.
WARMUP       ?=
# Extra flags, passed through verbatim. DEMO_FLAGS go to the oracle's
# demonstration rollouts (a chat checkpoint as MODEL: --tokenizer $(MODEL),
# see docs/real-models.md).
ROLLOUT_FLAGS ?=
DEMO_FLAGS    ?=
SFT_FLAGS     ?=
GRPO_FLAGS    ?=
CONTROL_FLAGS ?=
CARDS_FLAGS   ?=
# The refiner's evidence window: control reads the cards of iteration k and
# of the REFINER_WINDOW-1 adapting iterations before it (--history, --window), and
# validate checks additions' support against the same cards.
REFINER_WINDOW ?= 3
# Flags for control only, after CONTROL_FLAGS (which validate gets too): the
# refiner, e.g. your own served model behind an OpenAI-compatible endpoint,
# REFINER_FLAGS="--refiner openai --endpoint http://host:8000/v1 --model NAME"
# (docs/pats-loop.md).
REFINER_FLAGS ?=
# A policy on an inference server (docs/real-models.md, GPU node): with
# POLICY_SERVER (http://HOST:PORT/v1 for vLLM, http://HOST:PORT for SGLang)
# each iteration's training rollouts go through that server, which serves
# POLICY_MODEL; before iteration k's rollout POLICY_SERVER_RESTART RUN/ckpt/k
# runs and must return once the server serves that folder (a script of the
# user's: stop the engine, start it on the folder, wait until it answers).
# The default only says what it would have to do, and fails, so that
# nothing rolls out from a server still serving another checkpoint.
# Evaluations and the warm-up stay on the toolkit's model.
POLICY_SERVER         ?=
POLICY_MODEL          ?= policy
POLICY_SERVER_RESTART ?= pipelines/policy-server-restart.sh
# The server's URL and the model's name are one word each: a blank or tab
# would make the rest extra rollout flags.
$(foreach v,POLICY_SERVER POLICY_MODEL,$(if $(word 2,$(value $(v))),$(error $(v) must be one word, without blanks or tabs)))
# make prints every recipe line it runs (and make -n all of them), so no
# variable that reaches one may hold a credential: a key flag (--api-key K,
# --token=T) or a URL's user:password@. The key goes in the environment as
# OPENAI_API_KEY, which rollout (a server policy) and the openai refiner
# read; the message never repeats the value.
pats_key_flags := $(foreach n,api-key api_key apikey key token access-token password passwd secret auth,--$(n) --$(n)=% -$(n) -$(n)=%)
pats_credential = $(strip $(filter $(pats_key_flags),$(value $(1)))$(foreach w,$(value $(1)),$(if $(findstring ://,$(w)),$(findstring @,$(w)))))
$(foreach v,$(.VARIABLES),$(if $(or $(filter command line,$(origin $(v))),$(and $(filter environment%,$(origin $(v))),$(filter %_FLAGS POLICY_%,$(v)))),$(if $(call pats_credential,$(v)),$(error $(v) holds a credential (a key flag or a URL's user:password), which make would print with its recipe lines; give the key as OPENAI_API_KEY in the environment instead))))

# LoRA (issue 60): LORA_RANK=R makes every update a LoRA adapter of rank R on
# the frozen ckpt/0 (learn grpo --lora-rank R; the KL's reference is ckpt/0,
# the adapter off), so ckpt/k for k >= 1 are adapter folders
# (adapter_config.json stands for them). With POLICY_SERVER as well the
# engine is started once, on ckpt/0 (POLICY_SERVER_RESTART before
# iteration 0's rollouts only; vLLM with --enable-lora and
# VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, SGLang with --enable-lora), and each
# later iteration's rollout loads ckpt/k into it as POLICY_MODEL-k and drops
# POLICY_MODEL-(k-1) (rollout --load-adapter --unload-adapter): no restarts.
LORA_RANK             ?=

# Progress of the long stages (learn, rollout, evaluate, audit) on stderr:
# auto (a line rewritten in place on a terminal; in a log, such as a Slurm
# job's or a notebook's subprocess, a plain line every PROGRESS_INTERVAL and
# one at the end), plain, or none. Each iteration's line says how far the
# loop has got.
PROGRESS          ?= auto
PROGRESS_INTERVAL ?= 30s
export PATS_PROGRESS := $(PROGRESS)
export PATS_PROGRESS_INTERVAL := $(PROGRESS_INTERVAL)

# ---- the binaries -------------------------------------------------------------
BIN          ?= bin
PIPE_TOOLS   := rollout evaluate learn cards control validate report audit
PIPE_BINS    := $(addprefix $(BIN)/,$(PIPE_TOOLS))
# PIPE_BUILD=1 rebuilds the binaries when a Go source is newer; 0 uses them
# as they are (a test or a cluster job with prebuilt binaries).
PIPE_BUILD   ?= 1
ifeq ($(PIPE_BUILD),1)
PIPE_SOURCES := $(shell find cmd lib -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod
$(PIPE_BINS) &: $(PIPE_SOURCES)
	@mkdir -p $(BIN)
	$(GO) build $(GO_LDFLAGS) -o $(BIN)/ $(addprefix ./cmd/,$(PIPE_TOOLS))
	@touch $(PIPE_BINS)
endif

# ---- variants -------------------------------------------------------------------
# SCAFFOLD: a scaffold in training rollouts. ADAPT: the scaffold branch
# (cards, control, validate) runs every iteration (1), at iteration 0 only
# (first: snap/1, the first committed scaffold, is then kept), or never (0).
# B0: how snap/0 is made: empty (no item: the first items come from EXPAND
# on iteration 0's own rollouts), evidence (oracle-boot: EXPAND on cards of
# oracle and random-policy episodes before training), expert (the
# hand-written EXPERT), none (no scaffold). WARMUP: the interface warm-up.
V_SCAFFOLD := 1
V_ADAPT    := 1
V_B0       := empty
V_WARMUP   := 1
V_DECAY    := 0
V_CONTROL  :=
V_CARDS    :=
V_SKILLS   := $(SKILLS)
V_CREDIT   := $(CREDIT)
V_STEP_OWN :=
# ABSORB: the bare replay of each iteration's groups (bare/K) is an input of
# the scaffold branch (control --bare: the absorption signal; COMPRESS
# fades). FADE: the caps fall to 0 over the end of the run (FADE_START,
# FADE_END). TRAIN: what learn grpo trains on: traj (the iteration's
# rollout), bare (traj/K and the bare replay bare/K as groups of their own),
# extra (traj/K and GROUP more bare episodes of the same tasks, extra/K, as
# groups of their own); with bare or extra each optimizer step takes twice
# MINIBATCH sequences, so the steps per iteration stay those of traj.
V_ABSORB   := 0
V_FADE     := 0
V_TRAIN    := traj
ifeq ($(VARIANT),pats)
V_ABSORB   := 1
V_FADE     := 1
else ifeq ($(VARIANT),pats-nofade)
# the loop before issue 59: no absorption signal, no fade
else ifeq ($(VARIANT),pats-bare)
V_ABSORB   := 1
V_FADE     := 1
V_TRAIN    := bare
else ifeq ($(VARIANT),static-x2)
V_SCAFFOLD := 0
V_ADAPT    := 0
V_B0       := none
V_TRAIN    := extra
else ifeq ($(VARIANT),keep)
else ifeq ($(VARIANT),grpo)
V_SCAFFOLD := 0
V_ADAPT    := 0
V_B0       := none
V_WARMUP   := 0
else ifeq ($(VARIANT),static)
V_SCAFFOLD := 0
V_ADAPT    := 0
V_B0       := none
else ifeq ($(VARIANT),frozen)
V_ADAPT    := first
else ifeq ($(VARIANT),expand-only)
V_CONTROL  := --primitives expand
else ifeq ($(VARIANT),no-revise)
V_CONTROL  := --primitives no-revise
else ifeq ($(VARIANT),traj-cards)
V_CARDS    := --per trajectory
else ifeq ($(VARIANT),warm-start)
V_B0       := expert
V_ADAPT    := 0
else ifeq ($(VARIANT),warm-start-adapt)
V_B0       := expert
else ifeq ($(VARIANT),no-warmup)
V_WARMUP   := 0
else ifeq ($(VARIANT),oracle-boot)
V_B0       := evidence
else ifeq ($(VARIANT),decay)
V_DECAY    := 1
else ifeq ($(VARIANT),gigpo)
V_SCAFFOLD := 0
V_ADAPT    := 0
V_B0       := none
V_WARMUP   := 0
V_CREDIT   := gigpo
else ifeq ($(VARIANT),skillgate)
V_SCAFFOLD := 0
V_ADAPT    := 0
V_B0       := none
V_WARMUP   := 0
V_SKILLS   := 1
V_CREDIT   := skillgate
else ifeq ($(VARIANT),broadcast)
V_SCAFFOLD := 0
V_ADAPT    := 0
V_B0       := none
V_WARMUP   := 0
V_SKILLS   := 1
V_CREDIT   := broadcast
else ifeq ($(VARIANT),pats-skillgate-gigpo)
# The three together: pats's scaffold loop (interface warm-up, empty B_0,
# the scaffold branch every iteration), a skill slate in every rollout with
# SkillGate's selection credit, and GiGPO's step credit on the outcome.
V_SKILLS   := 1
V_CREDIT   := skillgate
V_STEP_OWN := gigpo
else ifeq ($(VARIANT),pats-skillgate)
# The composed run without the step credit (issue 51's split): pats's
# scaffold loop and the skill slate with SkillGate's selection credit.
V_SKILLS   := 1
V_CREDIT   := skillgate
else ifeq ($(VARIANT),pats-gigpo)
# The composed run without the selection credit: pats's scaffold loop and
# the skill slate with the broadcast credit and GiGPO's step credit.
V_SKILLS   := 1
V_CREDIT   := broadcast
V_STEP_OWN := gigpo
else
$(error VARIANT=$(VARIANT): want pats, pats-nofade, pats-bare, static-x2, grpo, gigpo, static, frozen, expand-only, no-revise, traj-cards, warm-start, warm-start-adapt, no-warmup, oracle-boot, keep, decay, skillgate, broadcast, pats-skillgate-gigpo, pats-skillgate or pats-gigpo)
endif
ifeq ($(FORMAT_SFT),0)
V_WARMUP   := 0
endif
# CREDIT=gigpo adds the step-level credit to any variant's own credit (as
# the variants gigpo and pats-skillgate-gigpo do).
V_STEP     := $(if $(filter gigpo,$(CREDIT) $(V_CREDIT) $(V_STEP_OWN)),gigpo,none)
V_CREDIT   := $(patsubst gigpo,broadcast,$(V_CREDIT))
SKILL_FLAG := $(if $(filter 1,$(V_SKILLS)),--skills)
# This run's base. A run without the interface warm-up (grpo, no-warmup)
# starts GRPO from the base itself: its ckpt/0 is a copy of the base's.
RUN_BASE   := $(if $(filter 1,$(V_SKILLS)),$(BASE_SKILLS),$(BASE))
ifeq ($(WARMUP)$(V_WARMUP),0)
ifneq ($(RUN_BASE),)
ifneq ($(R),$(RUNS)/$(RUN_BASE))
WARMUP     := $(RUNS)/$(RUN_BASE)
endif
endif
endif

# the mechanism audits run for scaffold runs only
MECH_ON    := $(if $(filter 1,$(MECHANISM)),$(V_SCAFFOLD),0)
# the bare replay bare/K: for the audits, the absorption signal, or training
BARE_ON    := $(if $(filter 1,$(MECH_ON) $(V_ABSORB)),1,$(if $(filter bare,$(V_TRAIN)),1,0))
V_FADE_FLAGS := $(if $(filter 1,$(V_FADE)),--fade-start $(FADE_START) --fade-end $(FADE_END) --iterations $(ITERS))
V_MINIBATCH  := $(if $(filter traj,$(V_TRAIN)),$(MINIBATCH),$(shell echo $$(( 2 * $(MINIBATCH) ))))

# ---- derived ----------------------------------------------------------------------
ITER_LIST  := $(shell seq 0 $$(( $(ITERS) - 1 )))
EVAL_ITERS := $(sort 0 $(ITERS) $(shell seq 0 $(EVAL_EVERY) $(ITERS)))
iter_seed   = $(shell echo $$(( $(SEED) * 1000 + $(1) )))
snap_of     = $(if $(filter 1,$(V_ADAPT)),$(R)/snap/$(1).parquet,$(if $(filter first,$(V_ADAPT)),$(R)/snap/$(if $(filter 0,$(1)),0,1).parquet,$(R)/snap/0.parquet))
# the iterations whose scaffold branch runs
adapts      = $(if $(filter 1,$(V_ADAPT)),1,$(if $(filter first,$(V_ADAPT)),$(if $(filter 0,$(1)),1)))
# decay: the budget of iteration k falls linearly from BUDGET to 0 at the last one.
budget_of   = $(if $(filter 1,$(V_DECAY)),$(shell echo $$(( $(BUDGET) * ($(ITERS) - 1 - $(1)) / ($(ITERS) > 1 ? $(ITERS) - 1 : 1) ))),$(BUDGET))
# fade_bare,k: 1 when the fade has emptied snapshot k (k/ITERS >= FADE_END,
# as scaffold.Fade.Bare computes it): iteration k plays without a scaffold.
fade_bare   = $(if $(filter 1,$(V_FADE)),$(shell awk 'BEGIN { print ($(1) / $(ITERS) >= $(FADE_END)) ? 1 : 0 }'),0)
# A budget of 0 drops the scaffold (rollout reads --scaffold-budget 0 as no
# limit), and so does a snapshot the fade has emptied.
scaf_flags  = $(if $(filter 1,$(V_SCAFFOLD)),$(if $(filter 0,$(call budget_of,$(1))),,$(if $(filter 1,$(call fade_bare,$(1))),,--scaffold $(call snap_of,$(1)) --scaffold-budget $(call budget_of,$(1)))))
# train_of,k: the trajectories learn grpo trains on at iteration k (V_TRAIN);
# pats-bare takes extra/K where the fade has emptied snapshot k (traj/K and
# bare/K are then the same play).
extra_of    = $(if $(filter extra,$(V_TRAIN)),$(R)/extra/$(1).parquet,$(if $(filter 1,$(call fade_bare,$(1))),$(R)/extra/$(1).parquet,$(R)/bare/$(1).parquet))
train_of    = $(if $(filter traj,$(V_TRAIN)),$(R)/traj/$(1).parquet,$(R)/train/$(1).parquet)
ckpt        = $(R)/ckpt/$(1)/$(if $(call is_adapter,$(1)),adapter_config.json,config.json)
# LORA_RANK: ckpt/k is an adapter for k >= 1, loaded into a server's engine
# as POLICY_MODEL-k (which then drops POLICY_MODEL-(k-1)) instead of a restart.
is_adapter  = $(if $(LORA_RANK),$(filter-out 0,$(1)))
served_model = $(if $(call is_adapter,$(1)),--model $(POLICY_MODEL)-$(1) --load-adapter$(if $(filter-out 1,$(1)), --unload-adapter $(POLICY_MODEL)-$(shell echo $$(( $(1) - 1 )))),--model $(POLICY_MODEL))
restarts    = $(if $(POLICY_SERVER),$(if $(call is_adapter,$(1)),,1))
# the cards of the iterations before k in the refiner's window
history_of  = $(foreach j,$(shell seq $$(( $(1) + 1 > $(REFINER_WINDOW) ? $(1) + 1 - $(REFINER_WINDOW) : 0 )) $$(( $(1) - 1 ))),$(if $(call adapts,$(j)),$(R)/cards/$(j).parquet))
# a run from the reading base or its skills twin rolls out and evaluates in
# the context the base was trained in (READING_HISTORY, READING_ADMISSIBLE
# above: the same window and admissible actions for every run; with skills
# on, a body read stays in view once its turn is dropped). The base's
# checkpoints carry the same context in agent.json, which rollout and
# evaluate would take by themselves; the flags stay explicit because the
# oracle and random rollouts (demonstrations, oracle-boot's evidence) have
# no checkpoint to take it from, and READING_HISTORY / READING_ADMISSIBLE
# set otherwise must reach every rollout of the run alike.
RUN_CONTEXT := $(if $(filter $(READING_BASE) $(READING_SKILLS_BASE),$(RUNS)/$(RUN_BASE)),$(reading_history))
COMMON     := --env $(ENV) --max-context $(MAX_CONTEXT) $(SKILL_FLAG)$(RUN_CONTEXT)

.PHONY: pats warmup plots settings

# ---- the run's record of its settings ------------------------------------------------
# RUN/settings.json (report settings RUN prints it): every variable that
# shapes the run and the variant's resolved settings and flags, the seeds,
# the base and its weights hash, the toolkit's version and commit.
# RUN/.settings holds a checksum of the resolved NAME=VALUE lines (not the
# lines: a credential in a FLAGS variable is never written but through
# report settings, which scrubs it); its recipe runs every time (reading
# this file runs nothing, so make -n executes nothing) and rewrites it only
# when the lines change, so a finished run stays finished and a run made
# with another knob records it.
RUN_SETTINGS := ENV MODEL VARIANT SEED ITERS RUN TASKS GROUP BOOT_TASKS BASE BASE_SKILLS BASE_SEED BASE_TASKS \
  BASE_EPOCHS BASE_LR DEMO_TASKS DEMO_READS SFT_EPOCHS SFT_BATCH SFT_LR FORMAT_SFT GRPO_LR KL MINIBATCH EVAL_EVERY \
  EVAL_TASKS EVAL_SEED EVAL_SPLITS EVAL_FLAGS MAX_CONTEXT BUDGET SKILLS MECHANISM CREDIT EXPERT WARMUP READING_HISTORY \
  READING_ADMISSIBLE ROLLOUT_FLAGS DEMO_FLAGS SFT_FLAGS GRPO_FLAGS CONTROL_FLAGS CARDS_FLAGS REFINER_WINDOW REFINER_FLAGS \
  RUN_BASE COMMON $(if $(filter pats pats-bare,$(VARIANT)),FADE_START FADE_END ABSORB_MARGIN) $(if $(POLICY_SERVER),POLICY_SERVER POLICY_MODEL POLICY_SERVER_RESTART) $(if $(LORA_RANK),LORA_RANK) $(sort $(filter V_%,$(.VARIABLES)))
settings_lines = $(foreach v,$(RUN_SETTINGS),'$(v)=$(subst ','\'',$(strip $($(v))))')
# Rewritten while make reads this file only when the checksum changes, and
# never under -n or -q (a dry run or a question runs nothing and writes
# nothing; guard.mk has refused any RUN that could reach the shell), so a
# finished run stays finished (make -q pats exits 0).
settings_dry := $(findstring n,$(firstword -$(MAKEFLAGS)))$(findstring q,$(firstword -$(MAKEFLAGS)))
ifneq ($(filter pats warmup settings,$(MAKECMDGOALS)),)
ifeq ($(settings_dry),)
$(shell mkdir -p '$(R)' && { printf '%s\n' $(settings_lines) | cksum | cmp -s - '$(R)/.settings' || printf '%s\n' $(settings_lines) | cksum > '$(R)/.settings'; })
endif
endif
$(R)/.settings:
	@mkdir -p '$(R)' && printf '%s\n' $(settings_lines) | cksum > '$@'
$(R)/settings.json: $(R)/.settings $(BIN)/report $(if $(RUN_BASE),$(RUNS)/$(RUN_BASE)/ckpt/0/config.json)
	printf '%s\n' $(settings_lines) > '$@.vars' && $(BIN)/report settings --from '$@.vars' $(if $(RUN_BASE),--base '$(RUNS)/$(RUN_BASE)/ckpt/0') -o '$@'; s=$$?; rm -f '$@.vars'; exit $$s

settings: $(R)/settings.json

# The run is done when its summary exists.
pats: $(R)/settings.json $(R)/summary.md
# B_0, the demonstrations and the warm-up checkpoint only.
warmup: $(call ckpt,0) $(if $(filter 1,$(V_SCAFFOLD)),$(R)/snap/0.parquet)

# ---- oracle-boot's evidence ----------------------------------------------------------------
# evidence (variant oracle-boot only): one EXPAND round on cards of groups
# mixing GROUP oracle and GROUP random episodes of the same tasks
# (iteration -1, before training). No other variant reads these episodes.
$(R)/boot/empty.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/validate init -o $@

$(R)/boot/oracle.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/rollout $(COMMON) --split train --tasks $(BOOT_TASKS) --group $(GROUP) --seed $(call iter_seed,999) --policy oracle --iteration -1 --run $(RUN) -o $@

$(R)/boot/weak.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/rollout $(COMMON) --split train --tasks $(BOOT_TASKS) --group $(GROUP) --seed $(call iter_seed,999) --policy random --iteration -1 --run $(RUN) -o $@

$(R)/boot/traj.parquet: $(R)/boot/oracle.parquet $(R)/boot/weak.parquet
	$(BIN)/report mix $^ -o $@

$(R)/boot/cards.parquet: $(R)/boot/traj.parquet
	$(BIN)/cards $< -o $@ $(CARDS_FLAGS)

$(R)/boot/proposals.parquet $(R)/boot/state.parquet &: $(R)/boot/cards.parquet $(R)/boot/empty.parquet
	$(BIN)/control --cards $< --scaffold $(R)/boot/empty.parquet -o $(R)/boot/proposals.parquet --state-out $(R)/boot/state.parquet --primitives expand --rho-r 1 --rho-c 1

# ---- the base policy ------------------------------------------------------------------
# The base policy, when this run starts from one and it is missing (a caller
# running several runs side by side builds it first, before them).
# The bases that read (READING_BASE and READING_SKILLS_BASE,
# pipelines/reading.mk) have their own recipes.
define BASE_RULE
ifneq ($(1),)
ifeq ($(filter $(RUNS)/$(1),$(READING_BASE) $(READING_SKILLS_BASE)),)
ifneq ($(R),$(RUNS)/$(1))
$(RUNS)/$(1)/ckpt/0/config.json $(RUNS)/$(1)/metrics/sft.parquet &: | $(PIPE_BINS)
	+$(MAKE) --no-print-directory warmup PIPE_SUB=1 WARMUP= BASE= BASE_SKILLS= DEMO_TASKS=$(BASE_TASKS) SFT_EPOCHS=$(BASE_EPOCHS) SFT_LR=$(BASE_LR) VARIANT=$(2) SEED=$(BASE_SEED) RUN=$(1)
endif
endif
endif
endef
$(eval $(call BASE_RULE,$(BASE),grpo))
$(eval $(call BASE_RULE,$(BASE_SKILLS),skillgate))
# `make base BASE=...`: this run's base only (before a job array whose tasks
# would otherwise each start building the same one).
.PHONY: base
base: $(if $(RUN_BASE),$(RUNS)/$(RUN_BASE)/ckpt/0/config.json)

# ---- B_0 --------------------------------------------------------------------------------
# Always this run's own (the sweep shares warm-ups, never B_0).
ifeq ($(V_B0),evidence)
$(R)/snap/0.parquet $(R)/boot/decisions.parquet &: $(R)/boot/proposals.parquet $(R)/boot/cards.parquet $(R)/boot/empty.parquet
	@mkdir -p $(R)/snap
	$(BIN)/validate --scaffold $(R)/boot/empty.parquet --proposals $(R)/boot/proposals.parquet --cards $(R)/boot/cards.parquet -o $(R)/snap/0.parquet --decisions $(R)/boot/decisions.parquet --primitives expand --rho-r 1 --rho-c 1
else ifeq ($(V_B0),expert)
$(R)/snap/0.parquet: $(EXPERT) | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/validate init --from $< -o $@
else ifeq ($(V_B0),empty)
$(R)/snap/0.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/validate init -o $@
endif

ifneq ($(WARMUP),)
# Reuse another run's warm-up (demonstrations, ckpt/0), or the base itself
# for a run without the interface warm-up: the sweep computes the warm-up
# once per seed for all variants that would compute the same bytes. Copies
# go through a temporary name, then a rename.
$(R)/demos.parquet: $(WARMUP)/demos.parquet
	@mkdir -p $(@D)
	cp $< $@.tmp && mv $@.tmp $@

$(call ckpt,0) $(R)/metrics/sft.parquet &: $(WARMUP)/ckpt/0/config.json $(WARMUP)/metrics/sft.parquet
	@mkdir -p $(R)/ckpt $(R)/metrics
	rm -rf $(R)/ckpt/.0.tmp && cp -r $(WARMUP)/ckpt/0 $(R)/ckpt/.0.tmp && rm -rf $(R)/ckpt/0 && mv $(R)/ckpt/.0.tmp $(R)/ckpt/0
	cp $(WARMUP)/metrics/sft.parquet $(R)/metrics/sft.parquet.tmp && mv $(R)/metrics/sft.parquet.tmp $(R)/metrics/sft.parquet
else
# ---- warm-up: oracle demonstrations, then SFT ---------------------------------------------
# With the interface warm-up the demonstrations carry WARMUP_ENV's stated
# rules in the scaffold's place (never this run's scaffold); without it
# (the base's recipe from MODEL) they carry no text.
DEMO_COMMON  = --env $(if $(filter 1,$(V_WARMUP)),$(WARMUP_ENV),$(ENV)) --max-context $(MAX_CONTEXT) $(SKILL_FLAG)$(RUN_CONTEXT)
demo_text    = $(if $(filter 1,$(V_WARMUP)),--hints $(WARMUP_HINTS))
ifeq ($(V_SKILLS),1)
# With skills: one shard per first-read mode (its own tasks and seed), mixed
# into one file, so the warm-up has seen right and other first reads.
demo_seed   = $(call iter_seed,$(shell echo $$(( 990 + $(words $(call upto,$(1),$(DEMO_READS))) ))))
upto        = $(if $(filter $(1),$(firstword $(2))),$(1),$(firstword $(2)) $(call upto,$(1),$(wordlist 2,$(words $(2)),$(2))))
DEMO_SHARDS := $(foreach m,$(DEMO_READS),$(R)/demos/$(m).parquet)
$(R)/demos/%.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/rollout $(DEMO_COMMON) --split train --tasks $(shell echo $$(( $(DEMO_TASKS) / $(words $(DEMO_READS)) ))) --group 1 --seed $(call demo_seed,$*) --policy oracle --text-read $* $(demo_text) --iteration 0 --run $(RUN) $(DEMO_FLAGS) -o $@

$(R)/demos.parquet: $(DEMO_SHARDS)
	$(BIN)/report mix $^ -o $@
else
$(R)/demos.parquet: | $(PIPE_BINS)
	@mkdir -p $(@D)
	$(BIN)/rollout $(DEMO_COMMON) --split train --tasks $(DEMO_TASKS) --group 1 --seed $(call iter_seed,998) --policy oracle $(demo_text) --iteration 0 --run $(RUN) $(DEMO_FLAGS) -o $@
endif

$(call ckpt,0) $(R)/metrics/sft.parquet &: $(R)/demos.parquet $(if $(RUN_BASE),$(RUNS)/$(RUN_BASE)/ckpt/0/config.json)
	@mkdir -p $(R)/ckpt $(R)/metrics
	$(BIN)/learn sft --init $(if $(RUN_BASE),$(RUNS)/$(RUN_BASE)/ckpt/0,$(MODEL)) --traj $< -o $(R)/ckpt/0 --epochs $(SFT_EPOCHS) --batch-tokens $(SFT_BATCH) --lr $(SFT_LR) --seed $(SEED) --metrics $(R)/metrics/sft.parquet $(SFT_FLAGS)
endif

# train_policy,k: the --policy of iteration k's training rollouts: ckpt/k,
# or the server serving it (POLICY_SERVER) with ckpt/k as its tokenizer.
train_policy = $(if $(POLICY_SERVER),--policy $(POLICY_SERVER) $(call served_model,$(1)) --tokenizer $(R)/ckpt/$(1),--policy $(R)/ckpt/$(1))

# ---- iteration k ------------------------------------------------------------------------
# rollout -> traj/k; then side by side: the scaffold branch (cards, control,
# validate -> snap/k+1) and the policy branch (learn grpo -> ckpt/k+1).
define ITERATION
$(R)/traj/$(1).parquet: $(call ckpt,$(1)) $(if $(filter 1,$(V_SCAFFOLD)),$(call snap_of,$(1)))
	@mkdir -p $$(@D)
$(if $(call restarts,$(1)),	$(POLICY_SERVER_RESTART) $(R)/ckpt/$(1) $(POLICY_SERVER) $(POLICY_MODEL)
)	$(BIN)/rollout $(COMMON) --split train --tasks $(TASKS) --group $(GROUP) --seed $(call iter_seed,$(1)) $(call train_policy,$(1)) $(call scaf_flags,$(1)) --iteration $(1) --run $(RUN) $(ROLLOUT_FLAGS) -o $$@

$(call ckpt,$(2)) $(R)/metrics/grpo-$(1).parquet $(R)/adv/$(1).parquet &: $(call train_of,$(1)) $(call ckpt,$(1)) $(call ckpt,0)
	@mkdir -p $(R)/adv
	$(BIN)/learn grpo --init $(R)/ckpt/$(1) --ref $(R)/ckpt/0 $(call train_of,$(1)) -o $(R)/ckpt/$(2) --metrics $(R)/metrics/grpo-$(1).parquet --advantages $(R)/adv/$(1).parquet --credit $(V_CREDIT) --step-credit $(V_STEP) --lr $(GRPO_LR) --minibatch $(V_MINIBATCH) --kl $(KL) --seed $(SEED)$(if $(LORA_RANK), --lora-rank $(LORA_RANK)) $(GRPO_FLAGS)

ifneq ($(V_TRAIN),traj)
# the second set of groups (V_TRAIN): kept apart from traj/K's (report mix --apart)
$(R)/train/$(1).parquet: $(R)/traj/$(1).parquet $(call extra_of,$(1))
	@mkdir -p $$(@D)
	$(BIN)/report mix --apart $(R)/traj/$(1).parquet $(call extra_of,$(1)) -o $$@

# GROUP more bare episodes of iteration k's tasks (the samples after traj/K's)
$(R)/extra/$(1).parquet: $(call ckpt,$(1))
	@mkdir -p $$(@D)
	$(BIN)/rollout $(COMMON) --split train --tasks $(TASKS) --group $(GROUP) --seed $(call iter_seed,$(1)) --first-sample $(GROUP) $(call train_policy,$(1)) --iteration $(1) --run $(RUN) $(ROLLOUT_FLAGS) -o $$@
endif

ifeq ($(call adapts,$(1)),1)
$(R)/cards/$(1).parquet: $(R)/traj/$(1).parquet
	@mkdir -p $$(@D)
	$(BIN)/cards $$< -o $$@ $(V_CARDS) $(CARDS_FLAGS)

$(R)/proposals/$(1).parquet $(R)/state/$(1).parquet $(if $(filter 1,$(V_ABSORB)),$(R)/absorb/$(1).parquet) &: $(R)/cards/$(1).parquet $(call history_of,$(1)) $(R)/snap/$(1).parquet $(if $(filter-out 0,$(1)),$(R)/state/$(3).parquet) $(if $(filter 1,$(V_ABSORB)),$(R)/bare-cards/$(1).parquet)
	@mkdir -p $(R)/proposals $(R)/state $(if $(filter 1,$(V_ABSORB)),$(R)/absorb)
	$(BIN)/control --cards $(R)/cards/$(1).parquet $(foreach h,$(call history_of,$(1)),--history $(h)) --window $(REFINER_WINDOW) --scaffold $(R)/snap/$(1).parquet $(if $(filter-out 0,$(1)),--state $(R)/state/$(3).parquet) -o $(R)/proposals/$(1).parquet --state-out $(R)/state/$(1).parquet $(if $(filter 1,$(V_ABSORB)),--bare $(R)/bare-cards/$(1).parquet --absorption-out $(R)/absorb/$(1).parquet --absorb-margin $(ABSORB_MARGIN)) $(V_FADE_FLAGS) $(V_CONTROL) $(CONTROL_FLAGS) $(REFINER_FLAGS)

ifeq ($(V_ABSORB),1)
# the cards of the bare replay: the absorption signal's evidence
$(R)/bare-cards/$(1).parquet: $(R)/bare/$(1).parquet
	@mkdir -p $$(@D)
	$(BIN)/cards $$< -o $$@ $(V_CARDS) $(CARDS_FLAGS)
endif

$(R)/snap/$(2).parquet $(R)/decisions/$(1).parquet &: $(R)/proposals/$(1).parquet $(R)/cards/$(1).parquet $(call history_of,$(1)) $(R)/snap/$(1).parquet
	@mkdir -p $(R)/decisions
	$(BIN)/validate --scaffold $(R)/snap/$(1).parquet --proposals $(R)/proposals/$(1).parquet --cards $(R)/cards/$(1).parquet $(foreach h,$(call history_of,$(1)),--history $(h)) -o $(R)/snap/$(2).parquet --decisions $(R)/decisions/$(1).parquet $(V_FADE_FLAGS) $(V_CONTROL) $(CONTROL_FLAGS)
endif

ifeq ($(BARE_ON),1)
# The bare replay of iteration k: traj/K's groups played again by ckpt/K
# with no scaffold (the same tasks and seed). An input of the scaffold
# branch with ABSORB, of learn with TRAIN=bare; a measure for the audits.
$(R)/bare/$(1).parquet: $(call ckpt,$(1))
	@mkdir -p $$(@D)
$(if $(call restarts,$(1)),	$(POLICY_SERVER_RESTART) $(R)/ckpt/$(1) $(POLICY_SERVER) $(POLICY_MODEL)
)	$(BIN)/rollout $(COMMON) --split train --tasks $(TASKS) --group $(GROUP) --seed $(call iter_seed,$(1)) $(call train_policy,$(1)) --iteration $(1) --run $(RUN) $(ROLLOUT_FLAGS) -o $$@
endif

ifeq ($(MECH_ON),1)
# The mechanism audits of iteration k (MECHANISM): measures, never inputs.
$(R)/lift/$(1).parquet: $(R)/traj/$(1).parquet $(R)/bare/$(1).parquet
	@mkdir -p $$(@D)
	$(BIN)/audit lift $(R)/traj/$(1).parquet --without $(R)/bare/$(1).parquet -o $$@ > $$@.md.tmp && mv $$@.md.tmp $(R)/lift/$(1).md

$(R)/truth/$(1).parquet $(R)/truth/$(1)-rules.parquet &: $(call snap_of,$(1))
	@mkdir -p $(R)/truth
	$(BIN)/audit truth --scaffold $(call snap_of,$(1)) --iteration $(1) --env $(ENV) -o $(R)/truth/$(1).parquet --rules $(R)/truth/$(1)-rules.parquet > $(R)/truth/$(1).txt.tmp && mv $(R)/truth/$(1).txt.tmp $(R)/truth/$(1).txt
endif

# The iteration ends: its line, and its TensorBoard event files in RUN/tb
# (traj/K's, and any of iterations up to K not written yet, such as the
# audits and evaluations that exist by then; the rest with the summary),
# which `tensorboard --logdir runs/` shows as they come.
$(R)/log/$(1).txt: $(call ckpt,$(2)) $(if $(call adapts,$(1)),$(R)/snap/$(2).parquet)
	@mkdir -p $$(@D)
	@$(BIN)/report iteration $(R) $(1) --of $(ITERS) $(if $(filter 1,$(V_SCAFFOLD)),--scaffold $(call snap_of,$(1))) > $$@.tmp && $(BIN)/report tensorboard $(R) --iteration $(1) > /dev/null && mv $$@.tmp $$@ && echo "[$(RUN)] $$$$(cat $$@)"
endef
$(foreach k,$(ITER_LIST),$(eval $(call ITERATION,$(k),$(shell echo $$(( $(k) + 1 ))),$(shell echo $$(( $(k) - 1 ))))))

# ---- evaluation of ckpt/k: no scaffold (deployment) and with snap/k ---------------------
# bare-SPLIT: empty context; scaffold-SPLIT: the scaffold ckpt/k was trained with.
define EVALUATION
$(R)/eval/$(1)/bare-$(2).parquet: $(call ckpt,$(1))
	@mkdir -p $$(@D)
	$(BIN)/evaluate --policy $(R)/ckpt/$(1) $(COMMON) --split $(2) --tasks $(EVAL_TASKS) --seed $(EVAL_SEED) $(EVAL_FLAGS) -o $$@ > $$@.md.tmp && mv $$@.md.tmp $(R)/eval/$(1)/bare-$(2).md

$(R)/eval/$(1)/scaffold-$(2).parquet: $(call ckpt,$(1)) $(call snap_of,$(1))
	@mkdir -p $$(@D)
	$(BIN)/evaluate --policy $(R)/ckpt/$(1) $(COMMON) --split $(2) --tasks $(EVAL_TASKS) --seed $(EVAL_SEED) $(EVAL_FLAGS) --scaffold $(call snap_of,$(1)) --scaffold-budget $(BUDGET) -o $$@ > $$@.md.tmp && mv $$@.md.tmp $(R)/eval/$(1)/scaffold-$(2).md
endef
$(foreach k,$(EVAL_ITERS),$(foreach s,$(EVAL_SPLITS),$(eval $(call EVALUATION,$(k),$(s)))))

EVAL_FILES := $(foreach k,$(EVAL_ITERS),$(foreach s,$(EVAL_SPLITS),$(R)/eval/$(k)/bare-$(s).parquet $(if $(filter 1,$(V_SCAFFOLD)),$(R)/eval/$(k)/scaffold-$(s).parquet)))
LOG_FILES  := $(foreach k,$(ITER_LIST),$(R)/log/$(k).txt)

MECH_FILES := $(if $(filter 1,$(MECH_ON)),$(foreach k,$(ITER_LIST),$(R)/lift/$(k).parquet $(R)/truth/$(k).parquet))

$(R)/summary.md: $(LOG_FILES) $(EVAL_FILES) $(MECH_FILES)
	@$(BIN)/report run $(R) > $@.tmp && $(BIN)/report tensorboard $(R) > /dev/null && mv $@.tmp $@
	@echo "[$(RUN)] evaluations (success; tokens per episode):" && cat $@

plots: | $(PIPE_BINS)
	$(BIN)/report plots $(R)
