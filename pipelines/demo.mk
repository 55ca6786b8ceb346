# The demo: oracle and random rollouts on each built-in environment and
# their evaluation tables. Outputs go to runs/demo/.
DEMO      := runs/demo
DEMO_ENVS := household shop searchqa

.PHONY: demo
demo: build
	@mkdir -p $(DEMO)
	@for e in $(DEMO_ENVS); do \
	  for p in oracle random; do \
	    $(BIN)/rollout --env $$e --split valid_seen --tasks 40 --group 2 --policy $$p --seed 1 --run demo -o $(DEMO)/$$e-$$p.parquet || exit 1; \
	    $(BIN)/evaluate $(DEMO)/$$e-$$p.parquet || exit 1; echo; \
	  done; \
	done
