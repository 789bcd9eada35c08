# shellcheck shell=bash
# Sourced by every test: result reporting on top of the project's lib.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

: "${CHECK_RESULTS:=/dev/stderr}"
pass() { echo "pass $*" >>"$CHECK_RESULTS"; echo "PASS: $*"; }
fail() { echo "fail $*" >>"$CHECK_RESULTS"; echo "FAIL: $*"; }
skip() { echo "skip $*" >>"$CHECK_RESULTS"; echo "SKIP: $*"; }
# expect NAME COMMAND...: one result named NAME from a command's success.
expect() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }

# Build (incrementally) and print the paths the boot tests need; the build logs stay in the cache.
kernel_image() {
	local dir
	dir=$("$PROJECT_ROOT/scripts/build-kernel" "$@" | tail -n 1) || return 1
	echo "$dir/$KERNEL_IMAGE"
}
# make check's one debug kernel: debug.config (lockdep, DEBUG_PREEMPT, ...) with the
# fault-injection framework built in. 90-faults runs the injected positive control on it and
# 95-debug-kernel the suites and a stress run (nothing injected): one kernel build instead of
# two, and the injection code runs under lockdep. make run INJECT=N keeps its own kernel.
# fault-injection last: where scripts/run puts it when --inject adds it (90 relies on that).
CHECK_DEBUG_KERNEL_CONFIGS=(debug fault-injection)
# debug_kernel_args OPTION: OPTION NAME for each of them (--config for build-kernel,
# --kernel-config for scripts/run).
debug_kernel_args() { local c; for c in "${CHECK_DEBUG_KERNEL_CONFIGS[@]}"; do printf '%s\n' "$1" "$c"; done; }
# no_case_skipped NAME RESULTS KUNIT_RESULTS_EXIT CONSOLE SUITE...: one result saying that every
# case of the suites ran, pcpu_race too (20 ms per case by default; 55-kunit-mutants runs it
# under -singlestep, where it can tell a broken op). It passes only on scripts/kunit-results'
# whole report: exit 0 with a pass line for each suite and no skip, also none among a
# parameterised case's parameters ("16 parameters: 15 pass, 1 skip").
no_case_skipped() {
	local name=$1 results=$2 rc=$3 console=$4 s missing=()
	shift 4
	for s in "$@"; do grep -qE "^pass kunit $s\." <<<"$results" || missing+=("$s"); done
	s=$(grep -E '^skip |[0-9]+ skip' <<<"$results" | cut -d' ' -f3 | xargs || true)
	if ((rc != 0 && ${#missing[@]} == 0)) && ! grep -q '^fail ' <<<"$results"; then
		fail "$name: scripts/kunit-results exited $rc without a verdict ($console)"
	elif ((${#missing[@]})); then fail "$name: no case of ${missing[*]} passed ($console)"
	elif [[ -n $s ]]; then fail "$name: cases skipped that must run: $s ($console)"
	else pass "$name: no case skipped"; fi
}
rootfs_image() { "$PROJECT_ROOT/guest-rootfs/build" | tail -n 1; }

# margin_check NAME RUN_DIR: the recording lost nothing (no overrun, no dropped event on any
# CPU, per trace-cmd's counters at stop) and kept its margin: no CPU's ring buffer was ever
# more than MARGIN_MAX_FILL (default 0.5) full, per ringwatch's samples in run.json.
margin_check() {
	local name=$1 dir=$2 why
	if why=$(python3 - "$dir/run.json" "${MARGIN_MAX_FILL:-0.5}" <<'PY'
import json, sys
try:
    rb = json.load(open(sys.argv[1]))["ring_buffer"]
    cpus = rb["per_cpu"]
except Exception as e:
    print(f"no ring_buffer margin in {sys.argv[1]}: {e}"); sys.exit(1)
limit = float(sys.argv[2])
bad = [f"cpu{c['cpu']} overrun {c['overrun']} dropped {c['dropped']}" for c in cpus
       if c["overrun"] != 0 or c["dropped"] != 0]
if not cpus or any(c["peak_fill"] is None for c in cpus):
    bad.append("a CPU without a sampled peak fill")
elif rb["max_peak_fill"] >= limit:
    bad.append(f"peak fill {rb['max_peak_fill']:.1%} reached the {limit:.0%} limit")
fills = ", ".join(f"cpu{c['cpu']} {c['peak_fill'] or 0:.1%}" for c in cpus)
print(("; ".join(bad) + f" (peak fill {fills})") if bad else f"peak fill {fills}")
sys.exit(1 if bad else 0)
PY
	); then pass "$name: zero events lost, ring buffers at most $why"
	else fail "$name: $why"; fi
}

# kunit_mutant DIR NAME PREAMBLE: DIR/percpu_ops_NAME.c, a copy of lib/percpu_ops_kunit.c under
# the suite name percpu_ops_NAME, with PREAMBLE (#undef/#define of operations) after its
# includes: built as a module, it runs the whole suite on the mutated operations.
kunit_mutant() {
	python3 - "$LINUX_REPO/lib/percpu_ops_kunit.c" "$1/percpu_ops_$2.c" "$2" "$3" <<'PY'
import sys
src, dst, name, preamble = sys.argv[1:5]
s = open(src).read()
anchor = "#include <linux/preempt.h>\n"
assert anchor in s and '.name = "percpu_ops"' in s
s = s.replace(anchor, anchor + preamble + "\n", 1).replace('.name = "percpu_ops"', f'.name = "percpu_ops_{name}"')
open(dst, "w").write(s)
PY
}

# modules_ktap CONSOLE N: the KTAP of N suites loaded as modules by the guest's job, after the
# boot's own suites, with the one top-level header kunit.py expects. 6.12 prints a header of
# its own ("KTAP version 1", "1..1") at each module's load, 6.1 none: unindented header lines
# of the modules' part are dropped.
modules_ktap() {
	echo "[    0.000000] KTAP version 1"
	echo "[    0.000000] 1..$2"
	# (no module output at all is for kunit-results to report, not a reason to stop the test)
	sed -n '/init: running job/,$p' "$1" 2>/dev/null | grep -v '^init: ' |
		grep -vE '^\[ *[0-9.]+\] (KTAP version 1|1\.\.1)[[:space:]]*$' || true
}
