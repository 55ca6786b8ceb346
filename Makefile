# pats: build, test, demo and benchmarks. See README.md.
GO      ?= go
BIN     := bin
CMDS    := $(notdir $(wildcard cmd/*))
export GOFLAGS ?= -trimpath

.PHONY: all build test vet demo bench clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

vet:
	$(GO) vet ./...

# Every test: vet, the unit and integration tests, and the fuzz targets for a
# bounded time. Stays under about 15 minutes on 2 cores.
test: vet
	$(GO) test -count=1 -timeout 20m ./...
	npm ci --prefix lib/table/interop/duckdb --no-audit --no-fund --loglevel=error
	$(GO) test -count=1 -tags duckdb -run DuckDB ./lib/table/ ./pipelines/
	$(GO) test -run '^$$' -fuzz FuzzValidate -fuzztime 20s ./lib/validate/

# Speed figures of kernels, model, rollouts and one PATS iteration, written
# to bench/results.md. Takes about 10 minutes.
bench:
	bash bench/run.sh

clean:
	rm -rf $(BIN)

include pipelines/pats.mk
include pipelines/demo.mk
include pipelines/sweep.mk
include pipelines/reading.mk
include cuda/cuda.mk
