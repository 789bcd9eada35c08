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
