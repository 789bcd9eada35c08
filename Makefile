# percpu-vmstat: the two commands are `make run` (the main job) and `make check` (the tests).
# Each target is a thin wrapper over a script; run any script with --help for its options.

CPUS     ?= 2
MEM      ?= 512M
DURATION ?= 30
HOTPLUG  ?= 0
INJECT   ?= 0
ARGS     ?=

.PHONY: run check check-series setup kernel rootfs analysis bench clean-cache help

help:
	@echo "make run     [CPUS=$(CPUS) MEM=$(MEM) DURATION=$(DURATION) HOTPLUG=$(HOTPLUG) INJECT=$(INJECT)]"
	@echo "             [ARGS='any scripts/run option, e.g. --buffer-kb 8192 --set NAME=VALUE']"
	@echo "             build what is stale, boot, record under stress, audit: results/latest/"
	@echo "             make exits 2 on any failure; the real code (0 1 3 4, as scripts/run's)"
	@echo "             is in the last line and in the run directory's exit-code file"
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

# GNU make ends with 2 whatever a recipe's code was: name the real one on the last line.
run: setup
	@rc=0; scripts/run --cpus $(CPUS) --mem $(MEM) --duration $(DURATION) --hotplug $(HOTPLUG) \
		--inject $(INJECT) $(ARGS) || rc=$$?; \
	case $$rc in 0) ;; 1) echo "make run: exit 1 (INCONSISTENT)";; 2) echo "make run: exit 2 (bad arguments or input)";; \
	3) echo "make run: exit 3 (INCONCLUSIVE)";; *) echo "make run: exit $$rc (a stage failed, see above)";; esac; \
	exit $$rc

check: setup
	scripts/check

check-series: setup
	scripts/check-series

bench: setup
	bench/run-bench

clean-cache:
	rm -rf "$${PERCPU_VMSTAT_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/percpu-vmstat}"
