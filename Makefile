# percpu-vmstat: the two commands are `make run` (the main job) and `make check` (the tests).
# Each target is a thin wrapper over a script; run any script with --help for its options.

# Unset means scripts/run's default (or the SCENARIO's): CPUS 2, MEM 512M, DURATION 30,
# HOTPLUG 0, INJECT 0.
CPUS     ?=
MEM      ?=
DURATION ?=
HOTPLUG  ?=
INJECT   ?=
SCENARIO ?=
# Which Debian kernel: 6.12 (the default) or 6.1. CHECK_KERNELS='6.12 6.1': make check on both.
KERNEL   ?=
CHECK_KERNELS ?=
# The guest's architecture: x86_64 (the default), i386, arm64 or riscv64. It reaches the scripts
# as GUEST_ARCH: the kernel's own make reads ARCH, and scripts/lib.sh gives it kbuild's name.
ARCH     ?=
ARGS     ?=
WORKLOAD ?=
GUEST_TOOLS ?=
# Through the environment, so that any quoting inside a command line survives, and unexpanded
# by make: WORKLOAD='echo $HOME' reaches the guest's shell as written.
override WORKLOAD := $(value WORKLOAD)
override GUEST_TOOLS := $(value GUEST_TOOLS)
export WORKLOAD GUEST_TOOLS
ifneq ($(KERNEL),)
export KERNEL
endif
ifneq ($(CHECK_KERNELS),)
export CHECK_KERNELS
endif
ifneq ($(ARCH),)
export GUEST_ARCH := $(ARCH)
endif
# Which other architectures make check boots the KUnit suites on (scripts/lib.sh has the
# default; CHECK_ARCHES= for none).
ifneq ($(origin CHECK_ARCHES),undefined)
export CHECK_ARCHES
endif
unexport ARCH
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))

.PHONY: run check check-full check-series setup kernel rootfs analysis bench clean-cache help

help:
	@echo "make run     [KERNEL=6.12|6.1] [CPUS=2 MEM=512M DURATION=30 HOTPLUG=0|1 INJECT=N] [SCENARIO=NAME|all]"
	@echo "             [WORKLOAD='command line in the guest' GUEST_TOOLS='stress-ng ...']"
	@echo "             [ARGS='any scripts/run option, e.g. --buffer-kb 8192 --set NAME=VALUE']"
	@echo "             build what is stale, boot, record under stress, audit: results/latest/"
	@echo "             make exits 2 on any failure; the real code (0 1 3 4, as scripts/run's)"
	@echo "             is in the last line and in the run directory's exit-code file"
	@echo "make check   the quick tier: host tests, series checks, one x86_64 kernel's KUnit, a short"
	@echo "             recording, hotplug, a few scenarios [KERNEL=6.12|6.1] [CHECK_KERNELS='6.12 6.1'];"
	@echo "             ends with 'N passed, N failed, N skipped'"
	@echo "make check-full   every test (what CI runs): the quick tier plus the other architectures"
	@echo "             [CHECK_ARCHES='arm64 i386 riscv64' (the default; '' for none)], every scenario,"
	@echo "             the debug kernel and injected loss, the W=1/sparse/clang builds"
	@echo "make check-series   build every prefix of patches/KERNEL/ (bisectability; slow)"
	@echo "make bench   per-CPU op costs, tracepoint cost off/on, audit throughput: results/bench/"
	@echo "make setup | kernel | rootfs | analysis | clean-cache   (setup, kernel: [ARCH=x86_64|i386|arm64|riscv64])"

# scripts/setup installs what the command needs and is missing (scripts/setup --help).
SETUP = SCENARIO='$(SCENARIO)' scripts/setup --for

setup:
	$(SETUP) run

kernel:
	$(SETUP) run
	scripts/build-kernel

rootfs:
	$(SETUP) run
	guest-rootfs/build

analysis:
	$(SETUP) run
	$(MAKE) -C analysis

RUN_OPTS = $(if $(SCENARIO),--scenario $(SCENARIO)) $(if $(CPUS),--cpus $(CPUS)) \
	$(if $(MEM),--mem $(MEM)) $(if $(DURATION),--duration $(DURATION)) \
	$(if $(HOTPLUG),--hotplug $(HOTPLUG)) $(if $(INJECT),--inject $(INJECT)) \
	$(if $(WORKLOAD),--workload "$$WORKLOAD") $(if $(GUEST_TOOLS),--guest-tools "$$GUEST_TOOLS")

# GNU make ends with 2 whatever a recipe's code was: name the real one on the last line.
run:
	@$(SETUP) run
	@rc=0; scripts/run $(RUN_OPTS) $(ARGS) || rc=$$?; \
	case $$rc in 0) ;; 1) echo "make run: exit 1 (INCONSISTENT)";; 2) echo "make run: exit 2 (bad arguments or input)";; \
	3) echo "make run: exit 3 (INCONCLUSIVE)";; *) echo "make run: exit $$rc (a stage failed, see above)";; esac; \
	exit $$rc

check:
	$(SETUP) check
	scripts/check --tier quick

check-full:
	$(SETUP) check-full
	scripts/check --tier full

check-series:
	$(SETUP) check
	scripts/check-series

bench:
	$(SETUP) bench
	bench/run-bench

clean-cache:
	rm -rf "$${PERCPU_VMSTAT_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/percpu-vmstat}"
