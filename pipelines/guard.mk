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
# Read once: from the top Makefile first, then from pats.mk (which a copy of
# pipelines/ alone includes).
ifneq ($(origin pats_guard_read),override)
override pats_guard_read := 1
override pats_lp := (
override pats_rp := )
override pats_comma := ,
override define pats_nl


endef
override pats_shell_chars := ; & | < > ` ' " \ * ? [ ] { } ~ ! $$ $(pats_lp) $(pats_rp) \#
# pats_given: the variable was set on the command line or in the environment
override pats_given = $(filter command line environment environment override,$(origin $(1)))
# A value may name a variable as a plain reference, $(NAME) (as the
# pipelines' own sub-makes and their docs give READING_BASE=$(RUNS)/...):
# the references to variables (defined, or named in the makefiles) are
# taken out before the check, so
# a function ($(shell ...), $(file ...)) or any other $ stays refused.
override pats_ref_names = $(filter $(.VARIABLES) $(pats_refs),$(patsubst $$$(pats_lp)%,%,$(filter $$$(pats_lp)%,$(subst $(pats_rp), $(pats_rp) ,$(subst $$$(pats_lp), $$$(pats_lp),$(1))))))
override pats_strip_refs = $(if $(2),$(call pats_strip_refs,$(subst $$$(pats_lp)$(firstword $(2))$(pats_rp),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
override pats_checked_value = $(call pats_strip_refs,$(value $(1)),$(sort $(call pats_ref_names,$(value $(1)))))
override pats_bad_chars = $(strip $(foreach c,$(pats_shell_chars),$(findstring $(c),$(call pats_checked_value,$(1))))$(if $(findstring $(pats_nl),$(value $(1))),newline))
override pats_not_digits = $(if $(strip $(value $(1))),$(strip $(subst 9,,$(subst 8,,$(subst 7,,$(subst 6,,$(subst 5,,$(subst 4,,$(subst 3,,$(subst 2,,$(subst 1,,$(subst 0,,$(value $(1))))))))))))),empty)

# the numbers the pipelines compute with (in $(shell echo $$((...))))
$(foreach v,SEED ITERS EVAL_EVERY BUDGET REFINER_WINDOW DEMO_TASKS TASKS GROUP,$(if $(call pats_given,$(v)),$(if $(call pats_not_digits,$(v)),$(error $(v) must be a whole number, not '$(value $(v))'))))
# make's list of makefiles is read below: it must be make's own
$(if $(filter file,$(origin MAKEFILE_LIST)),,$(error MAKEFILE_LIST is make's own; do not give it))
# A variable from the environment reaches a recipe only where the
# makefiles name it, so those are found in the makefiles' text (the top
# Makefile, the .mk files beside it, beside this file and one folder below
# the top): every $(NAME ...) a makefile writes, and every family it names
# by a prefix ($(SEEDS_$(v)), $(filter V_%,...)). Make's own (MAKEFLAGS,
# MAKEOVERRIDES, MFLAGS, MAKELEVEL) are left alone: a sub-make's
# command-line variables, which they carry, are checked as the sub-make's
# own.
override pats_top := $(dir $(firstword $(MAKEFILE_LIST)))
override pats_makefiles := $(sort $(wildcard $(MAKEFILE_LIST) $(pats_top)*.mk $(pats_top)*/*.mk $(dir $(lastword $(MAKEFILE_LIST)))*.mk))
override pats_text := $(subst $$$(pats_lp), $$$(pats_lp),$(subst $${, $$$(pats_lp),$(foreach f,$(pats_makefiles),$(file <$(f)))))
override pats_refs := $(patsubst $$$(pats_lp)%,%,$(filter $$$(pats_lp)%,$(subst $(pats_rp), ,$(subst :, ,$(subst $(pats_comma), ,$(subst }, ,$(pats_text)))))))
override pats_families := $(patsubst %_,%_%,$(filter %_,$(pats_refs))) $(foreach w,$(pats_text),$(if $(findstring _%,$(w)),$(filter %_%,$(firstword $(subst $(pats_rp), ,$(subst $(pats_comma), ,$(w)))))))
override pats_named = $(or $(filter $(1),$(pats_refs)),$(filter $(pats_families),$(1)))
# Every variable given on the command line is checked, whatever its name
# (the guard's own are defined with override, so none of them can be
# replaced): any of them may be one a recipe expands (a setting's default
# is given with ?=, which the command line overrides).
override pats_refuse = $(if $(call pats_bad_chars,$(1)),$(error $(1) holds a shell character ($(call pats_bad_chars,$(1))); give flags and names without them))
$(foreach v,$(.VARIABLES),$(if $(findstring command line,$(origin $(v))),$(call pats_refuse,$(v))))
$(foreach v,$(.VARIABLES),$(if $(findstring environment,$(origin $(v))),$(if $(filter MAKE% MFLAGS,$(v)),,$(if $(call pats_named,$(v)),$(call pats_refuse,$(v))))))
# a run is a folder under RUNS; RUNS and SWEEP are one path each
$(if $(call pats_given,RUN),$(if $(or $(filter /%,$(value RUN)),$(filter . ..,$(subst /, ,$(value RUN))),$(word 2,$(value RUN)),$(if $(strip $(value RUN)),,empty)),$(error RUN must be a folder under RUNS (a relative path without blanks, . or ..), not '$(value RUN)')))
$(foreach v,RUNS SWEEP,$(if $(call pats_given,$(v)),$(if $(word 2,$(value $(v))),$(error $(v) must be one path without blanks, not '$(value $(v))'))))
endif
