# The workbook's front door. `make help` lists the targets; V=1 shows the commands.
#
# Lessons come from lessons/registry (number folder kernel family baseline points); adding a
# lesson means a line there plus its folders, nothing here.

SHELL := /bin/bash
.DEFAULT_GOAL := help
Q := $(if $(V),,@)
.DELETE_ON_ERROR:
# A program's path as the shell finds it on PATH (or the path given, where it is), found by make
# itself: a shell started by every make adds up.
on_path = $(firstword $(wildcard $(if $(findstring /,$(1)),$(1),$(addsuffix /$(1),$(subst :, ,$(PATH))))))

# ---- the lesson registry ---------------------------------------------------------------
REGISTRY := lessons/registry
# make reads it as build/lessons.mk, which the workbook writes (`workbook lessons --make`; its
# reader is the programs' one, checker/src/formats/registry.c): LESSONS, TOTAL_POINTS and lesson
# N's fields as lessonN_FIELD. make remakes that file, and starts again, when the registry or the
# workbook is newer (the rule is by the workbook's). Not for goals that need no lesson, nor
# without a C compiler to build the workbook: there make lessonN is doctor, which says what to
# install.
LESSONS_MK := build/lessons.mk
ifneq ($(filter-out clean doctor,$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL))),)
ifneq ($(call on_path,$(firstword $(CC))),)
include $(LESSONS_MK)
else
lesson%: doctor
	@echo "No C compiler ($(CC)) to build build/workbook, which reads lessons/registry for make."; exit 1
endif
endif
folder = $(lesson$(1)_folder)
kernel = $(lesson$(1)_kernel)
family = $(lesson$(1)_family)
baseline = $(lesson$(1)_baseline)
points = $(lesson$(1)_points)
# The family the baseline is written for (its launch): the lesson's, or another (registry).
base_family = $(lesson$(1)_baseline_family)

