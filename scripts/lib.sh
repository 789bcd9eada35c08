# shellcheck shell=bash
# Shared by every host script: where the cache lives, how we report, how we fail.

PROJECT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${PERCPU_VMSTAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/percpu-vmstat}
# The Debian kernels the series exists for, oldest first: KERNEL=6.1|6.12 chooses one; its
# series is patches/$KERNEL/, its source Debian's linux-source-$KERNEL. The default stays 6.1
# until the 6.12 series has passed a whole make check from a fresh clone.
# shellcheck disable=SC2034 # used by the scripts that source this file
declare -a KERNELS=(6.1 6.12)
DEFAULT_KERNEL=6.1
KERNEL=${KERNEL:-$DEFAULT_KERNEL}
if [[ " ${KERNELS[*]} " != *" $KERNEL "* ]]; then
	printf '[%s] usage error: KERNEL=%s: the series exists for %s only\n' "$(basename "$0")" \
		"$KERNEL" "${KERNELS[*]}" >&2
	exit 2
fi
export KERNEL
SERIES_DIR=$PROJECT_ROOT/patches/$KERNEL
LINUX_TARBALL=${LINUX_TARBALL:-/usr/src/linux-source-$KERNEL.tar.xz}
# Everything built from one kernel's source lives in its own part of the cache. The cached
# source is a git repository: "pristine" is Debian's tree as shipped, the build worktree is
# pristine + the series, and a scratch worktree is where `git am` runs.
KERNEL_CACHE=$CACHE_DIR/kernel-$KERNEL
# shellcheck disable=SC2034 # used by the scripts that source this file
declare LINUX_REPO=$KERNEL_CACHE/linux LINUX_SCRATCH=$KERNEL_CACHE/linux-am PRISTINE_TAG=pristine

SCRIPT_NAME=$(basename "$0")

say() { printf '[%s] %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }

# Exit code convention for usage errors, shared with the analysis tools.
usage_error() { printf '[%s] usage error: %s (see --help)\n' "$SCRIPT_NAME" "$*" >&2; exit 2; }

# hash_files FILE...: one hash over names and contents, stable across runs.
hash_files() {
	local f
	for f in "$@"; do
		printf '%s\n' "$(basename "$f")"
		cat "$f"
	done | sha256sum | cut -c1-16
}

series_files() {
	find "$SERIES_DIR" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | sort
}

# Runs "$@" with its output in LOG, printing a heartbeat so long steps show progress.
# The heartbeat names the last line matching PROGRESS_RE (default: kbuild's "  CC" lines).
run_logged() {
	local log=$1 what=$2; shift 2
	local re=${PROGRESS_RE:-'^  [A-Z]'}
	local start=$SECONDS next=$((SECONDS + 20)) pid rc
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if ((SECONDS >= next)); then
			next=$((SECONDS + 20))
			say "$what: $((SECONDS - start))s, $(grep -cE "$re" "$log" || true) steps, last: $(grep -E "$re" "$log" | tail -n 1 | sed 's/^ *//')"
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	if (( rc != 0 )); then
		say "$what failed (exit $rc) after $((SECONDS - start))s; last lines of $log:"
		tail -n 25 "$log" >&2
		return "$rc"
	fi
	say "$what done in $((SECONDS - start))s (log: $log)"
}
