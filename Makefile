# A staged CUDA GEMM tutorial. `make help` lists the targets.
#
# The GPU architecture comes from the installed GPU (nvidia-smi); override it
# with ARCH=sm_80. On Hopper (compute capability 9.0) it is sm_90a, which adds
# the architecture-specific instructions that steps 11 on need. Without a GPU
# the build is portable: sm_75 and sm_80 machine code plus compute_80 PTX,
# which the driver compiles at the first launch on any newer GPU. A step that
# needs one architecture names it in its header ("BUILD_ARCH: sm_90a").
# Changing ARCH, NVCCFLAGS or a flags file rebuilds what it affects.

NVCC      ?= nvcc
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
CC        ?= gcc
PYTHON    ?= python3
# make plot needs matplotlib: the first of these interpreters that has it.
PLOT_PYTHON ?= $(firstword $(foreach p,$(PYTHON) /usr/bin/python3,$(shell $(p) -c 'import matplotlib' 2>/dev/null && echo $(p))))

# Python 3 runs in every build (the flags files are picked and ptxas's report read by scripts/).
ifeq ($(shell $(PYTHON) -c 'import sys; print(sys.version_info >= (3, 7))' 2>/dev/null),)
$(error $(PYTHON) was not found: Python 3.7 or newer is needed by every build (apt-get install python3, or PYTHON=/path/to/python3))
endif