# ---- tools -----------------------------------------------------------------------------
NVCC ?= $(or $(call on_path,nvcc),/usr/local/cuda/bin/nvcc)
CC ?= cc
# The GPU's architecture, e.g. 90 on an H200; without a GPU the build only has to compile. Asked
# of nvidia-smi once per command: check and grade hand it to the makes they start (WB_GPU_CC).
GPU_CC := $(if $(filter undefined,$(origin WB_GPU_CC)),$(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .'),$(WB_GPU_CC))
CUDA_ARCH ?= $(or $(GPU_CC),90)
# cmocka from the system, or from a folder given as CMOCKA_DIR (a Debian package unpacked there).
ifdef CMOCKA_DIR
CMOCKA_CFLAGS := -I$(CMOCKA_DIR)/include
CMOCKA_LIBS := -L$(CMOCKA_DIR)/lib/x86_64-linux-gnu -Xlinker -rpath=$(CMOCKA_DIR)/lib/x86_64-linux-gnu -lcmocka
else
CMOCKA_LIBS := -lcmocka
endif

# The GPU's own tools, from the toolkit nvcc belongs to (else the check looks on PATH): the GPU
# judge runs them with SANITIZE=1 (compute-sanitizer) and PROFILE=1 (Nsight Compute), and always
# in make grade; where one is missing its case says so and is skipped, never passed.
CUDA_BIN := $(dir $(NVCC))
export WB_SANITIZER ?= $(wildcard $(CUDA_BIN)compute-sanitizer)
export WB_NCU ?= $(wildcard $(CUDA_BIN)ncu)

# EMU=1: grade in the CPU emulator, the default where no GPU is found: the PTX interpreter
# (checker/runner/ptx/), which runs the PTX nvcc makes of a lesson file and none of its code.
EMU ?= $(if $(GPU_CC),,1)
JUDGE := $(if $(EMU),check-emu,check)
# What `make test` builds and grades: both judges where there is a GPU; without one the emulator's
# (gpu-test then builds the GPU runner and one lesson's GPU judge, to show they still compile).
TEST_JUDGES := $(if $(GPU_CC),check) check-emu
# Judges that share the GPU wait on this lock: a timed job and Nsight Compute alone, the rest side
# by side (checker/judge/gpu_share.c). GPU_JOBS: how many judges at once in gpu-test (half the cores, 2 to 8).
GPU_LOCK := $(CURDIR)/build/gpu.lock
# A handout (make handout) has no solutions/ and no wrong kernels: make test's steps that need them
# run only where solutions/ is (checker/tests/steps/table; checker/tools/run-cases.py grades what
# there is).
HAVE_SOLUTIONS := $(wildcard solutions)

WARN := -Wall -Wextra
CFLAGS := -std=gnu11 -O2 -g $(WARN) -Ichecker/include -Ichecker/runner -Ichecker/runner/emu $(CMOCKA_CFLAGS)
# libarchive, where it is installed: the intake then reads hand-ins handed in as archives.
ifneq ($(wildcard /usr/include/archive.h /usr/local/include/archive.h),)
CFLAGS += -DWB_HAVE_LIBARCHIVE
ARCHIVE_LIBS := -larchive
endif
# Built again when libarchive comes or goes (make test-tools installs it): a stamp per state.
ARCHIVE_STAMP := build/common/libarchive-$(if $(ARCHIVE_LIBS),yes,no)

# ---- what is checked, and where it is built --------------------------------------------
# SRC: whose kernels to grade: work (the student's copies, the default), exercises (the
# stubs), solutions, or any folder laid out like them (a student's hand-in).
SRC ?= work
SRC_ID := $(subst /,_,$(patsubst %/,%,$(SRC)))
BUILD := build/$(SRC_ID)
# The intake (checker/include/intake.h): SRC's lesson files copied, nothing followed, into this
# folder of the grader's; the lint and the sealed compile read that copy alone. SRC may be a
# folder (laid out like work/, or flat), or a .tar(.gz) or .zip archive.
STAGE := $(BUILD)/handin
COMMON := build/common
WORKBOOK := build/workbook
LIBCHECKER := $(COMMON)/libchecker.a
GPU_RUNNER := $(COMMON)/gpu-runner
PTX_RUNNER := $(COMMON)/ptx-runner
LIB_SOURCES := $(wildcard checker/src/*/*.c)
# The bank-and-sector model the emulator's tracer, the quiz and the bank maps share.
MODEL_SOURCES := $(wildcard checker/model/*.c)
# The judge (checker/judge/): main.c is built per lesson, the rest once. It links no kernel.
CHECK_OBJECTS := $(patsubst checker/judge/%.c,$(COMMON)/judge/%.o,$(filter-out %/main.c,$(wildcard checker/judge/*.c)))
JUDGE_HEADERS := $(wildcard checker/judge/*.h)
LIB_OBJECTS := $(patsubst checker/src/%.c,$(COMMON)/lib/%.o,$(LIB_SOURCES)) $(patsubst checker/model/%.c,$(COMMON)/model/%.o,$(MODEL_SOURCES)) \
  $(COMMON)/lib/families.o
# The problem families (checker/families/, family.h): each file registers itself, and they go
# into the library as one object, so whatever looks a family up by name links every one.
FAMILY_OBJECTS := $(patsubst checker/families/%.c,$(COMMON)/families/%.o,$(wildcard checker/families/*.c))
HEADERS := $(wildcard checker/include/*.h)

# LESSON: which lesson `make check`, `hint` and `reset` act on: a number, or all. Default:
# the one `make lessonN` selected last.
LESSON ?= $(shell sed -n 's/^current \([1-9][0-9]*\)$$/\1/p' work/state 2>/dev/null)
CHECK_LESSONS = $(if $(filter all,$(LESSON)),$(LESSONS),$(LESSON))

# Always remade: a rule that depends on it runs every time (the intake's copy of a hand-in).
FORCE:

.PHONY: cluster-test test-tools explore grade-all next watch help check status hint reset quiz grade handout programs \
        docs docs-tools docs-test test unit-tests author-check bank-pictures build-all mutants doctor clean fuzz conformance \
        $(addprefix lesson,$(LESSONS))

help:
	@echo "The shared-memory workbook. Start with: make lesson1"
	@echo
	@echo "  make lessonN            select lesson N ($(if $(LESSONS),1-$(lastword $(LESSONS)),lessons/registry lists them)), create your copy of its stub, build it"
	@echo "  make check              grade the selected lesson (LESSON=N for another, LESSON=all for all)"
	@echo "  make watch              re-check the selected lesson every time you save its file (needs entr or inotify-tools)"
	@echo "  make next               start the lesson after the selected one"
	@echo "  make hint               the next hint for the selected lesson (HINT=n: hint n again)"
	@echo "  make quiz               self-check questions (Enter skips one; LIST=1 only lists them; ANSWERS=file)"
	@echo "  make status             your progress: passed, best time, speed-up"
	@echo "  make reset              restore the stub (your version is kept in work/NN_topic/backups/)"
	@echo "  make docs               the lessons as a web site in docs/html/ (needs pandoc)"
	@echo "  make explore            a bank conflict's cost and the bytes in flight the memory needs, measured on this GPU (without one: the bank model)"
	@echo "  make grade              all lessons graded into grade/ as a course grades them (results.json, summary)"
	@# The authors' targets, in the authors' copy only (a handout has no solutions/). A shell test,
	@# not $$(if ...): a comma in the text would end make's argument.
	@if [ -d solutions ]; then \
	  echo "  make grade-all HANDINS=dir  for courses: every student's folder graded, and grades/gradebook.csv"; \
	  echo "  make handout            for courses: a tarball for students, without solutions (HANDOUT_LESSONS='1 2')"; \
	  echo "  make gradescope         for courses: an autograder for Gradescope (GRADESCOPE_LESSONS='3 4')"; \
	  echo "  make test               the workbook's own tests (what CI runs); make STEP one of its steps, here:"; \
	  $(RUN_TESTS) --list | sed 's/^/                            /'; \
	  echo "  make cluster-test       grade_slurm.py on a real single-node Slurm it starts (root; docs/cluster.md)"; \
	  echo "  make mutants            the wrong kernels and the red team's attacks only (EMU=1: in the emulator)"; \
	  echo "  make fuzz               libFuzzer on the PTX reader and the interpreter, FUZZ_SECONDS=60 (needs clang)"; \
	  echo "  make conformance        on a GPU: every instruction form against the interpreter, bit for bit, recorded"; \
	  echo "  make author-check       the lessons' own rules: stubs unsolved, one CONTRACT in stub and solution, hints apart, quoted lines right"; \
	  echo "  make bank-pictures      the lessons' bank pictures (docs/img/banks-*.svg) drawn again from the bank model"; \
	fi
	@echo "  make doctor             check the tools the workbook needs"
	@echo "  make clean              remove build/ (your work/ stays)"
	@echo "  make help               this list"
	@echo
	@echo "Options: SRC=$(if $(HAVE_SOLUTIONS),solutions|)exercises|DIR grade other kernels; SEED=n replay inputs;"
	@echo "TIMEOUT=s per test (10); REPS=n timed launches (15); ONLY='speed*' some tests;"
	@echo "SANITIZE=0 / PROFILE=0 skip compute-sanitizer / Nsight Compute's counters (on a GPU both run, as in make grade);"
	@echo "CUDA_ARCH=90 build for another GPU (found: $(or $(GPU_CC),none; builds for $(CUDA_ARCH))); EMU=1 grade in the CPU"
	@echo "emulator (the default without a GPU: docs/emulator.md); V=1 show commands."

doctor:
	$(Q)NVCC="$(NVCC)" CUDA_ARCH="$(CUDA_ARCH)" CMOCKA_DIR="$(CMOCKA_DIR)" EMU="$(EMU)" TEST_TOOLS="$(TEST_TOOLS)" \
	  WB_SETUP="$(if $(filter lesson% doctor watch,$(MAKECMDGOALS)),1)" checker/tools/doctor.sh
	$(Q)$(if $(filter doctor,$(MAKECMDGOALS)),echo "All the tools are here ($(if $(EMU),the CPU emulator judges: no GPU found or EMU=1,GPU judge for sm_$(CUDA_ARCH))).",:)

# ---- the student's commands ------------------------------------------------------------
define LESSON_TARGET
lesson$(1): doctor $(WORKBOOK)
	$(Q)$(WORKBOOK) select $(1)
	$(Q)$(MAKE) -s --no-print-directory SRC=work build/work/$(call folder,$(1))/$(JUDGE) \
	  && build/work/$(call folder,$(1))/$(JUDGE) --describe
endef
$(foreach n,$(LESSONS),$(eval $(call LESSON_TARGET,$(n))))

define NEED_LESSON
$(if $(CHECK_LESSONS),,$(error No lesson selected yet: start with `make lesson1`, or say LESSON=N))
endef

# On a GPU the gates run in make check as in make grade (a verdict that changes at grading time
# teaches the wrong thing); SANITIZE=0 or PROFILE=0 skips one for a quicker look.
check: doctor $(WORKBOOK)
	$(NEED_LESSON)
	$(Q)$(if $(EMU),,SANITIZE=$(or $(SANITIZE),1) PROFILE=$(or $(PROFILE),1)) MAKE="$(MAKE)" WB_GPU_CC="$(GPU_CC)" WB_JUDGE=$(JUDGE) WB_EXPLAIN=$(if $(EMU),,check-emu) \
	  $(WORKBOOK) check $(SRC) $(or $(EXPECT),score) $(CHECK_LESSONS)

status: $(WORKBOOK)
	$(Q)$(WORKBOOK) status

# The lesson after the selected one; make watch re-checks the selected one on every save.
next: $(WORKBOOK)
	$(Q)n=$$($(WORKBOOK) next-lesson) && $(MAKE) -s --no-print-directory lesson$$n

watch: $(WORKBOOK)
	$(NEED_LESSON)
	$(Q)MAKE="$(MAKE)" checker/tools/watch.sh work/$(call folder,$(firstword $(CHECK_LESSONS)))/$(call kernel,$(firstword $(CHECK_LESSONS))).cu

hint reset: $(WORKBOOK)
	$(NEED_LESSON)
	$(Q)for n in $(CHECK_LESSONS); do $(WORKBOOK) $@ $$n || exit; done

# For a course: every lesson of SRC graded into GRADE_DIR as Gradescope's results.json, a JUnit
# junit.xml and summary.txt, with each lesson's report beside them (GRADE_LESSONS="2 3": those
# alone).
GRADE_DIR ?= grade
grade: doctor $(WORKBOOK)
	$(Q)SANITIZE=$(or $(SANITIZE),1) PROFILE=$(or $(PROFILE),1) MAKE="$(MAKE)" WB_GPU_CC="$(GPU_CC)" WB_JUDGE=$(JUDGE) \
	  $(WORKBOOK) grade $(SRC) $(GRADE_DIR) $(or $(GRADE_LESSONS),$(LESSONS))

# A whole class: every folder of HANDINS (one per student, laid out like work/) graded as make
# grade grades it, into GRADEBOOK_DIR/students/STUDENT/, with GRADEBOOK_DIR/gradebook.csv; resumable.
# Python 3's (checker/course/): the doctor sees WB_COURSE and asks for it.
GRADEBOOK_DIR ?= grades
grade-all: export WB_COURSE := 1
grade-all: doctor $(WORKBOOK)
	$(if $(HANDINS),,$(error Say which folder holds the hand-ins: make grade-all HANDINS=dir))
	$(Q)MAKE="$(MAKE)" JUDGE_KIND=$(if $(filter check-emu,$(JUDGE)),emulator,gpu) \
	  checker/course/grade_all.py '$(subst ','\'',$(HANDINS))' '$(subst ','\'',$(GRADEBOOK_DIR))'

# Answers come from the terminal, or from a file: make quiz ANSWERS=file (one per line).
quiz: $(WORKBOOK)
	$(NEED_LESSON)
	$(Q)for n in $(CHECK_LESSONS); do $(WORKBOOK) quiz $$n $(if $(ANSWERS),< $(ANSWERS)) || exit; done

# ---- building a lesson's judge and runners ----------------------------------------------
# The judge of a lesson (checker/judge/) decides every verdict and links no kernel; it starts
# runners (checker/runner/) that only run kernels: the reference side (solution, baseline) and
# the student's side, each a process of its own (docs/security.md). No code of a lesson file
# runs natively in either judge:
#   GPU:       build/common/gpu-runner loads cubins: build/common/NN/{solution,baseline}.cubin,
#              build/SRC/NN/student.cubin, device code alone.
#   emulator:  build/common/ptx-runner interprets PTX: build/common/NN/{solution,baseline}.ptx,
#              build/SRC/NN/student.ptx; the student's cubin is made too (its gate, and the
#              registers per thread a launch needs: a launch the GPU refuses, the emulator refuses).
# build/SRC/NN/check and check-emu are copies of the lesson's judge next to the student's part:
# the judge finds its runners from where it lies.
#
# kernel_steps(source, kernel, family, compile command, artefact kind[, shown]): the lesson file's rules
# (lint: the friendly first word; WB_SKIP_LINT=1 skips it for the red-team tests of the layers
# below), the sealed compile (build/tools/sealed-compile, from checker/compile/: a copy of the
# file, nvcc in a box that sees the toolkit alone, as nobody, under limits; an #include refused by
# nvcc's own list of what it read; exit 1: its complaints shown as file:line, 2-3: refused, 4: the
# grader's problem), then, for a cubin, the gate on what it made (checker/src/rules/objgate.c); a
# PTX file's gate is the interpreter, which refuses what it does not know. shown: the file as the
# messages and the line tables name it (a student's file, read from the intake's copy); source, by
# default. The grader's own failure (the sealed compile's exit 4) leaves $(@D)/grader-fault, the
# evidence make grade reads: never a word of the compiler's output, which the student's code can
# choose.
define kernel_steps
	$(Q)mkdir -p $(@D) && rm -f $(@D)/grader-fault
	$(if $(V),@echo $(4))
	$(Q)if [ -z "$$WB_SKIP_LINT" ] && ! $(WORKBOOK) lint $(1) $(2) $(or $(6),$(1)) > $@.log; then \
	  echo "$(or $(6),$(1)) breaks the rules of lesson files:"; cat $@.log; rm -f $@; exit 1; \
	fi
	$(Q)WB_SHOWN=$(or $(6),$(1)) $(4) > $@.log 2>&1; rc=$$?; \
	if [ $$rc -eq 1 ]; then echo "$(or $(6),$(1)) does not compile:"; $(WORKBOOK) compile-report $(or $(6),$(1)) $@.log; rm -f $@; exit 1; \
	elif [ $$rc -eq 4 ]; then echo "$(or $(6),$(1)) could not be compiled here:"; cat $@.log; cp $@.log $(@D)/grader-fault; rm -f $@; exit 1; \
	elif [ $$rc -ne 0 ]; then echo "$(or $(6),$(1)) was refused:"; cat $@.log; rm -f $@; exit 1; \
	fi; $(WORKBOOK) compile-report $(or $(6),$(1)) $@.log
	$(if $(filter ptx,$(5)),,$(Q)if ! $(WORKBOOK) gate $(5) $@ $(2) $(3) $(or $(6),$(1)) > $@.log; then \
	  echo "$(or $(6),$(1)) was refused:"; cat $@.log; rm -f $@; exit 1; \
	fi)
endef
# The sealed compile (checker/compile/): one program, which nvcc sees a lesson file through alone.
# Its key for the result cache names its rules by the sha256 of its sources (SEALED_SELF), so that
# every build of the same sources (a handout's, the autograder's) reads the same entries. Linked
# beside and renamed into place: make test's sealed-compile-test and build-all may build it at
# once, and a compile running it keeps the file it started.
SEALED_COMPILE := build/tools/sealed-compile
SEALED_SOURCES := $(wildcard checker/compile/*.c)
$(SEALED_COMPILE): $(SEALED_SOURCES) $(wildcard checker/compile/*.h) checker/include/intake.h $(COMMON)/lib/intake/sha256.o
	$(Q)mkdir -p $(@D)
	$(Q)self=$$(cat $(filter-out %.o,$^) checker/src/intake/sha256.c | sha256sum) && \
	  $(CC) $(CFLAGS) '-DSEALED_SELF="'"$${self%% *}"'"' -o $@.$$$$ $(SEALED_SOURCES) $(COMMON)/lib/intake/sha256.o && \
	  mv -f $@.$$$$ $@ || { rm -f $@.$$$$; exit 1; }
# The sealed compile's result cache (a repeat costs ~10 ms, not ~1.1 s): a folder of the
# grader's that the compiler's box never sees. Overridable: an absolute path shares one between
# trees; WB_SEALED_CACHE= turns it off.
WB_SEALED_CACHE ?= build/sealed-cache
SEALED = NVCC="$(NVCC)" WB_SEALED_CACHE="$(WB_SEALED_CACHE)" $(SEALED_COMPILE)
# cubin_cmd(source, family), ptx_cmd(source, family). A family built for sm_90a (family.h: lesson
# 11's wgmma, which only that architecture has) gets it in both, and the driver's header, whose
# CUtensorMap its kernels take: the harness includes it (-include), as nvcc includes the runtime's.
SM90A_FAMILIES := matmul_f16_tma
family_flags = $(if $(filter $(SM90A_FAMILIES),$(1)),-arch=sm_90a -include cuda.h)
cubin_cmd = $(SEALED) cubin $(1) $@ -- $(or $(call family_flags,$(2)),-arch=sm_$(CUDA_ARCH))
# The emulator's input: what nvcc makes of the file for one fixed architecture, with the source
# lines (.loc) its messages quote.
PTX_FLAGS := -ptx -lineinfo -arch=sm_90
ptx_cmd = $(SEALED) ptx $(1) $@$(if $(call family_flags,$(2)), -- $(call family_flags,$(2)))
base_kernel = $(basename $(notdir $(call baseline,$(1))))

define LESSON_BUILD
# $(1): the lesson number. The student's part, per SRC: the intake's copy of the file, made again
# by every make (the copy's time changes only with its bytes, so an unchanged file is not rebuilt).
$(STAGE)/$(call folder,$(1))/$(call kernel,$(1)).cu: FORCE | $(WORKBOOK)
	$(Q)$(WORKBOOK) intake --need $(SRC) $(STAGE) $(1)
$(BUILD)/$(call folder,$(1))/student.cubin: $(STAGE)/$(call folder,$(1))/$(call kernel,$(1)).cu | $(WORKBOOK) $(SEALED_COMPILE)
	$$(call kernel_steps,$$<,$(call kernel,$(1)),$(call family,$(1)),$$(call cubin_cmd,$$<,$(call family,$(1))),cubin,$$(call shown,$(1)))
$(BUILD)/$(call folder,$(1))/student.ptx: $(STAGE)/$(call folder,$(1))/$(call kernel,$(1)).cu | $(WORKBOOK) $(SEALED_COMPILE)
	$$(call kernel_steps,$$<,$(call kernel,$(1)),$(call family,$(1)),$$(call ptx_cmd,$$<,$(call family,$(1))),ptx,$$(call shown,$(1)))
$(BUILD)/$(call folder,$(1))/check: $(COMMON)/$(call folder,$(1))/judge $(BUILD)/$(call folder,$(1))/student.cubin \
    $(COMMON)/$(call folder,$(1))/baseline.cubin $(if $(call has_solution,$(1)),$(COMMON)/$(call folder,$(1))/solution.cubin) $(GPU_RUNNER)
	$(Q)cp $$< $$@ && echo "$$(call shown,$(1))" > $$(@D)/source
$(BUILD)/$(call folder,$(1))/check-emu: $(COMMON)/$(call folder,$(1))/judge $(BUILD)/$(call folder,$(1))/student.ptx \
    $(BUILD)/$(call folder,$(1))/student.cubin \
    $(COMMON)/$(call folder,$(1))/baseline.ptx $(if $(call has_solution,$(1)),$(COMMON)/$(call folder,$(1))/solution.ptx) $(PTX_RUNNER)
	$(Q)cp $$< $$@ && echo "$$(call shown,$(1))" > $$(@D)/source

# The reference side, once: the solution (absent in a handout) and the baseline.
$(COMMON)/$(call folder,$(1))/baseline.cubin: $(call baseline,$(1)) | $(WORKBOOK) $(SEALED_COMPILE)
	$$(call kernel_steps,$$<,$(call base_kernel,$(1)),$(call base_family,$(1)),$$(call cubin_cmd,$$<,$(call base_family,$(1))),cubin)
$(COMMON)/$(call folder,$(1))/baseline.ptx: $(call baseline,$(1)) | $(WORKBOOK) $(SEALED_COMPILE)
	$$(call kernel_steps,$$<,$(call base_kernel,$(1)),$(call base_family,$(1)),$$(call ptx_cmd,$$<,$(call base_family,$(1))),ptx)
$(COMMON)/$(call folder,$(1))/solution.cubin: solutions/$(call folder,$(1))/$(call kernel,$(1)).cu | $(WORKBOOK) $(SEALED_COMPILE)
	$$(call kernel_steps,$$<,$(call kernel,$(1)),$(call family,$(1)),$$(call cubin_cmd,$$<,$(call family,$(1))),cubin)
$(COMMON)/$(call folder,$(1))/solution.ptx: solutions/$(call folder,$(1))/$(call kernel,$(1)).cu | $(WORKBOOK) $(SEALED_COMPILE)
	$$(call kernel_steps,$$<,$(call kernel,$(1)),$(call family,$(1)),$$(call ptx_cmd,$$<,$(call family,$(1))),ptx)

# The judge: the lesson's cases, and nothing of any kernel.
$(COMMON)/$(call folder,$(1))/cases.o: lessons/$(call folder,$(1))/check.c $(HEADERS)
	$(Q)mkdir -p $$(@D)
	$(Q)$(CC) $(CFLAGS) -c $$< -o $$@
$(COMMON)/$(call folder,$(1))/main.o: checker/judge/main.c $(JUDGE_HEADERS) $(HEADERS)
	$(Q)mkdir -p $$(@D)
	$(Q)$(CC) $(CFLAGS) -Ichecker/judge -DWB_LESSON=$(1) -DWB_HAVE_SOLUTION=$(if $(call has_solution,$(1)),1,0) -c $$< -o $$@
# Its thresholds, copied beside it: what a grading uses is what grade-all hashes as the build's.
$(COMMON)/$(call folder,$(1))/thresholds: lessons/$(call folder,$(1))/thresholds
	$(Q)mkdir -p $$(@D)
	$(Q)cp $$< $$@
$(COMMON)/$(call folder,$(1))/judge: $(addprefix $(COMMON)/$(call folder,$(1))/,cases.o main.o thresholds) $(CHECK_OBJECTS) \
  $(LIBCHECKER)
	$(Q)$(CC) -o $$@ $$(filter-out %/thresholds,$$^) $(CMOCKA_LIBS)
endef
has_solution = $(wildcard solutions/$(call folder,$(1))/$(call kernel,$(1)).cu)
# The student's file as the messages name it, where the intake found it (HANDIN/path or
# ARCHIVE:path, made safe for the shell): read when the recipe runs, after the intake.
shown = $(or $(file <$(STAGE)/$(call folder,$(1))/.shown),$(SRC)/$(call folder,$(1))/$(call kernel,$(1)).cu)
# Most lessons' baseline is an earlier lesson's solution (lessons/registry): a copy without
# solutions/ cannot build them, and says so (a handout, make handout, carries its own copies).
solutions/%.cu:
	@echo "$@ is missing: it is a lesson's baseline (lessons/registry), and this copy has no solutions/ folder." \
	  "Restore it (git checkout -- solutions), or give students a handout (make handout), which carries the baselines." >&2; exit 1
$(foreach n,$(LESSONS),$(eval $(call LESSON_BUILD,$(n))))

$(COMMON)/judge/%.o: checker/judge/%.c $(JUDGE_HEADERS) $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Ichecker/judge -c $< -o $@

$(COMMON)/emu/%.o: checker/runner/emu/%.c $(HEADERS) checker/runner/emu/emu.h checker/runner/runner.h checker/runner/sandbox.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The emulator's runner, the PTX interpreter: one program for every lesson and role (it reads
# their PTX), with the job, the tracer and its sentences (checker/runner/emu/) and the sandbox.
# PTX_INTERPRETER: its rooms without the program (the unit tests and the conformance suite link them).
PTX_INTERPRETER := $(patsubst checker/runner/ptx/%.c,$(COMMON)/ptx/%.o,$(filter-out %/ptx_runner.c,$(wildcard checker/runner/ptx/*.c)))
PTX_OBJECTS := $(PTX_INTERPRETER) $(COMMON)/ptx/ptx_runner.o \
  $(addprefix $(COMMON)/emu/,emu_job.o emu_trace.o emu_report.o) $(COMMON)/sandbox.o
$(COMMON)/ptx/%.o: checker/runner/ptx/%.c $(wildcard checker/runner/ptx/*.h) \
    $(HEADERS) checker/runner/emu/emu.h checker/runner/runner.h checker/runner/sandbox.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -ffp-contract=off -Ichecker/runner/ptx -c $< -o $@
$(PTX_RUNNER): $(PTX_OBJECTS) $(LIBCHECKER)
	$(Q)$(CC) -o $@ $^ -lseccomp -lm

$(COMMON)/sandbox.o: checker/runner/sandbox.c checker/runner/sandbox.h $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# cuBLAS, the matmul family's yardstick, is opened with dlopen (checker/runner/gpu_limit.c), from
# the toolkit nvcc belongs to.
CUBLAS_LIB ?= $(firstword $(wildcard $(dir $(shell readlink -f $(NVCC) 2>/dev/null))../lib64/libcublas.so \
    $(dir $(shell readlink -f $(NVCC) 2>/dev/null))../lib/libcublas.so) libcublas.so)
# Its fingerprint kernel and CUB's sum (the runner's own device code) are built for this GPU,
# with PTX that any later one compiles at load.
$(GPU_RUNNER): checker/runner/gpu_runner.c checker/runner/gpu_limit.c checker/runner/gpu_limit.h checker/runner/runner.h \
    checker/runner/gpu_fingerprint.cu checker/runner/gpu_fingerprint.h checker/runner/gpu_limit_cub.cu $(HEADERS) $(LIBCHECKER)
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) -O2 -Ichecker/include -Ichecker/runner -Xcompiler "$(WARN) -std=gnu11" -c $< -o $@.o
	$(Q)$(NVCC) -O2 -Ichecker/include -Ichecker/runner -Xcompiler "$(WARN) -std=gnu11" '-DWB_CUBLAS_LIB="$(CUBLAS_LIB)"' \
	  -c checker/runner/gpu_limit.c -o $@.limit.o
	$(Q)$(NVCC) -O2 -Ichecker/runner -Xcompiler "$(WARN)" -gencode arch=compute_$(CUDA_ARCH),code=[sm_$(CUDA_ARCH),compute_$(CUDA_ARCH)] \
	  -c checker/runner/gpu_fingerprint.cu -o $@.fingerprint.o
	$(Q)$(NVCC) -O2 -Ichecker/include -Ichecker/runner -Xcompiler "$(WARN)" \
	  -gencode arch=compute_$(CUDA_ARCH),code=[sm_$(CUDA_ARCH),compute_$(CUDA_ARCH)] -c checker/runner/gpu_limit_cub.cu -o $@.cub.o
	$(Q)$(NVCC) -o $@ $@.o $@.limit.o $@.fingerprint.o $@.cub.o $(LIBCHECKER) -ldl

$(COMMON)/lib/%.o: checker/src/%.c $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(COMMON)/model/%.o: checker/model/%.c $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(COMMON)/families/%.o: checker/families/%.c $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@
$(COMMON)/lib/families.o: $(FAMILY_OBJECTS)
	$(Q)mkdir -p $(@D)
	$(Q)$(LD) -r -o $@ $^
$(LIBCHECKER): $(LIB_OBJECTS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(COMMON)/lib/intake/archive.o: $(ARCHIVE_STAMP)
$(ARCHIVE_STAMP):
	$(Q)mkdir -p $(@D) && rm -f build/common/libarchive-* && touch $@

# The commands behind the make targets (checker/commands/).
$(WORKBOOK): $(wildcard checker/commands/*.c) checker/commands/commands.h $(LIBCHECKER) $(HEADERS)
	$(Q)$(CC) $(CFLAGS) -Ichecker/commands -o $@ $(filter %.c,$^) $(LIBCHECKER) $(ARCHIVE_LIBS)
# The registry for make (the first section says how it is read). make -q must build nothing, this
# file neither (grade_all.py asks it whether the shared programs are up to date): it reads the
# one there is. A file per writer, for makes started side by side.
ifeq ($(findstring q,$(firstword -$(MAKEFLAGS))),)
$(LESSONS_MK): $(REGISTRY) $(WORKBOOK)
	$(Q)$(WORKBOOK) lessons --make > $@.$$$$ && mv $@.$$$$ $@ || { rm -f $@.$$$$; exit 1; }
endif

# ---- the workbook's own tests ----------------------------------------------------------
# test_ptx_run and test_ptx_isa run small kernels (checker/tests/ptx/kernels.cu, made PTX by nvcc)
# in the interpreter; test_sandbox needs libseccomp, as the emulator's runner does.
UNIT_TESTS := $(patsubst checker/tests/%.c,build/tests/%,$(wildcard checker/tests/test_*.c))
# What the tests share (a scratch folder, assertions on text).
TEST_HEADERS := $(wildcard checker/tests/*.h)

build/tests/test_sandbox: checker/tests/test_sandbox.c $(COMMON)/sandbox.o $(HEADERS) checker/runner/sandbox.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(COMMON)/sandbox.o $(CMOCKA_LIBS) -lseccomp

build/tests/%: checker/tests/%.c $(LIBCHECKER) $(HEADERS) $(TEST_HEADERS) checker/runner/emu/emu.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBCHECKER) $(CMOCKA_LIBS) $(ARCHIVE_LIBS)

# test_occupancy reads what ptxas gave the test kernels (registers, static shared memory) from
# their cubin, as the judges read a student's.
build/tests/ptx_kernels.cubin: build/tests/ptx_kernels.ptx
	$(Q)$(NVCC) -cubin -arch=sm_90 -o $@ $<
build/tests/test_occupancy: checker/tests/test_occupancy.c build/tests/ptx_kernels.cubin $(LIBCHECKER) $(HEADERS) $(TEST_HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) '-DWB_TEST_CUBIN="build/tests/ptx_kernels.cubin"' -o $@ $< $(LIBCHECKER) $(CMOCKA_LIBS)

build/tests/ptx_kernels.ptx: checker/tests/ptx/kernels.cu
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(PTX_FLAGS) -o $@ $<

build/tests/test_ptx_run build/tests/test_ptx_isa: build/tests/%: checker/tests/%.c build/tests/ptx_kernels.ptx \
    $(PTX_INTERPRETER) \
    $(addprefix $(COMMON)/emu/,emu_trace.o emu_report.o) $(LIBCHECKER) $(HEADERS) $(TEST_HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -ffp-contract=off -Ichecker/runner/ptx '-DWB_PTX_KERNELS="build/tests/ptx_kernels.ptx"' \
	  '-DWB_PTX_SOURCE="checker/tests/ptx/kernels.cu"' -o $@ $< $(filter %.o %.a,$^) $(CMOCKA_LIBS) -lm

# test_ptx_hopper runs lesson 11's machinery (checker/tests/ptx/hopper.cu, made PTX for sm_90a).
build/tests/ptx_hopper.ptx: checker/tests/ptx/hopper.cu checker/tests/ptx/hopper_asm.cuh
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) -ptx -lineinfo -arch=sm_90a -o $@ $<

build/tests/test_ptx_hopper: checker/tests/test_ptx_hopper.c checker/tests/ptx/hopper_cases.h build/tests/ptx_hopper.ptx $(PTX_INTERPRETER) \
    $(addprefix $(COMMON)/emu/,emu_trace.o emu_report.o) $(LIBCHECKER) $(HEADERS) $(TEST_HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -ffp-contract=off -Ichecker/runner/ptx '-DWB_PTX_KERNELS="build/tests/ptx_hopper.ptx"' \
	  '-DWB_PTX_SOURCE="checker/tests/ptx/hopper.cu"' -o $@ $< $(filter %.o %.a,$^) $(CMOCKA_LIBS) -lm

build/tests/test_ptx_read: checker/tests/test_ptx_read.c $(PTX_INTERPRETER) \
    $(addprefix $(COMMON)/emu/,emu_trace.o emu_report.o) $(LIBCHECKER) $(HEADERS) $(TEST_HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Ichecker/runner/ptx -o $@ $< $(filter %.o %.a,$^) $(CMOCKA_LIBS) -lm

# The conformance suite's interpreter side (checker/tests/conformance/): each form forms.py wrote,
# run by the interpreter as the runner runs a kernel.
build/conformance/conform-emu: checker/tests/conformance/conform_emu.c checker/tests/conformance/conform_forms.h \
    $(PTX_INTERPRETER) \
    $(addprefix $(COMMON)/emu/,emu_trace.o emu_report.o) $(LIBCHECKER) $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -ffp-contract=off -Ichecker/runner/ptx -o $@ $< $(filter %.o %.a,$^) -lm

# The conformance suite's GPU side, with the driver's own assembler (libcuda: the stub to link; the
# driver's at run time).
build/conformance/conform-gpu: checker/tests/conformance/conform_gpu.cu checker/tests/conformance/conform_forms.h
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) -O2 -o $@ $< -L$(dir $(NVCC))../lib64/stubs -lcuda
# make conformance: on a GPU machine, both sides of the suite on every form, compared bit for bit
# (build/conformance/report.txt), the GPU's outputs recorded for make test to replay.
CONFORMANCE_RECORD ?= checker/tests/conformance/records/h200.tsv
conformance: build/conformance/conform-emu build/conformance/conform-gpu
	$(Q)python3 checker/tests/conformance/forms.py build/conformance
	$(Q)build/conformance/conform-emu build/conformance
	$(Q)build/conformance/conform-gpu build/conformance
	$(Q)python3 checker/tests/conformance/conform.py compare build/conformance || true
	$(Q)python3 checker/tests/conformance/conform.py record build/conformance $(CONFORMANCE_RECORD)
	$(Q)python3 checker/tests/conformance/conform.py table build/conformance $(CONFORMANCE_RECORD)

unit-tests: $(UNIT_TESTS)
	$(Q)for t in $^; do echo "== $$t"; $$t || exit 1; done

# The PTX primer's examples (docs/ptx.md), run in the interpreter against what the page says.
build/tests/ptx_primer.ptx: checker/tests/ptx/primer.cu
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(PTX_FLAGS) -o $@ $<

build/tests/test_ptx_primer: checker/tests/test_ptx_primer.c build/tests/ptx_primer.ptx \
    $(PTX_INTERPRETER) \
    $(addprefix $(COMMON)/emu/,emu_trace.o emu_report.o) $(LIBCHECKER) $(HEADERS) $(TEST_HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -ffp-contract=off -Ichecker/runner/ptx '-DWB_PTX_PRIMER="build/tests/ptx_primer.ptx"' \
	  '-DWB_PTX_PRIMER_SOURCE="checker/tests/ptx/primer.cu"' '-DWB_PTX_PRIMER_PAGE="docs/ptx.md"' \
	  -o $@ $< $(filter %.o %.a,$^) $(CMOCKA_LIBS) -lm

# ---- the interpreter under sanitizers (issue 45; docs/security.md) ------------------------
# build/asan/ptx-runner: the emulator's runner and what it links, built with AddressSanitizer and
# UndefinedBehaviorSanitizer, every report fatal, in the same seccomp filter (sandbox.c's
# WB_SANITIZED part readies the sanitizers for it); sanitized-test runs it on every kernel of the
# workbook's cases (checker/tests/steps/sanitized-test.py). build/fuzz/ptx-fuzz: libFuzzer over
# the PTX reader and the interpreter (checker/tests/fuzz/), for make fuzz; clang only.
ASAN := build/asan
FUZZ := build/fuzz
SAN_CC ?= $(CC)
FUZZ_CC ?= clang
SANITIZERS := -fsanitize=address,undefined -fno-sanitize-recover=all
# As the normal build compiles them (-ffp-contract=off: the interpreter's float arithmetic), at -O1
# with frame pointers, as the sanitizers' stacks want.
SAN_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer $(WARN) -Ichecker/include -Ichecker/runner \
  -Ichecker/runner/emu -Ichecker/runner/ptx -ffp-contract=off -DWB_SANITIZED
# The runner with the parts of the library it links (its link map: the families, the bank model,
# the poison marks, the references and their tolerances, rng, the SM's occupancy); the fuzzer
# takes the reader, the interpreter and the tracer of these.
SAN_RUNNER_SOURCES := $(wildcard checker/runner/ptx/*.c) \
  $(addprefix checker/runner/emu/,emu_job.c emu_trace.c emu_report.c) checker/runner/sandbox.c $(MODEL_SOURCES) \
  $(wildcard checker/families/*.c) $(addprefix checker/src/judging/,occupancy.c poison.c reference.c rng.c tolerance.c)
FUZZ_SOURCES := $(filter-out %/ptx_runner.c %/emu_job.c %/sandbox.c,$(SAN_RUNNER_SOURCES))
SAN_HEADERS := $(HEADERS) $(wildcard checker/runner/*.h checker/runner/emu/*.h checker/runner/ptx/*.h)
$(ASAN)/obj/%.o: %.c $(SAN_HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(SAN_CC) $(SAN_CFLAGS) $(SANITIZERS) -c $< -o $@
$(ASAN)/ptx-runner: $(patsubst %.c,$(ASAN)/obj/%.o,$(SAN_RUNNER_SOURCES))
	$(Q)$(SAN_CC) $(SANITIZERS) -o $@ $^ -lseccomp -lm
$(ASAN)/canary: $(ASAN)/obj/checker/tests/sanitize/canary.o $(ASAN)/obj/checker/runner/sandbox.o
	$(Q)$(SAN_CC) $(SANITIZERS) -o $@ $^ -lseccomp
# The driver itself is plain: it makes jobs and reads what the runner said.
$(ASAN)/run-sanitized: checker/tests/sanitize/run_sanitized.c $(LIBCHECKER) $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBCHECKER) -lm
$(FUZZ)/obj/%.o: %.c $(SAN_HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(SAN_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -c $< -o $@
$(FUZZ)/ptx-fuzz: checker/tests/fuzz/ptx_fuzz.c $(patsubst %.c,$(FUZZ)/obj/%.o,$(FUZZ_SOURCES)) $(SAN_HEADERS)
	$(Q)$(FUZZ_CC) $(SAN_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ \
	  $(filter %.c %.o,$^) -lm
# Seeds: checker/tests/ptx/kernels.cu's kernels (its own copy: unit-tests may make build/tests' beside it).
$(FUZZ)/kernels.ptx: checker/tests/ptx/kernels.cu
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(PTX_FLAGS) -o $@ $<
# make fuzz: FUZZ_SECONDS of libFuzzer from the lessons' PTX, fuzz-test's 30 s in make test.
FUZZ_SECONDS ?= 60
fuzz: $(WORKBOOK)
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_CC="$(FUZZ_CC)" MAKE="$(MAKE)" checker/tools/fuzz.sh

# The bank pictures the lessons show are the bank model's own drawings (workbook bankmap), kept
# in docs/img/ so that a lesson's README shows them wherever it is read; make bank-pictures
# draws them again, and author-check refuses one the model would no longer draw.
BANK_PICTURES := 32x32 32x33 xor ldsm ldsm-xor
author-check: $(WORKBOOK)
	$(Q)$(WORKBOOK) author-check
	$(Q)for p in $(BANK_PICTURES); do $(WORKBOOK) bankmap $$p | cmp -s - docs/img/banks-$$p.svg || \
	  { echo "docs/img/banks-$$p.svg is not what the bank model draws now: make bank-pictures, then commit it"; exit 1; }; done
	$(Q)for f in lessons/*/README.md; do for img in $$(grep -oE '\]\([^)]*\.(svg|png)\)' $$f | sed 's/^](//; s/)$$//'); do \
	  [ -f "$$(dirname $$f)/$$img" ] || { echo "$$f shows $$img, which is not there"; exit 1; }; done; done
bank-pictures: $(WORKBOOK)
	$(Q)for p in $(BANK_PICTURES); do $(WORKBOOK) bankmap $$p > docs/img/banks-$$p.svg || exit 1; done

# The check programs of SRC for the judge EMU selects, every lesson (or LESSON=n's): for
# building in parallel (make -j programs) before grading many hand-ins or mutants.
PROGRAM_LESSONS = $(if $(filter command line,$(origin LESSON)),$(CHECK_LESSONS),$(LESSONS))
programs: $(WORKBOOK)
	$(Q)$(MAKE) -s --no-print-directory $(foreach n,$(PROGRAM_LESSONS),$(BUILD)/$(call folder,$(n))/$(JUDGE))

# Every lesson's check programs, GPU and emulator, for the stubs and for the solutions. (Not make
# explore's: that step builds its own, beside this one in make test.)
build-all: $(WORKBOOK)
	$(Q)$(MAKE) -s --no-print-directory -j$$(nproc) SRC=exercises $(foreach n,$(LESSONS),$(addprefix build/exercises/$(call folder,$(n))/,$(TEST_JUDGES)))
	$(if $(HAVE_SOLUTIONS),$(Q)$(MAKE) -s --no-print-directory -j$$(nproc) SRC=solutions $(foreach n,$(LESSONS),$(addprefix build/solutions/$(call folder,$(n))/,$(TEST_JUDGES))))

# Wrong kernels the checker must reject, each with its own diagnosis (checker/mutants/), and the
# red team's attacks on the grader (checker/redteam/), which must be refused and do nothing; by
# the judge EMU selects.
mutants: $(WORKBOOK)
	$(Q)MAKE="$(MAKE)" EMU="$(EMU)" checker/tools/run-cases.py mutants redteam

# checker/course/grade_slurm.py on a real Slurm: as root, a single-node Slurm from the
# distribution's packages (a CPU-only partition, one declaring a GPU gres), a small class graded
# on both against make grade, refusals, a killed task, six tasks racing on a clean build; it stops
# what it started (docs/cluster.md).
cluster-test: $(WORKBOOK)
	$(Q)checker/tests/steps/cluster-test.py

# What make test needs beyond a student's tools (stress-ng, pandoc, chromium): installed as root,
# or the command said and the step failed, never a test skipped for want of a tool.
test-tools:
	$(Q)$(MAKE) -s --no-print-directory doctor EMU=1 TEST_TOOLS=1

# make test runs the steps of checker/tests/steps/table, the one list of them: there each step
# has its phase (when it starts, beside which others), where it runs (always, with solutions/, on
# a GPU, without one), its script, and what it proves; checker/tools/run-tests.py reads it, runs
# them (the long ones as many at once as there are cores) and ends with one line that counts
# them: N passed, N failed, N skipped. None of these steps' verdicts rests on how long anything
# took. A step that cannot run on this machine (only gpu-test, without a GPU) says "SKIPPED: why"
# and is counted as skipped. LEAVE_OUT="site-test ..." leaves steps out.
# ($(MAKE) written out in the recipes: the lines are make's own recursion, for make -n and -j.)
RUN_TESTS = WB_GPU_CC="$(GPU_CC)" checker/tools/run-tests.py
test:
	$(Q)MAKE="$(MAKE)" RUNS=$(or $(RUNS),1) WB_GPU_LOCK="$(GPU_LOCK)" $(RUN_TESTS)

# make STEP: one step of make test alone (make emulator-test, make gpu-test, ...). A step that is
# no target of its own here ends in -test, and a -test name the table lacks is refused.
%-test:
	$(Q)MAKE="$(MAKE)" $(RUN_TESTS) --only $@

# ---- make explore: the banks and the memory measured on this GPU ----------------------------
# One warp's shared loads at strides 0 (broadcast) to 64, timed with clock64(), beside the bank
# model's wavefronts (checker/bench/bank-explore.cu); without a GPU, the model's side alone. On a
# GPU also the memory (checker/bench/reduce-bandwidth.cu, lesson 9): block sums with 4 to 128
# bytes in flight per thread against CUB, and one load's latency alone. The plots and the
# tables go to build/explore/.
EXPLORE := build/explore/bank-explore
MEMORY_EXPLORE := build/explore/reduce-bandwidth
$(EXPLORE): checker/bench/bank-explore.cu checker/bench/bench.cuh $(COMMON)/model/bank_model.o $(HEADERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) -O3 -arch=sm_$(CUDA_ARCH) -Ichecker/include -o $@ $< $(COMMON)/model/bank_model.o
$(MEMORY_EXPLORE): checker/bench/reduce-bandwidth.cu checker/bench/bench.cuh checker/bench/block_sums.cuh
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) -O3 -arch=sm_$(CUDA_ARCH) -o $@ $<
# In make test other steps' judges share the GPU (WB_GPU_LOCK): each measuring program has it
# alone, as a timing does (the lock's door shared, the lock exclusive: checker/src/processes/gpu_lock.c).
GPU_ALONE = $(if $(and $(GPU_CC),$(WB_GPU_LOCK)),flock -o -s $(WB_GPU_LOCK).turn flock -o -x $(WB_GPU_LOCK))
# Its two programs built at once: in make test it runs beside build-all, and should be done before
# gpu-test's judges start.
explore:
	$(Q)$(MAKE) -s --no-print-directory -j2 $(EXPLORE) $(if $(GPU_CC),$(MEMORY_EXPLORE))
	$(Q)$(GPU_ALONE) $(EXPLORE) build/explore
	$(Q)$(if $(GPU_CC),$(GPU_ALONE) $(MEMORY_EXPLORE) --out build/explore,echo "(The memory's part, bytes in flight against bandwidth, runs on a GPU only.)")

# ---- the handout ------------------------------------------------------------------------
# For a course: the workbook without solutions/ and the wrong kernels, as a tarball; HANDOUT_LESSONS
# picks lessons ("1 2"; default all). Earlier solutions that are later lessons' baselines go with
# it, and are named (checker/course/handout.py).
HANDOUT ?= build/handout/shared-memory-workbook.tar.gz
handout: $(WORKBOOK)
	$(Q)checker/course/handout.py $(HANDOUT) $(HANDOUT_LESSONS)

# For a course on Gradescope: its autograder zip (setup.sh, run_autograder, the workbook with its
# solutions), grading GRADESCOPE_LESSONS ("3 4"; default all) of an upload (checker/course/gradescope/).
.PHONY: gradescope
gradescope: $(WORKBOOK)
	$(Q)checker/course/gradescope/build.sh $(or $(GRADESCOPE_ZIP),build/gradescope/autograder.zip) $(GRADESCOPE_LESSONS)

# ---- the site (pandoc) ------------------------------------------------------------------
PANDOC ?= pandoc
SITE := docs/html
SITE_IMAGES := $(addprefix $(SITE)/img/,banks-32x32.svg banks-32x33.svg banks-xor.svg banks-ldsm.svg banks-ldsm-xor.svg \
               tiling.svg bank-latency.svg memory-h200.svg)
SITE_PAGES := $(SITE)/index.html $(SITE)/measurements.html $(SITE)/emulator.html $(SITE)/mutants.html $(SITE)/gates.html \
  $(SITE)/security.html $(SITE)/cluster.html $(SITE)/architecture.html $(SITE)/ptx.html \
  $(foreach n,$(LESSONS),$(SITE)/$(call folder,$(n)).html)
# Offline (images embedded, styles inline), code highlighted as C++ (pandoc knows no CUDA), the
# page's title from its first line; pandoc wraps a <summary>'s text in <p> (or in line breaks
# where the <details> stands alone), which is undone.
PANDOC_HTML = $(PANDOC) --from markdown --standalone --self-contained --resource-path=$(SITE) \
  --template docs/template.html --highlight-style=tango
page_title = --metadata pagetitle="$$(sed -n '1s/^\# //p' $(1))"
lesson_title = $(shell sed -n '1s/^\# //p' lessons/$(call folder,$(1))/README.md)
# Each lesson's neighbours in the registry's order, "n:before:after" (0: none), worked out by make
# itself: every make run reads this file, and a shell started per lesson per run adds up.
LESSON_NEIGHBOURS := $(join $(join $(LESSONS),$(addprefix :,0 $(filter-out $(lastword $(LESSONS)),$(LESSONS)))),$(addprefix :,$(wordlist 2,999,$(LESSONS)) 0))
lesson_before = $(word 2,$(subst :, ,$(filter $(1):%,$(LESSON_NEIGHBOURS))))
lesson_after = $(word 3,$(subst :, ,$(filter $(1):%,$(LESSON_NEIGHBOURS))))
unwrap_summary = sed -z -e 's|<summary>\n<p>\([^<]*\)</p>\n</summary>|<summary>\1</summary>|g' \
  -e 's|<summary>\n\([^<\n]*\)\n</summary>|<summary>\1</summary>|g'


$(SITE)/img/%.svg: docs/img/%.svg
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@

# A lesson's page: its README (each prediction's answer folded there; the markers of its quoted
# line numbers, which are for the author check, dropped; its links to the docs' pages, which are
# ../../docs/NAME.md beside the Markdown, made NAME.html), the questions of its quiz.txt appended
# with their answers folded, then its hints.md, each hint folded on its own: the hints are not in
# the README, and the page shows them only one at a time too.
define LESSON_PAGE
$(SITE)/$(call folder,$(1)).html: lessons/$(call folder,$(1))/README.md lessons/$(call folder,$(1))/quiz.txt \
    lessons/$(call folder,$(1))/hints.md docs/template.html $(SITE_IMAGES) $(WORKBOOK)
	$(Q)mkdir -p build/docs
	$(Q){ sed -e 's/^```cuda$$$$/```cpp/' -e 's/<!-- line: \([^-]\|-[^-]\)*-->//g' \
	  -e 's|](\.\./\.\./docs/\([a-z_]*\)\.md)|](\1.html)|g' -e 's|](\.\./\.\./docs/img/|](img/|g' $$<; echo; \
	  $(WORKBOOK) quiz-md $(1); \
	  echo; $(WORKBOOK) hints-md $(1); } \
	  > build/docs/$(call folder,$(1)).md
	$(Q)$(PANDOC_HTML) $(if $(call folder,$(call lesson_before,$(1))),-V prev=$(call folder,$(call lesson_before,$(1))).html) \
	  $(if $(call folder,$(call lesson_after,$(1))),-V next=$(call folder,$(call lesson_after,$(1))).html) \
	  --metadata pagetitle="$$(call lesson_title,$(1))" build/docs/$(call folder,$(1)).md | $(unwrap_summary) > $$@
endef
$(foreach n,$(LESSONS),$(eval $(call LESSON_PAGE,$(n))))

$(SITE)/index.html: docs/index.md docs/template.html lessons/registry $(WORKBOOK)
	$(Q)mkdir -p build/docs $(@D)
	$(Q){ cat $<; $(WORKBOOK) lesson-list; printf '\nMeasured on an H200: [speed checks](measurements.html); the [emulator](emulator.html) and its counts against Nsight Compute; the [wrong kernels](mutants.html) the checker must reject; compute-sanitizer and Nsight Compute as [gates](gates.html); what a lesson file [can and cannot do](security.html); grading a [whole class](cluster.html); how the workbook is [built](architecture.html). The instructions of lesson 10 in inline assembly: a [PTX primer](ptx.html).\n'; } > build/docs/index.md
	$(Q)$(PANDOC_HTML) $(call page_title,$<) build/docs/index.md -o $@

# Links between the docs' Markdown files become links between their pages.
$(SITE)/%.html: docs/%.md docs/template.html
	$(Q)mkdir -p $(@D) build/docs
	$(Q)sed -E 's/\]\(([a-z_]+)\.md\)/](\1.html)/g' $< > build/docs/$*.md
	$(Q)$(PANDOC_HTML) -V prev=index.html $(call page_title,$<) build/docs/$*.md -o $@

docs-tools:
	$(Q)DOCS=1 PANDOC="$(PANDOC)" checker/tools/doctor.sh

# A lesson's page as it must be: as many "What we measured" blocks as its README has predictions,
# as many "Hint N" blocks as its hints.md has hints, all closed, and nothing left unparsed inside
# them (a <details> that pandoc escaped, a table shown as its | lines), which happens when the
# blank line after <summary> or before </details> is missing.
site_lesson_check = page=$(SITE)/$(1).html; \
  predictions=$$(grep -c '^\*\*Prediction' lessons/$(1)/README.md); measured=$$(grep -c '<summary>What we measured</summary>' $$page); \
  hints=$$(grep -c '^\#\#\# Hint' lessons/$(1)/hints.md); shown=$$(grep -cE '<summary>Hint [0-9]+</summary>' $$page); \
  if [ "$$measured" != "$$predictions" ] || [ "$$shown" != "$$hints" ] || grep -qE '&lt;/?(details|summary)|<details open|^<p>\|' $$page; then \
    echo "$$page: $$measured of $$predictions answers and $$shown of $$hints hints folded, or Markdown left unparsed in them"; exit 1; fi

docs: docs-tools
	$(Q)$(MAKE) -s --no-print-directory $(SITE_PAGES)
	$(Q)checker/tools/check-links.sh $(SITE)
	$(Q)$(foreach n,$(LESSONS),{ $(call site_lesson_check,$(call folder,$(n))); } &&) echo "lesson pages: $(words $(LESSONS)) with their answers and hints folded"

# The site as a reader sees it, in headless Chromium (Debian's chromium package).
docs-test: docs
	$(Q)checker/tools/docs-test.sh $(SITE)

clean:
	rm -rf build $(SITE)
