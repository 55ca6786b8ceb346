# The values given on the command line or in the environment that reach a
# shell are checked while this file is read, before anything runs: each
# bad one stops make with one line. A recipe's words are made of them
# unquoted (a FLAGS variable is split into flags), so a value holding a
# shell character (; & | < > ` ' " \ * ? [ ] { } ~ ! $ ( ) # or a line
# break) would run something else; a run's name that is not one plain
# relative path under RUNS (RUN=/x, RUN=../x, RUN='a b') would write
# outside RUNS.
# Reading the pipelines runs nothing (no $(shell) that makes or writes), so
# make -n executes nothing.
pats_lp := (
pats_rp := )
define pats_nl


endef
pats_shell_chars := ; & | < > ` ' " \ * ? [ ] { } ~ ! $$ $(pats_lp) $(pats_rp) \#
# pats_given: the variable was set on the command line or in the environment
pats_given = $(filter command line environment environment override,$(origin $(1)))
pats_bad_chars = $(strip $(foreach c,$(pats_shell_chars),$(findstring $(c),$(value $(1))))$(if $(findstring $(pats_nl),$(value $(1))),newline))
pats_not_digits = $(if $(strip $(value $(1))),$(strip $(subst 9,,$(subst 8,,$(subst 7,,$(subst 6,,$(subst 5,,$(subst 4,,$(subst 3,,$(subst 2,,$(subst 1,,$(subst 0,,$(value $(1))))))))))))),empty)

# every variable a shell sees: shell characters refused
$(foreach v,$(filter %_FLAGS RUN RUNS SWEEP SEEDS VARIANTS SEEDS_% ENV MODEL VARIANT BASE WARMUP EXPERT SKILLS MECHANISM CREDIT EVAL_SPLITS DEMO_READS BIN POLICY_SERVER POLICY_MODEL POLICY_SERVER_RESTART LORA_RANK,$(.VARIABLES)),$(if $(call pats_given,$(v)),$(if $(call pats_bad_chars,$(v)),$(error $(v) holds a shell character ($(call pats_bad_chars,$(v))); give flags and names without them))))
# a run is a folder under RUNS; RUNS and SWEEP are one path each
$(if $(call pats_given,RUN),$(if $(or $(filter /%,$(value RUN)),$(filter . ..,$(subst /, ,$(value RUN))),$(word 2,$(value RUN)),$(if $(strip $(value RUN)),,empty)),$(error RUN must be a folder under RUNS (a relative path without blanks, . or ..), not '$(value RUN)')))
$(foreach v,RUNS SWEEP,$(if $(call pats_given,$(v)),$(if $(word 2,$(value $(v))),$(error $(v) must be one path without blanks, not '$(value $(v))'))))
# the numbers the pipelines compute with (in $(shell echo $$((...))))
$(foreach v,SEED ITERS EVAL_EVERY BUDGET REFINER_WINDOW DEMO_TASKS TASKS GROUP,$(if $(call pats_given,$(v)),$(if $(call pats_not_digits,$(v)),$(error $(v) must be a whole number, not '$(value $(v))'))))
