# percpu-vmstat: the two commands are `make run` (the main job) and `make check` (the tests).
# Each target is a thin wrapper over a script; run any script with --help for its options.

CPUS     ?= 2
MEM      ?= 512M
DURATION ?= 30
HOTPLUG  ?= 0
INJECT   ?= 0

.PHONY: run check check-series setup kernel rootfs analysis bench clean-cache help

help:
	@echo "make run     [CPUS=$(CPUS) MEM=$(MEM) DURATION=$(DURATION) HOTPLUG=$(HOTPLUG) INJECT=$(INJECT)]"
	@echo "             build what is stale, boot, record under stress, audit: results/latest/"
	@echo "make check   all tests (host and booted); ends with 'N passed, N failed, N skipped'"
	@echo "make check-series   build every prefix of patches/ (bisectability; slow)"
	@echo "make bench   per-CPU op costs, tracepoint cost off/on, audit throughput: results/bench/"
	@echo "make setup | kernel | rootfs | analysis | clean-cache"

setup:
	scripts/setup

kernel: setup
	scripts/build-kernel

rootfs: setup
	guest-rootfs/build

analysis: setup
	$(MAKE) -C analysis

run: setup
	scripts/run --cpus $(CPUS) --mem $(MEM) --duration $(DURATION) --hotplug $(HOTPLUG) --inject $(INJECT)

check: setup
	scripts/check

check-series: setup
	scripts/check-series

bench: setup
	bench/run-bench

clean-cache:
	rm -rf "$${PERCPU_VMSTAT_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/percpu-vmstat}"