GPU_CC   := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
GPU_ARCH := $(if $(GPU_CC),sm_$(GPU_CC)$(if $(filter 90,$(GPU_CC)),a))
ARCH     ?= $(or $(GPU_ARCH),portable)
ARCH_ERROR := $(shell $(PYTHON) scripts/steps.py '$(ARCH)')
ifneq ($(ARCH_ERROR),)
$(error $(ARCH_ERROR))
endif
# Tuned steps (07 on) build with the first of: NN_name/tuned/$(GPU_KEY).flags (this GPU was
# tuned, and ARCH is its architecture), tuned/<arch>.flags (a GPU of that architecture was),
# tuned/default.flags; a file is used only if it fits ARCH's shared memory, threads and registers
# (scripts/autotune.py --pick-flags, which names a file it passes over and why).
GPU_KEY  ?= $(or $(shell nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/[^A-Za-z0-9]\{1,\}/_/g; s/^_//; s/_$$//'),default)

CFLAGS    = -std=c11 -O3 -march=native -fopenmp -Wall -Wextra -I$(CUDA_HOME)/include -Icommon
NVCCFLAGS = -O3 -std=c++17 -lineinfo -Icommon -Xcompiler -Wall
LDLIBS    = -L$(CUDA_HOME)/lib64 -Xlinker -rpath=$(CUDA_HOME)/lib64 -lcublasLt -lcublas -lgomp -lm

STEPS       := $(patsubst %/gemm.cu,%,$(sort $(wildcard [0-9][0-9]_*/gemm.cu)))
BINS        := $(addsuffix /gemm,$(STEPS))
HOST_OBJS   := build/common/cli.o build/common/check.o build/common/npy.o
COMMON_OBJS := $(HOST_OBJS) build/common/harness.o build/common/baseline.o

# N=5 or N=05 -> the directory 05_*; PREV is the step before it, or the one its gemm.cu names
# in its header ("BUILDS_ON: 13_tma_store": a step that starts again from an earlier kernel).
NUM  = $(shell echo '$(N)' | grep -xE '[0-9]{1,3}')
NN   = $(if $(NUM),$(shell printf '%02d' `expr $(NUM) + 0`),none)
STEP = $(patsubst %/gemm.cu,%,$(firstword $(wildcard $(NN)_*/gemm.cu)))
BUILDS_ON = $(if $(STEP),$(shell sed -n 's/.*BUILDS_ON: *\([0-9][0-9]_[a-z0-9_]*\).*/\1/p' $(STEP)/gemm.cu))
PREV = $(if $(NUM),$(or $(BUILDS_ON),$(patsubst %/gemm.cu,%,$(firstword $(wildcard $(shell printf '%02d' `expr $(NUM) - 1`)_*/gemm.cu)))))

.SECONDARY: $(COMMON_OBJS) $(patsubst %,build/config/%.txt,$(STEPS))
.PHONY: FORCE all help step run diff test bench readme figures autotune plot sweep shapes profile sass clean
all: $(BINS)

help:
	@echo "make                 build every step for $(ARCH) (override: ARCH=sm_80; without a GPU: portable)"
	@echo "make step N=5        build one step"
	@echo "make run N=5 ARGS='2048 2048 512 --cublas'   build and run one step"
	@echo "make diff N=6        what changed from step 5 to step 6"
	@echo "make test            harness self-tests, static checks, GPU tests"
	@echo "make bench [SIZES='4096 2048']   every step beside cuBLAS; records results/"
	@echo "make readme          regenerate the READMEs' numbers tables from results/"
	@echo "make figures         redraw each step's tiling.svg (03 on) from its configuration"
	@echo "make autotune [N=7]  search step 7's tile sizes on this GPU (no N: 07-10 in turn); writes NN_name/tuned/<GPU>.flags"
	@echo "make plot            PNGs from results/<GPU>.csv: GFLOPS per step, against size, the shape set, the roofline"
	@echo "make sweep           every step and cuBLAS over sizes $(firstword $(SWEEP_SIZES)) ... $(lastword $(SWEEP_SIZES)); recorded in results/"
	@echo "make shapes          the library step ($(LIBRARY_STEP)) on 340 generated and model shapes, then the article's (N = K = 8192, M small; N small) for it and the fastest steps"
	@echo "make profile N=6 [SHAPE=4096] [DTYPE=fp16] [GEMM_PATH=gemv_m]   Nsight Compute counters of one step"
	@echo "make sass N=6        the step's SASS with the lesson's instructions counted"
	@echo "make clean"

build/common/%.o: common/%.c common/host.h common/gemm.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# The baseline's one kernel, as PTX that the driver compiles for the GPU that runs it.
build/common/baseline.o: common/baseline.cu common/gemm.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -gencode=arch=compute_75,code=compute_75 -c $< -o $@

# ptxas's resource report (registers, shared memory, spills) is kept next to
# the binary in NN_name/ptxas.txt.
FLAGS_PICKED := $(shell $(PYTHON) scripts/autotune.py --pick-flags $(ARCH) $(or $(GPU_ARCH),none) $(GPU_KEY))
TUNED = $(patsubst $*:%,%,$(filter $*:%,$(FLAGS_PICKED)))
# A step that needs one architecture names it in its header ("BUILD_ARCH: sm_90a", the
# Hopper steps); it is built for that one whatever GPU is installed, and says so at run time.
BUILD_ARCH = $(shell sed -n 's/.*BUILD_ARCH: *\(sm_[0-9a-z]*\).*/\1/p' $*/gemm.cu)
comma := ,
PORTABLE_FLAGS = -gencode=arch=compute_75$(comma)code=sm_75 -gencode=arch=compute_80$(comma)code=sm_80 \
                 -gencode=arch=compute_80$(comma)code=compute_80
ARCH_FLAGS = $(if $(BUILD_ARCH),-gencode=arch=compute_$(subst sm_,,$(BUILD_ARCH))$(comma)code=$(BUILD_ARCH),$(if \
               $(filter portable,$(ARCH)),$(PORTABLE_FLAGS),-arch=$(ARCH)))
STEP_FLAGS = $(NVCCFLAGS) $(if $(TUNED),$(shell grep -v '^\#' $(TUNED))) $(ARCH_FLAGS)
.SECONDEXPANSION:
# build/config/NN_name.txt holds the command line a step is built with; it is rewritten only
# when that changes, and the binary depends on it.
build/config/%.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(STEP_FLAGS)' | cmp -s - $@ 2>/dev/null || echo '$(STEP_FLAGS)' > $@
%/gemm: %/gemm.cu common/gemm.h $(wildcard common/*.cuh) $(COMMON_OBJS) build/config/%.txt \
         $$(wildcard $$*/tuned/*.flags $$*/plan.h)
	@$(if $(TUNED),echo "$* uses $(TUNED): $(shell grep -v '^#' $(TUNED))";) true
	@$(NVCC) $(STEP_FLAGS) -DSTEP_NAME=\"$*\" -Xptxas -v $< $(COMMON_OBJS) -o $@ $(LDLIBS) 2> $*/ptxas.txt \
	  || { cat $*/ptxas.txt >&2; rm -f $@; exit 1; }
	@echo "built $@: $$($(PYTHON) scripts/ptxas_report.py $*/ptxas.txt)"

build/selftest: tests/selftest.c $(HOST_OBJS) common/host.h common/gemm.h
	$(CC) $(CFLAGS) $< $(HOST_OBJS) -o $@ -lm

step:
	@test -n "$(STEP)" || { echo "make step: no step N=$(N) with code yet (steps: $(STEPS))" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(STEP)/gemm

run: step
	./$(STEP)/gemm $(ARGS)

# The lesson: gemm.cu against the step before, the dispatcher's rules (plan.h) where the step has
# them, and a header of common/ that this step is the first to include (its new primitives): whole,
# or against the one header it replaces (one the step before included and this step does not).
INCLUDED = $(sort $(filter $(notdir $(wildcard common/*.cuh)),$(shell sed -n 's/^\#include "\(.*\)".*/\1/p' $(1)/gemm.cu)))
REPLACED = $(filter-out $(call INCLUDED,$(STEP)),$(call INCLUDED,$(PREV)))
diff:
	@test -n "$(STEP)" -a -n "$(PREV)" || { echo "make diff: need N with a step before it (steps: $(STEPS))" >&2; exit 2; }
	@diff -u $(PREV)/gemm.cu $(STEP)/gemm.cu || true
	@if [ -f $(STEP)/plan.h ]; then diff -u $(or $(wildcard $(PREV)/plan.h),/dev/null) $(STEP)/plan.h || true; fi
	@for h in $(filter-out $(call INCLUDED,$(PREV)),$(call INCLUDED,$(STEP))); do \
	  diff -u $(or $(if $(word 2,$(REPLACED)),,$(addprefix common/,$(REPLACED))),/dev/null) common/$$h || true; done

test: all build/selftest
	@ARCH=$(ARCH) NVCC="$(NVCC)" NVCCFLAGS="$(NVCCFLAGS)" PLOT_PYTHON="$(PLOT_PYTHON)" $(PYTHON) scripts/test.py

bench: all
	@$(PYTHON) scripts/bench.py $(SIZES)
	@$(PYTHON) scripts/results_table.py

readme:
	@$(PYTHON) scripts/results_table.py

figures:
	@$(PYTHON) scripts/figures.py

# Searches the tile sizes of step N on this GPU, or of every tuned step in turn (07-10) without N;
# see scripts/autotune.py. It asks the GPU for its limits first, and stops there without one.
autotune: $(COMMON_OBJS)
	@test -z "$(N)" -o -d "$(STEP)/tuned" || { echo "make autotune: step $(N) has no tuned/ directory (tuned: 07-10)" >&2; exit 2; }
	@NVCC="$(NVCC)" NVCCFLAGS="$(NVCCFLAGS)" LDLIBS="$(LDLIBS)" COMMON_OBJS="$(COMMON_OBJS)" CUDA_HOME="$(CUDA_HOME)" \
	  GPU_KEY=$(GPU_KEY) $(PYTHON) scripts/autotune.py $(if $(N),$(STEP),--all) $(AUTOTUNE_ARGS)

plot:
	@test -n "$(PLOT_PYTHON)" || { echo "make plot: needs matplotlib for $(PYTHON) or /usr/bin/python3: apt-get install python3-matplotlib (or pip install matplotlib)" >&2; exit 2; }
	@$(PLOT_PYTHON) scripts/plot.py

# Powers of two and a few sizes between; sizes above 2048^3 are timed without the
# float64 check (8192^3 alone would take ~40 s per step), make bench verifies those.
SWEEP_SIZES ?= 128 256 384 512 768 1024 1536 2048 3072 4096 6144 8192
sweep: all
	@$(PYTHON) scripts/bench.py --run sweep --check-up-to 2048 $(SWEEP_SIZES)

# The library step on scripts/shape_set.py's generated and model shapes; then the second article's
# shape table (N = K = 8192 with M small, then N small) for the fastest steps and the library
# step, verified up to 4096^3 (second, so that its rows of shapes in both lists keep the check).
# The library step is the last of the row-major course: 21-24 are the linear layer (x W^T),
# measured on the model shapes against cuBLASLt instead (their READMEs).
SHAPES ?= $(shell $(PYTHON) scripts/shape_set.py --article)
LIBRARY_STEP = 46_lean_stores
shapes: all
	@$(PYTHON) scripts/bench.py --run shapes --shape-set --steps $(LIBRARY_STEP) --check-up-to 1024
	@$(PYTHON) scripts/bench.py --run shapes --fastest --library $(LIBRARY_STEP) --check-up-to 4096 $(SHAPES)
	@$(PYTHON) scripts/results_table.py

profile: step
	@$(PYTHON) scripts/profile.py $(STEP) --shape $(or $(SHAPE),4096) $(if $(DTYPE),--dtype $(DTYPE)) $(if $(GEMM_PATH),--path $(GEMM_PATH))

sass: step
	@$(PYTHON) scripts/sass.py $(STEP)

clean:
	rm -rf build $(BINS) $(addsuffix /ptxas.txt,$(STEPS))

FORCE:
