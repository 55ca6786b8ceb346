# pats: build, test, demo and benchmarks. See README.md.
# The values given on the command line or in the environment are checked
# first, before any of them is expanded (pipelines/guard.mk).
include pipelines/guard.mk
GO      ?= go
BIN     := bin
CMDS    := $(notdir $(wildcard cmd/*))
export GOFLAGS ?= -trimpath
# The commit every output file records (pats.toolkit_commit; lib/table.Stamp).
PATS_COMMIT := $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || c=$$c+modified; echo $$c; })
GO_LDFLAGS  := -ldflags=-X=github.com/pats-rl/pats/lib/table.buildCommit=$(PATS_COMMIT)

.PHONY: all build test vet demo bench clean gpu-tests

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build $(GO_LDFLAGS) -o $(BIN)/ ./cmd/...

vet:
	$(GO) vet ./...

# Every test: vet (also of the GPU check's Go programs, built with -tags
# cuda), the unit and integration tests, and the fuzz targets for a bounded
# time. Stays under about 15 minutes on 2 cores.
test: vet
	$(GO) vet -tags cuda ./lib/device/ ./bench/gpu/
	$(GO) test -count=1 -timeout 45m ./...
	npm ci --prefix lib/table/interop/duckdb --no-audit --no-fund --loglevel=error
	$(GO) test -count=1 -tags duckdb -run DuckDB ./lib/table/ ./pipelines/
	$(GO) test -run '^$$' -fuzz FuzzValidate -fuzztime 20s ./lib/validate/
	$(GO) test -run '^$$' -fuzz FuzzParquetFooter -fuzztime 15s ./lib/table/

# Speed figures of kernels, model, rollouts and one PATS iteration, written
# to bench/results.md. Takes about 10 minutes.
bench:
	bash bench/run.sh

# The GPU check's Go programs, built here so that the GPU machine needs no
# Go toolchain: the parity suite's test binary (go test -c -tags cuda) and
# the GPU benchmark. They load bin/libpatscuda.so (make cuda) at run time;
# see docs/cuda.md. build/gpucarry holds them xz-compressed (about 6 MB
# against 22), the form the device tool carries: the tracked tree is 52 MiB
# of its 64; scripts/gpu-check.sh unpacks them.
GPU_TEST_PKGS := lib/device
gpu-tests:
	@mkdir -p build/gpu
	$(foreach p,$(GPU_TEST_PKGS),$(GO) test -c -tags cuda -ldflags=-s -o build/gpu/$(notdir $(p)).test ./$(p) &&) true
	$(GO) build -tags cuda -ldflags=-s -o build/gpu/gpubench ./bench/gpu
	@mkdir -p build/gpucarry
	for f in build/gpu/*.test build/gpu/gpubench; do xz -T0 -6 -c $$f > build/gpucarry/$$(basename $$f).xz; done

clean:
	rm -rf $(BIN) build

include pipelines/pats.mk
# reading.mk before demo.mk: the demo's rules name the shipped bases' files
include pipelines/reading.mk
include pipelines/demo.mk
include pipelines/sweep.mk
include pipelines/skillgate.mk
# The CUDA backend's targets (make cuda, cuda-check); optional, so that a
# copy of the Makefile and pipelines/ alone (a cluster's job folder) runs.
-include cuda/cuda.mk
