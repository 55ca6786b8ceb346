# The CUDA backend: bin/libpatscuda.so from cuda/*.cu with nvcc (see
# docs/cuda.md). Not part of `make build` or `make test`, which need no CUDA
# toolkit. Overridable: NVCC, CUDA_ARCH (the -gencode flags; default
# sm_80 and sm_90 machine code plus compute_90 PTX, which the driver
# compiles at load time on a newer architecture), NVCCFLAGS.
NVCC       ?= nvcc
CUDA_ARCH  ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
              -gencode arch=compute_90,code=compute_90
NVCCFLAGS  ?= -O3 -std=c++17 -lineinfo -Xcompiler -Wall
CUDA_SRC   := $(wildcard cuda/*.cu)
CUDA_OBJ   := $(patsubst cuda/%.cu,build/cuda/%.o,$(CUDA_SRC))
CUDA_HDR   := $(wildcard cuda/*.h)
# The toolkit's library folder, recorded as the library's run path so that
# cuBLAS is found where nvcc's own libraries are.
CUDA_LIBDIR ?= $(abspath $(dir $(shell command -v $(NVCC) 2>/dev/null))../lib64)

.PHONY: cuda cuda-check

cuda: $(BIN)/libpatscuda.so

# cuda-check: build the library, then link a C program against every
# function of pats_cuda.h and run it (what CI runs; no GPU needed). The
# check is compiled as C with cc, or as C++ by nvcc's host compiler where
# there is no cc.
cuda-check: $(BIN)/libpatscuda.so
	@mkdir -p build/cuda
	@if command -v cc >/dev/null; then set -x; \
		cc -std=c99 -Wall -Werror -Icuda -o build/cuda/abicheck cuda/abicheck.c -L$(BIN) -lpatscuda \
			-Wl,-rpath,$(abspath $(BIN)); \
	else set -x; \
		$(NVCC) -Xcompiler -Wall,-Werror -Icuda -o build/cuda/abicheck cuda/abicheck.c -L$(BIN) -lpatscuda \
			-Xlinker -rpath,$(abspath $(BIN)); \
	fi
	build/cuda/abicheck

build/cuda/%.o: cuda/%.cu $(CUDA_HDR)
	@mkdir -p build/cuda
	$(NVCC) $(NVCCFLAGS) $(CUDA_ARCH) -Xcompiler -fPIC -Icuda -c -o $@ $<

$(BIN)/libpatscuda.so: $(CUDA_OBJ)
	@mkdir -p $(BIN)
	$(NVCC) $(CUDA_ARCH) -shared -o $@ $(CUDA_OBJ) -Xlinker -rpath,$(CUDA_LIBDIR) -lcublas -lcublasLt -lcudart
